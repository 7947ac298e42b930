"""Device bodies: what an entry point's body becomes in CUDA device code, from its host body."""
from __future__ import annotations

from .loader import SpecError


def fused_checks(checks: list[tuple[str, str]]) -> list[str]:
    """The device form of the checks: every predicate, joined by & so that the compiler evaluates
    them without branches, then one branch, taken only when one fails, to the reports in their usual
    order (the first failing one stops the kernel), then a call that never returns, so that the
    compiler joins no paths after the branch. On the path that passes: one compare-and-branch
    instead of one per check (separate branches took about a third of a small warp put's time).
    Checks with a statement that is not a check stay as they are."""
    if len(checks) < 2 or any(not ok for _, ok in checks):
        return [line for line, _ in checks]
    return ([f"if (__builtin_expect(!({' & '.join(ok for _, ok in checks)}), 0)) {{"]
            + [f"    {line}" for line, _ in checks] + ["    ishmemi::dev::fail_unreported(fn);", "}"])


# The device body is the host body with the checks and the core call taken from ishmemi::dev, the
# device half of the core (runtime/include/ishmem/cuda/device.cuh), which has the same names.
_DEVICE_NAMES = (("ishmemi::impl::", "ishmemi::dev::"), ("ishmemi::check_", "ishmemi::dev::check_"),
                 ("ishmemi::ok_", "ishmemi::dev::ok_"),
                 ("ishmemi::strided_extent", "ishmemi::dev::strided_extent"),
                 ("ishmemi::blocked_extent", "ishmemi::dev::blocked_extent"),
                 ("ishmemi::team_size_or_zero", "ishmemi::dev::team_size_or_zero"),
                 ("ishmemi::mul_size", "ishmemi::dev::mul_size"))
# (ishmemi::impl::group_leads becomes ishmemi::dev::group_leads by the first pair.)


def device_line(line: str) -> str:
    for host, device in _DEVICE_NAMES:
        line = line.replace(host, device)
    if "ishmemi::" in line.replace("ishmemi::dev::", "").replace("ishmemi::sized_t", "").replace("ishmemi::in_table_v", "").replace("ishmemi::table_", ""):
        raise SpecError([f"device body line names a host-only part of the core: {line}"])
    return line
