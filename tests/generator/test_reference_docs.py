"""The reference pages: domain objects, an index entry per concrete routine, parameter directions,
sections, and an example program per family that exists and that the build runs."""
import re

from generator.__main__ import ROOT, generate
from generator.build import build_api
from generator.emit import param_direction
from generator.loader import load_spec

from test_loader_errors import GOOD_FAMILY, errors_of

API = build_api(load_spec(ROOT / "spec", ROOT))
FAMILIES = {f.name: f for ch in API.chapters for f in ch.families}


def test_every_family_names_an_example_that_exists():
    missing = [f.name for f in FAMILIES.values() if not f.example or not (ROOT / f.example).is_file()]
    assert not missing


def test_every_reference_example_is_shown_by_some_family():
    named = {f.example for f in FAMILIES.values()}
    on_disk = {str(p.relative_to(ROOT)) for p in (ROOT / "examples" / "reference").glob("*.cpp")}
    assert not on_disk - named


def test_examples_are_built_by_the_examples_cmake_file():
    # examples/CMakeLists.txt builds every examples/reference/*.cpp; a family must not name another place.
    assert all(f.example.startswith("examples/reference/") for f in FAMILIES.values())
    assert "reference/*.cpp" in (ROOT / "examples" / "CMakeLists.txt").read_text()


def test_each_family_is_a_cpp_object_and_each_concrete_name_an_index_entry():
    out = generate()
    for ch in API.chapters:
        page = out[f"docs/{ch.name}.rst"]
        assert page.count(".. cpp:function::") >= len(ch.families)
        indexed = set(re.findall(r":index:`([a-z0-9_]+)`", page))
        for ep in API.chapter_entry_points(ch.name):
            if ep.form in ("typed", "sized"):
                assert ep.name in indexed, ep.name
        for f in ch.families:
            assert f".. literalinclude:: ../{f.example}" in page


def test_typed_placeholder_signatures_add_no_index_entry():
    page = generate()["docs/p2p.rst"]
    block = page.split("ishmem_TYPENAME_wait_until(", 1)[1].split("\n\n", 1)[0]
    assert ":noindexentry:" in block


def test_parameter_directions():
    def d(fam, param):
        f = FAMILIES[fam]
        return param_direction(f, next(p for p in f.params if p.name == param))
    assert (d("put", "dest"), d("put", "source"), d("put", "pe")) == ("OUT", "IN", "IN")
    assert d("atomic_fetch_add", "dest") == "INOUT" and d("atomic_set", "dest") == "OUT"
    assert d("atomic_fetch_nbi", "fetch") == "OUT" and d("atomic_fetch", "source") == "IN"
    assert d("wait_until", "ivar") == "IN" and d("wait_until_some", "indices") == "OUT"
    assert d("signal_fetch", "sig_addr") == "IN" and d("put_signal", "sig_addr") == "INOUT"
    assert d("set_lock", "lock") == "INOUT" and d("team_split_strided", "new_team") == "OUT"


def test_reductions_have_a_section_of_their_own():
    coll = next(ch for ch in API.chapters if ch.name == "collectives")
    reductions = next(s for s in coll.sections if s.title == "Reductions")
    assert {f.name for f in reductions.families} == {n for n in FAMILIES if n.endswith("_reduce")}
    assert "\nReductions\n----------\n" in generate()["docs/collectives.rst"]


def test_a_section_must_name_known_families_and_cover_all(spec_root):
    text = GOOD_FAMILY.replace(
        "intro: A chapter for tests.}",
        "intro: A chapter for tests., sections: [{name: s, title: S, families: [put, nope]}]}")
    errs = "\n".join(errors_of(spec_root, text))
    assert "unknown families nope" in errs
