"""The generic C++ templates deduce T from their pointer parameters only.

A value parameter of the element type (a comparison value, an AMO operand, the value of a p) is
declared in a non-deduced context, so that ishmem_wait_until(&long_var, ISHMEM_CMP_EQ, 0) compiles:
with `T cmp_value` the literal 0 would deduce T = int against T = long from the pointer.
"""
import re

import pytest

from generator.__main__ import ROOT, generate
from generator.build import build_api
from generator.expand import NONDEDUCED_T, family_synopsis
from generator.loader import SpecError, load_spec

from test_loader_errors import GOOD_FAMILY, errors_of


@pytest.fixture(scope="module")
def api():
    return build_api(load_spec(ROOT / "spec", ROOT))


def generic_entry_points(api):
    eps = [ep for ep in api.entry_points if ep.form == "generic"]
    assert eps, "the spec has generic families"
    return eps


def t_params(ep):
    """(type, name) of every parameter whose type names the template parameter T."""
    out = []
    for p in ep.params_def:
        ptype, name = p.rsplit(" ", 1)
        if re.search(r"\bT\b", ptype):
            out.append((ptype, name))
    return out


def test_no_generic_template_deduces_from_a_value(api):
    bad = []
    for ep in generic_entry_points(api):
        for ptype, name in t_params(ep):
            if ptype not in ("T*", "const T*", NONDEDUCED_T):
                bad.append(f"{ep.decl}: {ptype} {name}")
    assert not bad, "\n".join(bad)


def test_every_generic_template_has_a_pointer_to_deduce_from(api):
    for ep in generic_entry_points(api):
        assert any(t in ("T*", "const T*") for t, _ in t_params(ep)), ep.decl


def test_value_parameters_of_the_typed_forms_keep_their_type(api):
    by_name = {ep.name: ep for ep in api.entry_points}
    assert by_name["ishmem_long_wait_until"].params == ("long* ivar", "int cmp", "long cmp_value")
    assert by_name["ishmem_double_p"].params == ("double* dest", "double value", "int pe")


@pytest.mark.parametrize("name, params", [
    ("ishmem_wait_until", ("T* ivar", "int cmp", f"{NONDEDUCED_T} cmp_value")),
    ("ishmem_test", ("T* ivar", "int cmp", f"{NONDEDUCED_T} cmp_value")),
    ("ishmem_p", ("T* dest", f"{NONDEDUCED_T} value", "int pe")),
    ("ishmem_atomic_add", ("T* dest", f"{NONDEDUCED_T} value", "int pe")),
    ("ishmem_atomic_compare_swap", ("T* dest", f"{NONDEDUCED_T} cond", f"{NONDEDUCED_T} value", "int pe")),
    ("ishmemx_wait", ("T* ivar", f"{NONDEDUCED_T} cmp_value")),
    # _vector forms: the mask and the array of comparison values keep their pointer types.
    ("ishmem_wait_until_all_vector", ("T* ivars", "size_t nelems", "const int* status", "int cmp",
                                      "const T* cmp_values")),
    ("ishmem_sum_reduce", ("T* dest", "const T* source", "size_t nreduce")),
])
def test_examples(api, name, params):
    eps = [ep for ep in api.entry_points if ep.name == name and ep.form == "generic" and not ep.team_form]
    assert len(eps) == 1 and eps[0].params == params


def test_work_group_and_on_queue_forms_too(api):
    for name in ("ishmemx_wait_until_work_group", "ishmemx_wait_until_on_queue", "ishmemx_test_any_work_group"):
        (ep,) = [ep for ep in api.entry_points if ep.name == name and ep.form == "generic"]
        assert f"{NONDEDUCED_T} cmp_value" in ep.params, ep.decl


def test_headers_include_type_traits():
    files = generate()
    # ishmemx.h includes ishmem.h, which includes <type_traits> for C++ (C sees neither templates nor it).
    assert '#include "ishmem.h"' in files["include/ishmemx.h"]
    from test_c_header import c_part
    text = files["include/ishmem.h"]
    assert "#include <type_traits>" in text and "#include <type_traits>" not in c_part(text)
    assert f"ISHMEM_HD inline void ishmem_wait_until(T* ivar, int cmp, {NONDEDUCED_T} cmp_value)" in files["include/ishmem.h"]


def test_reference_page_keeps_t_value_and_states_the_rule(api):
    fam = next(f for ch in api.chapters for f in ch.families if f.name == "atomic_compare_swap")
    lines = [line for block in family_synopsis(fam) for line in block.lines]
    assert "T ishmem_atomic_compare_swap(T* dest, T cond, T value, int pe);" in lines
    assert fam.nondeduced_params == ("cond", "value")
    page = generate()["docs/amo.rst"]
    assert "``cond``, ``value`` are declared ``std::type_identity_t<T>``" in page


def test_generic_family_without_a_pointer_is_an_error(spec_root):
    text = GOOD_FAMILY.replace("    types: standard_rma\n", "    types: standard_rma\n    generic: true\n")
    text = text.replace('type: "TYPE*"', "type: TYPE").replace(", checks: [{symmetric: nelems}]", "")
    errs = errors_of(spec_root, text)
    assert errs == ["spec/demo.yaml:3: family 'put': 'generic' needs a TYPE* parameter (the template deduces T "
                    "from pointers only)"]
