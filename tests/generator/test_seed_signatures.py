"""The generated declarations against the signature lines of the Intel SHMEM 1.5 API pages.

The lines are kept in data/seed_signatures.txt, one [chapter] section each, as the pages print them.
Every declaration a page shows (template line included) must be one the model produces for that
chapter, and every family of the chapter must appear on the page, except our documented
extensions. Both sides are compared with TYPE/TYPENAME left as placeholders, after spelling
differences that carry no meaning (whitespace, `sycl::` for our `ishmem::` types, default
arguments, `(void)`) and the pages' known slips are normalised away.
"""
import re
from pathlib import Path

import pytest

from generator.__main__ import ROOT
from generator.build import build_api
from generator.expand import family_synopsis
from generator.loader import load_spec

DATA = Path(__file__).parent / "data" / "seed_signatures.txt"

# chapter -> (section of DATA, families of the chapter that are our extensions and not on its page)
PAGES = {
    "p2p": ("p2p", {"wait"}),
    # The scans arrived in Intel SHMEM 1.5, after the collectives page; the API's reference lists
    # their signatures. alltoalls is OpenSHMEM's strided all-to-all, which Intel SHMEM lacks
    # (ishmemx_ here).
    "collectives": ("collectives", {"sum_inscan", "sum_exscan", "alltoalls"}),
}

# Known slips of the pages: (wrong text, right text).
PAGE_SLIPS = [
    ("_wait_until_all_on_vector_queue(", "_wait_until_all_vector_on_queue("),
    ("_wait_until_some_vector_(", "_wait_until_some_vector("),
    # The header (and ours) takes the queue by non-const reference, as every other _on_queue form.
    ("barrier_all_on_queue(const sycl::queue &q", "barrier_all_on_queue(sycl::queue &q"),
]

SIGNATURE = re.compile(r"^(template\s*<.*>|(void|int|size_t|uint64_t|sycl::event)\s+ishmemx?_\w+\s*\(.*\))#?\s*$")


def canonical(decl: str) -> str:
    """One spelling per declaration: no whitespace around punctuation, no defaults, TYPE for T."""
    d = decl.strip().rstrip(";").rstrip("#")
    d = d.replace("sycl::", "ishmem::").replace("(void)", "()")
    d = re.sub(r"\s*=\s*\{\}", "", d)
    d = re.sub(r"\s+", " ", d)
    d = re.sub(r"\s*([*&(),<>])\s*", r"\1", d)
    d = re.sub(r"\bT\b", "TYPE", d)
    return d


def split_names(decl: str) -> tuple[str, tuple[str, ...]]:
    """(declaration with parameter names removed, the names)."""
    head, params = decl.split("(", 1)
    params = params.rsplit(")", 1)[0]
    if not params:
        return decl, ()
    types, names = [], []
    for p in params.split(","):
        m = re.match(r"(.*?[*&>]|.*\s)(\w+)$", p) or re.match(r"(.*[^\w])(\w+)$", p)
        types.append(m.group(1).strip() if m else p)
        names.append(m.group(2) if m else "")
    return f"{head}({','.join(types)})", tuple(names)


def page_text(section: str) -> str:
    """The signature lines of one [section] of DATA."""
    lines, current = [], None
    for line in DATA.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = line[1:-1]
        elif current == section:
            lines.append(line)
    return "\n".join(lines)


def page_declarations(page: str) -> dict[str, tuple[str, ...]]:
    """{template line + declaration without names: parameter names} of the page's signature lines."""
    text = page_text(page)
    for wrong, right in PAGE_SLIPS:
        text = text.replace(wrong, right)
    out, template = {}, ""
    for line in text.splitlines():
        m = SIGNATURE.match(line.strip())
        if not m:
            continue
        d = canonical(m.group(1))
        if d.startswith("template"):
            template = d
            continue
        if not template and "Group&group" in d:
            template = "template<typename Group>"  # the page omits the line on one routine
        key, names = split_names(d)
        out[template + " " + key] = names
        template = ""
    return out


def model_declarations(api, chapter: str, skip: set[str]) -> dict[str, tuple[str, ...]]:
    out = {}
    for ch in api.chapters:
        if ch.name != chapter:
            continue
        for fam in ch.families:
            if fam.name in skip:
                continue
            for block in family_synopsis(fam):
                template = ""
                for line in block.lines:
                    d = canonical(line)
                    if d.startswith("template"):
                        template = d
                        continue
                    key, names = split_names(d)
                    out[template + " " + key] = names
                    template = ""
    return out


@pytest.fixture(scope="module")
def api():
    return build_api(load_spec(ROOT / "spec", ROOT))


def test_seed_pages_are_present():
    for page, _ in PAGES.values():
        assert page_text(page).strip(), f"{DATA} has no [{page}] section"


@pytest.mark.parametrize("chapter", sorted(PAGES))
def test_declarations_match_the_page(api, chapter):
    page, extensions = PAGES[chapter]
    ours = model_declarations(api, chapter, extensions)
    theirs = page_declarations(page)
    assert theirs, f"no signature lines found in {page}"
    missing = sorted(set(theirs) - set(ours))
    extra = sorted(set(ours) - set(theirs))
    assert not missing, f"on {page} but not generated:\n  " + "\n  ".join(missing)
    assert not extra, f"generated but not on {page}:\n  " + "\n  ".join(extra)
    # One parameter name differs on the page (cmp_value for the per-element array of
    # wait_until_some_vector_on_queue); ours says cmp_values like every other _vector form.
    renamed = [f"{k}: page {theirs[k]}, ours {ours[k]}" for k in sorted(theirs)
               if theirs[k] != ours[k] and "wait_until_some_vector_on_queue" not in k]
    assert renamed == [], "parameter names differ:\n  " + "\n  ".join(renamed)


def test_extensions_are_not_on_the_page(api):
    for chapter, (page, extensions) in PAGES.items():
        theirs = page_declarations(page)
        ext = model_declarations(api, chapter, set()).keys() - model_declarations(api, chapter, extensions).keys()
        assert ext and not (ext & theirs.keys()), f"{chapter}: extensions {sorted(extensions)} also on {page}"
