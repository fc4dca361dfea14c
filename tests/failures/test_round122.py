"""Mechanisms of the hundred-and-twenty-second round, tuned on the read half of the
forty-eighth batch (PyTorch's own CUDA threads, speech recognition, diffusion model training,
large-scale training frameworks).

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # a frame line whose start the paste cut, inside its path
        (
            [
                'Megatron-LM/megatron/training/arguments.py", line 561, in validate_args',
                "[rank3]:     assert num_layers % args.pp_size == 0, \\",
            ],
            "unknown",
            "startup",
        ),
        # torch's own availability check quoted in a library's refusal
        (
            [
                "ValueError: torch.cuda.is_available() should be True but is False. xformers' "
                "memory efficient attention is only available for GPU"
            ],
            "env_mismatch",
            "unknown",
        ),
        # Megatron constructing its model, then a worker's traceback cut
        (
            [
                "building GPT model ...",
                "Process Process-1:",
                "Traceback (most recent call last):",
                '  File "/usr/lib/python3.12/multiprocessing/process.py", line 314, in _bootstrap',
            ],
            "unknown",
            "loading",
        ),
        # torch's distributed checkpoint reader missing a key of the model
        (
            ["RuntimeError: Missing key in checkpoint state_dict: layer.weight."],
            "unsupported_config",
            "loading",
        ),
    ],
)
def test_round122_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)
