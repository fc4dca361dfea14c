"""Mechanisms of the ninety-third round: two more wordings from the read halves of the twenty-third
and twenty-fourth batches that other tools share (no new logs read).

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as


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
