"""Mechanisms of the twelfth round (tuned on fresh20-fresh23): errors told without an error word
(a shell's report of the signal a job died of, the CUDA runtime naming an error, a failed
timeout check) are never silent, and a loader finding no weights file is a configuration's.
The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


@pytest.mark.parametrize(
    ("line", "category"),
    [
        ("[1]    41231 floating point exception  fooserve --tp 4", "engine_died"),
        ("zsh: illegal hardware instruction  python serve.py", "engine_died"),
        ("FooEP timeout check failed: 0 (rank = 2)", "timeout"),
        ("CUDA error (C:/src/foo/launch.h:88): invalid argument", "unknown"),
        (
            "========= Program hit cudaErrorNotReady (error 600) on CUDA API call to cudaFoo.",
            "unknown",
        ),
        (
            "OSError: Error no file named model.bin, model.safetensors found in /m",
            "unsupported_config",
        ),
    ],
)
def test_an_error_told_without_an_error_word_is_never_silent(
    tmp_path: Path, line: str, category: str
) -> None:
    classify_as(tmp_path, ["step 1", line], category, "unknown")


@pytest.mark.parametrize(
    "line", ["summary: 12 passed, failed: 0", "retries exhausted: 0 errors: 0", "0 failed"]
)
def test_a_zero_count_stays_routine(tmp_path: Path, line: str) -> None:
    assert classify_both(tmp_path, ["step 1", line]) is None


@pytest.mark.parametrize(
    ("line", "category"),
    [
        (
            "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least "
            "8.0. Your Foo GPU has compute capability 7.5.",
            "dispatch_failure",
        ),
        (
            "ValueError: the card lacks bf16. You can use float16 instead by explicitly setting "
            "the`dtype` flag in CLI, for example: --dtype=half.",
            "unsupported_config",
        ),
    ],
)
def test_a_dtype_check_of_the_engine_is_startup(tmp_path: Path, line: str, category: str) -> None:
    failure = classify_as(tmp_path, [line], category, "startup")
    assert failure.evidence["stage"].startswith("phrase "), failure.evidence
