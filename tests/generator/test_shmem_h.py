"""shmem.h: OpenSHMEM names over the library's C symbols, from the families the spec marks `openshmem`."""
from __future__ import annotations

import re

import pytest

from generator.__main__ import ROOT, generate
from generator.build import build_api
from generator.loader import load_spec
from generator.openshmem import shmem_routines

from test_c_header import c_part


@pytest.fixture(scope="module")
def api():
    return build_api(load_spec(ROOT / "spec", ROOT))


@pytest.fixture(scope="module")
def header():
    return generate()["include/shmem.h"]


def test_every_routine_calls_one_c_symbol_of_the_library(api, header):
    symbols = {ep.c_name for ep in api.entry_points if ep.c_name}
    routines = shmem_routines(api)
    assert len(routines) > 900
    for r in routines:
        called = re.match(r'(?:SHMEMI_CALLED_AS\("\w+"\); )?(?:return )?(\w+)\(', r.call).group(1)
        assert called in symbols, r.decl
        assert f"static inline {r.decl} {{ {r.call} }}" in header


def test_the_routines_that_start_the_library_say_so(header):
    # The library gives a program started by them the host backend (docs/guide/cuda.rst, "Running").
    assert 'static inline void shmem_init(void) { SHMEMI_CALLED_AS("shmem_init"); ishmem_init(); }' in header
    assert ('static inline int shmem_init_thread(int requested, int* provided) { SHMEMI_CALLED_AS("shmem_init_thread"); '
            'return ishmem_init_thread(requested, provided); }') in header
    assert 'static inline void shmem_finalize(void) { ishmem_finalize(); }' in header


def test_collectives_are_team_first_as_in_openshmem(header):
    assert ("static inline int shmem_int_broadcast(shmem_team_t team, int* dest, const int* source, size_t nelems, "
            "int PE_root) { return ishmem_team_int_broadcast(team, dest, source, nelems, PE_root); }") in header
    assert "static inline int shmem_long_sum_reduce(shmem_team_t team, long* dest, const long* source, size_t nreduce)" in header
    assert not re.search(r"static inline int shmem_\w+_broadcast\((?!shmem_team_t)", header)


def test_no_intel_only_names(header):
    for name in ("shmem_ibput", "shmem_int_sum_inscan", "shmem_signal_add", "shmem_print", "_on_queue", "_work_group",
                 "shmem_init_attr", "shmem_wait_until_on_queue"):
        assert name not in header, name
    # Intel SHMEM's untyped wait is ishmem_wait(ivar, value); shmem_wait is OpenSHMEM's deprecated
    # form with the same meaning, so it is there, as a deprecated routine.
    assert 'ISHMEMI_DEPRECATED("deprecated in OpenSHMEM 1.4; use shmem_long_wait_until") static inline void shmem_long_wait(long* ivar, long cmp_value)' in header


def test_c_part_is_c_and_generics_select_shmem_names(header):
    c = re.sub(r"/\*.*?\*/", "", c_part(header), flags=re.S)
    assert "template" not in c and "::" not in c
    # put has a ctx form: the name picks by argument count, each count by the element type
    assert "#define shmem_put(...) ISHMEMI_OVERLOAD(shmem_put, __VA_ARGS__)" in c
    m = re.search(r"#define ISHMEMI_OVL_shmem_put_4\(dest, source, nelems, pe\) _Generic\(\*\(dest\), \\\n(.*?)\)\(dest", c, re.S)
    assert m and "long: shmem_long_put" in m.group(1)
    m = re.search(r"#define ISHMEMI_OVL_shmem_put_5\(ctx, dest, source, nelems, pe\) _Generic\(\*\(dest\), \\\n(.*?)\)\(ctx, dest", c, re.S)
    assert m and "long: shmem_ctx_long_put" in m.group(1)
    assert "#define ISHMEMI_OVL_shmem_broadcast_5" not in c  # one form only: no arity selector
    assert "#define shmem_broadcast(team, dest, source, nelems, PE_root) _Generic(*(dest)" in c


def test_constants_and_types(header):
    for line in ("#define SHMEM_MAJOR_VERSION 1 ", "#define SHMEM_MINOR_VERSION 5 ", "#define SHMEM_CMP_EQ ISHMEM_CMP_EQ ",
                 "#define SHMEM_TEAM_WORLD ISHMEM_TEAM_WORLD ", "typedef ishmem_team_t shmem_team_t;"):
        assert line in header, line
