"""The loader reports every problem with file and line, and keeps going after the first."""
import textwrap

import pytest

from generator.build import build_api
from generator.loader import SpecError, load_spec

GOOD_FAMILY = """\
chapter: {name: demo, title: Demo, order: 1, intro: A chapter for tests.}
families:
  - name: put
    brief: b
    description: d
    types: standard_rma
    returns: {type: void}
    params:
      - {name: dest, type: "TYPE*", doc: x, checks: [{symmetric: nelems}]}
      - {name: nelems, type: size_t, doc: x}
      - {name: pe, type: int, doc: x, checks: [pe]}
    callable: host
    test: none
"""


def load(root, text):
    (root / "spec" / "demo.yaml").write_text(textwrap.dedent(text))
    return build_api(load_spec(root / "spec", root))


def errors_of(root, text):
    with pytest.raises(SpecError) as exc:
        load(root, text)
    return exc.value.errors


def test_good_family_loads(spec_root):
    api = load(spec_root, GOOD_FAMILY)
    assert len(api.entry_points) == 23


def test_unknown_key_names_file_and_line(spec_root):
    errs = errors_of(spec_root, GOOD_FAMILY.replace("    brief: b\n", "    brief: b\n    colour: red\n"))
    assert errs == ["spec/demo.yaml:3: at families/0: Additional properties are not allowed ('colour' was unexpected)"]


def test_missing_required_field(spec_root):
    errs = errors_of(spec_root, GOOD_FAMILY.replace("    test: none\n", ""))
    assert len(errs) == 1 and errs[0].startswith("spec/demo.yaml:3:") and "'test' is a required property" in errs[0]


def test_every_error_is_reported(spec_root):
    text = GOOD_FAMILY.replace("callable: host", "callable: cloud").replace("{name: nelems, type: size_t, doc: x}",
                                                                             "{name: nelems, type: size_t}")
    errs = errors_of(spec_root, text)
    assert len(errs) == 2
    assert any("spec/demo.yaml:3:" in e and "callable" in e for e in errs)
    assert any("spec/demo.yaml:10:" in e and "'doc' is a required property" in e for e in errs)


def test_unknown_type_table(spec_root):
    errs = errors_of(spec_root, GOOD_FAMILY.replace("types: standard_rma", "types: exotic"))
    assert errs == ["spec/demo.yaml:3: family 'put': unknown type table 'exotic' "
                    "(known: bitwise_amo, extended_amo, reduction, standard_amo, standard_rma)"]


def test_check_names_unknown_parameter(spec_root):
    errs = errors_of(spec_root, GOOD_FAMILY.replace("{symmetric: nelems}", "{symmetric: count}"))
    assert errs == ["spec/demo.yaml:9: family 'put': check 'symmetric' of 'dest' names unknown parameter 'count'"]


def test_unknown_check_kind(spec_root):
    errs = errors_of(spec_root, GOOD_FAMILY.replace("checks: [pe]", "checks: [prime]"))
    assert len(errs) == 1 and errs[0].startswith("spec/demo.yaml:11: at families/0/params/2/checks/0:")


def test_duplicate_family(spec_root):
    body = GOOD_FAMILY.split("families:\n")[1]
    errs = errors_of(spec_root, GOOD_FAMILY + body)
    assert any("duplicate family, first defined at spec/demo.yaml:3" in e for e in errs)


def test_duplicate_key_is_a_yaml_error(spec_root):
    errs = errors_of(spec_root, GOOD_FAMILY.replace("    brief: b\n", "    brief: b\n    brief: c\n"))
    assert errs == ["spec/demo.yaml:5: YAML error: duplicate key 'brief'"]


def test_type_without_table(spec_root):
    errs = errors_of(spec_root, GOOD_FAMILY.replace("    types: standard_rma\n", ""))
    assert errs == ["spec/demo.yaml:8: family 'put': parameter 'dest' uses TYPE but the family has no type table"]


OVERLOADS = """\
chapter: {name: demo, title: Demo, order: 1, intro: A chapter for tests.}
families:
  - name: say
    prefix: ishmemx
    brief: b
    description: d
    returns: {type: void}
    params:
      - {name: out, type: "const char*", doc: x}
    callable: host
    test: none
  - name: say_loud
    symbol: say
    prefix: ishmemx
    brief: b
    description: d
    returns: {type: void}
    params:
      - {name: out, type: "const char*", doc: x}
      - {name: level, type: int, doc: x}
    callable: host
    impl: say
    test: none
"""


def test_symbol_makes_overloads(spec_root):
    api = load(spec_root, OVERLOADS)
    assert [ep.decl for ep in api.entry_points] == ["void ishmemx_say(const char* out)",
                                                    "void ishmemx_say(const char* out, int level)"]
    assert [f.heading for f in api.chapters[0].families] == ["ISHMEMX_SAY", "ISHMEMX_SAY (out, level)"]


def test_overloads_must_differ_in_parameter_types(spec_root):
    errs = errors_of(spec_root, OVERLOADS.replace("      - {name: level, type: int, doc: x}\n", ""))
    assert errs == ["spec/demo.yaml:12: family 'say_loud': overload 'void ishmemx_say(const char* out)' "
                    "has the parameter types of family 'say'"]


def test_a_shared_name_needs_the_symbol_key(spec_root):
    # ishmem_int_put, typed form of put and plain family int_put: not overloads, although the
    # parameters differ, since neither family asked for it with 'symbol'.
    int_put = """\
  - name: int_put
    brief: b
    description: d
    returns: {type: void}
    params:
      - {name: dest, type: "int*", doc: x}
    callable: host
    test: none
"""
    errs = errors_of(spec_root, GOOD_FAMILY + int_put)
    assert errs == ["spec/demo.yaml:14: entry point 'ishmem_int_put' is produced twice (also by family 'put')"]


def test_symbol_is_for_families_without_a_type_table(spec_root):
    errs = errors_of(spec_root, GOOD_FAMILY.replace("    brief: b\n", "    symbol: store\n    brief: b\n", 1))
    assert errs == ["spec/demo.yaml:3: family 'put': 'symbol' names a routine without a type table (typed entry "
                    "points take their names from root and suffix)"]
