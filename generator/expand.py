"""Expansion: a family of the spec becomes its entry points, one per form (element type, size,
mem, C++ template) x variant (base, _on_queue, _work_group) x team overload, each with its
declaration, its host body (and device body, targets.py) and its test adapters (adapters.py). Also
the reference page's synopsis, the same declarations with TYPE, TYPENAME and SIZE left in."""
from __future__ import annotations

from dataclasses import dataclass

from .adapters import gpu_test_cases, host_test_case
from .check_code import hard_checks, soft_checks
from .model import EntryPoint, Family, Form, Param, statement
from .targets import DEVICE, HOST, HOST_BOUNDS, Target

VARIANT_SUFFIX = {"base": "", "on_queue": "_on_queue", "work_group": "_work_group"}
QUEUE_PARAMS = ("ishmem::queue& q", "const std::vector<ishmem::event>& deps = {}")
QUEUE_PARAMS_DEF = ("ishmem::queue& q", "const std::vector<ishmem::event>& deps")


# A generic template deduces T from its pointer parameters only. A value of the element type (the
# comparison value of a wait, the operand of an AMO, the value of a p) is a non-deduced context, so
# that ishmem_wait_until(&long_var, ISHMEM_CMP_EQ, 0) converts 0 to long instead of failing to
# deduce T as both long and int. The reference pages keep the shorter `T value` and say so.
NONDEDUCED_T = "std::type_identity_t<T>"


def _forms(fam: Family, sizes) -> list[Form]:
    if fam.table is None:
        return [Form("plain", "", "", "", False)]
    forms = [Form("typed", t.typename, t.ctype, t.ctype, False) for t in fam.table.types]
    if fam.sized:
        forms += [Form("sized", str(s), "void", f"ishmemi::sized_t<{s}>", True) for s in sizes]
    if fam.mem:
        forms.append(Form("mem", "mem", "void", "uint8_t", True))
    if fam.generic:
        forms.append(Form("generic", "", "T", "T", False, value_ctype=NONDEDUCED_T))
    return forms


def _name(fam: Family, form: Form, variant: str) -> str:
    prefix = fam.prefix if variant == "base" else "ishmemx"
    vs = VARIANT_SUFFIX[variant]
    if form.kind == "typed":
        return f"{prefix}_{form.tag}_{fam.root}{fam.suffix}{vs}"
    if form.kind in ("sized", "mem"):
        return f"{prefix}_{fam.root}{form.tag}{fam.suffix}{vs}"
    return f"{prefix}_{fam.symbol or fam.name}{vs}"


def _param_sig(p: Param, form: Form) -> str:
    """A parameter's type in the signature."""
    if p.type == "TYPE" and form.value_ctype:
        return form.value_ctype
    return form.subst(p.type, "sig")


def _core_args(fam: Family, form: Form) -> list[str]:
    args = ["team"] if fam.team else []
    for p in fam.params:
        if form.void_ptrs and "TYPE*" in p.type:
            args.append(f"static_cast<{form.subst(p.type, 'elem')}>({p.name})")
        else:
            args.append(p.name)
    return args


def _core_call(fam: Family, form: Form, variant: str, extra: list[str], target: Target) -> str:
    fn = fam.impl + ("_work_group" if variant == "work_group" else "")
    targs = f"<{form.elem}>" if form.elem else ""
    if variant == "work_group" and not form.elem:
        targs = ""
    return f"{target.core}{fn}{targs}({', '.join(_core_args(fam, form) + extra)})"


def _table_assert(fam: Family, form: Form, name: str) -> list[str]:
    if form.kind != "generic":
        return []
    return [f'static_assert(ishmemi::in_table_v<T, ishmemi::table_{fam.table.name}>, '
            f'"{name}: T is not one of the {fam.table.name} types");']


def expand_family(fam: Family, sizes) -> list[EntryPoint]:
    eps = []
    for form in _forms(fam, sizes):
        for variant in fam.variants:
            for team_form in ((False, True) if fam.team else (False,)):
                eps.append(_entry_point(fam, form, variant, team_form))
    return eps


def _checked_head(fam: Family, form: Form, variant: str, team_form: bool, name: str,
                  target: Target) -> tuple[list[str], list[tuple[str, str]], list[str]]:
    """The lines every body starts with (the template's table assertion, the routine's name, the
    world team, the hard checks), the hard checks as pairs, and the soft checks' conditions."""
    body = _table_assert(fam, form, name)
    hard = hard_checks(fam, form, target)
    # A _work_group form's work-items all find a failed status check; the leader alone reports it.
    soft = soft_checks(fam, form, team_form, "report_fn" if variant == "work_group" else "fn", target)
    if hard or soft:
        body.append(f'constexpr const char* fn = "{name}";')
    if fam.team and not team_form:
        body.append("constexpr ishmem_team_t team = ISHMEM_TEAM_WORLD;")
    return body + target.check_block(hard), hard, soft


def _call_body(fam: Family, form: Form, variant: str, team_form: bool, name: str, ret: str,
               target: Target) -> tuple[list[str], list[str]]:
    """The body of a base or _work_group form on target, and its soft checks' conditions."""
    body, _, soft = _checked_head(fam, form, variant, team_form, name, target)
    if soft:
        fail = "" if ret == "void" else " nullptr" if ret.endswith("*") else " -1"
        if variant == "work_group":
            body.append(f"const char* const report_fn = {target.core}group_leads(group) ? fn : nullptr;")
        body.append(f"if (!({' && '.join(soft)})) return{fail};")
    call = _core_call(fam, form, variant, ["group"] if variant == "work_group" else [], target)
    body.append(statement(ret, call))
    return body, soft


def _on_queue_body(fam: Family, form: Form, team_form: bool, name: str, base_ret: str,
                   t: Target) -> tuple[list[str], list[str]]:
    """The body of an _on_queue form on t (a host target), and its soft checks' conditions."""
    body, hard, soft = _checked_head(fam, form, "on_queue", team_form, name, t)
    call = _core_call(fam, form, "base", [], t)
    inner = f"*ret = {call};" if base_ret != "void" else f"{call};"
    if base_ret != "void":
        if not hard and not soft:
            body.append(f'constexpr const char* fn = "{name}";')
        body.append(f'{t.checks}check_nonnull(fn, "ret", ret, 1);')
    if soft:
        # The status reaches the caller through ret, in order with the queue's other work.
        failed = "*ret = -1;" if base_ret != "void" else ""
        body.append(f"if (!({' && '.join(soft)})) return {t.core}enqueue(q, deps, [=] {{ {failed} }});")
    if fam.on_stream:
        # The core queues the work on the stream or falls back to a task; ret (int families),
        # after the checks above, is set by the core.
        if base_ret not in ("void", "int"):
            raise ValueError(f"{name}: on_stream families return void or int")
        fn_q = f"{fam.impl}_on_queue"
        targs = f"<{form.elem}>" if form.elem else ""
        lead = ["q", "deps"] + (["ret"] if base_ret != "void" else [])
        body.append(f"return {t.core}{fn_q}{targs}({', '.join(lead + _core_args(fam, form))});")
    else:
        body.append(f"return {t.core}enqueue(q, deps, [=] {{ {inner} }});")
    return body, soft


def _entry_point(fam: Family, form: Form, variant: str, team_form: bool = False) -> EntryPoint:
    name = _name(fam, form, variant)
    base_ret = form.subst(fam.returns, "sig")
    params = [f"{_param_sig(p, form)} {p.name}" for p in fam.params]
    if team_form:
        params.insert(0, "ishmem_team_t team")
    ret = base_ret
    if variant == "work_group" and fam.work_group_returns:
        ret = fam.work_group_returns
    tparams = ["typename T"] if form.kind == "generic" else []
    device_body = ()
    if variant == "on_queue":
        body, soft = _on_queue_body(fam, form, team_form, name, base_ret, HOST)
        bounds = _on_queue_body(fam, form, team_form, name, base_ret, HOST_BOUNDS)[0]
        if base_ret != "void":
            params.append(f"{base_ret}* ret")
        params_def = params + list(QUEUE_PARAMS_DEF)
        params += list(QUEUE_PARAMS)
        ret = "ishmem::event"
    else:
        if variant == "work_group":
            params.append("const Group& group")
            tparams.append("typename Group")
        params_def = list(params)
        body, soft = _call_body(fam, form, variant, team_form, name, ret, HOST)
        bounds = _call_body(fam, form, variant, team_form, name, ret, HOST_BOUNDS)[0]
        if fam.cuda:
            device_body = tuple(_call_body(fam, form, variant, team_form, name, ret, DEVICE)[0])
    template = f"template <{', '.join(tparams)}>" if tparams else ""
    full_copy = not template and not fam.team and not soft and bounds != body
    header = "ishmem" if name.startswith("ishmem_") else "ishmemx"
    tests = ()
    if fam.test != "none":
        elems = [t.ctype for t in fam.table.types] if form.kind == "generic" else [form.elem]
        tests = tuple(host_test_case(fam, form, variant, name, ret if variant == "work_group" else fam.returns, e, team_form)
                      for e in elems)
    gpu_tests = ()
    if fam.test != "none" and fam.cuda:
        # A C++ template runs on the GPU for its table's first type only: its device definition is
        # the typed entry points' (which the GPU suite runs for every type) under a template, and
        # the host suite runs it for every type. This halves the GPU suite's compile time.
        gpu_elems = elems[:1] if form.kind == "generic" else elems
        gpu_tests = tuple(tc for e in gpu_elems for tc in gpu_test_cases(
            fam, form, variant, name, ret if variant == "work_group" else fam.returns, e, team_form))
    return EntryPoint(name=name, family=fam, variant=variant, team_form=team_form, form=form.kind, typename=form.tag,
                      elem=form.elem, header=header, template=template, ret=ret, params=tuple(params),
                      params_def=tuple(params_def), body=tuple(body), tests=tests, device_body=device_body,
                      gpu_tests=gpu_tests,
                      bounds_body=tuple(bounds) if full_copy else ())


# ---------------------------------------------------------------------------------------------
# Reference-page synopsis: the declarations of a family with TYPE/TYPENAME/SIZE left as placeholders.

@dataclass(frozen=True)
class SynopsisBlock:
    variant: str
    lines: tuple[str, ...]   # declarations, each preceded by its template line where it has one


def family_synopsis(fam: Family) -> list[SynopsisBlock]:
    forms = []
    if fam.table is None:
        forms.append(Form("plain", "", "", "", False))
    else:
        if fam.generic:
            forms.append(Form("generic", "", "T", "T", False))
        forms.append(Form("typed", "TYPENAME", "TYPE", "TYPE", False))
        if fam.sized:
            forms.append(Form("sized", "SIZE", "void", "ishmemi::sized_t<SIZE>", True))
        if fam.mem:
            forms.append(Form("mem", "mem", "void", "uint8_t", True))
    blocks = []
    for variant in fam.variants:
        lines = []
        for form in forms:
            for team_form in ((False, True) if fam.team else (False,)):
                ep = _entry_point(fam.__class__(**{**fam.__dict__, "test": "none"}), form, variant, team_form)
                if ep.template:
                    lines.append(ep.template)
                lines.append(ep.decl + ";")
        blocks.append(SynopsisBlock(variant, tuple(lines)))
    return blocks

