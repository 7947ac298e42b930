"""spec/openshmem_extra.yaml: the deprecated OpenSHMEM routines and the long double and complex
ones, as the generator expands them into shmem.h."""
import re
import shutil

import pytest

from generator.__main__ import ROOT
from generator.build import build_api
from generator.emit import render_all
from generator.loader import SpecError, load_spec


@pytest.fixture(scope="module")
def api():
    return build_api(load_spec(ROOT / "spec", ROOT))


@pytest.fixture(scope="module")
def header(api):
    return render_all(api, ROOT / "templates")["include/shmem.h"]


def names(api, pattern):
    return [r.symbol for r in api.openshmem_extra.routines if re.fullmatch(pattern, r.symbol)]


def test_fan_out(api):
    # to_all: and/or/xor over 4 integer types, max/min over those and 3 floating ones, sum/prod
    # over those and 2 complex ones: 4 * 7 + 3 * 4 + 2 * 2
    assert len(names(api, r"shmem_\w+_to_all")) == 44
    assert len(names(api, r"shmem_(broadcast|collect|fcollect|alltoall|alltoalls)(32|64)")) == 10
    # long double RMA: 10 routines, each with its shmem_ctx_ form
    assert len(names(api, r"shmem_(ctx_)?longdouble_\w+(?<!_to_all)")) == 2 * 10 + 5 + 4
    assert len(names(api, r"shmem_complex[df]_\w+_reduce")) == 4
    # old atomic names: 3 over the 14 extended AMO types, 5 over the 12 standard ones
    assert len(names(api, r"shmem_\w+_(fetch|set|swap|cswap|finc|inc|fadd|add)")) == 3 * 14 + 5 * 12
    assert api.openshmem_extra.c_dispatch() == [("shmem_sync", "shmemi_sync_active_set")]


def test_deprecated_routines_warn_and_the_1_5_ones_do_not(api):
    for r in api.openshmem_extra.routines:
        deprecated = "longdouble" not in r.symbol and "complex" not in r.symbol or r.symbol.endswith("_to_all")
        assert bool(r.since) == deprecated, r.symbol
        assert ("ISHMEMI_DEPRECATED" in r.attribute) == deprecated


def test_header_dispatches_shmem_sync_and_selects_undeprecated_copies(header):
    assert "#define shmem_sync(...) ISHMEMI_OVERLOAD(shmem_sync, __VA_ARGS__)" in header
    assert "#define ISHMEMI_OVL_shmem_sync_1 shmem_team_sync" in header
    assert "#define ISHMEMI_OVL_shmem_sync_4 shmemi_sync_active_set" in header
    fadd = re.search(r"#define shmem_fadd\(dest, value, pe\) _Generic\(\*\(dest\),(.*?)\)\(dest, value, pe\)",
                     header, re.S).group(1)
    assert "int: shmemi_int_fadd" in fadd and "shmem_int_fadd" not in fadd.replace("shmemi_int_fadd", "")
    # long double joins the 1.5 generic names, a deprecated routine does not
    put = re.search(r"#define ISHMEMI_OVL_shmem_put_4\(.*?\)\(dest, source, nelems, pe\)", header, re.S).group(0)
    assert "long double: shmem_longdouble_put" in put
    wait = re.search(r"#define shmem_wait_until\(.*?\)\(ivar, cmp, cmp_value\)", header, re.S).group(0)
    assert "short" not in wait
    assert ("static inline int shmem_complexd_sum_reduce(shmem_team_t team, std::complex<double>* dest, "
            "const std::complex<double>* source, size_t nreduce)") in header
    assert ("static inline int shmem_complexd_sum_reduce(shmem_team_t team, double _Complex* dest, "
            "const double _Complex* source, size_t nreduce)") in header


def test_an_unknown_table_is_reported_with_its_line(tmp_path):
    (tmp_path / "spec").mkdir()
    for p in (ROOT / "spec").iterdir():
        shutil.copy(p, tmp_path / "spec" / p.name)
    f = tmp_path / "spec" / "openshmem_extra.yaml"
    f.write_text(f.read_text().replace("types: longdouble, ctx: true, generic: shmem_put,",
                                       "types: nosuch, ctx: true, generic: shmem_put,"))
    with pytest.raises(SpecError) as e:
        build_api(load_spec(tmp_path / "spec", tmp_path))
    assert re.search(r"spec/openshmem_extra.yaml:\d+: unknown type table 'nosuch'", str(e.value))


def test_forwarding_routines_name_themselves(api, header):
    # A routine that forwards to another names itself in the library's messages; one that passes
    # its own name, or calls nothing, is left as it is.
    by_symbol = {r.symbol: r for r in api.openshmem_extra.routines}
    finc = by_symbol["shmem_long_finc"]
    assert finc.named_body == 'SHMEMI_CALLED_AS("shmem_long_finc"); ' + finc.body
    assert by_symbol["shmem_ctx_longdouble_put"].named_body.startswith(
        'SHMEMI_CALLED_AS("shmem_ctx_longdouble_put"); shmem_ctx_putmem(')
    assert by_symbol["shmem_barrier"].named_body == by_symbol["shmem_barrier"].body  # passes "shmem_barrier"
    assert by_symbol["shmem_udcflush_line"].named_body == "(void)dest;"
    # the C11 generic twin names the typed routine too
    assert re.search(r'shmemi_long_finc\(long\* dest, int pe\) \{ SHMEMI_CALLED_AS\("shmem_long_finc"\);', header)
