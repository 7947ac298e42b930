"""The GPU cases of each chapter are cut into files by weight: every case lands once, in order, and
no file holds more than GPU_CASES_PER_FILE weighted cases (so that no nvcc runs far longer than the
rest of a parallel build)."""
from generator.__main__ import ROOT
from generator.build import build_api
from generator.emit import GPU_CASES_PER_FILE, gpu_case_parts, gpu_case_weight
from generator.loader import load_spec


def test_parts_keep_every_case_in_order_within_the_weight():
    api = build_api(load_spec(ROOT / "spec", ROOT))
    heavy_seen = False
    for ch in api.chapters:
        eps = api.chapter_entry_points(ch.name)
        weight = {id(tc): gpu_case_weight(ep) for ep in eps for tc in ep.gpu_tests}
        parts = gpu_case_parts(eps)
        assert [tc for p in parts for tc in p] == [tc for ep in eps for tc in ep.gpu_tests], ch.name
        for p in parts:
            assert p, ch.name
            assert sum(weight[id(tc)] for tc in p) <= GPU_CASES_PER_FILE, ch.name
            heavy_seen = heavy_seen or any(weight[id(tc)] > 1 for tc in p)
    assert heavy_seen, "no weighted family has GPU cases: GPU_CASE_WEIGHT names no spec family"
