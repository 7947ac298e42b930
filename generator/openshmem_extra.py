"""shmem.h's routines that no family makes (spec/openshmem_extra.yaml): OpenSHMEM 1.5's deprecated
routines and constants, and its long double and complex routines. Each entry is a C declaration
and a body with placeholders, expanded over a type table, an operator list or element sizes."""
from __future__ import annotations

import re
from dataclasses import dataclass

from .c_bindings import LP64_BASIC_TYPE
from .loader import SpecError
from .model import Macro

OP_NAMES = ("and", "or", "xor", "max", "min", "sum", "prod")


@dataclass(frozen=True)
class ExtraRoutine:
    name: str          # what the program calls (shmem_sync for the active-set form)
    symbol: str        # the inline function's name (differs only where C dispatches by argument count)
    ret: str
    params: tuple[str, ...]      # C spellings
    cxx_params: tuple[str, ...]  # C++ spellings (std::complex for _Complex)
    cxx_ret: str
    body: str
    doc: str
    since: str         # '' for a routine that is not deprecated
    instead: str
    generic: str       # C11 generic name it joins ('' for none)
    elem: str          # the element type (C spelling) for the generic selection
    pattern: str       # the unexpanded declaration, for the reference page

    @property
    def decl(self) -> str:
        return f"{self.ret} {self.symbol}({', '.join(self.params) or 'void'})"

    @property
    def cxx_decl(self) -> str:
        return f"{self.cxx_ret} {self.symbol}({', '.join(self.cxx_params) or 'void'})"

    @property
    def cxx_differs(self) -> bool:
        return self.cxx_decl != self.decl

    @property
    def named_body(self) -> str:
        """The body, naming this routine in the library's messages while it forwards to another
        shmem_ or ishmem routine (shmem_long_finc, not shmem_long_atomic_fetch_inc). A body that
        passes a routine name itself (a quoted string) or calls no routine is left as it is."""
        if not self.body or '"' in self.body or "shmem" not in self.body:
            return self.body
        return f'SHMEMI_CALLED_AS("{self.symbol}"); {self.body}'

    @property
    def arg_names(self) -> list[str]:
        return [re.split(r"[\s*]+", p.strip())[-1] for p in self.params]

    @property
    def twin(self) -> str:
        """What a C11 generic selection names for a deprecated routine: a copy without the
        deprecation, since GCC warns for every association of a selection, chosen or not."""
        return "shmemi_" + self.symbol[len("shmem_"):] if self.since else self.symbol

    @property
    def twin_decl(self) -> str:
        return f"{self.ret} {self.twin}({', '.join(self.params) or 'void'})"

    @property
    def attribute(self) -> str:
        if not self.since:
            return ""
        use = f"; use {self.instead}" if self.instead else ""
        return f'ISHMEMI_DEPRECATED("deprecated in OpenSHMEM {self.since}{use}") '


@dataclass(frozen=True)
class ExtraGroup:
    title: str
    since: str
    patterns: tuple[tuple[str, str], ...]   # (declaration pattern, doc) in spec order
    routines: tuple[ExtraRoutine, ...]


@dataclass(frozen=True)
class OpenshmemExtra:
    macros: tuple[Macro, ...]
    groups: tuple[ExtraGroup, ...]

    @property
    def routines(self) -> list[ExtraRoutine]:
        return [r for g in self.groups for r in g.routines]

    def c_dispatch(self) -> list[tuple[str, str]]:
        """(name, symbol) of the routines whose C name is a macro counting its arguments."""
        return [(r.name, r.symbol) for r in self.routines if r.name != r.symbol]

    def generic_selections(self, existing: set[str]) -> dict[str, list[tuple[str, str]]]:
        """{generic name: [(element type, routine)]} of the generic names no family makes (the
        deprecated shmem_fadd, ...), each element type once (LP64: int64_t is long)."""
        out: dict[str, list[tuple[str, str]]] = {}
        for r in self.routines:
            if r.generic and r.generic not in existing and not r.symbol.startswith("shmem_ctx_"):
                out.setdefault(r.generic, []).append((r.elem, r.twin))
        return out

    def generic_joins(self) -> dict[tuple[str, bool], list[tuple[str, str]]]:
        """{(generic name, ctx form): [(element type, routine)]}: what joins a family's selection."""
        out: dict[tuple[str, bool], list[tuple[str, str]]] = {}
        for r in self.routines:
            if r.generic:
                out.setdefault((r.generic, r.symbol.startswith("shmem_ctx_")), []).append((r.elem, r.symbol))
        return out

    def cxx_overloads(self) -> list[ExtraRoutine]:
        """The routines that C++ also calls by their generic name: one overload per distinct type."""
        seen: set[tuple[str, str]] = set()
        out = []
        for r in sorted((r for r in self.routines if r.generic), key=lambda r: r.elem in LP64_BASIC_TYPE):
            key = (r.generic + ("_ctx" if r.symbol.startswith("shmem_ctx_") else ""), LP64_BASIC_TYPE.get(r.elem, r.elem))
            if key not in seen:
                seen.add(key)
                out.append(r)
        return sorted(out, key=lambda r: self.routines.index(r))


def _cxx(ctype: str) -> str:
    m = re.fullmatch(r"(float|double) _Complex", ctype)
    return f"std::complex<{m.group(1)}>" if m else ctype


def _subst(text: str, values: dict[str, str]) -> str:
    for key in ("TYPENAME", "TYPE", "OPUPPER", "OP", "SIZE", "ELEM"):
        if key in values:
            text = re.sub(rf"(?<![A-Z]){key}(?![A-Z])", lambda _m: values[key], text)
    return text


def _split_decl(decl: str) -> tuple[str, str, list[str]]:
    m = re.fullmatch(r"\s*(.*?)\b(\w+)\((.*)\)\s*", decl)
    if not m:
        raise SpecError([f"spec/openshmem_extra.yaml: cannot read declaration '{decl}'"])
    ret, name, params = m.group(1).strip(), m.group(2), m.group(3).strip()
    if ret.endswith("*"):
        ret = ret[:-1].strip() + "*"
    plist = [] if params in ("", "void") else [p.strip() for p in params.split(",")]
    plist = [re.sub(r"\s*\*\s*", "* ", p, count=1) if "*" in p else p for p in plist]
    return ret, name, plist


def build_extra(doc, tables: dict) -> OpenshmemExtra:
    """The model of spec/openshmem_extra.yaml; tables: spec/types.yaml's, by name (TypeTable)."""
    errors: list[str] = []
    local = {}
    for name, t in doc.get("tables", {}).items():
        local[name] = [dict(e) for e in t["types"]]
    macros = []
    for c in doc.get("constants", []):
        macros.append(Macro(c["name"], c["value"], c["doc"]))
        if c.get("underscore"):
            macros.append(Macro("_" + c["name"], c["name"], f"Old spelling of {c['name']}."))
    groups = []
    for g in doc["groups"]:
        since = str(g.get("since", ""))
        routines, patterns = [], []
        for e in g["routines"]:
            where = f"{e.file}:{e.line}"
            patterns.append((e["decl"], e["doc"]))
            if "types" in e:
                if e["types"] in local:
                    types = local[e["types"]]
                elif e["types"] in tables:
                    types = [{"type": t.ctype, "typename": t.typename, "ops": list(t.ops)} for t in tables[e["types"]].types]
                else:
                    errors.append(f"{where}: unknown type table '{e['types']}'")
                    continue
            else:
                types = [None]
            combos = []
            for t in types:
                for op in e.get("ops", [None]):
                    if op and t and t.get("ops") and op not in t["ops"]:
                        continue
                    for size in e.get("sizes", [None]):
                        combos.append((t, op, size))
            for t, op, size in combos:
                values = {}
                if t:
                    values.update(TYPENAME=t["typename"], TYPE=t["type"], ELEM=str(t.get("elem", "")))
                if op:
                    values.update(OP=op, OPUPPER=op.upper())
                if size:
                    values["SIZE"] = str(size)
                for ctx in ((False, True) if e.get("ctx") else (False,)):
                    decl = _subst(e["decl"], values)
                    body = _subst(e["body"], values)
                    body = body.replace("CTX_", "ctx_" if ctx else "").replace("CTXARG ", "ctx, " if ctx else "")
                    ret, symbol, params = _split_decl(decl)
                    if ctx:
                        symbol = "shmem_ctx_" + symbol[len("shmem_"):]
                        params = ["shmem_ctx_t ctx"] + params
                    cxx_values = dict(values, TYPE=_cxx(values["TYPE"])) if t else values
                    cret, _, cparams = _split_decl(_subst(e["decl"], cxx_values))
                    if ctx:
                        cparams = ["shmem_ctx_t ctx"] + cparams
                    routines.append(ExtraRoutine(
                        name=e.get("name", symbol), symbol=symbol, ret=ret, params=tuple(params),
                        cxx_params=tuple(cparams), cxx_ret=cret, body=body, doc=" ".join(_subst(e["doc"], values).split()),
                        since=since, instead=_subst(e.get("instead", ""), values),
                        generic=_subst(e.get("generic", ""), values), elem=t["type"] if t else "",
                        pattern=e["decl"]))
        groups.append(ExtraGroup(g["title"], since, tuple(patterns), tuple(routines)))
    names = {}
    for g in groups:
        for r in g.routines:
            if r.symbol in names:
                errors.append(f"spec/openshmem_extra.yaml: {r.symbol} is produced twice")
            names[r.symbol] = r
    if errors:
        raise SpecError(errors)
    return OpenshmemExtra(tuple(macros), tuple(groups))
