"""generated/include/shmem.h against the OpenSHMEM 1.5 C API (openshmem15/api.txt).

(a) every shmem_ routine the header declares or defines for C is a 1.5 routine with its exact
    signature; (b) every 1.5 routine and constant is in the header or in the unsupported list the
    generator writes (generated/docs/openshmem_unsupported.txt: a name a line, a tab and a reason may
    follow); (c) no deprecated routine or constant is there. The header check is skipped only while
    the header does not exist; the rest tests the list and the header reader on inline snippets.
ISHMEM_SHMEM_H and ISHMEM_SHMEM_UNSUPPORTED point the check at other files.
"""
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import openshmem15 as api  # noqa: E402
from openshmem15.header import check_header, scan_header  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
HEADER = Path(os.environ.get("ISHMEM_SHMEM_H", ROOT / "generated" / "include" / "shmem.h"))
UNSUPPORTED = Path(os.environ.get("ISHMEM_SHMEM_UNSUPPORTED",
                                  ROOT / "generated" / "docs" / "openshmem_unsupported.txt"))


def test_generated_shmem_h_matches_openshmem_1_5():
    if not HEADER.exists():
        pytest.skip(f"{HEADER} does not exist yet")
    errors = check_header(HEADER, UNSUPPORTED)
    assert not errors, f"{len(errors)} error(s):\n" + "\n".join(errors)


# ---- the list -----------------------------------------------------------------------------------

def test_list_expands_to_the_1_5_routines():
    decls = api.expected_declarations()
    assert len(decls) == 1507
    assert sum(n.startswith("shmem_ctx_") for n in decls) == 520
    # Facts worth pinning: return types and parameter order that are easy to get wrong.
    facts = {
        "shmem_ptr": "void *shmem_ptr(const void *, int)",
        "shmem_ctx_create": "int shmem_ctx_create(long, shmem_ctx_t *)",
        "shmem_team_sync": "int shmem_team_sync(shmem_team_t)",
        "shmem_int_broadcast": "int shmem_int_broadcast(shmem_team_t, int *, const int *, size_t, int)",
        "shmem_long_wait_until_any":
            "size_t shmem_long_wait_until_any(long *, size_t, const int *, int, long)",
        "shmem_size_test": "int shmem_size_test(size_t *, int, size_t)",
        "shmem_ctx_uint64_atomic_fetch_add_nbi":
            "void shmem_ctx_uint64_atomic_fetch_add_nbi(shmem_ctx_t, uint64_t *, uint64_t *, uint64_t, int)",
        "shmem_float_atomic_fetch_nbi": "void shmem_float_atomic_fetch_nbi(float *, const float *, int)",
        "shmem_longdouble_g": "long double shmem_longdouble_g(const long double *, int)",
        "shmem_complexf_prod_reduce":
            "int shmem_complexf_prod_reduce(shmem_team_t, float _Complex *, const float _Complex *, size_t)",
        "shmem_ctx_put128_signal_nbi": "void shmem_ctx_put128_signal_nbi(shmem_ctx_t, void *, const void *, "
                                       "size_t, uint64_t *, uint64_t, int, int)",
        "shmem_ctx_quiet": "void shmem_ctx_quiet(shmem_ctx_t)",
        "shmem_pcontrol": "void shmem_pcontrol(int, ...)",
        "shmem_init": "void shmem_init(void)",
    }
    for name, text in facts.items():
        assert api.format_declaration(name, decls[name]) == text
    for absent in ("shmem_team_ptr", "shmem_int_iput_nbi", "shmem_float_atomic_add", "shmem_barrier",
                   "shmem_short_wait_until", "shmem_int_and_reduce", "shmem_complexd_max_reduce"):
        assert absent not in decls


def test_deprecated_routines_are_not_1_5_names():
    decls = api.expected_declarations()
    deprecated = api.deprecated_routines()
    assert {"start_pes", "shmalloc", "shmem_broadcast32", "shmem_int_sum_to_all", "shmem_long_wait",
            "shmem_int_fadd", "shmem_sync", "shmem_barrier", "shmem_ushort_test"} <= set(deprecated)
    assert not set(deprecated) & set(decls)
    assert not set(api.deprecated_constants()) & set(api.constant_names())


def test_list_errors_carry_their_line():
    bad = ("[tables]\nT: a=int\n[routines]\nvoid shmem_TYPENAME_x(TYPE v); @U\n"
           "void shmem_y(void)\nvoid shmem_TYPENAME_z(TYPE v);\n[bogus]\n")
    with pytest.raises(api.ApiFileError) as e:
        api.parse_api_text(bad, "t.txt")
    msg = str(e.value)
    assert "t.txt(4): unknown table U" in msg
    assert "t.txt(5): expected `DECLARATION; [@TABLE] [+ctx]`" in msg
    assert "t.txt(6): placeholder without @TABLE" in msg
    assert "t.txt(7): unknown section [bogus]" in msg


@pytest.mark.parametrize("param,canonical", [
    ("const void *dest", "const void *"),
    ("const void*dest", "const void *"),
    ("void const * dest", "const void *"),
    ("long double value", "long double"),
    ("unsigned long long", "unsigned long long"),
    ("const shmem_team_config_t *config", "const shmem_team_config_t *"),
    ("shmem_ctx_t", "shmem_ctx_t"),
    ("const int level", "int"),
    ("int *restrict p", "int *"),
    ("int *const p", "int *"),
    ("char name[]", "char *"),
    ("char **argv", "char **"),
    ("double _Complex *dest", "double _Complex *"),
])
def test_parameter_types_are_normalised(param, canonical):
    assert api.split_parameter(param) == canonical


# ---- the header reader on snippets --------------------------------------------------------------

def sigs(text):
    return {r.name: api.format_declaration(r.name, r.signature) for r in scan_header(text).routines}


def test_reads_declarations_and_inline_definitions():
    text = """
    #include <stddef.h>
    /* void shmem_commented_out(void); */
    // int shmem_also_commented(int);
    ISHMEM_API void shmem_int_put(int *dest, const int* source,
                                  size_t nelems, int pe);
    static inline void *shmem_ptr(const void *dest, int pe) { if (pe) { return 0; } return (void *) dest; }
    __attribute__((visibility("default"))) int shmem_n_pes(void) SHMEM_DEPRECATED;
    ISHMEM_DEPRECATED("use x") int
    shmem_my_pe(void);
    _Noreturn void shmem_global_exit(int status);
    static inline int shmem_team_sync(shmem_team_t team)
    {
        const char *s = "shmem_fake(void);";
        return ishmem_team_sync(team);
    }
    """
    assert sigs(text) == {
        "shmem_int_put": "void shmem_int_put(int *, const int *, size_t, int)",
        "shmem_ptr": "void *shmem_ptr(const void *, int)",
        "shmem_n_pes": "int shmem_n_pes(void)",
        "shmem_my_pe": "int shmem_my_pe(void)",
        "shmem_global_exit": "void shmem_global_exit(int)",
        "shmem_team_sync": "int shmem_team_sync(shmem_team_t)",
    }
    lines = {r.name: r.line for r in scan_header(text).routines}
    assert lines["shmem_int_put"] == 5 and lines["shmem_team_sync"] == 12


def test_skips_what_only_cplusplus_sees():
    text = """
    #ifdef __cplusplus
    extern "C" {
    #endif
    void shmem_c1(void);
    #ifdef __cplusplus
    }
    void shmem_cxx1(int x);
    #  if __cplusplus >= 201103L
    void shmem_cxx2(void);
    #  else
    void shmem_cxx3(void);
    #  endif
    #elif defined(__STDC_VERSION__)
    void shmem_c2(void);
    #else
    void shmem_c3(void);
    #endif
    #ifndef __cplusplus
    void shmem_c4(void);
    #else
    template <typename T> void shmem_cxx4(T *x) { }
    #endif
    #if defined(__cplusplus) && defined(SYCL_LANGUAGE_VERSION)
    void shmem_cxx5(void);
    #elif !defined(__cplusplus)
    void shmem_c5(void);
    #else
    void shmem_cxx6(void);
    #endif
    #if !defined(__cplusplus) && FOO
    void shmem_c6(void);
    #else
    void shmem_c7(void);
    #endif
    #if FOO
    #ifdef __cplusplus
    void shmem_cxx7(void);
    #endif
    void shmem_c8(void);
    #endif
    #define SHMEM_FROM_C 1
    #define SHMEM_MULTI_LINE(x) \\
        static inline void shmem_in_macro(void) { x; } \\
        void shmem_in_macro2(void);
    #ifdef __cplusplus
    #define SHMEM_FROM_CXX 1
    #endif
    """
    scan = scan_header(text)
    assert sorted(r.name for r in scan.routines) == [f"shmem_c{i}" for i in range(1, 9)]
    assert "SHMEM_FROM_C" in scan.defined and "SHMEM_FROM_CXX" not in scan.defined
    assert "SHMEM_MULTI_LINE" in scan.defined


def test_reads_defined_names():
    text = """
    #define SHMEM_MAJOR_VERSION 1
    #define SHMEM_VENDOR_STRING "x"
    typedef struct ishmemi_team *shmem_team_t;
    typedef struct { int num_contexts; } shmem_team_config_t;
    enum { SHMEM_CMP_EQ = 1, SHMEM_CMP_NE, SHMEM_CMP_GT = (1 << 2) };
    extern const shmem_team_t SHMEM_TEAM_WORLD;
    static const long SHMEM_CTX_PRIVATE = sizeof(long);
    """
    scan = scan_header(text)
    assert {"SHMEM_MAJOR_VERSION", "SHMEM_VENDOR_STRING", "shmem_team_t", "shmem_team_config_t",
            "SHMEM_CMP_EQ", "SHMEM_CMP_NE", "SHMEM_CMP_GT", "SHMEM_TEAM_WORLD",
            "SHMEM_CTX_PRIVATE"} <= set(scan.defined)
    assert scan.routines == []


# ---- the check, on a fake header in a temporary directory --------------------------------------

def _param_names(params):
    return ", ".join(p if p == "..." else (f"{p}a{i}" if p.endswith("*") else f"{p} a{i}")
                     for i, p in enumerate(params)) or "void"


def fake_header(decls, constants, extra=""):
    """Every routine of `decls`: half as ISHMEM_API declarations, half as static inline definitions,
    parameter names added; constants as #defines; a C++ section that must be ignored."""
    out = ["#pragma once", "#ifdef __cplusplus", 'extern "C" {', "#endif"]
    out += [f"#define {c} 1" for c in constants]
    for i, (name, (ret, params)) in enumerate(decls.items()):
        sep = "" if ret.endswith("*") else " "
        if i % 2:
            out.append(f"ISHMEM_API {ret}{sep}{name}({_param_names(params)});")
        else:
            body = "" if ret == "void" else " return 0;"
            out.append(f"static inline {ret}{sep}{name}({_param_names(params)})\n{{{body}\n}}")
    out += ["#ifdef __cplusplus", "}", "void shmem_int_put(int x);", "#endif", extra]
    return "\n".join(out) + "\n"


@pytest.fixture
def fake(tmp_path):
    decls = {**api.expected_declarations(), **api.deprecated_declarations()}
    constants = api.constant_names() + api.deprecated_constants()

    def make(decls=decls, constants=constants, extra="", unsupported=""):
        h = tmp_path / "shmem.h"
        h.write_text(fake_header(decls, constants, extra))
        u = tmp_path / "openshmem_unsupported.txt"
        u.write_text(unsupported)
        return check_header(h, u)
    return make


def test_complete_header_passes(fake):
    assert fake() == []


def test_a_wrong_signature_is_reported(fake):
    decls = {**api.expected_declarations(), **api.deprecated_declarations()}
    decls["shmem_int_broadcast"] = ("void", decls["shmem_int_broadcast"][1])
    decls["shmem_ctx_long_p"] = ("void", ("shmem_ctx_t", "long *", "int", "int"))
    errors = fake(decls)
    assert len(errors) == 2
    bcast = next(e for e in errors if "shmem_int_broadcast" in e)
    assert "shmem_int_broadcast does not match OpenSHMEM 1.5: header has `void shmem_int_broadcast(" in bcast
    assert "1.5 has `int shmem_int_broadcast(shmem_team_t, int *, const int *, size_t, int)`" in bcast
    assert any("shmem_ctx_long_p does not match" in e for e in errors)


def test_a_routine_outside_1_5_is_reported(fake):
    errors = fake(extra="void shmem_team_ptr_x(void);\nvoid shmemx_extension(void);")
    assert len(errors) == 1 and "shmem_team_ptr_x is not an OpenSHMEM 1.5 routine" in errors[0]
    assert errors[0].startswith("shmem.h(")


def test_a_missing_routine_must_be_listed_unsupported(fake):
    decls = {**api.expected_declarations(), **api.deprecated_declarations()}
    del decls["shmem_complexd_sum_reduce"], decls["shmem_pcontrol"]
    constants = [c for c in api.constant_names() + api.deprecated_constants() if c != "SHMEM_TEAM_SHARED"]
    errors = fake(decls, constants)
    assert sorted(errors) == sorted([
        "shmem.h: OpenSHMEM 1.5 shmem_complexd_sum_reduce is neither in the header nor in "
        "openshmem_unsupported.txt",
        "shmem.h: OpenSHMEM 1.5 shmem_pcontrol is neither in the header nor in openshmem_unsupported.txt",
        "shmem.h: OpenSHMEM 1.5 SHMEM_TEAM_SHARED is neither in the header nor in openshmem_unsupported.txt",
    ])
    listed = "# no complex types on the device\nshmem_complexd_sum_reduce\tno _Complex\nshmem_pcontrol\n" \
             "SHMEM_TEAM_SHARED\tone node\n"
    assert fake(decls, constants, unsupported=listed) == []
    errors = fake(decls, constants, unsupported=listed + "shmem_complexd_sum_reduc\nshmem_init\n")
    assert errors == [
        "openshmem_unsupported.txt(5): shmem_complexd_sum_reduc is not an OpenSHMEM 1.5 routine or constant",
        "openshmem_unsupported.txt(6): shmem_init is listed unsupported but the header provides it",
    ]


def test_deprecated_routines_must_be_there_with_their_signature(fake):
    decls = {**api.expected_declarations(), **api.deprecated_declarations()}
    del decls["start_pes"], decls["shmem_int_sum_to_all"]
    decls["shmem_barrier"] = ("int", decls["shmem_barrier"][1])
    constants = [c for c in api.constant_names() + api.deprecated_constants() if c != "_SHMEM_SYNC_VALUE"]
    errors = fake(decls, constants)
    assert len(errors) == 4, errors
    for name in ("start_pes", "shmem_int_sum_to_all", "_SHMEM_SYNC_VALUE"):
        assert any(f": {name}, which OpenSHMEM 1.5 deprecates but still defines, is missing" in e
                   for e in errors), name
    assert any("shmem_barrier does not match its deprecated OpenSHMEM form" in e for e in errors)
    # A name that C cannot give a second signature may be a macro that dispatches.
    decls = {**api.expected_declarations(), **api.deprecated_declarations()}
    del decls["shmem_sync"]
    assert fake(decls, extra="#define shmem_sync(...) x\n") == []
