"""The targets an entry point's body is written for: the host library, and CUDA device code for the
device-callable families. Both bodies are built by the same code (expand.py, check_code.py) from
the same structure; a target says what each operation is called there and how its checks are laid
out. The host has two: the library's default path checks the symmetric heap's bounds alone. The device half of the core (runtime/include/ishmem/cuda/device.cuh) has the host core's
names under ishmemi::dev."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Target:
    name: str
    core: str         # the core's operations: the routine's implementation, group_leads, enqueue
    checks: str       # the check_/ok_ functions and the size arithmetic they use (mul_size, the extents)
    fuse_checks: bool  # test every hard check with one branch (fused_checks)
    symmetric: str = "check_symmetric"  # the symmetric-heap check (of a pointer's bounds and allocation)

    def check_block(self, pairs: list[tuple[str, str]]) -> list[str]:
        """The hard checks, (statement, predicate) pairs in order, as the body's lines."""
        return fused_checks(pairs, self.core) if self.fuse_checks else [line for line, _ in pairs]


def fused_checks(checks: list[tuple[str, str]], core: str) -> list[str]:
    """The device form of the checks: every predicate, joined by & so that the compiler evaluates
    them without branches, then one branch, taken only when one fails, to the reports in their usual
    order (the first failing one stops the kernel), then a call that never returns, so that the
    compiler joins no paths after the branch. On the path that passes: one compare-and-branch
    instead of one per check (separate branches took about a third of a small warp put's time).
    Checks with a statement that is not a check stay as they are."""
    if len(checks) < 2 or any(not ok for _, ok in checks):
        return [line for line, _ in checks]
    return ([f"if (__builtin_expect(!({' & '.join(ok for _, ok in checks)}), 0)) {{"]
            + [f"    {line}" for line, _ in checks] + [f"    {core}fail_unreported(fn);", "}"])


HOST = Target("host", core="ishmemi::impl::", checks="ishmemi::", fuse_checks=False)
# The library's default path of a routine it also compiles fully checked (EntryPoint.bounds_body):
# the symmetric-heap checks test the bounds of the heap alone.
HOST_BOUNDS = Target("host, bounds only", core="ishmemi::impl::", checks="ishmemi::", fuse_checks=False,
                     symmetric="check_symmetric_bounds")
DEVICE = Target("device", core="ishmemi::dev::", checks="ishmemi::dev::", fuse_checks=True)
