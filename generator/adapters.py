"""The generated tests' adapters: for each entry point, a lambda with its family's base signature
(TYPE = one element type) that calls it, handed to the family's hand-written pattern in tests/.
Host cases call it from the host; GPU cases from a kernel or on a CUDA stream."""
from __future__ import annotations

from .model import Family, Form, TestCase, statement


def _adapter_signature(fam: Family, form: Form, elem: str, team_form: bool, base_ret: str):
    """The adapter's parameters, the entry point's arguments (fetch outputs go to `fetched`) and the
    adapter's return type: the base form's signature with TYPE = elem."""
    ftest = Form(form.kind, form.tag, elem, elem, False)
    params, args = (["ishmem_team_t team"], ["team"]) if team_form else ([], [])
    for p in fam.params:
        if p.name == fam.fetch_out:
            args.append("&fetched")
            continue
        params.append(f"{ftest.subst(p.type, 'sig')} {p.name}")
        args.append(p.name)
    ret = ftest.subst(base_ret, "sig") if not fam.fetch_out else elem
    return params, args, ret


def _test_label(form: Form, name: str, elem: str, team_form: bool) -> str:
    label = f"{name}<{elem}>" if form.kind == "generic" else name
    return label + "(team)" if team_form else label


def host_test_case(fam: Family, form: Form, variant: str, name: str, base_ret: str, elem: str,
               team_form: bool = False) -> TestCase:
    """A lambda with the base form's signature (TYPE = element type) that calls this entry point.

    Generated tests hand it to the family's hand-written pattern, which checks the semantics; the
    adapter hides what differs between variants (queue, group, fetch buffer)."""
    params, args, ret = _adapter_signature(fam, form, elem, team_form, base_ret)
    body = []
    if fam.fetch_out:
        body.append(f"{elem} fetched{{}};")
    if variant == "on_queue":
        body += _on_queue_call(name, args, base_ret, ret, "ishmem::queue q;")
    elif variant == "work_group":
        call = f"{name}({', '.join(args + ['group'])})"
        if base_ret != "void":
            body.append(f"return ishmem_testing::run_in_group_returning(ishmem_testing::group_size_for_tests, [&](const auto& group) {{ return {call}; }});")
        else:
            body.append(f"ishmem_testing::run_in_group(ishmem_testing::group_size_for_tests, [&](const auto& group) {{ {call}; }});")
    else:
        call = f"{name}({', '.join(args)})"
        if fam.fetch_out:
            body.append(f"{call};")
        else:
            body.append(statement(base_ret, call))
    if fam.fetch_out:
        body += ["ishmem_quiet();", "return fetched;"]
    return TestCase(_test_label(form, name, elem, team_form), f"ishmem_testing::patterns::{fam.test}", elem,
                    tuple(params), ret, tuple(body))


def _on_queue_call(name: str, args: list[str], base_ret: str, ret: str, make_queue: str) -> list[str]:
    body = [make_queue]
    if base_ret != "void":
        body.append(f"{ret} result{{}};")
        args = args + ["&result"]
    body.append(f"{name}({', '.join(args + ['q'])}).wait();")
    if base_ret != "void":
        body.append("return result;")
    return body


# Where a generated GPU case runs the entry point: (label suffix, runner) per variant. Device calls
# run in a kernel of one thread, of one block (96 threads: three warps) or of one warp tile; the
# _on_queue form runs on a CUDA stream. The runners live in tests/gpu/device_adapters.h.
_GPU_RUNS = {"base": (("thread", "ishmem_gpu_testing::on_thread"),),
             "work_group": (("block", "ishmem_gpu_testing::on_block"), ("warp", "ishmem_gpu_testing::on_warp")),
             "on_queue": (("stream", ""),)}


def gpu_test_cases(fam: Family, form: Form, variant: str, name: str, base_ret: str, elem: str,
                    team_form: bool) -> list[TestCase]:
    """The adapters of the GPU suite: the same pattern and signature as host_test_case, with the call
    made by device code in a kernel (device-callable families) or on a CUDA stream (_on_queue)."""
    if variant != "on_queue" and "device" not in fam.callable:
        return []
    params, args, ret = _adapter_signature(fam, form, elem, team_form, base_ret)
    label = _test_label(form, name, elem, team_form)
    cases = []
    for where, runner in _GPU_RUNS[variant]:
        if variant == "on_queue":
            body = [f"{elem} fetched{{}};"] if fam.fetch_out else []
            body += _on_queue_call(name, args, base_ret, ret, "ishmem::queue q(ishmem_gpu_testing::test_stream());")
            if fam.fetch_out:
                body += ["ishmem_quiet();", "return fetched;"]
        else:
            group = "group" if variant == "work_group" else ""
            call = f"{name}({', '.join(args + ([group] if group else []))})"
            if fam.fetch_out:
                inner = f"{elem} fetched{{}}; {call}; ishmem_quiet(); return fetched;"
            else:
                inner = statement(base_ret, call)
            lam = f"[=] __device__ ({'const auto& group' if group else ''}) {{ {inner} }}"
            body = [f"return {runner}<{ret}>({lam});"]
        cases.append(TestCase(f"{label} [{where}]", f"ishmem_testing::patterns::{fam.test}", elem, tuple(params),
                              ret, tuple(body)))
    return cases
