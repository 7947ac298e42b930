"""C bindings: what the C++ overloads and templates become in C11. A C compilation sees the C
symbols only; a name with several C++ overloads becomes a macro that picks one by argument count,
and a C++ template becomes a macro that picks the typed routine by _Generic on its first TYPE*
argument."""
from __future__ import annotations

from dataclasses import dataclass

from .loader import SpecError
from .model import EntryPoint, Family


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


def generic_selection(name: str, names: list[str], key: str, typed: list[tuple[str, str]]) -> CMacro:
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


def generic_key(ep: EntryPoint) -> int:
    """The index of the argument a generic selection keys on: the first TYPE* parameter."""
    first = next(i for i, p in enumerate(ep.family.params) if p.type.endswith("TYPE*"))
    return first + (1 if ep.team_form else 0)


def _generic_macro(name: str, ep: EntryPoint, typed: list[EntryPoint]) -> CMacro:
    names = ep.arg_names
    return generic_selection(name, names, names[generic_key(ep)], [(t.elem, t.c_name) for t in typed])


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
            macros += arity_selector(name, targets, group[0].family)
    return macros


def arity_selector(name: str, targets: list[tuple[int, str]], fam: Family) -> list[CMacro]:
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
