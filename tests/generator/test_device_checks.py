"""Device entry points test all their checks with one branch.

Each device check is a predicate (ishmemi::dev::ok_*) and a report (ishmemi::dev::check_*). A device
body with two or more checks computes every predicate, joined by &, and branches once; inside the
branch the reports run in the spec's order, so the first failing check is the one reported, as in
the host body, and a call that never returns ends it. The predicates are the reports' own arguments without the routine and parameter names.
"""
import re

import pytest

from generator.__main__ import ROOT
from generator.build import build_api
from generator.loader import load_spec

# A name of the host core: ishmemi:: or ishmemi::impl::, but not the element types and type-table
# traits device code shares with the host.
_HOST_NAME = re.compile(r"ishmemi::(?!sized_t<|in_table_v<|table_)(impl::)?")
_REPORT = re.compile(r"^(?:if \((\w+) != nullptr\) )?ishmemi::dev::check_(\w+)\(fn(?:, \"\w+\")?(?:, (.*))?\);$")


def _device_names(line: str) -> str:
    """A host line with the core's names replaced by the device core's (ishmemi::dev::)."""
    return _HOST_NAME.sub("ishmemi::dev::", line)


@pytest.fixture(scope="module")
def device_eps():
    api = build_api(load_spec(ROOT / "spec", ROOT))
    return [ep for ep in api.entry_points if ep.device_body]


def test_reports_and_predicates_pair_up_in_order(device_eps):
    fused = 0
    for ep in device_eps:
        body = list(ep.device_body)
        heads = [i for i, l in enumerate(body) if l.startswith("if (__builtin_expect(!(ishmemi::dev::ok_")]
        host = [l for l in ep.body if "ishmemi::check_" in l and not l.startswith("if (!(")]
        if len(host) < 2:
            assert not heads, ep.name
            continue
        assert len(heads) == 1, ep.name
        i = heads[0]
        end = body.index("}", i)
        assert body[end - 1].strip() == "ishmemi::dev::fail_unreported(fn);", ep.name
        reports = [l.strip() for l in body[i + 1:end - 1]]
        # The reports are the host body's checks, in its order, under device names.
        assert reports == [_device_names(l) for l in host], ep.name
        cond = body[i][len("if (__builtin_expect(!("):-len("), 0)) {")]
        preds = cond.split(" & ")
        assert len(preds) == len(reports), ep.name
        for pred, report in zip(preds, reports):
            m = _REPORT.match(report)
            assert m, report
            guard, kind, args = m.groups()
            want = f"ishmemi::dev::ok_{kind}({args or ''})"
            if guard:
                want = f"({guard} == nullptr || {want})"
            assert pred == want, (ep.name, pred, want)
        fused += 1
    assert fused > 1000, "RMA, AMO, signal, p2p and collective device forms have two or more checks"


def test_device_bodies_call_the_device_core_only(device_eps):
    """Every name of the core a device body calls is ishmemi::dev::'s; only the types it shares
    with the host (sized_t, the type tables) are ishmemi::'s. The host body is the same lines under
    the host's names, checks aside (the device tests them with one branch)."""
    for ep in device_eps:
        for line in ep.device_body:
            assert not _HOST_NAME.search(line.replace("ishmemi::dev::", "")), (ep.name, line)
        unfused = [l.strip() for l in ep.device_body if not l.startswith("if (__builtin_expect(")
                   and l not in ("}", "    ishmemi::dev::fail_unreported(fn);")]
        assert unfused == [_device_names(l) for l in ep.body], ep.name
    assert len(device_eps) > 1000


def test_every_device_report_has_a_predicate():
    src = "".join(p.read_text() for p in sorted((ROOT / "runtime/include/ishmem/cuda").rglob("*.cuh")))
    reports = set(re.findall(r"__device__ inline void check_(\w+)\(", src))
    preds = set(re.findall(r"__device__ inline bool ok_(\w+)\(", src))
    assert reports and reports <= preds, reports - preds


def test_fcollect_checks_its_source_against_the_whole_dest():
    """fcollect's source must lie outside dest's nelems times the team's size elements, on the host
    and on the device, every form; collect has no such check (it would need every PE's nelems)."""
    api = build_api(load_spec(ROOT / "spec", ROOT))
    fcollects = [ep for ep in api.entry_points if "fcollect" in ep.name]
    collects = [ep for ep in api.entry_points if "collect" in ep.name and "fcollect" not in ep.name]
    assert fcollects and collects
    for ep in fcollects:
        host = " ".join(ep.body)
        who = "report_fn" if ep.variant == "work_group" else "fn"
        assert f'ishmemi::check_outside({who}, "source", source, ishmemi::mul_size(nelems, sizeof(' in host, ep.name
        assert ("ishmemi::mul_size(ishmemi::mul_size(nelems, ishmemi::team_size_or_zero(team)), sizeof("
                in host.split("check_outside", 1)[1]), ep.name
        if ep.device_body:
            assert "ishmemi::dev::check_outside(" in " ".join(ep.device_body), ep.name
    for ep in collects:
        assert "check_outside" not in " ".join(ep.body), ep.name


def test_a_work_group_reports_a_failed_status_check_from_its_leader_only():
    """Every work-item of a _work_group form evaluates the status checks (all return the same
    status), but only the group's leader names the routine to them, so one bad call prints one line."""
    api = build_api(load_spec(ROOT / "spec", ROOT))
    seen = 0
    for ep in api.entry_points:
        status = [l for l in ep.body if l.startswith("if (!(ishmemi::check_")]
        if ep.variant != "work_group" or not status:
            continue
        seen += 1
        assert "const char* const report_fn = ishmemi::impl::group_leads(group) ? fn : nullptr;" in ep.body, ep.name
        assert "(fn," not in status[0] and "(report_fn," in status[0], ep.name
        if ep.device_body:
            assert "const char* const report_fn = ishmemi::dev::group_leads(group) ? fn : nullptr;" in ep.device_body, ep.name
    assert seen > 100


def test_every_size_is_overflow_safe():
    """No check multiplies sizes with a bare *: every byte count goes through mul_size (or the
    extents), which saturate at SIZE_MAX, so that a huge nelems fails its check instead of wrapping
    to a small copy. Host and device bodies alike."""
    api = build_api(load_spec(ROOT / "spec", ROOT))
    bare = re.compile(r"\)\s*\*\s*(sizeof|ishmemi)|\*\s*sizeof\(")
    checked = 0
    for ep in api.entry_points:
        for line in ep.body + ep.device_body:
            if "check_" in line or "ok_" in line:
                assert not bare.search(line), (ep.name, line)
                checked += "mul_size(" in line
    assert checked > 1000
