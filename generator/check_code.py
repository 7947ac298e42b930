"""A family's argument checks as C++, in the spec's order, for one form of it and one target (host
or device, targets.py): the hard checks as (statement, predicate) pairs and the soft ones as
conditions. What each kind becomes is in the registry, checks.py; this module applies it to a
family's parameters."""
from __future__ import annotations

from . import checks
from .loader import SpecError
from .model import Check, Family, Form, Param
from .targets import Target


def _pointee(p: Param, form: Form) -> str:
    t = form.subst(p.type, "elem").replace("const ", "").strip()
    if not t.endswith("*"):
        return "char"
    base = t[:-1].strip()
    return "char" if base == "void" else base


def _check_ctx(p: Param, c: Check, form: Form, fn: str, target: Target) -> checks.Ctx:
    pointee = _pointee(p, form)
    return checks.Ctx(p.name, c.args, f"sizeof({pointee})", f"alignof({pointee})", fn, target.checks,
                      target.symmetric)


def hard_checks(fam: Family, form: Form, target: Target) -> list[tuple[str, str]]:
    """The family's hard checks, in order, as (statement, predicate) pairs (generator/checks.py): the
    statement reports a failure and stops; the predicate (its ok_ twin, no report) is true when the
    check passes, and '' for a statement that is not a check (an output handle's reset)."""
    lines = []
    if fam.check_init:
        lines.append((f"{target.checks}check_init(fn);", f"{target.checks}ok_init()"))
    for p in fam.params:
        for c in p.checks:
            kind = checks.BY_NAME.get(c.kind)
            if kind is None:  # the loader validates kinds against the same table; a guard all the same
                raise SpecError([f"{fam.file}:{fam.line}: family '{fam.name}': no code for check '{c.kind}'"])
            if kind.hard:
                lines.append(kind.hard(_check_ctx(p, c, form, "fn", target)))
    return lines


def soft_checks(fam: Family, form: Form, team_form: bool, fn: str, target: Target) -> list[str]:
    """The status checks as conditions (generator/checks.py's soft kinds: a bad team is an ordinary
    runtime condition, reported through the routine's status after the message); fn names the
    routine in their reports (a null one reports nothing: a _work_group form's work-items other than
    the leader)."""
    conds = []
    if team_form:  # the world forms pass ISHMEM_TEAM_WORLD, valid whenever the library is initialized
        conds.append(f"{target.checks}check_team({fn}, team)")
    for p in fam.params:
        for c in p.checks:
            kind = checks.BY_NAME[c.kind]
            if kind.soft:
                conds.append(kind.soft(_check_ctx(p, c, form, fn, target)))
    return conds
