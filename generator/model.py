"""The API model: the dataclasses every later stage reads and templates print (the spec's tables,
families, chapters and constants; the entry points expansion makes of them; the generated tests).
They hold data and what follows from it alone; the modules that build them are expand.py (entry
points), build.py (the model from the spec) and the per-target ones named in generator/__init__.py.
"""
from __future__ import annotations

from dataclasses import dataclass, field

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


@dataclass(frozen=True)
class Form:
    """How one entry point of a family spells the element type: one type of the table, one size,
    the untyped mem form, the C++ template, or none (plain)."""
    kind: str       # plain | typed | sized | mem | generic
    tag: str        # TYPENAME / SIZE / ''
    ctype: str      # what TYPE becomes in the signature
    elem: str       # the element type of the core template
    void_ptrs: bool # TYPE* is spelled void* in the signature
    value_ctype: str = ""  # what a by-value TYPE parameter becomes, when it differs from ctype

    def subst(self, ctype: str, target: str) -> str:
        """Replace TYPE in a spec type: target 'sig' for the signature, 'elem' for the core's element type."""
        if "TYPE" not in ctype:
            return ctype
        if target == "sig" and self.void_ptrs:
            return ctype.replace("TYPE", "void")
        return ctype.replace("TYPE", self.elem if target == "elem" else self.ctype)


def statement(ret: str, call: str) -> str:
    """A body's one statement: the call, returned unless the routine returns void."""
    return f"return {call};" if ret != "void" else f"{call};"


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

    # The library's default path where it runs a separate copy under ISHMEM_CHECK=full (see
    # stub_body): the body with the symmetric-heap checks of the bounds alone, for the one-sided
    # routines with symmetric arguments, whose default path costs nanoseconds. Collectives (families
    # with a team overload, or that check a team) keep one body: next to a collective the branch
    # costs nothing, and a copy would only add code.
    bounds_body: tuple[str, ...] = ()

    @property
    def arg_names(self) -> list[str]:
        """The parameter names, in order: the arguments of a call that passes every parameter on."""
        return [p.rsplit(" ", 1)[1] for p in self.params_def]

    @property
    def full_copy(self) -> bool:
        return bool(self.bounds_body)

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
        return (dispatch,) + self.bounds_body

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
        argument count (c_bindings.c_macros)."""
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
        return statement(self.ret, f"{self.c_name}({', '.join(self.arg_names)})")

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
