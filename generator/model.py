"""The API model: families from the spec, expanded into concrete entry points (type x variant).

Templates only print fields of these dataclasses; every name, declaration and body is built here.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import checks
from .loader import RawSpec, SpecError

VARIANT_SUFFIX = {"base": "", "on_queue": "_on_queue", "work_group": "_work_group"}
QUEUE_PARAMS = ("ishmem::queue& q", "const std::vector<ishmem::event>& deps = {}")
QUEUE_PARAMS_DEF = ("ishmem::queue& q", "const std::vector<ishmem::event>& deps")


@dataclass(frozen=True)
class TypeEntry:
    ctype: str
    typename: str
    ops: tuple[str, ...] = ()


@dataclass(frozen=True)
class TypeTable:
    name: str
    doc: str
    types: tuple[TypeEntry, ...]


@dataclass(frozen=True)
class Check:
    kind: str
    args: tuple[str, ...] = ()


@dataclass(frozen=True)
class Param:
    name: str
    type: str
    doc: str
    checks: tuple[Check, ...] = ()
    openshmem_type: str = ""   # the type in shmem.h where OpenSHMEM 1.5 spells it otherwise


@dataclass(frozen=True)
class Family:
    name: str
    chapter: str
    prefix: str
    root: str
    suffix: str
    brief: str
    description: str
    table: TypeTable | None
    sized: bool
    mem: bool
    generic: bool
    variants: tuple[str, ...]
    callable: tuple[str, ...]
    returns: str
    returns_doc: str
    params: tuple[Param, ...]
    check_init: bool
    fetch_out: str | None
    impl: str
    test: str
    file: str
    line: int
    team: bool = False               # every variant also has an overload taking ishmem_team_t team first
    work_group_returns: str = ""     # the _work_group form's return type when it differs from the base's
    cuda: bool = False               # device-callable and run by the CUDA backend: device definitions emitted
    symbol: str = ""                 # the routine's name after the prefix; families sharing one are C++ overloads
    on_stream: bool = False          # _on_queue core is impl::<impl>_on_queue(q, deps, [ret,] ...): native on a CUDA stream
    openshmem: tuple[str, ...] = ()  # shmem.h forms that call it: base, ctx, variadic (see shmem_routines)
    example: str = ""                # the reference's example program, relative to the repository root

    @property
    def routine(self) -> str:
        """The base form's name, e.g. ishmem_put or ishmemx_print."""
        return f"{self.prefix}_{self.symbol or self.name}"

    @property
    def nondeduced_params(self) -> tuple[str, ...]:
        """The element-type parameters passed by value: the generic template does not deduce T from them."""
        return tuple(p.name for p in self.params if p.type == "TYPE") if self.generic else ()

    @property
    def heading(self) -> str:
        """The reference page's section title: the routine, and for a family that is an overload of
        another (its symbol is not its name) the parameters too, so that every title is unique."""
        if self.symbol in ("", self.name):
            return self.routine.upper()
        return f"{self.routine.upper()} ({', '.join(p.name for p in self.params)})"


_SYMMETRIC_CHECK = "ishmemi::check_symmetric("
_SYMMETRIC_BOUNDS = "ishmemi::check_symmetric_bounds("


@dataclass(frozen=True)
class EntryPoint:
    """One routine of the public API: a name, a declaration and the body that forwards to the core."""
    name: str
    family: Family
    variant: str          # base | on_queue | work_group
    team_form: bool       # the overload with ishmem_team_t team first (families with team: true)
    form: str             # plain | typed | sized | mem | generic
    typename: str         # TYPENAME, SIZE or '' (plain/mem/generic)
    elem: str             # element type the core template gets ('' for plain)
    header: str           # ishmem | ishmemx
    template: str         # 'template <typename Group>' or '' (non-template: defined in the library)
    ret: str
    params: tuple[str, ...]          # declaration parameters, with defaults
    params_def: tuple[str, ...]      # the same without default arguments
    body: tuple[str, ...]
    tests: tuple["TestCase", ...]    # generated test cases (one per type for C++ templates)
    device_body: tuple[str, ...] = ()  # the body compiled for CUDA device code ('' when not device-callable there)
    gpu_tests: tuple["TestCase", ...] = ()  # the same cases run by GPU code: in kernels, or on a CUDA stream

    # Whether the library's definition runs a separate copy under ISHMEM_CHECK=full (see stub_body):
    # for the one-sided routines with symmetric arguments, whose default path costs nanoseconds.
    # Collectives (families with a team overload, or that check a team) keep one body: next to a
    # collective the branch costs nothing, and a copy would only add code.
    full_copy: bool = False

    @property
    def arg_names(self) -> list[str]:
        """The parameter names, in order: the arguments of a call that passes every parameter on."""
        return [p.rsplit(" ", 1)[1] for p in self.params_def]

    @property
    def full_checked_body(self) -> tuple[str, ...]:
        """The library's copy of the body for ISHMEM_CHECK=full ('' without one): the body as it is,
        whose check_symmetric also checks the allocation."""
        return self.body if self.full_copy else ()

    @property
    def stub_body(self) -> tuple[str, ...]:
        """The library's definition: under ISHMEM_CHECK=full a tail call to the full-checked copy,
        else the body with the bounds checks alone. Only [[noreturn]] calls stay on the default
        path, so GCC saves no registers for a call that returns."""
        if not self.full_checked_body:
            return self.body
        args = ", ".join(self.arg_names)
        dispatch = (f"if (__builtin_expect(ishmemi::state.check_full, 0)) "
                    f"return full_checked::{self.name}({args});")
        return (dispatch,) + tuple(line.replace(_SYMMETRIC_CHECK, _SYMMETRIC_BOUNDS) for line in self.body)

    @property
    def decl(self) -> str:
        return f"{self.ret} {self.name}({', '.join(self.params)})"

    @property
    def definition_head(self) -> str:
        return f"{self.ret} {self.name}({', '.join(self.params_def)})"

    @property
    def is_template(self) -> bool:
        return bool(self.template)

    @property
    def c_name(self) -> str:
        """The symbol the library exports with C linkage ('' for the C++-only entry points: the
        templates, and the _on_queue forms with their queue and event types). Overloads of one C++
        name need symbols of their own: a team overload is <prefix>_team_<rest of the name>, a
        family that overloads another's symbol is <prefix>_<family name>. C++ calls them through an
        inline overload of the shared name (see forwards), C through a macro that picks by
        argument count (c_overload_macros)."""
        if self.template or self.variant == "on_queue":
            return ""
        if self.team_form:
            prefix, rest = self.name.split("_", 1)
            return f"{prefix}_team_{rest}"
        fam = self.family
        if fam.symbol not in ("", fam.name):
            return f"{fam.prefix}_{fam.name}"
        return self.name

    @property
    def c_decl(self) -> str:
        """The declaration of the C symbol, as C11 and C++ both read it."""
        return f"{self.ret} {self.c_name}({', '.join(self.params) or 'void'})"

    @property
    def forwards(self) -> bool:
        """Whether the C++ name is an inline overload that calls the C symbol."""
        return bool(self.c_name) and self.c_name != self.name

    @property
    def stub_head(self) -> str:
        """The head of the library's definition: under the C symbol where there is one."""
        return f"{self.ret} {self.c_name or self.name}({', '.join(self.params_def)})"

    @property
    def forward_call(self) -> str:
        return _statement(self.ret, f"{self.c_name}({', '.join(self.arg_names)})")

    @property
    def param_types(self) -> tuple[str, ...]:
        """The parameter types alone: what tells overloads of one name apart."""
        return tuple(p.rsplit(" ", 1)[0] for p in self.params_def)


@dataclass(frozen=True)
class TestCase:
    """A generated test: the family's pattern run over an adapter that calls one entry point."""
    label: str            # unique, e.g. ishmem_put<int>
    pattern: str          # ishmem_testing::patterns::<name>
    elem: str             # pattern's template argument ('' for untyped families)
    params: tuple[str, ...]
    ret: str
    body: tuple[str, ...]


@dataclass(frozen=True)
class Chapter:
    name: str
    title: str
    order: int
    intro: str
    file: str
    families: tuple[Family, ...]
    macro_groups: tuple["MacroGroup", ...] = ()   # constant tables the chapter's page shows first
    type_tables: tuple[TypeTable, ...] = ()       # type tables the chapter's page shows (with their ops)
    sections: tuple["Section", ...] = ()          # the page's sections of families; none: one flat list


@dataclass(frozen=True)
class Section:
    """A titled group of a chapter's families on its reference page (e.g. the reductions)."""
    name: str
    title: str
    intro: str
    families: tuple[Family, ...]


@dataclass(frozen=True)
class Macro:
    name: str
    value: str
    doc: str


@dataclass(frozen=True)
class MacroGroup:
    name: str
    title: str
    macros: tuple[Macro, ...]


@dataclass(frozen=True)
class Typedef:
    name: str
    doc: str
    decl: str
    header: str = "ishmem"   # ishmem: in constants.h, seen by both headers; ishmemx: in ishmemx.h only
    c_decl: str = ""         # the C11 spelling where decl is C++ only (same layout)


@dataclass(frozen=True)
class Api:
    tables: tuple[TypeTable, ...]
    sizes: tuple[int, ...]
    macro_groups: tuple[MacroGroup, ...]
    typedefs: tuple[Typedef, ...]
    chapters: tuple[Chapter, ...]
    entry_points: tuple[EntryPoint, ...] = field(default=())
    openshmem_macros: tuple[Macro, ...] = ()      # shmem.h's SHMEM_ macros
    openshmem_typedefs: tuple[Typedef, ...] = ()  # shmem.h's shmem_*_t
    openshmem_unsupported: tuple[tuple[tuple[str, ...], str], ...] = ()  # (name globs, reason)
    openshmem_extra: object = None   # generator.openshmem_extra.OpenshmemExtra: shmem.h routines no family makes

    def chapter_entry_points(self, chapter: str) -> list[EntryPoint]:
        return [ep for ep in self.entry_points if ep.family.chapter == chapter]

    def family_entry_points(self, family: Family) -> list[EntryPoint]:
        return [ep for ep in self.entry_points if ep.family is family]


# ---------------------------------------------------------------------------------------------
# Building the model from the validated documents, with the semantic checks the schema cannot do.

def _families(raw: RawSpec, tables: dict[str, TypeTable], groups: dict[str, "MacroGroup"],
              errors: list[str]) -> list[Chapter]:
    chapters = []
    seen_names: dict[str, str] = {}
    for rel, doc in raw.family_files:
        ch = doc["chapter"]
        fams = []
        for f in doc["families"]:
            where = f"{rel}:{f.line}: family '{f['name']}'"
            table = None
            if "types" in f:
                table = tables.get(f["types"])
                if table is None:
                    errors.append(f"{where}: unknown type table '{f['types']}' (known: {', '.join(sorted(tables))})")
                elif "type_op" in f:
                    # Only the types of the table that support the operation (e.g. and/or/xor reductions).
                    kept = tuple(t for t in table.types if f["type_op"] in t.ops)
                    if not kept:
                        errors.append(f"{where}: no type of table '{table.name}' supports '{f['type_op']}'")
                    table = TypeTable(table.name, table.doc, kept)
            params = []
            names = [p["name"] for p in f["params"]] + (["team"] if f.get("team") else [])
            for p in f["params"]:
                checks = []
                for c in p.get("checks", []):
                    if isinstance(c, str):
                        checks.append(Check(c))
                    else:
                        ((kind, arg),) = c.items()
                        args = tuple(arg) if isinstance(arg, list) else (arg,)
                        for a in args if kind != "flags" else ():  # flags: a C expression of macros
                            if not re.fullmatch(r"\d+", a) and a not in names:
                                errors.append(f"{rel}:{p.line}: family '{f['name']}': check '{kind}' of '{p['name']}' names unknown parameter '{a}'")
                        checks.append(Check(kind, args))
                if "TYPE" in p["type"] and "types" not in f:
                    errors.append(f"{rel}:{p.line}: family '{f['name']}': parameter '{p['name']}' uses TYPE but the family has no type table")
                params.append(Param(p["name"], p["type"], p["doc"], tuple(checks), p.get("openshmem_type", "")))
            if len(set(names)) != len(names) or (f.get("team") and "team" in [p["name"] for p in f["params"]]):
                errors.append(f"{where}: duplicate parameter names")
            for flag in ("sized", "mem", "generic"):
                if f.get(flag) and table is None:
                    errors.append(f"{where}: '{flag}' needs a type table")
            if f.get("generic") and not any(p.type.endswith("TYPE*") for p in params):
                errors.append(f"{where}: 'generic' needs a TYPE* parameter (the template deduces T from pointers only)")
            fetch_out = f.get("fetch_out")
            if fetch_out and fetch_out not in names:
                errors.append(f"{where}: fetch_out names unknown parameter '{fetch_out}'")
            callable_ = f["callable"]
            fam = Family(
                name=f["name"], chapter=ch["name"], prefix=f.get("prefix", "ishmem"),
                root=f.get("root", f["name"]), suffix=f.get("suffix", ""),
                brief=f["brief"].strip(), description=" ".join(f["description"].split()),
                table=table, sized=f.get("sized", False), mem=f.get("mem", False),
                generic=f.get("generic", False), variants=tuple(f.get("variants", ["base"])),
                callable=tuple([callable_] if isinstance(callable_, str) else callable_),
                returns=f["returns"]["type"], returns_doc=f["returns"].get("doc", "None."),
                params=tuple(params), check_init=f.get("check_init", True), fetch_out=fetch_out,
                impl=f.get("impl", f["name"]), test=f["test"], file=rel, line=f.line,
                team=f.get("team", False), work_group_returns=f.get("work_group_returns", ""),
                cuda="device" in callable_ and f.get("cuda", ch.get("cuda", True)),
                symbol=f.get("symbol", f["name"]), on_stream=f.get("on_stream", False),
                openshmem=tuple(f.get("openshmem", ())), example=f.get("example", ""))
            if fam.name in seen_names:
                errors.append(f"{where}: duplicate family, first defined at {seen_names[fam.name]}")
            seen_names[fam.name] = f"{rel}:{f.line}"
            if fam.root != fam.name and fam.root + fam.suffix != fam.name:
                errors.append(f"{where}: root '{fam.root}' + suffix '{fam.suffix}' must spell the name")
            if "symbol" in f and table is not None:
                errors.append(f"{where}: 'symbol' names a routine without a type table (typed entry points "
                              f"take their names from root and suffix)")
            fams.append(fam)
        shown = []
        for g in ch.get("constants", []):
            if g in groups:
                shown.append(groups[g])
            else:
                errors.append(f"{rel}:{ch.line}: chapter '{ch['name']}': unknown constant group '{g}' "
                              f"(known: {', '.join(groups)})")
        shown_tables = []
        for tn in ch.get("type_tables", []):
            if tn in tables:
                shown_tables.append(tables[tn])
            else:
                errors.append(f"{rel}:{ch.line}: chapter '{ch['name']}': unknown type table '{tn}'")
        chapters.append(Chapter(ch["name"], ch["title"], ch["order"], " ".join(ch["intro"].split()), rel,
                                tuple(fams), tuple(shown), tuple(shown_tables),
                                _sections(rel, ch, fams, errors)))
    chapters.sort(key=lambda c: (c.order, c.name))
    return chapters


def _sections(rel: str, ch, fams: list[Family], errors: list[str]) -> tuple[Section, ...]:
    """The chapter's sections, in spec order; when it has any, each family is in exactly one."""
    by_name = {f.name: f for f in fams}
    sections, placed = [], []
    for s in ch.get("sections", []):
        unknown = [n for n in s["families"] if n not in by_name]
        if unknown:
            errors.append(f"{rel}:{ch.line}: chapter '{ch['name']}': section '{s['name']}' names unknown "
                          f"families {', '.join(unknown)}")
        placed += s["families"]
        sections.append(Section(s["name"], s["title"], " ".join(s.get("intro", "").split()),
                                tuple(by_name[n] for n in s["families"] if n in by_name)))
    if sections and sorted(placed) != sorted(by_name):
        errors.append(f"{rel}:{ch.line}: chapter '{ch['name']}': every family must be in exactly one section "
                      f"(missing: {', '.join(sorted(set(by_name) - set(placed))) or 'none'}; "
                      f"repeated: {', '.join(sorted({n for n in placed if placed.count(n) > 1})) or 'none'})")
    return tuple(sections)


def build_api(raw: RawSpec) -> Api:
    errors: list[str] = []
    tables = {}
    for name, t in raw.types["tables"].items():
        tables[name] = TypeTable(name, " ".join(t["doc"].split()),
                                 tuple(TypeEntry(e["type"], e["typename"], tuple(e.get("ops", ()))) for e in t["types"]))
        seen = set()
        for e in t["types"]:
            if e["typename"] in seen:
                errors.append(f"{raw.types.file}:{e.line}: table '{name}': duplicate TYPENAME '{e['typename']}'")
            seen.add(e["typename"])
    groups = tuple(MacroGroup(g["name"], g["title"], tuple(Macro(m["name"], m["value"], m["doc"]) for m in g["macros"]))
                   for g in raw.constants["groups"])
    typedefs = tuple(Typedef(t["name"], t["doc"], t["decl"].rstrip(), t.get("header", "ishmem"),
                             t.get("c_decl", "").rstrip())
                     for t in raw.constants["typedefs"])
    chapters = _families(raw, tables, {g.name: g for g in groups}, errors)
    api = Api(tuple(tables.values()), tuple(raw.types["sizes"]), groups, typedefs, tuple(chapters))
    eps = []
    for ch in chapters:
        for fam in ch.families:
            eps += expand_family(fam, api.sizes)
    names: dict[tuple, list[EntryPoint]] = {}
    for ep in eps:
        key = (ep.name, ep.is_template, ep.team_form)  # a team overload shares its name with the world form
        for other in names.get(key, []):
            if not _overloads(ep.family, other.family):
                errors.append(f"{ep.family.file}:{ep.family.line}: entry point '{ep.name}' is produced twice "
                              f"(also by family '{other.family.name}')")
            elif ep.param_types == other.param_types:
                errors.append(f"{ep.family.file}:{ep.family.line}: family '{ep.family.name}': overload "
                              f"'{ep.decl}' has the parameter types of family '{other.family.name}'")
        names.setdefault(key, []).append(ep)
    symbols: dict[str, EntryPoint] = {ep.name: ep for ep in eps if not ep.forwards}
    for ep in eps if not errors else ():
        if ep.forwards and ep.c_name in symbols:
            errors.append(f"{ep.family.file}:{ep.family.line}: the C symbol '{ep.c_name}' of '{ep.decl}' is "
                          f"taken by family '{symbols[ep.c_name].family.name}'")
        elif ep.forwards:
            symbols[ep.c_name] = ep
    if errors:
        raise SpecError(errors)
    osh = raw.constants.get("openshmem", {"macros": [], "typedefs": []})
    from .openshmem_extra import build_extra  # (it uses this module's types)
    extra = build_extra(raw.openshmem_extra, tables) if raw.openshmem_extra is not None else None
    return Api(api.tables, api.sizes, groups, typedefs, api.chapters, tuple(eps),
               tuple(Macro(m["name"], m["value"], m["doc"]) for m in osh["macros"]),
               tuple(Typedef(t["name"], t["doc"], t["decl"].rstrip(), "shmem") for t in osh["typedefs"]),
               tuple((tuple(u["names"]), " ".join(u["reason"].split())) for u in osh.get("unsupported", ())), extra)


def _overloads(a: Family, b: Family) -> bool:
    """Whether two families are meant to be overloads of one routine: they have the same symbol and
    at least one of them chose it with the 'symbol' key (a name never becomes shared by accident)."""
    return a.symbol == b.symbol and (a.symbol != a.name or b.symbol != b.name)


# ---------------------------------------------------------------------------------------------
# Expansion of one family.

@dataclass(frozen=True)
class _Form:
    kind: str       # plain | typed | sized | mem | generic
    tag: str        # TYPENAME / SIZE / ''
    ctype: str      # what TYPE becomes in the signature
    elem: str       # the element type of the core template
    void_ptrs: bool # TYPE* is spelled void* in the signature
    value_ctype: str = ""  # what a by-value TYPE parameter becomes, when it differs from ctype


# A generic template deduces T from its pointer parameters only. A value of the element type (the
# comparison value of a wait, the operand of an AMO, the value of a p) is a non-deduced context, so
# that ishmem_wait_until(&long_var, ISHMEM_CMP_EQ, 0) converts 0 to long instead of failing to
# deduce T as both long and int. The reference pages keep the shorter `T value` and say so.
NONDEDUCED_T = "std::type_identity_t<T>"


def _forms(fam: Family, sizes) -> list[_Form]:
    if fam.table is None:
        return [_Form("plain", "", "", "", False)]
    forms = [_Form("typed", t.typename, t.ctype, t.ctype, False) for t in fam.table.types]
    if fam.sized:
        forms += [_Form("sized", str(s), "void", f"ishmemi::sized_t<{s}>", True) for s in sizes]
    if fam.mem:
        forms.append(_Form("mem", "mem", "void", "uint8_t", True))
    if fam.generic:
        forms.append(_Form("generic", "", "T", "T", False, value_ctype=NONDEDUCED_T))
    return forms


def _name(fam: Family, form: _Form, variant: str) -> str:
    prefix = fam.prefix if variant == "base" else "ishmemx"
    vs = VARIANT_SUFFIX[variant]
    if form.kind == "typed":
        return f"{prefix}_{form.tag}_{fam.root}{fam.suffix}{vs}"
    if form.kind in ("sized", "mem"):
        return f"{prefix}_{fam.root}{form.tag}{fam.suffix}{vs}"
    return f"{prefix}_{fam.symbol or fam.name}{vs}"


def _subst(ctype: str, form: _Form, target: str) -> str:
    """Replace TYPE in a spec type: target 'sig' for the signature, 'elem' for the core's element type."""
    if "TYPE" not in ctype:
        return ctype
    if target == "sig" and form.void_ptrs:
        return ctype.replace("TYPE", "void")
    return ctype.replace("TYPE", form.elem if target == "elem" else form.ctype)


def _param_sig(p: Param, form: _Form) -> str:
    """A parameter's type in the signature."""
    if p.type == "TYPE" and form.value_ctype:
        return form.value_ctype
    return _subst(p.type, form, "sig")


def _pointee(p: Param, form: _Form) -> str:
    t = _subst(p.type, form, "elem").replace("const ", "").strip()
    if not t.endswith("*"):
        return "char"
    base = t[:-1].strip()
    return "char" if base == "void" else base


def _check_ctx(p: Param, c: Check, form: _Form, fn: str = "fn") -> checks.Ctx:
    pointee = _pointee(p, form)
    return checks.Ctx(p.name, c.args, f"sizeof({pointee})", f"alignof({pointee})", fn)


def _check_lines(fam: Family, form: _Form) -> list[tuple[str, str]]:
    """The family's hard checks, in order, as (statement, predicate) pairs (generator/checks.py): the
    statement reports a failure and stops; the predicate (its ok_ twin, no report) is true when the
    check passes, and '' for a statement that is not a check (an output handle's reset)."""
    lines = []
    if fam.check_init:
        lines.append(("ishmemi::check_init(fn);", "ishmemi::ok_init()"))
    for p in fam.params:
        for c in p.checks:
            kind = checks.BY_NAME.get(c.kind)
            if kind is None:  # the loader validates kinds against the same table; a guard all the same
                raise SpecError([f"{fam.file}:{fam.line}: family '{fam.name}': no code for check '{c.kind}'"])
            if kind.hard:
                lines.append(kind.hard(_check_ctx(p, c, form)))
    return lines


def _fused_checks(checks: list[tuple[str, str]]) -> list[str]:
    """The device form of the checks: every predicate, joined by & so that the compiler evaluates
    them without branches, then one branch, taken only when one fails, to the reports in their usual
    order (the first failing one stops the kernel), then a call that never returns, so that the
    compiler joins no paths after the branch. On the path that passes: one compare-and-branch
    instead of one per check (separate branches took about a third of a small warp put's time).
    Checks with a statement that is not a check stay as they are."""
    if len(checks) < 2 or any(not ok for _, ok in checks):
        return [line for line, _ in checks]
    return ([f"if (__builtin_expect(!({' & '.join(ok for _, ok in checks)}), 0)) {{"]
            + [f"    {line}" for line, _ in checks] + ["    ishmemi::dev::fail_unreported(fn);", "}"])


def _soft_checks(fam: Family, form: _Form, team_form: bool, fn: str = "fn") -> list[str]:
    """The status checks as conditions (generator/checks.py's soft kinds: a bad team is an ordinary
    runtime condition, reported through the routine's status after the message); fn names the
    routine in their reports (a null one reports nothing: a _work_group form's work-items other than
    the leader)."""
    conds = []
    if team_form:  # the world forms pass ISHMEM_TEAM_WORLD, valid whenever the library is initialized
        conds.append(f"ishmemi::check_team({fn}, team)")
    for p in fam.params:
        for c in p.checks:
            kind = checks.BY_NAME[c.kind]
            if kind.soft:
                conds.append(kind.soft(_check_ctx(p, c, form, fn)))
    return conds


def _core_args(fam: Family, form: _Form) -> list[str]:
    args = ["team"] if fam.team else []
    for p in fam.params:
        if form.void_ptrs and "TYPE*" in p.type:
            args.append(f"static_cast<{_subst(p.type, form, 'elem')}>({p.name})")
        else:
            args.append(p.name)
    return args


def _statement(ret: str, call: str) -> str:
    """A body's one statement: the call, returned unless the routine returns void."""
    return f"return {call};" if ret != "void" else f"{call};"


def _core_call(fam: Family, form: _Form, variant: str, extra: list[str]) -> str:
    fn = fam.impl + ("_work_group" if variant == "work_group" else "")
    targs = f"<{form.elem}>" if form.elem else ""
    if variant == "work_group" and not form.elem:
        targs = ""
    return f"ishmemi::impl::{fn}{targs}({', '.join(_core_args(fam, form) + extra)})"


def _table_assert(fam: Family, form: _Form, name: str) -> list[str]:
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


def _entry_point(fam: Family, form: _Form, variant: str, team_form: bool = False) -> EntryPoint:
    name = _name(fam, form, variant)
    base_ret = _subst(fam.returns, form, "sig")
    params = [f"{_param_sig(p, form)} {p.name}" for p in fam.params]
    if team_form:
        params.insert(0, "ishmem_team_t team")
    ret = base_ret
    if variant == "work_group" and fam.work_group_returns:
        ret = fam.work_group_returns
    tparams = ["typename T"] if form.kind == "generic" else []
    body = _table_assert(fam, form, name)
    check_pairs = _check_lines(fam, form)
    checks = [line for line, _ in check_pairs]
    # A _work_group form's work-items all find a failed status check; the leader alone reports it.
    soft = _soft_checks(fam, form, team_form, "report_fn" if variant == "work_group" else "fn")
    if checks or soft:
        body.append(f'constexpr const char* fn = "{name}";')
    if fam.team and not team_form:
        body.append("constexpr ishmem_team_t team = ISHMEM_TEAM_WORLD;")
    first_check = len(body)
    body += checks
    if soft and variant != "on_queue":
        fail = "" if ret == "void" else " nullptr" if ret.endswith("*") else " -1"
        if variant == "work_group":
            body.append("const char* const report_fn = ishmemi::impl::group_leads(group) ? fn : nullptr;")
        body.append(f"if (!({' && '.join(soft)})) return{fail};")
    if variant == "base":
        call = _core_call(fam, form, variant, [])
        body.append(_statement(ret, call))
        params_def = list(params)
    elif variant == "on_queue":
        if base_ret != "void":
            params.append(f"{base_ret}* ret")
        params_def = params + list(QUEUE_PARAMS_DEF)
        params += list(QUEUE_PARAMS)
        ret = "ishmem::event"
        call = _core_call(fam, form, "base", [])
        inner = f"*ret = {call};" if base_ret != "void" else f"{call};"
        if base_ret != "void":
            if not checks and not soft:
                body.append(f'constexpr const char* fn = "{name}";')
            body.append('ishmemi::check_nonnull(fn, "ret", ret, 1);')
        if soft:
            # The status reaches the caller through ret, in order with the queue's other work.
            failed = "*ret = -1;" if base_ret != "void" else ""
            body.append(f"if (!({' && '.join(soft)})) return ishmemi::impl::enqueue(q, deps, [=] {{ {failed} }});")
        if fam.on_stream:
            # The core queues the work on the stream or falls back to a task; ret (int families),
            # after the checks above, is set by the core.
            if base_ret not in ("void", "int"):
                raise ValueError(f"{name}: on_stream families return void or int")
            fn_q = f"{fam.impl}_on_queue"
            targs = f"<{form.elem}>" if form.elem else ""
            lead = ["q", "deps"] + (["ret"] if base_ret != "void" else [])
            body.append(f"return ishmemi::impl::{fn_q}{targs}({', '.join(lead + _core_args(fam, form))});")
        else:
            body.append(f"return ishmemi::impl::enqueue(q, deps, [=] {{ {inner} }});")
    else:
        params.append("const Group& group")
        params_def = list(params)
        tparams.append("typename Group")
        call = _core_call(fam, form, variant, ["group"])
        body.append(_statement(ret, call))
    template = f"template <{', '.join(tparams)}>" if tparams else ""
    header = "ishmem" if name.startswith("ishmem_") else "ishmemx"
    device_body = ()
    if fam.cuda and variant != "on_queue":
        fused = body[:first_check] + _fused_checks(check_pairs) + body[first_check + len(checks):]
        device_body = tuple(_device_line(line) for line in fused)
    tests = ()
    if fam.test != "none":
        elems = [t.ctype for t in fam.table.types] if form.kind == "generic" else [form.elem]
        tests = tuple(_test_case(fam, form, variant, name, ret if variant == "work_group" else fam.returns, e, team_form)
                      for e in elems)
    gpu_tests = ()
    if fam.test != "none" and fam.cuda:
        # A C++ template runs on the GPU for its table's first type only: its device definition is
        # the typed entry points' (which the GPU suite runs for every type) under a template, and
        # the host suite runs it for every type. This halves the GPU suite's compile time.
        gpu_elems = elems[:1] if form.kind == "generic" else elems
        gpu_tests = tuple(tc for e in gpu_elems for tc in _gpu_test_cases(
            fam, form, variant, name, ret if variant == "work_group" else fam.returns, e, team_form))
    return EntryPoint(name=name, family=fam, variant=variant, team_form=team_form, form=form.kind, typename=form.tag,
                      elem=form.elem, header=header, template=template, ret=ret, params=tuple(params),
                      params_def=tuple(params_def), body=tuple(body), tests=tests, device_body=device_body,
                      gpu_tests=gpu_tests,
                      full_copy=not template and not fam.team and not soft and any(_SYMMETRIC_CHECK in line for line in body))


# The device body is the host body with the checks and the core call taken from ishmemi::dev, the
# device half of the core (runtime/include/ishmem/cuda/device.cuh), which has the same names.
_DEVICE_NAMES = (("ishmemi::impl::", "ishmemi::dev::"), ("ishmemi::check_", "ishmemi::dev::check_"),
                 ("ishmemi::ok_", "ishmemi::dev::ok_"),
                 ("ishmemi::strided_extent", "ishmemi::dev::strided_extent"),
                 ("ishmemi::blocked_extent", "ishmemi::dev::blocked_extent"),
                 ("ishmemi::team_size_or_zero", "ishmemi::dev::team_size_or_zero"),
                 ("ishmemi::mul_size", "ishmemi::dev::mul_size"))
# (ishmemi::impl::group_leads becomes ishmemi::dev::group_leads by the first pair.)


def _device_line(line: str) -> str:
    for host, device in _DEVICE_NAMES:
        line = line.replace(host, device)
    if "ishmemi::" in line.replace("ishmemi::dev::", "").replace("ishmemi::sized_t", "").replace("ishmemi::in_table_v", "").replace("ishmemi::table_", ""):
        raise SpecError([f"device body line names a host-only part of the core: {line}"])
    return line


def _adapter_signature(fam: Family, form: _Form, elem: str, team_form: bool, base_ret: str):
    """The adapter's parameters, the entry point's arguments (fetch outputs go to `fetched`) and the
    adapter's return type: the base form's signature with TYPE = elem."""
    ftest = _Form(form.kind, form.tag, elem, elem, False)
    params, args = (["ishmem_team_t team"], ["team"]) if team_form else ([], [])
    for p in fam.params:
        if p.name == fam.fetch_out:
            args.append("&fetched")
            continue
        params.append(f"{_subst(p.type, ftest, 'sig')} {p.name}")
        args.append(p.name)
    ret = _subst(base_ret, ftest, "sig") if not fam.fetch_out else elem
    return params, args, ret


def _test_label(form: _Form, name: str, elem: str, team_form: bool) -> str:
    label = f"{name}<{elem}>" if form.kind == "generic" else name
    return label + "(team)" if team_form else label


def _test_case(fam: Family, form: _Form, variant: str, name: str, base_ret: str, elem: str,
               team_form: bool = False) -> TestCase:
    """A lambda with the base form's signature (TYPE = element type) that calls this entry point.

    Generated tests hand it to the family's hand-written pattern, which checks the semantics; the
    adapter hides what differs between variants (queue, group, fetch buffer)."""
    params, args, ret = _adapter_signature(fam, form, elem, team_form, base_ret)
    body = []
    if fam.fetch_out:
        body.append(f"{elem} fetched{{}};")
    if variant == "on_queue":
        body += _on_queue_call(name, args, base_ret, ret, "ishmem::queue q;")
    elif variant == "work_group":
        call = f"{name}({', '.join(args + ['group'])})"
        if base_ret != "void":
            body.append(f"return ishmem_testing::run_in_group_returning(ishmem_testing::group_size_for_tests, [&](const auto& group) {{ return {call}; }});")
        else:
            body.append(f"ishmem_testing::run_in_group(ishmem_testing::group_size_for_tests, [&](const auto& group) {{ {call}; }});")
    else:
        call = f"{name}({', '.join(args)})"
        if fam.fetch_out:
            body.append(f"{call};")
        else:
            body.append(_statement(base_ret, call))
    if fam.fetch_out:
        body += ["ishmem_quiet();", "return fetched;"]
    return TestCase(_test_label(form, name, elem, team_form), f"ishmem_testing::patterns::{fam.test}", elem,
                    tuple(params), ret, tuple(body))


def _on_queue_call(name: str, args: list[str], base_ret: str, ret: str, make_queue: str) -> list[str]:
    body = [make_queue]
    if base_ret != "void":
        body.append(f"{ret} result{{}};")
        args = args + ["&result"]
    body.append(f"{name}({', '.join(args + ['q'])}).wait();")
    if base_ret != "void":
        body.append("return result;")
    return body


# Where a generated GPU case runs the entry point: (label suffix, runner) per variant. Device calls
# run in a kernel of one thread, of one block (96 threads: three warps) or of one warp tile; the
# _on_queue form runs on a CUDA stream. The runners live in tests/gpu/device_adapters.h.
_GPU_RUNS = {"base": (("thread", "ishmem_gpu_testing::on_thread"),),
             "work_group": (("block", "ishmem_gpu_testing::on_block"), ("warp", "ishmem_gpu_testing::on_warp")),
             "on_queue": (("stream", ""),)}


def _gpu_test_cases(fam: Family, form: _Form, variant: str, name: str, base_ret: str, elem: str,
                    team_form: bool) -> list[TestCase]:
    """The adapters of the GPU suite: the same pattern and signature as _test_case, with the call made
    by device code in a kernel (device-callable families) or on a CUDA stream (_on_queue)."""
    if variant != "on_queue" and "device" not in fam.callable:
        return []
    params, args, ret = _adapter_signature(fam, form, elem, team_form, base_ret)
    label = _test_label(form, name, elem, team_form)
    cases = []
    for where, runner in _GPU_RUNS[variant]:
        if variant == "on_queue":
            body = [f"{elem} fetched{{}};"] if fam.fetch_out else []
            body += _on_queue_call(name, args, base_ret, ret, "ishmem::queue q(ishmem_gpu_testing::test_stream());")
            if fam.fetch_out:
                body += ["ishmem_quiet();", "return fetched;"]
        else:
            group = "group" if variant == "work_group" else ""
            call = f"{name}({', '.join(args + ([group] if group else []))})"
            if fam.fetch_out:
                inner = f"{elem} fetched{{}}; {call}; ishmem_quiet(); return fetched;"
            else:
                inner = _statement(base_ret, call)
            lam = f"[=] __device__ ({'const auto& group' if group else ''}) {{ {inner} }}"
            body = [f"return {runner}<{ret}>({lam});"]
        cases.append(TestCase(f"{label} [{where}]", f"ishmem_testing::patterns::{fam.test}", elem, tuple(params),
                              ret, tuple(body)))
    return cases


# ---------------------------------------------------------------------------------------------
# Reference-page synopsis: the declarations of a family with TYPE/TYPENAME/SIZE left as placeholders.

@dataclass(frozen=True)
class SynopsisBlock:
    variant: str
    lines: tuple[str, ...]   # declarations, each preceded by its template line where it has one


def family_synopsis(fam: Family) -> list[SynopsisBlock]:
    forms = []
    if fam.table is None:
        forms.append(_Form("plain", "", "", "", False))
    else:
        if fam.generic:
            forms.append(_Form("generic", "", "T", "T", False))
        forms.append(_Form("typed", "TYPENAME", "TYPE", "TYPE", False))
        if fam.sized:
            forms.append(_Form("sized", "SIZE", "void", "ishmemi::sized_t<SIZE>", True))
        if fam.mem:
            forms.append(_Form("mem", "mem", "void", "uint8_t", True))
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


# ---------------------------------------------------------------------------------------------
# C: what the C++ overloads and templates become in C11. A C compilation sees the C symbols only;
# a name with several C++ overloads becomes a macro that picks one by argument count, and a C++
# template becomes a macro that picks the typed routine by _Generic on its first TYPE* argument.

# What each fixed-width and library typedef of the type tables is on LP64 Linux: _Generic keys must be
# pairwise incompatible, so a table's int64_t and long (one type there) get one association. The C
# header asserts these equalities, so that a platform where they do not hold fails to compile.
LP64_BASIC_TYPE = {
    "int8_t": "signed char", "int16_t": "short", "int32_t": "int", "int64_t": "long",
    "uint8_t": "unsigned char", "uint16_t": "unsigned short", "uint32_t": "unsigned int",
    "uint64_t": "unsigned long", "size_t": "unsigned long", "ptrdiff_t": "long",
}


@dataclass(frozen=True)
class CMacro:
    name: str
    params: str            # the macro's parameter list, e.g. "dest, source, nelems, pe" or "..."
    body: tuple[str, ...]  # the replacement, one line per association


def _arity(ep: EntryPoint) -> int:
    return len(ep.params_def)


def _generic_selection(name: str, names: list[str], key: str, typed: list[tuple[str, str]]) -> CMacro:
    """_Generic over the element type of the argument `key`; typed: (element type, routine) pairs.
    *(key) drops the qualifiers of a const T* argument (lvalue conversion) and is never evaluated."""
    seen: dict[str, str] = {}
    # Basic types first, so that an association names ishmem_long_put rather than ishmem_int64_put.
    for elem, routine in sorted(typed, key=lambda t: t[0] in LP64_BASIC_TYPE):
        seen.setdefault(LP64_BASIC_TYPE.get(elem, elem), routine)
    assoc = [f"{ctype}: {routine}" for ctype, routine in seen.items()]
    body = (f"_Generic(*({key}),",) + tuple(f"{a}," for a in assoc[:-1]) + (
        f"{assoc[-1]})({', '.join(names)})",)
    return CMacro(name, ", ".join(names), body)


def _generic_key(ep: EntryPoint) -> int:
    """The index of the argument a generic selection keys on: the first TYPE* parameter."""
    first = next(i for i, p in enumerate(ep.family.params) if p.type.endswith("TYPE*"))
    return first + (1 if ep.team_form else 0)


def _generic_macro(name: str, ep: EntryPoint, typed: list[EntryPoint]) -> CMacro:
    names = ep.arg_names
    return _generic_selection(name, names, names[_generic_key(ep)], [(t.elem, t.c_name) for t in typed])


def c_macros(eps: list[EntryPoint]) -> list[CMacro]:
    """The C macros of one header's entry points: overload selectors and generic selections."""
    base = [ep for ep in eps if ep.variant == "base"]
    by_name: dict[str, list[EntryPoint]] = {}
    for ep in base:
        if ep.c_name or ep.form == "generic":
            by_name.setdefault(ep.name, []).append(ep)
    macros = []
    for name, group in by_name.items():
        targets = []  # (arity, macro or C symbol)
        for ep in group:
            if ep.form == "generic":
                typed = [t for t in base if t.family is ep.family and t.form == "typed" and t.team_form == ep.team_form]
                mname = name if len(group) == 1 else f"ISHMEMI_OVL_{name}_{_arity(ep)}"
                macros.append(_generic_macro(mname, ep, typed))
                targets.append((_arity(ep), mname))
            else:
                targets.append((_arity(ep), ep.c_name))
        if len(group) > 1:
            macros += _arity_selector(name, targets, group[0].family)
    return macros


def _arity_selector(name: str, targets: list[tuple[int, str]], fam: Family) -> list[CMacro]:
    """`name(...)` calling targets[i] by the number of arguments; a target that is itself a macro
    (ISHMEMI_OVL_<name>_<arity>) is defined by the caller."""
    arities = [a for a, _ in targets]
    if len(set(arities)) != len(arities):
        raise SpecError([f"{fam.file}:{fam.line}: overloads of '{name}' have the same "
                         f"number of parameters: C cannot tell them apart"])
    macros = [CMacro(name, "...", (f"ISHMEMI_OVERLOAD({name}, __VA_ARGS__)",))]
    for arity, target in sorted(targets):
        if target != f"ISHMEMI_OVL_{name}_{arity}":
            macros.append(CMacro(f"ISHMEMI_OVL_{name}_{arity}", "", (target,)))
    return macros


# ---------------------------------------------------------------------------------------------
# shmem.h: OpenSHMEM 1.5 names over the library's C symbols, for the families whose spec says
# `openshmem`. Each routine is a static inline function with OpenSHMEM's signature that calls one
# C symbol; a shmem_ctx_ form passes its pe through the context's team.

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
    call: str             # the body: one call of a C symbol
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
    return ShmemRoutine(shmem_name(ep.name, ctx), _shmem_type(ep.ret), tuple(params),
                        _statement(ep.ret, call), ep, ctx)


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
        key = names[_generic_key(ep)]
        forms = [(False, names)] + ([(True, ["ctx"] + names)] if "ctx" in ep.family.openshmem else [])
        targets = []
        for ctx, args in forms:
            mname = name if len(forms) == 1 else f"ISHMEMI_OVL_{name}_{len(args)}"
            macros.append(_generic_selection(mname, args, key, typed[(ep.family, ctx)] + joins.get((name, ctx), [])))
            targets.append((len(args), mname))
            params, call_args = _openshmem_signature(ep)
            if ctx:
                params, call_args = _with_ctx(ep.family, params, call_args, shmem_name(ep.name, True))
            templates.append(ShmemTemplate(ep.template, f"{_shmem_type(ep.ret)} {name}({', '.join(params)})",
                                           _statement(ep.ret, f"{ep.name}({', '.join(call_args)})")))
        if len(forms) > 1:
            macros += _arity_selector(name, targets, ep.family)
    return macros, templates
