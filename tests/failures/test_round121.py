"""Mechanisms of the hundred-and-twenty-first round, tuned on the read half of the fiftieth
batch (transformers inference, document AI and OCR, distributed inference, ms-swift and
LLaMA-Factory).

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


@pytest.mark.parametrize(
    ("lines", "category"),
    [
        # a program's own check that CUDA is there, in its words
        (
            [
                '  File "/py/utils/torch_utils.py", line 90, in select_device',
                "    assert torch.cuda.is_available()",
                "AssertionError: CUDA unavailable, invalid device cuda requested",
            ],
            "env_mismatch",
        ),
        # the parallel sizes against the processes there are, as an equation that fails
        (
            [
                "RuntimeError: world_size (8) is not equal to tensor_model_parallel_size (4) x "
                "pipeline_model_parallel_size (1)"
            ],
            "unsupported_config",
        ),
    ],
)
def test_round121_mechanism(tmp_path: Path, lines: list[str], category: str) -> None:
    classify_as(tmp_path, lines, category, "unknown")


def test_a_buffer_not_locked_in_ram_is_routine(tmp_path: Path) -> None:
    """distributed-llama allocates its buffers without the lock when it cannot lock them."""
    lines = [
        "💡 nSlices: 8",
        "🚧 Cannot allocate 262144000 bytes directly in RAM",
        "🚧 Cannot allocate 2097152 bytes directly in RAM",
        "🕒 ropeCache: 2048 kB",
    ]
    assert classify_both(tmp_path, lines) is None


def test_an_allocation_that_fails_otherwise_is_still_a_shortage(tmp_path: Path) -> None:
    failure = classify_both(tmp_path, ["x", "Cannot allocate 2097152 bytes on the device"])
    assert failure is not None
    assert failure.category == "device_oom"
