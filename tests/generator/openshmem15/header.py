"""What a C header declares, read without a compiler, and its check against OpenSHMEM 1.5.

scan_header(text) finds, in the part a C compiler sees, the file-scope function declarations and
definitions (`RET name(PARAMS);`, `static inline RET name(PARAMS) { ... }`, with attribute macros
such as ISHMEM_API, `__attribute__((...))`, `[[noreturn]]` or `_Noreturn` around them) and the
names it defines (`#define`, enumerators, typedefs, variables). Sections only a C++ compiler sees
are skipped: `#ifdef __cplusplus`, `#if defined(__cplusplus)`, `#if __cplusplus >= ...` and the
`#else` of `#ifndef __cplusplus` / `#if !defined(__cplusplus)`, nested to any depth. A condition
on anything else keeps both of its branches.

check_header(...) returns every error as `file(line): message`; empty means the header agrees.
"""
from __future__ import annotations

import bisect
import fnmatch
import re
from dataclasses import dataclass, field
from pathlib import Path

from . import (
    Signature,
    canonical_type,
    constant_names,
    deprecated_constants,
    deprecated_declarations,
    expected_declarations,
    format_declaration,
    split_parameters,
)

# Words in front of a return type that are not part of it.
_SPECIFIERS = {"static", "inline", "extern", "__inline", "__inline__", "_Noreturn", "__extension__"}


@dataclass
class Routine:
    name: str
    signature: Signature
    line: int


@dataclass
class HeaderScan:
    routines: list[Routine] = field(default_factory=list)
    defined: dict[str, int] = field(default_factory=dict)  # name -> first line


def _strip_comments(text: str) -> str:
    """Comments and string literals blanked, newlines kept (so offsets keep their line)."""
    def blank(m):
        s = m.group(0)
        if s.startswith(("/*", "//")):
            return re.sub(r"[^\n]", " ", s)
        return s[0] + re.sub(r"[^\n]", " ", s[1:-1]) + s[-1]
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', blank, text, flags=re.S)


_CPP_ATOM = re.compile(r"defined\(__cplusplus\)|defined__cplusplus|__cplusplus([<>=!]=?\w+)?")


def _split_top(c: str, op: str) -> list[str]:
    parts, depth, cur, k = [], 0, "", 0
    while k < len(c):
        if c.startswith(op, k) and depth == 0:
            parts.append(cur)
            cur, k = "", k + len(op)
            continue
        depth += c[k] == "("
        depth -= c[k] == ")"
        cur += c[k]
        k += 1
    return parts + [cur]


def _unparen(c: str) -> str:
    """`(x)` -> `x` when the outer parentheses enclose the whole condition."""
    while c.startswith("(") and c.endswith(")"):
        depth = 0
        for k, ch in enumerate(c):
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0 and k < len(c) - 1:
                return c
        c = c[1:-1]
    return c


def _cpp_only(c: str) -> bool:
    """The condition holds only when compiling C++."""
    c = _unparen(c)
    if len(ors := _split_top(c, "||")) > 1:
        return all(_cpp_only(x) for x in ors)
    if len(ands := _split_top(c, "&&")) > 1:
        return any(_cpp_only(x) for x in ands)
    if c.startswith("!"):
        return _c_always(c[1:])
    return bool(_CPP_ATOM.fullmatch(c))


def _c_always(c: str) -> bool:
    """The condition holds whenever compiling C."""
    c = _unparen(c)
    if len(ors := _split_top(c, "||")) > 1:
        return any(_c_always(x) for x in ors)
    if len(ands := _split_top(c, "&&")) > 1:
        return all(_c_always(x) for x in ands)
    if c.startswith("!"):
        return _cpp_only(c[1:])
    return False


def c_lines(text: str) -> list[str]:
    """The lines of the header with the C++-only ones (and every directive but #define) blanked."""
    lines = _strip_comments(text).split("\n")
    # Join backslash continuations; the joined text stays on the first line, the rest go blank.
    i = 0
    while i < len(lines):
        j = i
        while lines[i].rstrip().endswith("\\") and j + 1 < len(lines):
            lines[i] = lines[i].rstrip()[:-1] + " " + lines[j + 1]
            lines[j + 1] = ""
            j += 1
        i = j + 1
    out = []
    # Per open conditional: [this branch only C++ sees, an earlier branch holds whenever C is compiled]
    stack: list[list[bool]] = []
    for line in lines:
        m = re.match(r"\s*#\s*(\w+)(.*)", line)
        if m:
            word, rest = m.group(1), re.sub(r"\s+", "", m.group(2))
            if word in ("if", "ifdef", "ifndef"):
                cond = {"ifdef": f"defined({rest})", "ifndef": f"!defined({rest})"}.get(word, rest)
                stack.append([_cpp_only(cond), _c_always(cond)])
            elif word == "elif" and stack:
                stack[-1] = [stack[-1][1] or _cpp_only(rest), stack[-1][1] or _c_always(rest)]
            elif word == "else" and stack:
                stack[-1] = [stack[-1][1], True]
            elif word == "endif" and stack:
                stack.pop()
            keep = word == "define" and not any(skip for skip, _ in stack)
            out.append(line if keep else "")
            continue
        out.append("" if any(skip for skip, _ in stack) else line)
    return out


def _strip_attributes(s: str) -> str:
    s = re.sub(r"\[\[.*?\]\]", " ", s)
    for kw in ("__attribute__", "__declspec", "__asm__", "asm", "alignas", "_Alignas"):
        while True:
            m = re.search(rf"\b{kw}\s*\(", s)
            if not m:
                break
            depth, k = 0, m.end() - 1
            for k in range(m.end() - 1, len(s)):
                depth += s[k] == "("
                depth -= s[k] == ")"
                if depth == 0:
                    break
            s = s[: m.start()] + " " + s[k + 1:]
    return s


def _parse_function(head: str) -> tuple[str, Signature] | None:
    """(name, signature) of `[specifiers] RET name(PARAMS) [trailing macros]`, or None."""
    s = _strip_attributes(head)
    m = re.search(r"\b([A-Za-z_]\w*)\s*\(", s)
    while m and re.fullmatch(r"[A-Z][A-Z0-9_]*", m.group(1)):  # an attribute macro: MACRO(...)
        depth = 0
        for k in range(m.end() - 1, len(s)):
            depth += s[k] == "("
            depth -= s[k] == ")"
            if depth == 0:
                break
        s = s[: m.start()] + " " + s[k + 1:]
        m = re.search(r"\b([A-Za-z_]\w*)\s*\(", s)
    if not m or s.lstrip().startswith(("typedef", "struct", "union", "enum")) or "=" in s[: m.start()]:
        return None
    depth, end = 0, None
    for k in range(m.end() - 1, len(s)):
        depth += s[k] == "("
        depth -= s[k] == ")"
        if depth == 0:
            end = k
            break
    if end is None:
        return None
    ret_words = [w for w in re.findall(r"[A-Za-z_]\w*|\*", s[: m.start()])
                 if w not in _SPECIFIERS and not re.fullmatch(r"[A-Z][A-Z0-9_]*", w)]
    if not ret_words or ret_words == ["*"]:
        return None
    ret = canonical_type(" ".join(ret_words))
    return m.group(1), (ret, split_parameters(s[m.end(): end]))


def scan_header(text: str) -> HeaderScan:
    scan = HeaderScan()
    lines = c_lines(text)
    for i, line in enumerate(lines, 1):
        m = re.match(r"\s*#\s*define\s+(\w+)", line)
        if m:
            scan.defined.setdefault(m.group(1), i)
    body = "\n".join("" if re.match(r"\s*#", ln) else ln for ln in lines)
    # Walk the file-scope statements: text up to `;` or a `{ ... }` block at brace depth 0.
    start, line_of = 0, _Lines(body)
    stops = re.compile(r"[;{}]")
    m = stops.search(body)
    while m:
        pos, ch = m.start(), m.group(0)
        if ch == ";":
            _statement(scan, body, start, pos, line_of)
            start = pos + 1
        elif ch == "{":
            head = body[start:pos]
            k = _matching_brace(body, pos)
            if re.search(r'\bextern\s*"', head):  # extern "C" { seen by C: look inside
                start = pos + 1
            elif _parse_function(head) and not re.search(r"\b(struct|union|enum)\b", head.split("(")[0]):
                _statement(scan, body, start, pos, line_of)  # a definition: its body is skipped
                start = k + 1
                pos = k
            else:  # struct / union / enum: the declarator after the block ends at `;`
                _enumerators(scan, body, pos, k, head, line_of)
                pos = k
        elif body[start:pos].strip() == "":  # the closing brace of extern "C"
            start = pos + 1
        m = stops.search(body, pos + 1)
    return scan


_BRACES = re.compile(r"[{}]")


def _matching_brace(body: str, open_: int) -> int:
    depth = 0
    for m in _BRACES.finditer(body, open_):
        depth += 1 if m.group(0) == "{" else -1
        if depth == 0:
            return m.start()
    return len(body) - 1


class _Lines:
    """Line numbers of offsets into one text."""

    def __init__(self, text: str):
        self.starts = [m.end() for m in re.finditer("\n", text)]

    def __call__(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset) + 1


def _statement(scan: HeaderScan, body: str, start: int, end: int, line_of: _Lines) -> None:
    text = body[start:end]
    stripped = text.strip()
    if not stripped:
        return
    line = line_of(start + len(text) - len(text.lstrip()))
    fn = _parse_function(stripped) if "(" in stripped else None
    if fn and not stripped.startswith("typedef"):
        scan.routines.append(Routine(fn[0], fn[1], line))
        return
    # typedef / variable / struct-with-declarator: the names declared before any initializer.
    decl = re.sub(r"\{.*\}", " ", stripped, flags=re.S)
    decl = _strip_attributes(decl).split("=")[0]
    names = re.findall(r"([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)*(?:,|$)", decl.strip())
    for name in names:
        scan.defined.setdefault(name, line)


def _enumerators(scan: HeaderScan, body: str, open_: int, close: int, head: str,
                 line_of: _Lines) -> None:
    if not re.search(r"\benum\b", head):
        return
    inner = body[open_ + 1: close]
    for m in re.finditer(r"(?:^|,)\s*([A-Za-z_]\w*)", inner):
        scan.defined.setdefault(m.group(1), line_of(open_ + 1 + m.start(1)))


def read_unsupported(path: Path) -> dict[str, int]:
    """Names of an unsupported list (one a line, a reason may follow a tab; `#` starts a comment)."""
    names: dict[str, int] = {}
    if not path.exists():
        return names
    for i, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.split("\t", 1)[0].split("#", 1)[0].strip()
        if line:
            names.setdefault(line, i)
    return names


def check_header(header: Path, unsupported: Path | None = None, *,
                 expected: dict[str, Signature] | None = None) -> list[str]:
    """Every disagreement between the header and OpenSHMEM 1.5:
    (a) each shmem_ routine it declares is a 1.5 routine with the 1.5 signature;
    (b) each 1.5 routine and constant is in the header or in the unsupported list (and not both);
    (c) each routine and constant that 1.5 deprecates but still defines is there too, a routine with
        its signature or (a name C cannot give two signatures, such as shmem_sync) as a macro."""
    expected = expected_declarations() if expected is None else expected
    constants = constant_names()
    scan = scan_header(header.read_text())
    hname = header.name
    errors: list[str] = []
    seen: dict[str, Routine] = {}
    deprecated = deprecated_declarations()
    for r in scan.routines:
        where = f"{hname}({r.line})"
        if r.name in seen:
            if seen[r.name].signature != r.signature:
                errors.append(f"{where}: {r.name} declared again with another signature: "
                              f"{format_declaration(r.name, r.signature)}")
            continue
        seen[r.name] = r
        if r.name in deprecated:
            if deprecated[r.name] != r.signature:
                errors.append(f"{where}: {r.name} does not match its deprecated OpenSHMEM form: header has "
                              f"`{format_declaration(r.name, r.signature)}`, OpenSHMEM has "
                              f"`{format_declaration(r.name, deprecated[r.name])}`")
        elif r.name.startswith("shmem_") and r.name not in expected:
            errors.append(f"{where}: {r.name} is not an OpenSHMEM 1.5 routine")
        elif r.name in expected and expected[r.name] != r.signature:
            errors.append(f"{where}: {r.name} does not match OpenSHMEM 1.5: header has "
                          f"`{format_declaration(r.name, r.signature)}`, 1.5 has "
                          f"`{format_declaration(r.name, expected[r.name])}`")
    for name in deprecated:
        if name not in seen and name not in scan.defined:
            errors.append(f"{hname}: {name}, which OpenSHMEM 1.5 deprecates but still defines, is missing")
    for name in deprecated_constants():
        if name not in scan.defined:
            errors.append(f"{hname}: {name}, which OpenSHMEM 1.5 deprecates but still defines, is missing")
    listed = read_unsupported(unsupported) if unsupported else {}
    uname = unsupported.name if unsupported else "unsupported list"
    # An entry may be a glob (shmem_ctx_*, shmem_longdouble_*): it stands for the 1.5 names it matches.
    unsup: dict[str, int] = {}
    for entry, line in listed.items():
        if not any(c in entry for c in "*?["):
            unsup.setdefault(entry, line)
            continue
        matched = fnmatch.filter(list(expected) + sorted(constants), entry)
        if not matched:
            errors.append(f"{uname}({line}): {entry} matches no OpenSHMEM 1.5 routine or constant")
        for name in matched:
            unsup.setdefault(name, line)
    for name, line in unsup.items():
        if name not in expected and name not in constants:
            errors.append(f"{uname}({line}): {name} is not an OpenSHMEM 1.5 routine or constant")
        elif name in seen or (name in constants and name in scan.defined):
            errors.append(f"{uname}({line}): {name} is listed unsupported but the header provides it")
    missing = [n for n in expected if n not in seen and n not in unsup]
    missing += [n for n in constants if n not in scan.defined and n not in unsup]
    for name in missing:
        errors.append(f"{hname}: OpenSHMEM 1.5 {name} is neither in the header nor in {uname}")
    return errors
