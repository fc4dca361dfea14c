"""``python -m pytest_blackwell selfcheck``: verdicts from readings passed in, and the CPU path."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from pytest_blackwell.device.profiles import PROFILES
from pytest_blackwell.selfcheck import (
    FAIL,
    NO_ERROR_MARKER,
    PASS,
    SKIP,
    SKIP_MARKER,
    Check,
    ChildRun,
    check_failure,
    compare_devices,
    exit_status,
    render_table,
    run_selfcheck,
)

ROOT = Path(__file__).resolve().parents[2]
KB = 1024

# What torch reports on an RTX PRO 6000 (sm_120): CUDA's total is a little under NVML's.
TORCH_RTX = replace(
    PROFILES["rtx-pro-6000"],
    total_memory_bytes=100_837_998_592,
    source="torch",
    profile=None,
    uuid="GPU-1f2e",
)

# The child's stderr when Triton refuses the tile (Triton's own wording).
TRITON_OUTPUT = """\
Traceback (most recent call last):
  File "/usr/lib/python3.12/site-packages/triton/compiler/compiler.py", line 475, in _init_handles
    raise OutOfResources(self.metadata.shared, max_shared, "shared memory")
triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 524288, \
Hardware limit: 101376. Reducing block sizes or `num_stages` may help.
"""

# The child's stderr after a wild store (torch's wording when it next synchronises).
FAULT_OUTPUT = """\
Traceback (most recent call last):
  File "<frozen runpy>", line 198, in _run_module_as_main
  File "selfcheck_kernels.py", line 84, in fault
    torch.cuda.synchronize()
RuntimeError: CUDA error: an illegal memory access was encountered
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace \
below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1
"""


def by_what(checks: list[Check]) -> dict[str, Check]:
    return {c.what: c for c in checks}


def test_a_provider_that_agrees_passes_and_memory_has_a_tolerance() -> None:
    nvml = replace(
        TORCH_RTX, total_memory_bytes=102_005_473_280, smem_per_sm_bytes=0, source="nvml"
    )
    nvml = replace(nvml, smem_per_block_optin_bytes=0)
    checks = by_what(compare_devices("nvml", [nvml], [TORCH_RTX]))
    assert checks["GPU 0 compute capability"].status == PASS
    assert checks["GPU 0 memory"].status == PASS  # 1.2 % apart: NVML counts reserved memory
    # What NVML does not report is skipped, never passed.
    assert checks["GPU 0 smem per SM"].status == SKIP
    assert checks["GPU 0 smem per SM"].note == "nvml does not report it"


def test_a_provider_that_disagrees_fails_naming_both_values() -> None:
    wrong = replace(TORCH_RTX, smem_per_block_optin_bytes=227 * KB, compute_capability=(10, 0))
    checks = by_what(compare_devices("architecture table", [wrong], [TORCH_RTX]))
    optin = checks["GPU 0 smem per block (opt-in)"]
    assert (optin.status, optin.expected, optin.found) == (FAIL, "99 KB", "227 KB")
    cc = checks["GPU 0 compute capability"]
    assert (cc.status, cc.expected, cc.found) == (FAIL, "12.0", "10.0")
    far = replace(TORCH_RTX, total_memory_bytes=TORCH_RTX.total_memory_bytes // 2)
    assert by_what(compare_devices("nvml", [far], [TORCH_RTX]))["GPU 0 memory"].status == FAIL


def test_devices_pair_by_uuid_and_a_missing_gpu_is_a_failure() -> None:
    other = replace(TORCH_RTX, index=1, uuid="GPU-aaaa", total_memory_bytes=32 * 10**9)
    reference = [TORCH_RTX, other]
    found = [replace(other, index=0), replace(TORCH_RTX, index=1)]  # another order
    assert all(c.status == PASS for c in compare_devices("nvml", found, reference))
    checks = compare_devices("nvml", [TORCH_RTX], reference)
    count = by_what(checks)["device count"]
    assert (count.status, count.expected, count.found) == (FAIL, "2", "1")
    skipped = compare_devices("nvml", "passed over: NVML could not start", reference)
    assert [(c.status, c.note) for c in skipped] == [(SKIP, "passed over: NVML could not start")]


def test_the_smem_failure_is_checked_against_the_devices_limit() -> None:
    from pytest_blackwell.failures import classify_log

    run = ChildRun(1, TRITON_OUTPUT)
    failure = classify_log(run.output.splitlines())
    checks = by_what(check_failure("smem", run, failure, TORCH_RTX))
    assert checks["classified"].status == PASS
    assert checks["required > limit"].status == PASS
    assert checks["limit = smem per block (opt-in)"].status == PASS
    # The same error on a card whose opt-in limit is 227 KB contradicts the device reading.
    hopper = replace(TORCH_RTX, smem_per_block_optin_bytes=227 * KB)
    limit = by_what(check_failure("smem", run, failure, hopper))["limit = smem per block (opt-in)"]
    assert (limit.status, limit.expected, limit.found) == (FAIL, "232448 B", "101376 B")


def test_a_failure_of_the_wrong_kind_or_none_at_all_fails() -> None:
    from pytest_blackwell.failures import classify_log

    fault = ChildRun(1, FAULT_OUTPUT)
    wrong = check_failure("smem", fault, classify_log(fault.output.splitlines()), TORCH_RTX)
    assert [(c.status, c.expected, c.found) for c in wrong] == [
        (FAIL, "smem_limit", "illegal_memory_access")
    ]
    clean = check_failure("fault", ChildRun(0, NO_ERROR_MARKER + "\n"), None, TORCH_RTX)
    assert [(c.status, c.found) for c in clean] == [(FAIL, "no error")]
    hung = check_failure("fault", ChildRun(-1, "", timed_out=True), None, TORCH_RTX)
    assert [(c.status, c.note) for c in hung] == [(FAIL, "the child timed out")]
    quiet = check_failure("fault", ChildRun(1, "Segmentation fault\n"), None, TORCH_RTX)
    assert [(c.status, c.found) for c in quiet] == [(FAIL, "nothing classified")]
    no_triton = ChildRun(0, f"{SKIP_MARKER}Triton is not installed\n")
    skipped = check_failure("smem", no_triton, None, TORCH_RTX)
    assert [(c.status, c.note) for c in skipped] == [(SKIP, "Triton is not installed")]


def test_a_whole_run_on_a_simulated_runner() -> None:
    def child(step: str) -> ChildRun:
        return ChildRun(1, TRITON_OUTPUT if step == "smem" else FAULT_OUTPUT)

    nvml = replace(TORCH_RTX, smem_per_sm_bytes=0, smem_per_block_optin_bytes=0)
    checks = run_selfcheck(
        lambda: [TORCH_RTX],
        {"nvml": lambda: [nvml], "architecture table": lambda: [PROFILES["rtx-pro-6000"]]},
        child,
    )
    assert exit_status(checks) == 0
    steps = {c.step for c in checks}
    assert steps == {
        "torch",
        "detect: nvml",
        "detect: architecture table",
        "failure: smem_limit",
        "failure: illegal_memory_access",
    }
    fault = [c for c in checks if c.step == "failure: illegal_memory_access"]
    assert [(c.status, c.found) for c in fault] == [(PASS, "illegal_memory_access")]
    table = render_table(checks)
    assert "failure: smem_limit" in table
    assert "PASS" in table

    # One disagreeing provider turns the exit status to 1.
    lying = replace(TORCH_RTX, smem_per_sm_bytes=228 * KB)
    checks = run_selfcheck(lambda: [TORCH_RTX], {"nvml": lambda: [lying]}, child)
    assert exit_status(checks) == 1
    assert "FAIL" in render_table(checks)


def test_without_a_gpu_everything_is_skipped() -> None:
    def child(step: str) -> ChildRun:
        raise AssertionError("no child may start without a GPU")

    checks = run_selfcheck(lambda: "no GPU: no driver", {"nvml": lambda: []}, child)
    assert {c.status for c in checks} == {SKIP}
    assert checks[0].note == "no GPU: no driver"
    assert exit_status(checks) == 0


def test_the_command_on_this_host() -> None:
    """The real command: on a machine without GPU it says so and exits 0; with one, it must
    agree with torch (the same code path a GPU runner takes)."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest_blackwell", "selfcheck", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    checks = json.loads(done.stdout)["checks"]
    statuses = {c["status"] for c in checks}
    has_gpu = Path("/dev/nvidiactl").exists() or Path("/proc/driver/nvidia").exists()
    if not has_gpu:
        assert done.returncode == 0, done.stderr
        assert statuses == {"skip"}
        assert checks[0]["note"].startswith("no GPU")
        assert {c["step"] for c in checks} >= {
            "detect: nvml",
            "failure: smem_limit",
            "failure: illegal_memory_access",
        }
    else:
        assert done.returncode == (1 if "fail" in statuses else 0)


def test_the_kernels_child_rejects_unknown_steps() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pytest_blackwell.selfcheck.kernels", "nonsense"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert "smem|fault" in done.stdout


@pytest.mark.parametrize("value", ["0", "-3"])
def test_a_bad_timeout_is_an_input_error(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    from pytest_blackwell.cli import main

    assert main(["selfcheck", "--timeout", value]) == 2
    assert "--timeout: expected a positive number" in capsys.readouterr().err
