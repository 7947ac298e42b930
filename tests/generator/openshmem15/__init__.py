"""The OpenSHMEM 1.5 C API of api.txt, expanded to concrete declarations.

    expected_declarations()  {name: (return type, (parameter types, ...))}, every typed, SIZE, mem
                             and shmem_ctx_ form; types in canonical spelling (see canonical_type)
    constant_names()         the constants, handles and handle types a 1.5 program sees
    deprecated_routines()    concrete names of the routines 1.5 deprecates but still defines
    deprecated_declarations() the same with their signatures
    deprecated_constants()   the constants 1.5 deprecates but still defines
    tables()                 {table name: [(TYPENAME, TYPE)] or [(SIZE, SIZE)]}

Parameter names are dropped; `const T*`, `const T *` and `T const *` read the same; top-level
qualifiers of a parameter (`const int level`, `T *restrict p`) are dropped, as C ignores them
when it compares function types.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

API_FILE = Path(__file__).with_name("api.txt")

Signature = tuple[str, tuple[str, ...]]

# Words that spell (part of) a type, so never a parameter name.
_TYPE_WORDS = {
    "void", "char", "short", "int", "long", "float", "double", "signed", "unsigned", "_Bool",
    "_Complex", "const", "volatile", "restrict", "struct", "union", "enum",
}
_QUALIFIERS = {"const", "volatile", "restrict", "__restrict", "__restrict__"}


class ApiFileError(Exception):
    pass


def canonical_type(text: str) -> str:
    """One spelling of a C type: single spaces, ` *` before the first star, no space between stars,
    `const` first when it qualifies the base type, no `restrict`."""
    tokens = re.findall(r"[A-Za-z_]\w*|\*|\.\.\.|\[\]", text)
    tokens = ["*" if t == "[]" else t for t in tokens]
    tokens = [t for t in tokens if t not in ("restrict", "__restrict", "__restrict__")]
    if "*" in tokens:
        first = tokens.index("*")
        base, rest = tokens[:first], tokens[first:]
    else:
        base, rest = tokens, []
    quals = [t for t in base if t in ("const", "volatile")]
    words = [t for t in base if t not in ("const", "volatile")]
    out = " ".join(sorted(quals) + words)
    for t in rest:
        out += t if (t == "*" and out.endswith("*")) else " " + t
    return out.strip()


def split_parameter(param: str) -> str:
    """The canonical type of one parameter declaration, its name (if any) removed."""
    # `T name[]` and `T name[N]` are `T *name` in a parameter list.
    text = re.sub(r"(\w+)\s*\[[^\]]*\]",
                  lambda m: m.group(0) if m.group(1) in _TYPE_WORDS else "*" + m.group(1), param.strip())
    text = re.sub(r"\[[^\]]*\]", "*", text)
    if text in ("", "void"):
        return ""
    if text == "...":
        return "..."
    tokens = re.findall(r"[A-Za-z_]\w*|\*|\[\]", text)
    if len(tokens) > 1 and tokens[-1] not in _TYPE_WORDS and re.match(r"[A-Za-z_]\w*$", tokens[-1]):
        # A trailing identifier is the name unless dropping it leaves only qualifiers.
        if any(t not in _QUALIFIERS and t != "*" for t in tokens[:-1]):
            tokens = tokens[:-1]
    typ = canonical_type(" ".join(tokens))
    # Top-level qualifiers do not take part in the function type.
    if "*" in typ:
        head, _, tail = typ.rpartition("*")
        typ = head + "*" + " ".join(t for t in tail.split() if t not in _QUALIFIERS)
        typ = typ.rstrip()
    else:
        typ = " ".join(t for t in typ.split() if t not in _QUALIFIERS)
    return typ


def split_parameters(params: str) -> tuple[str, ...]:
    """Canonical types of a parameter list; `(void)` and `()` are both empty."""
    parts, depth, cur = [], 0, ""
    for ch in params:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += ch in "(["
        depth -= ch in ")]"
        cur += ch
    parts.append(cur)
    types = tuple(split_parameter(p) for p in parts)
    return () if types == ("",) else types


_DECL = re.compile(r"^(?P<ret>.+?)\b(?P<name>\w+)\s*\((?P<params>.*)\)\s*;?$")


@dataclass(frozen=True)
class Family:
    line: int
    decl: str  # as written, with TYPE/TYPENAME/SIZE placeholders
    table: str | None
    ctx: bool


@dataclass(frozen=True)
class ApiList:
    tables: dict[str, list[tuple[str, str]]]
    families: list[Family]
    constants: list[str]
    deprecated_routines: list[Family]
    deprecated_constants: list[str]


def parse_api_text(text: str, source: str = "api.txt") -> ApiList:
    """The sections of api.txt; every malformed line is reported, as `source(line): message`."""
    errors: list[str] = []
    tables: dict[str, list[tuple[str, str]]] = {}
    families: list[Family] = []
    constants: list[str] = []
    depr_routines: list[Family] = []
    depr_constants: list[str] = []
    section = None
    known = {"tables", "routines", "constants", "deprecated routines", "deprecated constants"}
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip() if not raw.lstrip().startswith("#") else ""
        if not line:
            continue
        where = f"{source}({lineno})"
        m = re.fullmatch(r"\[(.+)\]", line)
        if m:
            section = m.group(1)
            if section not in known:
                errors.append(f"{where}: unknown section [{section}]")
            continue
        if section == "tables":
            name, sep, body = line.partition(":")
            if not sep or not re.fullmatch(r"[A-Z0-9_]+", name.strip()):
                errors.append(f"{where}: expected `NAME: entries`")
                continue
            entries = []
            for item in body.split(","):
                item = item.strip()
                if re.fullmatch(r"\d+", item):
                    entries.append((item, item))
                elif re.fullmatch(r"\w+=[\w ]+", item):
                    tn, ty = item.split("=")
                    entries.append((tn.strip(), " ".join(ty.split())))
                else:
                    errors.append(f"{where}: bad table entry {item!r}")
            if name.strip() in tables:
                errors.append(f"{where}: duplicate table {name.strip()}")
            tables[name.strip()] = entries
        elif section in ("routines", "deprecated routines"):
            m = re.fullmatch(r"(?P<decl>[^;]+;)\s*(?:@(?P<table>\w+))?\s*(?P<ctx>\+ctx)?", line)
            if not m or not _DECL.match(m.group("decl")):
                errors.append(f"{where}: expected `DECLARATION; [@TABLE] [+ctx]`")
                continue
            decl, table = m.group("decl"), m.group("table")
            placeholder = "TYPENAME" in decl or "SIZE" in decl
            if placeholder and not table:
                errors.append(f"{where}: placeholder without @TABLE")
            if table and not placeholder:
                errors.append(f"{where}: @{table} but no TYPENAME/SIZE placeholder")
            (families if section == "routines" else depr_routines).append(Family(lineno, decl, table, bool(m.group("ctx"))))
        elif section in ("constants", "deprecated constants"):
            if not re.fullmatch(r"\w+", line):
                errors.append(f"{where}: expected one name")
                continue
            (constants if section == "constants" else depr_constants).append(line)
        else:
            errors.append(f"{where}: line outside a section")
    for fam in families + depr_routines:
        if fam.table and fam.table not in tables:
            errors.append(f"{source}({fam.line}): unknown table {fam.table}")
    if errors:
        raise ApiFileError("\n".join(errors))
    return ApiList(tables, families, constants, depr_routines, depr_constants)


def _substitute(text: str, typename: str, ctype: str) -> str:
    text = text.replace("TYPENAME", typename)
    text = re.sub(r"\bTYPE\b", ctype, text)
    return text.replace("SIZE", typename) if typename.isdigit() else text


def expand(api: ApiList, families: list[Family] | None = None) -> dict[str, Signature]:
    """Every concrete declaration of the families (by default the current API's); a name produced
    twice is an error."""
    out: dict[str, Signature] = {}
    errors = []
    for fam in api.families if families is None else families:
        rows = api.tables[fam.table] if fam.table else [("", "")]
        for typename, ctype in rows:
            decl = _substitute(fam.decl, typename, ctype) if fam.table else fam.decl
            m = _DECL.match(decl)
            name = m.group("name")
            sig = (canonical_type(m.group("ret")), split_parameters(m.group("params")))
            forms = [(name, sig)]
            if fam.ctx:
                assert name.startswith("shmem_")
                forms.append(("shmem_ctx_" + name[len("shmem_"):], (sig[0], ("shmem_ctx_t",) + sig[1])))
            for n, s in forms:
                if n in out:
                    errors.append(f"api.txt({fam.line}): {n} produced twice")
                out[n] = s
    if errors:
        raise ApiFileError("\n".join(errors))
    return out


@functools.lru_cache(maxsize=None)
def load(path: Path = API_FILE) -> ApiList:
    return parse_api_text(path.read_text(), path.name)


def tables() -> dict[str, list[tuple[str, str]]]:
    return load().tables


def expected_declarations() -> dict[str, Signature]:
    return dict(_expected())


@functools.lru_cache(maxsize=None)
def _expected() -> tuple[tuple[str, Signature], ...]:
    return tuple(expand(load()).items())


def constant_names() -> list[str]:
    return list(load().constants)


def deprecated_routines() -> list[str]:
    return list(deprecated_declarations())


def deprecated_declarations() -> dict[str, Signature]:
    api = load()
    return expand(api, api.deprecated_routines)


def deprecated_constants() -> list[str]:
    return list(load().deprecated_constants)


def format_declaration(name: str, sig: Signature) -> str:
    """`RET name(T1, T2)` in canonical spelling, for messages."""
    ret, params = sig
    sep = "" if ret.endswith("*") else " "
    return f"{ret}{sep}{name}({', '.join(params) or 'void'})"
