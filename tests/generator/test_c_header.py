"""The C side of the generated headers: C symbols for every routine C can call, the C part of the
headers free of C++, and the C11 macros standing in for overloads and templates."""
from __future__ import annotations

import re

import pytest

from generator.__main__ import ROOT, generate
from generator.build import build_api
from generator.c_bindings import LP64_BASIC_TYPE, c_macros
from generator.loader import load_spec


@pytest.fixture(scope="module")
def api():
    return build_api(load_spec(ROOT / "spec", ROOT))


@pytest.fixture(scope="module")
def files():
    return generate()


def c_part(text: str) -> str:
    """The header as a C compiler sees it: drop `#ifdef __cplusplus` ... `#else`/`#endif` blocks."""
    out, stack = [], []
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("#if"):
            stack.append(s in ("#ifdef __cplusplus", "#if defined(__cplusplus)") or s == "#if defined(__CUDA_ARCH__)")
            continue
        if s.startswith("#else") and stack:
            stack[-1] = not stack[-1] if s == "#else" else stack[-1]
            continue
        if s.startswith("#endif"):
            stack.pop()
            continue
        if not any(stack):
            out.append(line)
    return "\n".join(out)


def test_every_routine_c_can_call_has_one_c_symbol(api):
    c_eps = [ep for ep in api.entry_points if ep.c_name]
    assert len(c_eps) > 1300
    assert len({ep.c_name for ep in c_eps}) == len(c_eps)
    for ep in api.entry_points:
        assert bool(ep.c_name) == (not ep.is_template and ep.variant != "on_queue"), ep.decl


def test_team_overloads_get_team_symbols(api):
    (ep,) = [ep for ep in api.entry_points if ep.name == "ishmem_int_broadcast" and ep.team_form]
    assert ep.c_name == "ishmem_team_int_broadcast" and ep.forwards
    assert ep.c_decl.startswith("int ishmem_team_int_broadcast(ishmem_team_t team, int* dest")
    (world,) = [ep for ep in api.entry_points if ep.name == "ishmem_int_broadcast" and not ep.team_form]
    assert world.c_name == "ishmem_int_broadcast" and not world.forwards


def test_c_part_of_the_headers_is_free_of_cxx(files):
    for header in ("include/ishmem.h", "include/ishmemx.h", "include/ishmem/generated/constants.h"):
        c = re.sub(r"/\*.*?\*/", "", c_part(files[header]), flags=re.S)
        for cxx in ("::", "template", "std::", "&", "nullptr", "inline", "= {"):
            hits = [line for line in c.splitlines() if cxx in line and not line.lstrip().startswith(("/*", "#define"))]
            assert not hits, f"{header}: C sees C++ ({cxx!r}): {hits[:3]}"
    assert "ISHMEM_C_API void ishmem_init(void);" in c_part(files["include/ishmem.h"])


def test_generic_selection_keys_on_pairwise_distinct_basic_types(files):
    text = files["include/ishmem.h"]
    m = re.search(r"#define ishmem_put\(dest, source, nelems, pe\) _Generic\(\*\(dest\), \\\n(.*?)\(dest, source, nelems, pe\)",
                  text, re.S)
    assert m, "ishmem_put is a generic selection on *dest"
    keys = re.findall(r"^\s*([a-z ]+): ishmem_", m.group(1), re.M)
    assert len(keys) == len(set(keys))
    assert "long" in keys and "unsigned long" in keys
    assert not set(keys) & set(LP64_BASIC_TYPE), "typedef names are keyed as their basic type"
    assert "long: ishmem_long_put" in m.group(1)


def test_overloads_are_picked_by_argument_count(files):
    text = files["include/ishmem.h"]
    assert "#define ishmem_int_broadcast(...) ISHMEMI_OVERLOAD(ishmem_int_broadcast, __VA_ARGS__)" in text
    assert "#define ISHMEMI_OVL_ishmem_int_broadcast_4 ishmem_int_broadcast" in text
    assert "#define ISHMEMI_OVL_ishmem_int_broadcast_5 ishmem_team_int_broadcast" in text
    assert "#define ISHMEMI_OVL_ishmem_broadcast_5(team, dest, source, nelems, PE_root) _Generic(*(dest)" in text
    x = files["include/ishmemx.h"]
    assert "#define ISHMEMI_OVL_ishmemx_print_2 ishmemx_print_type" in x


def test_overloads_of_one_arity_are_an_error(api):
    (a,) = [ep for ep in api.entry_points if ep.name == "ishmem_int_broadcast" and not ep.team_form]
    b = a.__class__(**{**a.__dict__, "team_form": True})  # same parameters, claimed as an overload
    with pytest.raises(Exception, match="same number of parameters"):
        c_macros([a, b])
