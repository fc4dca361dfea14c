"""Mechanisms of the ninety-third round: two more wordings from the read halves of the twenty-third
and twenty-fourth batches that other tools share (no new logs read).

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_mid_log


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # an accelerator runtime reading a compiled context back, as TensorRT reads a plan
        (
            [
                '[INFO]  "Using create From Binary"',
                '[ERROR] "Could not create context from binary for context index = 0 : err 5000"',
            ],
            "unknown",
            "loading",
        ),
        # a model file its loader cannot parse
        (
            [
                "E0101 10:00:00.000 1 model_lifecycle.cc:597] failed to load 'trees' version 1: "
                "Unknown: /src/frontend/json.cc:539: Provided JSON could not be parsed as Forest "
                "model."
            ],
            "unsupported_config",
            "loading",
        ),
    ],
)
def test_round93_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    ("line", "category"),
    [
        (
            'CANNOT LINK EXECUTABLE "./run": library "libomp.so" not found: needed by main',
            "env_mismatch",
        ),
        (
            'CANNOT LINK EXECUTABLE "./run": cannot locate symbol "__x" referenced by "a.so"',
            "env_mismatch",
        ),
        ("Device capability v2.1.0 not supported by available toolchain", "dispatch_failure"),
        ("Unsupported gpu architecture 'compute_130'", "dispatch_failure"),
        ("[Analyzer] load_gen took very long to exit, killing load_gen", "timeout"),
    ],
)
def test_a_rule_line_without_an_error_word_is_found_mid_log(
    tmp_path: Path, line: str, category: str
) -> None:
    classify_mid_log(tmp_path, line, category)
