"""The tuning table (runtime/include/ishmem/impl/tuning.h) and its page (docs/guide/tuning.rst) agree.

Every entry of the table is named on the page, in a row whose default column gives the entry's
default (as a number, or in B, KiB, MiB or GiB); an entry with an environment variable names it.
"""
import re

import pytest

from generator.__main__ import ROOT

_ENTRY = re.compile(r"inline constexpr param<\w+> (\w+)\{\s*([^,]+),\s*(nullptr|\"(ISHMEM_\w+)\")", re.S)
_VALUE = re.compile(r"^(?:size_t\{(\d+)\} << (\d+)|(\d+)|(true|false))$")


def _value(text):
    m = _VALUE.match(text.strip())
    assert m, f"tuning.h: a default the test cannot read: {text!r}"
    if m.group(1):
        return int(m.group(1)) << int(m.group(2))
    if m.group(3):
        return int(m.group(3))
    return 1 if m.group(4) == "true" else 0


def _spellings(value):
    out = {str(value)}
    for unit, scale in (("B", 1), ("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30)):
        if value >= scale and value % scale == 0:
            out.add(f"{value // scale} {unit}")
    return out


@pytest.fixture(scope="module")
def entries():
    text = (ROOT / "runtime/include/ishmem/impl/tuning.h").read_text()
    found = [(m.group(1), _value(m.group(2)), m.group(4)) for m in _ENTRY.finditer(text)]
    assert len(found) == text.count("inline constexpr param<"), "an entry the pattern does not read"
    return found


@pytest.fixture(scope="module")
def rows():
    """(parameter cell, default cell) of every row of the page's tables."""
    lines = (ROOT / "docs/guide/tuning.rst").read_text().splitlines()
    out, cells = [], None
    for line in lines + [""]:
        if line.startswith("   * - "):
            if cells:
                out.append(cells)
            cells = [line[7:]]
        elif cells is not None and line.startswith("     - "):
            cells.append(line[7:])
        elif cells is not None and line.startswith("       "):
            cells[-1] += " " + line.strip()
        elif cells is not None and not line.strip():
            out.append(cells)
            cells = None
    return [(c[0], c[1]) for c in out if len(c) >= 2]


def test_every_entry_is_on_the_page_with_its_default(entries, rows):
    assert len(entries) > 40
    for name, value, env in entries:
        named = [d for p, d in rows if f"``{name}``" in p or (env and f"``{env}``" in p)]
        assert named, f"docs/guide/tuning.rst has no row for {name}"
        spelled = _spellings(value)
        assert any(
            re.search(rf"(?<![\d.]){re.escape(s)}(?![\d.])", d) for d in named for s in spelled
        ), f"docs/guide/tuning.rst: the row of {name} does not give its default ({' or '.join(sorted(spelled))})"


def test_entries_with_a_variable_are_in_the_list_of_variables(entries):
    listed = (ROOT / "runtime/src/config_vars.h").read_text()
    for name, _, env in entries:
        if env:
            assert f'{{"{env}",' in listed, f"{name}: {env} is not in config_vars.h"
