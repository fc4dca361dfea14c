"""Mechanisms of the hundred-and-eighth round, tuned on the read half of the thirty-ninth batch
(OCR models, recommendation systems, model-serving platforms, GPU inference from other languages).

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # NCCL's own string for a failed call, with no other word of NCCL's on its line
        (
            [
                "RuntimeError: Runtime error: unhandled system error",
                "        ncclGroupEnd() at Manager(/src/resource_manager.cpp:176)",
            ],
            "nccl_error",
            "unknown",
        ),
        # torch's fuser compiling a kernel with NVRTC, which failed (its source below)
        (
            ["nvrtc compilation failed: ", "", "#define NAN __int_as_float(0x7fffffff)"],
            "env_mismatch",
            "compile",
        ),
    ],
)
def test_round108_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_a_quiet_level_capitalised_as_dotnet_writes_it_is_quiet(tmp_path: Path) -> None:
    """LLamaSharp's ``Info:`` record of a backend it could not load, before it falls back."""
    lines = [
        "Info: Failed Loading 'runtimes/win-x64/native/cuda12/ggml-base.dll'",
        "Info: Successfully loaded 'runtimes/win-x64/native/avx2/llama.dll'",
    ]
    assert classify_both(tmp_path, lines) is None


def test_an_error_record_in_capitals_is_still_an_error(tmp_path: Path) -> None:
    """(Only the quiet levels are read in that spelling: ``Error:`` stays an error.)"""
    classify_as(tmp_path, ["Error: Failed Loading 'ggml-base.dll'"], "unknown", "unknown")
