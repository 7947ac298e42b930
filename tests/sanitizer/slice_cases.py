#!/usr/bin/env python3
"""Writes a slice of a generated case table (generated/tests/<chapter>_cases.cpp): the first case of
every entry-point form - family x variant x overload, whatever the type - and nothing else.

    slice_cases.py IN OUT

ishmem_sanitizer_tests runs these slices: each form's path through the runtime is the same for every
type, so one type per form runs every path at about a tenth of the table's compile time.
"""
import re
import sys

TYPENAMES = ("float double longdouble char schar short int long longlong uchar ushort uint ulong ulonglong "
             "int8 int16 int32 int64 uint8 uint16 uint32 uint64 size ptrdiff").split()
TYPED = re.compile(r"_(%s)_" % "|".join(TYPENAMES))
CASE_START = re.compile(r'^    \{"([^"]*)", \[\] \{$')
CASE_END = "     }},"


def form(label: str) -> str:
    """ishmem_int_put -> ishmem_T_put; ishmem_put<long long>(team) -> ishmem_put<T>(team)."""
    return TYPED.sub("_T_", re.sub(r"<.*>", "<T>", label), count=1)


def main(src: str, dst: str) -> None:
    out, seen, case, kept = [], set(), None, 0
    with open(src, encoding="utf-8") as f:
        for line in f.read().splitlines():
            if case is None:
                m = CASE_START.match(line)
                if m:
                    case = [line]
                    keep = form(m.group(1)) not in seen
                    seen.add(form(m.group(1)))
                else:
                    out.append(line)
                continue
            case.append(line)
            if line == CASE_END:
                if keep:
                    out.extend(case)
                    kept += 1
                case = None
    if case is not None or kept == 0:
        sys.exit(f"slice_cases.py: {src}: no case table in the expected layout")
    banner = f"/* A slice of {src}: the first case of each of its {kept} entry-point forms (tests/sanitizer/slice_cases.py). */"
    text = banner + "\n" + "\n".join(out) + "\n"
    try:
        with open(dst, encoding="utf-8") as f:
            if f.read() == text:
                return
    except FileNotFoundError:
        pass
    with open(dst, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
