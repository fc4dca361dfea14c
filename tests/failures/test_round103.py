"""Mechanisms of the hundred-and-third round, tuned on the read half of the thirty-fourth batch
(vLLM on consumer GPUs, TensorRT for vision models, Hugging Face serving, speech on GPUs).

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both, classify_mid_log


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # TensorRT's network given weights of another model
        (
            [
                "Loading weights: ../detector.wts",
                "[E] [TRT] (Unnamed Layer* 12) [Convolution]: kernel weights has count 2048 but "
                "4096 was expected",
            ],
            "unsupported_config",
            "loading",
        ),
        # CTranslate2's reader of a model file cut short
        (
            [
                "RuntimeError: File model.bin is incomplete: failed to read a buffer of size 4096 "
                "at position 1024"
            ],
            "unsupported_config",
            "unknown",
        ),
        # TensorRT's builder out of host memory, in its own words
        (
            [
                "[TRT] [I] [MemUsageChange] TensorRT-managed allocation in building engine: "
                "CPU +10, GPU +256",
                "[TRT] [E] 1: Unexpected exception std::bad_alloc",
            ],
            "device_oom",
            "compile",
        ),
        # Habana's runtime finding no device to acquire: set-up
        (
            ["RuntimeError: synStatus=8 [Device not found] Device acquire failed."],
            "env_mismatch",
            "startup",
        ),
        # NumPy's check of an extension built against another NumPy
        (
            [
                "RuntimeError: module was compiled against NumPy C-API version 0x10 (NumPy 1.23) "
                "but the running NumPy has C-API version 0xf."
            ],
            "env_mismatch",
            "unknown",
        ),
        (
            [
                "A module that was compiled using NumPy 1.x cannot be run in",
                "NumPy 2.1.0 as it may crash. To support both 1.x and 2.x",
                "ImportError: numpy.core.multiarray failed to import",
            ],
            "env_mismatch",
            "startup",
        ),
    ],
)
def test_round103_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    "line",
    [
        # a policy for errors named in capitals is no error
        "Logger: Setting error_handling_strategy to DISABLE_QUIETLY_AND_REPORT_METRIC_ERROR",
        "Setting job policy to STOP_ON_ERROR for rank 0",
    ],
)
def test_a_policy_named_for_errors_is_no_failure(tmp_path: Path, line: str) -> None:
    assert classify_both(tmp_path, [line]) is None


def test_an_error_code_in_capitals_is_still_an_error(tmp_path: Path) -> None:
    classify_as(
        tmp_path, ["E0101 12:00:00 run.cc:10] status: LLAMA_PROCESS_ERROR"], "unknown", "unknown"
    )


@pytest.mark.parametrize(
    ("line", "category"),
    [
        (
            "[E] [TRT] [Convolution]: kernel weights has count 20 but 40 was expected",
            "unsupported_config",
        ),
        ("RuntimeError: File model.bin is incomplete: failed to read", "unsupported_config"),
        ("[TRT] [E] 1: Unexpected exception std::bad_alloc", "device_oom"),
    ],
)
def test_a_round103_line_is_found_mid_log(tmp_path: Path, line: str, category: str) -> None:
    classify_mid_log(tmp_path, line, category)
