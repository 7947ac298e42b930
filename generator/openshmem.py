"""The OpenSHMEM mapping (shmem.h): OpenSHMEM 1.5 names over the library's C symbols, for the
families whose spec says `openshmem`. Each routine is a static inline function with OpenSHMEM's
signature that calls one C symbol; a shmem_ctx_ form passes its pe through the context's team. The
routines no family makes are openshmem_extra.py's."""
from __future__ import annotations

from dataclasses import dataclass

from .c_bindings import CMacro, arity_selector, generic_key, generic_selection
from .loader import SpecError
from .model import Api, EntryPoint, Family, statement


SHMEM_TYPE_NAMES = (("ishmem_team_config_t", "shmem_team_config_t"), ("ishmem_team_t", "shmem_team_t"),
                    ("ishmemx_ctx_t", "shmem_ctx_t"))


def _shmem_type(t: str) -> str:
    for ours, theirs in SHMEM_TYPE_NAMES:
        t = t.replace(ours, theirs)
    return t


def shmem_name(name: str, ctx: bool = False) -> str:
    """ishmem_int_put -> shmem_int_put (shmem_ctx_int_put); ishmemx_set_lock -> shmem_set_lock."""
    rest = name.split("_", 1)[1]
    return f"shmem_ctx_{rest}" if ctx else f"shmem_{rest}"


@dataclass(frozen=True)
class ShmemRoutine:
    name: str
    ret: str
    params: tuple[str, ...]
    call: str             # the body: one call of a C symbol (after SHMEMI_CALLED_AS where `starts`)
    target: EntryPoint
    ctx: bool

    @property
    def decl(self) -> str:
        return f"{self.ret} {self.name}({', '.join(self.params) or 'void'})"


def _pe_param(fam: Family) -> str:
    pes = [p.name for p in fam.params if any(c.kind == "pe" for c in p.checks)]
    if len(pes) != 1:
        raise SpecError([f"{fam.file}:{fam.line}: family '{fam.name}': a ctx form needs exactly one "
                         f"parameter with the pe check"])
    return pes[0]


def _openshmem_signature(ep: EntryPoint) -> tuple[list[str], list[str]]:
    """shmem.h's parameters and the arguments it passes on: a parameter OpenSHMEM spells otherwise
    (openshmem_type) is cast back to the library's type. A C++ template (OpenSHMEM 1.5 defines none)
    takes only the spellings that accept more: a const OpenSHMEM adds, not one it drops."""
    elem = ep.elem if ep.form == "typed" else "T" if ep.form == "generic" else "void"
    overrides = {p.name: p.openshmem_type.replace("TYPE", elem) for p in ep.family.params if p.openshmem_type
                 and not (ep.form == "generic" and "const" in p.type and "const" not in p.openshmem_type)}
    params, args = [], []
    for decl, name in zip(ep.params_def, ep.arg_names):
        ours = decl.rsplit(" ", 1)[0]
        if name in overrides:
            params.append(f"{_shmem_type(overrides[name])} {name}")
            args.append(f"({ours}){name}" if "const" in overrides[name] and "const" not in ours else name)
        else:
            params.append(_shmem_type(decl))
            args.append(name)
    return params, args


def _with_ctx(fam: Family, params: list[str], args: list[str], routine: str) -> tuple[list[str], list[str]]:
    """A shmem_ctx_ form's parameters (shmem_ctx_t ctx first) and arguments (pe through the context,
    checked there on behalf of routine)."""
    pe = _pe_param(fam)
    return ["shmem_ctx_t ctx"] + params, [f'shmemi_ctx_pe(ctx, {a}, "{routine}")' if a == pe else a for a in args]


def _shmem_routine(ep: EntryPoint, ctx: bool) -> ShmemRoutine:
    params, args = _openshmem_signature(ep)
    if ctx:
        params, args = _with_ctx(ep.family, params, args, shmem_name(ep.name, ctx))
    if "variadic" in ep.family.openshmem:
        params.append("...")
    call = f"{ep.c_name}({', '.join(args)})"
    name = shmem_name(ep.name, ctx)
    body = statement(ep.ret, call)
    if "starts" in ep.family.openshmem:  # the library learns that a shmem.h program starts it
        body = f'SHMEMI_CALLED_AS("{name}"); {body}'
    return ShmemRoutine(name, _shmem_type(ep.ret), tuple(params), body, ep, ctx)


def _openshmem_eps(api: Api) -> list[EntryPoint]:
    """The base-form entry points that shmem.h maps: for a family with a team overload, the team form."""
    return [ep for ep in api.entry_points if ep.family.openshmem and ep.variant == "base"
            and ep.team_form == ep.family.team]


def shmem_routines(api: Api) -> list[ShmemRoutine]:
    out = []
    for ep in _openshmem_eps(api):
        if ep.form == "generic":
            continue
        out.append(_shmem_routine(ep, False))
        if "ctx" in ep.family.openshmem:
            out.append(_shmem_routine(ep, True))
    return out


@dataclass(frozen=True)
class ShmemTemplate:
    """A C++ generic routine of shmem.h: a template that calls the ishmem template of the family."""
    template: str
    decl: str
    call: str


def shmem_generics(api: Api, routines: list[ShmemRoutine]) -> tuple[list[CMacro], list[ShmemTemplate]]:
    """C11 selections and C++ templates for the untyped shmem_ names; a ctx form is the same name
    with a shmem_ctx_t first (one more argument). The typed routines of spec/openshmem_extra.yaml
    (long double, complex, 16-bit waits) join the selections of the names they name as generic."""
    joins = api.openshmem_extra.generic_joins() if api.openshmem_extra else {}
    typed: dict[tuple[Family, bool], list[tuple[str, str]]] = {}
    for r in routines:
        if r.target.form == "typed":
            typed.setdefault((r.target.family, r.ctx), []).append((r.target.elem, r.name))
    macros, templates = [], []
    for ep in _openshmem_eps(api):
        if ep.form != "generic":
            continue
        name = shmem_name(ep.name)
        names = ep.arg_names
        key = names[generic_key(ep)]
        forms = [(False, names)] + ([(True, ["ctx"] + names)] if "ctx" in ep.family.openshmem else [])
        targets = []
        for ctx, args in forms:
            mname = name if len(forms) == 1 else f"ISHMEMI_OVL_{name}_{len(args)}"
            macros.append(generic_selection(mname, args, key, typed[(ep.family, ctx)] + joins.get((name, ctx), [])))
            targets.append((len(args), mname))
            params, call_args = _openshmem_signature(ep)
            if ctx:
                params, call_args = _with_ctx(ep.family, params, call_args, shmem_name(ep.name, True))
            templates.append(ShmemTemplate(ep.template, f"{_shmem_type(ep.ret)} {name}({', '.join(params)})",
                                           statement(ep.ret, f"{ep.name}({', '.join(call_args)})")))
        if len(forms) > 1:
            macros += arity_selector(name, targets, ep.family)
    return macros, templates
