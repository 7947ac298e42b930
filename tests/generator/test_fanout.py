"""Fan-out of the real spec against the counts of the Intel SHMEM 1.5 reference tables."""
from collections import Counter

import pytest

from generator.__main__ import ROOT
from generator.build import build_api
from generator.loader import load_spec


@pytest.fixture(scope="module")
def api():
    return build_api(load_spec(ROOT / "spec", ROOT))


def count(api, family):
    return sum(1 for ep in api.entry_points if ep.family.name == family)


def test_type_tables_match_the_reference(api):
    sizes = {t.name: len(t.types) for t in api.tables}
    assert sizes == {"standard_rma": 23, "standard_amo": 12, "extended_amo": 14, "bitwise_amo": 7, "reduction": 23}
    red = next(t for t in api.tables if t.name == "reduction")
    assert sum(1 for t in red.types if "and" in t.ops) == 14


@pytest.mark.parametrize("family,expected", [
    # 3 variants x (23 typed + 5 sized + 1 mem + 1 template)
    ("put", 90), ("get", 90), ("put_nbi", 90), ("get_nbi", 90), ("put_signal", 90), ("put_signal_nbi", 90),
    # 3 variants x (23 typed + 5 sized + 1 template): no mem form
    ("iput", 87), ("iget", 87), ("ibput", 87), ("ibget", 87),
    ("p", 24), ("g", 24),
    ("atomic_fetch", 15), ("atomic_set", 15), ("atomic_swap", 15), ("atomic_compare_swap", 13),
    ("atomic_fetch_inc", 13), ("atomic_inc", 13), ("atomic_fetch_add", 13), ("atomic_add", 13),
    ("atomic_fetch_and", 8), ("atomic_and", 8), ("atomic_fetch_or", 8), ("atomic_or", 8),
    ("atomic_fetch_xor", 8), ("atomic_xor", 8), ("atomic_fetch_nbi", 15), ("atomic_swap_nbi", 15),
    ("atomic_compare_swap_nbi", 13), ("atomic_fetch_inc_nbi", 13), ("atomic_fetch_add_nbi", 13),
    ("atomic_fetch_and_nbi", 8), ("atomic_fetch_or_nbi", 8), ("atomic_fetch_xor_nbi", 8),
    ("signal_fetch", 1), ("signal_add", 1), ("signal_set", 1),
    ("fence", 2), ("quiet", 3), ("barrier_all", 3), ("sync_all", 3),
    # point-to-point: 3 variants x (12 typed + 1 template) for waits, 2 variants for tests
    ("wait_until", 39), ("wait_until_all", 39), ("wait_until_any", 39), ("wait_until_some", 39),
    ("wait_until_all_vector", 39), ("wait_until_any_vector", 39), ("wait_until_some_vector", 39),
    ("test", 26), ("test_all", 26), ("test_any", 26), ("test_some", 26),
    ("test_all_vector", 26), ("test_any_vector", 26), ("test_some_vector", 26),
    ("signal_wait_until", 3), ("wait", 39),
    # collectives: 6 slots (base, team, on_queue, on_queue + team, work_group, work_group + team)
    ("team_sync", 3), ("alltoall", 150), ("broadcast", 150), ("collect", 150), ("fcollect", 150),
    ("and_reduce", 90), ("or_reduce", 90), ("xor_reduce", 90),
    ("max_reduce", 144), ("min_reduce", 144), ("sum_reduce", 144), ("prod_reduce", 144),
    ("sum_inscan", 96), ("sum_exscan", 96),
    ("team_my_pe", 1), ("team_n_pes", 1), ("team_translate_pe", 1), ("team_get_config", 1),
    ("team_split_strided", 1), ("team_split_2d", 1), ("team_destroy", 1),
    # utility: three overloads of ishmemx_print, one family each
    ("print", 1), ("print_type", 1), ("print_located", 1),
])
def test_family_fanout(api, family, expected):
    assert count(api, family) == expected


def test_chapter_totals(api):
    totals = Counter(ep.family.chapter for ep in api.entry_points)
    # reference §4.4 RMA 756, §4.5 AMO 251, §4.6 signaling 183, §4.7 ordering 5, §4.1 12, §4.2 4,
    # §4.8 point-to-point 458 (+ 39 of the ishmemx_wait extension), §4.10 the 3 ishmemx_print overloads;
    # the OpenSHMEM routines Intel SHMEM lacks: setup adds global_exit, pe_accessible and
    # addr_accessible, memory malloc_with_hints and realloc, utility pcontrol, collectives alltoalls
    # (24 typed and mem forms, a template, each with a team overload); contexts (7) and locks (3)
    assert totals == {"rma": 756, "amo": 251, "signal": 183, "ordering": 5, "setup": 12 + 3, "memory": 4 + 2,
                      "p2p": 458 + 39, "collectives": 1647 + 50, "teams": 7, "utility": 3 + 1, "contexts": 7,
                      "locks": 3}


def test_names_and_signatures(api):
    decls = {ep.name: ep for ep in api.entry_points if not ep.is_template}
    assert decls["ishmem_longlong_put"].decl == "void ishmem_longlong_put(long long* dest, const long long* source, size_t nelems, int pe)"
    assert decls["ishmemx_put8_nbi_on_queue"].decl == (
        "ishmem::event ishmemx_put8_nbi_on_queue(void* dest, const void* source, size_t nelems, int pe, "
        "ishmem::queue& q, const std::vector<ishmem::event>& deps = {})")
    assert decls["ishmem_putmem_signal_nbi"].decl == (
        "void ishmem_putmem_signal_nbi(void* dest, const void* source, size_t nelems, uint64_t* sig_addr, "
        "uint64_t signal, int sig_op, int pe)")
    assert decls["ishmemx_uint64_ibget"].decl == (
        "void ishmemx_uint64_ibget(uint64_t* dest, const uint64_t* source, ptrdiff_t dst, ptrdiff_t sst, "
        "size_t bsize, size_t nblocks, int pe)")
    assert decls["ishmem_size_atomic_compare_swap_nbi"].decl == (
        "void ishmem_size_atomic_compare_swap_nbi(size_t* fetch, size_t* dest, size_t cond, size_t value, int pe)")
    assert decls["ishmem_double_g"].decl == "double ishmem_double_g(const double* source, int pe)"
    assert decls["ishmemx_quiet_on_queue"].decl == (
        "ishmem::event ishmemx_quiet_on_queue(ishmem::queue& q, const std::vector<ishmem::event>& deps = {})")
    templates = {(ep.name, ep.form, ep.variant): ep for ep in api.entry_points if ep.is_template}
    wg = templates[("ishmemx_put_work_group", "generic", "work_group")]
    assert wg.template == "template <typename T, typename Group>"
    assert wg.decl == "void ishmemx_put_work_group(T* dest, const T* source, size_t nelems, int pe, const Group& group)"
    typed_wg = templates[("ishmemx_int_iget_work_group", "typed", "work_group")]
    assert typed_wg.template == "template <typename Group>"
    assert templates[("ishmem_atomic_fetch", "generic", "base")].decl == "T ishmem_atomic_fetch(T* source, int pe)"


def test_print_overloads(api):
    prints = sorted(ep.decl for ep in api.entry_points if ep.name == "ishmemx_print")
    assert prints == [
        "void ishmemx_print(const char* file, long int line, const char* func, const char* out, ishmemx_print_msg_type_t msg_type)",
        "void ishmemx_print(const char* out)",
        "void ishmemx_print(const char* out, ishmemx_print_msg_type_t msg_type)",
    ]
    assert all(ep.device_body and ep.header == "ishmemx" for ep in api.entry_points if ep.name == "ishmemx_print")


def test_every_entry_point_with_a_pattern_has_a_test(api):
    for ep in api.entry_points:
        if ep.family.test != "none":
            assert ep.tests, ep.name
            if ep.form == "generic":
                assert len(ep.tests) == len(ep.family.table.types)


def test_atomic_and_wait_targets_are_checked_for_alignment(api):
    """Every element an atomic or a wait touches is checked for alignment (it faults on a GPU)."""
    targets = {"amo": ("dest", "source"), "signal": ("sig_addr",), "p2p": ("ivar", "ivars", "sig_addr")}
    missing, seen = [], 0
    for ch in api.chapters:
        for fam in ch.families:
            for p in fam.params:
                if p.name in targets.get(ch.name, ()) and not (ch.name == "signal" and p.name == "dest"):
                    seen += 1
                    if "aligned" not in [c.kind for c in p.checks]:
                        missing.append(f"{fam.name}.{p.name}")
    assert seen > 30 and not missing
    aligned = [ep for ep in api.entry_points if any("check_aligned" in line for line in ep.body)]
    assert "ishmemi::check_aligned(fn, \"dest\", dest, alignof(int));" in next(
        ep for ep in aligned if ep.name == "ishmem_int_atomic_fetch_add").body
