"""The argument checks a spec parameter may declare: one entry per kind, and the only place a kind is
defined. Each entry gives what the spec may write (its arguments), whether a failure stops the job
(hard) or is reported through the routine's status (soft), the C++ it becomes, and the sentence the
reference prints. The schema's list of kinds (loader.py fills spec/schema.json's "check" definition
from here), the generated code (check_code.py) and the docs (emit.py) all read this table.

Adding a kind: one CheckKind below, and the runtime's check_/ok_ functions it names."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional


@dataclass(frozen=True)
class Ctx:
    """What a check's code needs of the parameter: its name, its arguments in the spec, the sizeof
    and alignof expressions of the element it points to, the name of the routine variable, and
    where the check functions and the size arithmetic live on the target the code is for
    (targets.py: ishmemi:: on the host, ishmemi::dev:: in CUDA device code, same names)."""
    name: str
    args: tuple[str, ...]
    size: str
    align: str
    fn: str = "fn"
    ns: str = "ishmemi::"
    symmetric: str = "check_symmetric"  # or check_symmetric_bounds: the bounds alone (targets.py)


@dataclass(frozen=True)
class CheckKind:
    name: str
    # Spec form: None for a bare name ("- pe"); else the number of arguments (1: a string, more: a
    # list of that many strings), as in {symmetric: nelems}.
    arity: Optional[int] = None
    description: str = ""  # for the schema, where the arguments need explaining
    # Hard checks: (statement that reports and stops, predicate that is true when the check passes;
    # '' where there is no device twin or the statement is not a check).
    hard: Optional[Callable[[Ctx], tuple[str, str]]] = None
    # Soft checks: a condition that reports and is false when the check fails.
    soft: Optional[Callable[[Ctx], str]] = None
    # The reference's sentence ({p}: the parameter, {a}: the first argument); '' for a kind that is
    # not a check (an output handle's reset).
    text: str = ""


def _symmetric(nbytes: Callable[[Ctx], str]) -> Callable[[Ctx], tuple[str, str]]:
    def code(c: Ctx) -> tuple[str, str]:
        n = nbytes(c)
        return (f'{c.ns}{c.symmetric}(fn, "{c.name}", {c.name}, {n});', f"{c.ns}ok_symmetric({c.name}, {n})")
    return code


def _team_elems(c: Ctx, count: str) -> str:
    return f"{c.ns}mul_size({count}, {c.ns}team_size_or_zero(team))"


# Every size is computed by mul_size and the extents, which give SIZE_MAX where a product overflows:
# no check passes that.
KINDS: tuple[CheckKind, ...] = (
    CheckKind("pe", hard=lambda c: (f"{c.ns}check_pe(fn, {c.name});", f"{c.ns}ok_pe({c.name})"),
              text="``{p}`` is not a PE of the job"),
    CheckKind("aligned",
              # Atomics and waits on a misaligned element work on the CPU but fault on a GPU.
              hard=lambda c: (f'{c.ns}check_aligned(fn, "{c.name}", {c.name}, {c.align});',
                              f"{c.ns}ok_aligned({c.name}, {c.align})"),
              text="``{p}`` is not aligned to its element type (an atomic access needs it)"),
    CheckKind("nonnull",
              hard=lambda c: (f'{c.ns}check_nonnull(fn, "{c.name}", {c.name}, 1);',
                              f"{c.ns}ok_nonnull({c.name}, 1)"),
              text="``{p}`` is null"),
    CheckKind("positive",
              hard=lambda c: (f'{c.ns}check_positive(fn, "{c.name}", {c.name});', f"{c.ns}ok_positive({c.name})"),
              text="``{p}`` is not positive"),
    CheckKind("sig_op", hard=lambda c: (f"{c.ns}check_sig_op(fn, {c.name});", f"{c.ns}ok_sig_op({c.name})"),
              text="``{p}`` is neither ISHMEM_SIGNAL_SET nor ISHMEM_SIGNAL_ADD"),
    CheckKind("cmp", hard=lambda c: (f"{c.ns}check_cmp(fn, {c.name});", f"{c.ns}ok_cmp({c.name})"),
              text="``{p}`` is not one of the ISHMEM_CMP_* operators"),
    CheckKind("power_of_two",
              hard=lambda c: (f'{c.ns}check_power_of_two(fn, "{c.name}", {c.name});',
                              f"{c.ns}ok_power_of_two({c.name})"),
              text="``{p}`` is not a power of two"),
    CheckKind("symmetric_or_null",
              hard=lambda c: (f'if ({c.name} != nullptr) {c.ns}{c.symmetric}(fn, "{c.name}", {c.name}, 0);',
                              f"({c.name} == nullptr || {c.ns}ok_symmetric({c.name}, 0))"),
              text="``{p}`` is neither null nor a symmetric address"),
    CheckKind("team", soft=lambda c: f"{c.ns}check_team({c.fn}, {c.name})",
              text="``{p}`` is not a valid team"),
    # The parent of a team split: a member that passes a bad handle cannot find its parent's
    # members, so it tells every PE that it failed, and the members that passed a good one fail too.
    CheckKind("parent_team", soft=lambda c: f"ishmemi::check_parent_team({c.fn}, {c.name})",
              text="``{p}`` is not a valid team (on any member: the split then fails on every member)"),
    # An output handle: invalid until the routine succeeds, whatever makes it fail.
    CheckKind("team_out", hard=lambda c: (f"*{c.name} = ISHMEM_TEAM_INVALID;", "")),
    CheckKind("ctx", hard=lambda c: (f"{c.ns}check_ctx(fn, {c.name});", ""),  # host only: no device twin
              text="``{p}`` is not ISHMEMX_CTX_DEFAULT, ISHMEMX_CTX_INVALID or a live context (never made, or destroyed)"),
    CheckKind("ctx_out", hard=lambda c: (f"*{c.name} = ISHMEMX_CTX_INVALID;", "")),
    CheckKind("symmetric", arity=1,
              hard=_symmetric(lambda c: f"{c.ns}mul_size({c.args[0]}, {c.size})"),
              text="``{p}`` does not lie inside the symmetric heap"),
    CheckKind("nonnull_if", arity=1,
              hard=lambda c: (f'{c.ns}check_nonnull(fn, "{c.name}", {c.name}, {c.args[0]});',
                              f"{c.ns}ok_nonnull({c.name}, {c.args[0]})"),
              text="``{p}`` is null while the count is nonzero"),
    CheckKind("symmetric_strided", arity=2,
              hard=_symmetric(lambda c: f"{c.ns}mul_size({c.ns}strided_extent({c.args[0]}, {c.args[1]}), {c.size})"),
              text="the elements ``{p}`` spans do not lie inside the symmetric heap"),
    CheckKind("symmetric_blocked", arity=3,
              hard=_symmetric(lambda c: f"{c.ns}mul_size({c.ns}blocked_extent("
                              f"{c.args[0]}, {c.args[1]}, {c.args[2]}), {c.size})"),
              text="the blocks ``{p}`` spans do not lie inside the symmetric heap"),
    CheckKind("team_pe", arity=1,
              soft=lambda c: f'{c.ns}check_team_pe({c.fn}, {c.args[0]}, "{c.name}", {c.name})',
              text="``{p}`` is not a PE number of the team"),
    CheckKind("flags", arity=1,
              description="the parameter is a bitwise or of the flags in this C expression (a mask); other bits are an error",
              soft=lambda c: f'{c.ns}check_flags({c.fn}, "{c.name}", {c.name}, {c.args[0]})',
              text="``{p}`` has bits other than those of ``{a}``"),
    CheckKind("symmetric_team", arity=1,
              hard=_symmetric(lambda c: f"{c.ns}mul_size({_team_elems(c, c.args[0])}, {c.size})"),
              text="``{p}`` (the given count times the team's size) does not lie inside the symmetric heap"),
    CheckKind("symmetric_team_strided", arity=2,
              description="[count, stride]: count times the team's size elements, stride apart",
              hard=_symmetric(lambda c: f"{c.ns}mul_size({c.ns}strided_extent("
                              f"{_team_elems(c, c.args[0])}, {c.args[1]}), {c.size})"),
              text="the elements ``{p}`` spans (the given count times the team's size, at its stride) do not lie "
                   "inside the symmetric heap"),
    CheckKind("no_partial_overlap", arity=2,
              soft=lambda c: (f'{c.ns}check_no_partial_overlap({c.fn}, "{c.name}", {c.name}, "{c.args[0]}", '
                              f"{c.args[0]}, {c.ns}mul_size({c.args[1]}, {c.size}))"),
              text="``{p}`` and ``{a}`` overlap without being the same array"),
    CheckKind("outside_team", arity=2,
              description="[other, count]: the parameter's count elements lie outside other's count times the team's size elements",
              soft=lambda c: (f'{c.ns}check_outside({c.fn}, "{c.name}", {c.name}, {c.ns}mul_size({c.args[1]}, '
                              f'{c.size}), "{c.args[0]}", {c.args[0]}, {c.ns}mul_size({_team_elems(c, c.args[1])}, '
                              f"{c.size}))"),
              text="``{p}`` overlaps ``{a}`` (the count times the team's size elements)"),
)

BY_NAME = {k.name: k for k in KINDS}


def schema() -> dict:
    """The JSON Schema of one entry of a parameter's checks: a bare name, or a one-key mapping from
    the kind to its argument(s)."""
    bare = [k.name for k in KINDS if k.arity is None]
    props = {}
    for k in KINDS:
        if k.arity is None:
            continue
        p: dict = {}
        if k.description:
            p["description"] = k.description
        if k.arity == 1:
            p["type"] = "string"
        else:
            p.update({"type": "array", "items": {"type": "string"}, "minItems": k.arity, "maxItems": k.arity})
        props[k.name] = p
    return {"oneOf": [{"enum": bare},
                      {"type": "object", "additionalProperties": False, "minProperties": 1, "maxProperties": 1,
                       "properties": props}]}
