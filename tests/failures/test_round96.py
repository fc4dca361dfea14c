"""Mechanisms of the ninety-sixth round, tuned on the read half of the twenty-seventh batch
(vLLM and SGLang on ROCm, CUDA errors in training, KV-cache planning, JAX and XLA).

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both, classify_mid_log


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # a TPU kernel needing more of the core's on-chip vector memory than it has
        (
            [
                "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Ran out of memory in memory space "
                "vmem while allocating on stack for %attn.3 = bf16[8,128]"
            ],
            "smem_limit",
            "unknown",
        ),
        # a size that does not divide another, without "is"
        (
            ["AssertionError: page_size=48 not divisible by block_size=32."],
            "unsupported_config",
            "unknown",
        ),
        # a value refused for its form
        (
            [
                "(APIServer pid=7) ERROR 01-02 10:00:00 [config.py:306] Error retrieving config: "
                "Name must be in the form 'org/name': '/models/x', retrying 1 of 2"
            ],
            "unsupported_config",
            "unknown",
        ),
        # a library's table of kernels per GPU without this one
        (
            [
                "Traceback (most recent call last):",
                '  File "/env/lib/chip.py", line 60, in get_arch',
                "    return table[name]",
                "KeyError: 'gfx1201'",
            ],
            "dispatch_failure",
            "unknown",
        ),
        # a C library's own warning is quiet: the error after it is the first
        (
            [
                "libibverbs: Warning: couldn't load driver 'libx-rdmav34.so': libx-rdmav34.so: "
                "cannot open shared object file: No such file or directory",
                "[/src/topology/gpu.cpp:80] smi failed with STATUS_INIT_ERROR: An error occurred",
            ],
            "unknown",
            "unknown",
        ),
        # an exception as a debugger shows it, its message on the next line
        (
            [
                "Exception has occurred: RuntimeError",
                "RPC ran for more than 60000 ms and timed out.",
            ],
            "timeout",
            "unknown",
        ),
        (
            ["Exception has occurred: XlaRuntimeError", "INTERNAL: something broke"],
            "unknown",
            "unknown",
        ),
        # vLLM's worker relay broken by a paste before its quoted message
        (
            ["RuntimeError: Worker failed with error", "'Page size mismatch: 1136 != 3408'"],
            "unsupported_config",
            "unknown",
        ),
        # a record at an error level cut inside its source file
        (
            [
                "2023-09-26 23:49:25.334693: W external/xla/asm_compiler.cc:231] Falling back",
                "F0000 00:00:1695743368.222415    2429 gpu_ex",
            ],
            "unknown",
            "unknown",
        ),
        # XLA's device linker failing under its JIT, as its ptxas does
        (
            [
                "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: nvlink exited with non-zero "
                "error code 256, output: nvlink fatal   : Input file '/tmp/x'"
            ],
            "env_mismatch",
            "compile",
        ),
    ],
)
def test_round96_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    "lines",
    [
        # a benchmark's table with no failed request
        [
            "| Metric            | Value |",
            "| Failed requests   |    0      |",
            "| Throughput | 9 |",
        ],
    ],
)
def test_round96_no_failure(tmp_path: Path, lines: list[str]) -> None:
    assert classify_both(tmp_path, lines) is None


def test_a_failed_count_in_a_table_is_still_a_failure(tmp_path: Path) -> None:
    failure = classify_as(tmp_path, ["| Failed requests   |    3      |"], "unknown", "unknown")
    assert "Failed requests" in failure.first_error


@pytest.mark.parametrize(
    ("line", "category"),
    [
        ("RESOURCE_EXHAUSTED: Ran out of memory in memory space vmem", "smem_limit"),
        ("F0000 00:00:1695743368.222415    2429 gpu_ex", "unknown"),
    ],
)
def test_a_round96_line_is_found_mid_log(tmp_path: Path, line: str, category: str) -> None:
    classify_mid_log(tmp_path, line, category)
