"""ISHMEM_CHECK=full costs nothing on the default path of the one-sided stubs.

A library stub with symmetric arguments, outside the collectives, first tail-calls a full-checked
copy when full mode is on; its own body then checks bounds only (check_symmetric_bounds, whose
failure calls are [[noreturn]]), so GCC saves no registers for a call that returns. The copy is the
body as the spec gives it (check_symmetric, which adds the allocation check).
"""
import pytest

from generator.__main__ import ROOT
from generator.build import build_api
from generator.loader import load_spec


@pytest.fixture(scope="module")
def api():
    return build_api(load_spec(ROOT / "spec", ROOT))


def library_stubs(api):
    return [ep for ep in api.entry_points if not ep.is_template]


def test_one_sided_stubs_dispatch_to_a_full_checked_copy(api):
    copied = [ep for ep in library_stubs(api) if ep.full_copy]
    assert len(copied) > 1000, "RMA, AMO, signal and p2p stubs have symmetric arguments"
    for ep in copied:
        args = ", ".join(p.rsplit(" ", 1)[1] for p in ep.params_def)
        assert ep.stub_body[0] == (f"if (__builtin_expect(ishmemi::state.check_full, 0)) "
                                   f"return full_checked::{ep.name}({args});"), ep.name
        rest = "\n".join(ep.stub_body[1:])
        assert "ishmemi::check_symmetric(" not in rest, ep.name
        assert "ishmemi::check_symmetric_bounds(" in rest, ep.name
        assert ep.full_checked_body == ep.body and any("ishmemi::check_symmetric(" in l for l in ep.body), ep.name
    assert not [ep.name for ep in copied if "collectives" in str(ep.family.file)]


def test_collectives_and_routines_without_symmetric_arguments_keep_one_body(api):
    for ep in library_stubs(api):
        if ep.full_copy:
            continue
        assert ep.full_checked_body == () and ep.stub_body == ep.body, ep.name
        if ep.family.team:
            continue
        assert not any("ishmemi::check_symmetric(" in l for l in ep.body) or any(
            "ishmemi::check_team" in l for l in ep.body), f"{ep.name}: symmetric argument without a full copy"


def test_device_bodies_keep_the_spec_checks(api):
    for ep in api.entry_points:
        for line in ep.device_body:
            assert "check_symmetric_bounds" not in line and "full_checked" not in line, ep.name
