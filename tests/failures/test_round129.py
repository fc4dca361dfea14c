"""Mechanisms of the hundred-and-twenty-ninth round, tuned on the read half of the fifty-fourth
batch (KV-cache offloading and disaggregated serving, Apple Silicon GPUs, GPU profiling tools,
GPU programming from Python).

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_mid_log


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # Mooncake's transfer engine, the transport of KV transfers, by its records' sources
        (
            [
                "E20260101 10:55:32.627507 6146 rdma_context.cpp:499] Failed to query GID 0 on "
                "mlx5_3/: Invalid argument [22]"
            ],
            "nccl_error",
            "unknown",
        ),
        # (and by its words, the record's header read as a level)
        (
            [
                "E0603 20:16:59.104586 27322 worker_pool.cpp:271] Worker: Process failed for "
                "slice (opcode: 1, source_addr: 0x7f20fe0f1680, length: 65536)"
            ],
            "nccl_error",
            "unknown",
        ),
        (
            ["E0101 00:00:01.0 7 rdma_transport.cpp:426] RdmaTransport: No available RNIC"],
            "nccl_error",
            "unknown",
        ),
        # (a transfer that timed out is a timeout)
        (
            [
                "E0101 00:00:01.000000 7 tcp_transport.cpp:88] Failed to connect to peer: "
                "Connection timed out"
            ],
            "timeout",
            "unknown",
        ),
        # an error's code named by its prefix, and a component's tag before its error
        (
            [
                "ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU "
                "Performance Counters on the target device 0."
            ],
            "unknown",
            "unknown",
        ),
        (["[coreml] Error computing NN outputs -1"], "unknown", "execute"),
    ],
)
def test_round129_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_round129_error_code_found_mid_log(tmp_path: Path) -> None:
    classify_mid_log(tmp_path, "ERR_NVGPUCTRPERM - The user does not have permission", "unknown")


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # (review) dash's words behind a build's step prefix
        (["#8 0.234 /bin/sh: 1: nvcc: not found"], "env_mismatch", "unknown"),
        # (review) coreutils' quotes in a UTF-8 locale, and env called by its name
        (
            ["/usr/bin/env: \u2018python3\u2019: No such file or directory"],
            "env_mismatch",
            "unknown",
        ),
        (["env: python3: No such file or directory"], "env_mismatch", "unknown"),
        (["bash: ./run.sh: cannot execute: required file not found"], "env_mismatch", "unknown"),
        # (review) OpenCV 4's CUDA stub in its "..., file ..., line N" form
        (
            [
                "OpenCV(4.3.0) Error: The function/feature is not implemented (The called "
                "functionality is disabled for current build or platform) in throw_no_cuda, file "
                "C:\\opencv\\modules\\core\\include\\opencv2/core/private.cuda.hpp, line 115"
            ],
            "env_mismatch",
            "unknown",
        ),
        # (review) GCC's check of the language standard, in its own words
        (
            [
                "/usr/include/c++/9/bits/c++0x_warning.h:32:2: error: #error This file requires "
                "compiler and library support for the ISO C++ 2011 standard."
            ],
            "env_mismatch",
            "compile",
        ),
        # (review) OpenCV's function named with its namespace (MSVC builds)
        (
            [
                "x.cpp:74: error: (-217:Gpu API call) out of memory in function "
                "'cv::cuda::setDevice'"
            ],
            "device_oom",
            "startup",
        ),
    ],
)
def test_review_of_round128_readings(
    tmp_path: Path, lines: list[str], category: str, stage: str
) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    "line",
    [
        "/usr/bin/env: 'python3': No such file or directory",
        "exec /entrypoint.sh: no such file or directory",
    ],
)
def test_review_of_round128_missing_program_found_mid_log(tmp_path: Path, line: str) -> None:
    classify_mid_log(tmp_path, line, "env_mismatch")


@pytest.mark.timeout(60)
def test_review_of_round128_header_check_is_linear(tmp_path: Path) -> None:
    """(review) the check for a header a compiler cannot find rescanned a long word from each of
    its letters (30 s for 160,000 characters)."""
    lines = ["step 1", "word" * 40000, "RuntimeError: CUDA error: out of memory"]
    classify_as(tmp_path, lines, "device_oom", "unknown")
