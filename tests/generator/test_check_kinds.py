"""The check kinds are defined once (generator/checks.py): every kind the spec uses has code and a
reference sentence, the schema accepts exactly the registry's kinds, and a kind missing from the
registry is an error with file and line."""
import textwrap

import pytest

from generator import checks
from generator.loader import SpecError, load_spec


def test_every_kind_has_code_and_words():
    for k in checks.KINDS:
        assert (k.hard is None) != (k.soft is None), f"{k.name}: exactly one of hard and soft"
        out = k.hard or k.soft
        ctx = checks.Ctx("x", tuple(f"a{i}" for i in range(k.arity or 0)), "sizeof(int)", "alignof(int)")
        assert "x" in (out(ctx)[0] if k.hard else out(ctx))
        if not k.name.endswith("_out"):
            assert "{p}" in k.text, f"{k.name}: its sentence names the parameter"


def test_schema_lists_the_registry():
    s = checks.schema()
    bare = set(s["oneOf"][0]["enum"])
    with_args = set(s["oneOf"][1]["properties"])
    assert bare | with_args == set(checks.BY_NAME)
    assert not bare & with_args


def test_an_unknown_kind_is_reported_with_its_line(spec_root):
    (spec_root / "spec" / "x.yaml").write_text(textwrap.dedent("""\
        chapter: {name: x, title: X, brief: x}
        families:
          - name: f
            brief: b
            description: d
            callable: [host]
            params:
              - {name: pe, type: int, doc: d, checks: [no_such_check]}
            returns: {type: void}
        """))
    with pytest.raises(SpecError) as e:
        load_spec(spec_root / "spec", spec_root)
    assert "spec/x.yaml:8: at families/0/params/0/checks/0: 'no_such_check' is not valid" in str(e.value), str(e.value)
