"""Mechanisms of the forty-ninth round, tuned on ``fresh175/`` and ``fresh176/``.

torchtitan's log records (``[titan] <date> - root - INFO - ...``) carry their level, so an INFO
line that mentions a timeout at the end of a healthy run is no failure. A torch op checking the
tensors a program handed it (``torch.cat(): expected a non-empty list of Tensors``, raised as
``ValueError``) is a program's error, not a refused configuration. A traceback a paste took one
space off (``' File "x.py", line 3, in f'`` with its source at three spaces) is still one.
The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        (
            [
                "Traceback (most recent call last):",
                '  File "/env/deepspeed/runtime/engine.py", line 1500, in '
                "_configure_zero_optimizer",
                "    optimizer = DeepSpeedZeroOptimizer(",
                "ValueError: torch.cat(): expected a non-empty list of Tensors",
            ],
            "unknown",
            "startup",
        ),
        (
            [
                "Traceback (most recent call last):",
                ' File "swift/trainers/grpo.py", line 557, in _generate_and_score_completions',
                "   batch = self._get_encoded_batch(batch, advantages)",
                ' File "swift/trainers/grpo.py", line 521, in _get_encoded_batch',
                "   advantages = torch.repeat_interleave(advantages, lengths)",
                "RuntimeError: repeats must have the same size as input along dim",
            ],
            "unknown",
            "execute",
        ),
    ],
)
def test_round49_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_round49_a_leveled_titan_record_is_no_failure(tmp_path: Path) -> None:
    lines = [
        "[rank0]:[titan] 2025-07-31 11:31:40,100 - root - INFO - step: 10  loss: 12.2584",
        "[rank0]:[titan] 2025-07-31 11:31:49,242 - root - INFO - Synchronizing and adjusting "
        "timeout for all ProcessGroups to 0:01:40",
    ]
    assert classify_both(tmp_path, lines) is None
