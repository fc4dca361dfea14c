"""Mechanisms of the hundred-and-twenty-second round, tuned on the read half of the
forty-eighth batch (PyTorch's own CUDA threads, speech recognition, diffusion model training,
large-scale training frameworks).

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


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


@pytest.mark.parametrize(
    "lines",
    [
        # (review) Kit's own channel, at its warning level
        [
            "[129,100ms] [Warning] [carb] Client omni.syntheticdata.plugin Failed to acquire "
            "interface [omni::graph::core::INode v4.10] while unloading all plugins"
        ],
        # (review) a running best under its minimum is no value refused
        ["x", "Validation loss 0.31 is less than the minimum so far (0.35), saving model"],
        # (review) device notices naming the CPU the program runs on
        ["CUDA unavailable, using CPU", "Final selected device: cpu", "Loading audio files"],
        ["torch.cuda.is_available() is False -> running on CPU", "Epoch 1/10 loss 0.53"],
        # (review) a notice a program acts on, not an exception
        [
            "The world size is not equal to the product of the parallel sizes set.8 != 1 * 1 * 4.",
            "Set dp_size to 2.",
            "Epoch 1 step 10 loss 2.31",
        ],
    ],
)
def test_review_of_round122_quiet_lines(tmp_path: Path, lines: list[str]) -> None:
    assert classify_both(tmp_path, lines) is None


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # (review) a runtime said missing in other words stays the environment's
        (["PyTorch is installed", "NVIDIA CUDA is not installed!"], "env_mismatch", "unknown"),
        (["PyTorch is installed", "cuDNN is not installed"], "env_mismatch", "unknown"),
        # (review) a version under the minimum is no value refused
        (
            [
                "RuntimeError: Installed CUDA version 11.2 is less than the minimum version "
                "required (11.8)"
            ],
            "unknown",
            "unknown",
        ),
        # (review) Megatron done with its model, building its datasets
        (
            [
                "building GPT model ...",
                "> building train, validation, and test datasets ...",
                "AssertionError: data path does not exist",
            ],
            "unknown",
            "unknown",
        ),
    ],
)
def test_review_of_round122_readings(
    tmp_path: Path, lines: list[str], category: str, stage: str
) -> None:
    classify_as(tmp_path, lines, category, stage)
