"""Mechanisms of the twenty-fifth round (tuned on fresh68-fresh71): exceptions in .NET's and
Elixir's shapes, exit codes as launchers and IDEs report them, a build without GPU support, the
legacy THC check, a builder with no implementation for a node, FP8 in its Rust name and the CUDA
runtime unloading at exit. The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # .NET Core's report of an exception nobody caught
        (
            ["Unhandled exception. System.InvalidOperationException: Pipeline has no device"],
            "unknown",
            "unknown",
        ),
        # Visual Studio's exception details: the message has a line of its own, below the type
        (
            [
                "Vendor.Gpu.KernelException was unhandled",
                "  HResult=-2146233088",
                "  Message=Failed to allocate device buffer",
                "  Source=Vendor.Gpu",
                "  StackTrace:",
                "       at Vendor.Gpu.Buffer..ctor(Int32 size)",
                "  InnerException:",
            ],
            "device_oom",
            "unknown",
        ),
        (["System.OutOfMemoryException was thrown"], "device_oom", "unknown"),
        # Elixir: a raised exception, and an exception struct returned with its stack
        (["** (ArgumentError) expected a tensor on the device"], "unknown", "unknown"),
        (
            ['%RuntimeError{message: "executable was not built"}, [{Mod.NIF, :run, 2, []}]'],
            "unknown",
            "unknown",
        ),
        # Windows: abort() ends a program with 3, a crash with a status of 0xC0000000 and above
        (["Process finished with exit code 3 (0x00000003)"], "engine_died", "unknown"),
        (
            ["The program 'app.exe' has exited with code 3221225477 (0xc0000005)."],
            "engine_died",
            "unknown",
        ),
        (["进程已结束\uff0c退出代码为 -1073740791 (0xC0000409)"], "engine_died", "unknown"),
        # any other exit code but 0 is a failure whose cause the log does not show
        (["runner ready", "Process finished with exit code 1"], "unknown", "unknown"),
        # a library that says its installed build cannot use the GPU, as the last word (said as
        # it is imported: `startup` since round 110)
        (
            [
                "/env/lib/site-packages/lib8bit/ext.py:12: UserWarning: The installed version "
                "of lib8bit was compiled without GPU support. GPU kernels are unavailable.",
            ],
            "env_mismatch",
            "startup",
        ),
        # legacy torch's THC check: error 2 is cudaErrorMemoryAllocation
        (
            [
                "THCudaCheck FAIL file=/build/THC/generic/THCTensor.cu line=12 error=2 : "
                "out of memory"
            ],
            "device_oom",
            "unknown",
        ),
        # a compiler or runtime that found no implementation (no kernel, no tactic) for an op
        (
            ["RuntimeError: graph lowering: could not find any implementation for op Gather_3"],
            "dispatch_failure",
            "unknown",
        ),
        # FP8 in the names of Rust and XLA libraries
        (
            ["Error: internal error 'F8E5M2 not supported in Metal backend'"],
            "dispatch_failure",
            "unknown",
        ),
        # the CUDA runtime already unloaded at exit: a free made while the process goes down
        (["cudaFree() failed. Reason: driver shutting down"], "unknown", "shutdown"),
    ],
)
def test_round25_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_an_exit_code_of_zero_is_no_failure(tmp_path: Path) -> None:
    assert classify_both(tmp_path, ["done", "Process finished with exit code 0"]) is None


def test_an_exit_code_only_points_at_an_error_above_it(tmp_path: Path) -> None:
    lines = [
        "Exit code: 1. Reason: see below",
        "RuntimeError: CUDA error: an illegal memory access was encountered",
    ]
    failure = classify_as(tmp_path, lines, "illegal_memory_access", "unknown")
    assert failure.line == 2


def test_a_build_without_gpu_support_followed_by_a_working_run_is_no_failure(
    tmp_path: Path,
) -> None:
    # the same warning on a machine that then runs on the CPU as it was asked to
    lines = [
        "/env/lib/site-packages/lib8bit/ext.py:12: UserWarning: The installed version of "
        "lib8bit was compiled without GPU support.",
        "INFO: loading model on cpu",
        "INFO: model loaded",
        "INFO: generated 32 tokens",
    ]
    assert classify_both(tmp_path, lines) is None
