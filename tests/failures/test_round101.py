"""Mechanisms of the hundred-and-first round, tuned on the read half of the thirty-second batch
(vLLM with quantized models, FlashInfer and FlashAttention, Megatron and NeMo, fine-tuning
frameworks).

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both, classify_mid_log

_SITE = "/opt/venv/lib/python3.12/site-packages"


def _frames(indent: str) -> list[str]:
    return [
        f'{indent}File "/srv/rl/rollout/sync.py", line 88, in push_weights',
        f"{indent}  loaded = model.load_weights(weights)",
        f'{indent}File "{_SITE}/vllm/model_executor/models/llama.py", line 601, in load_weights',
        f"{indent}  return loader.load_weights(weights)",
    ]


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # Marlin's GEMM finding no thread configuration for this shape: no kernel for it
        (
            [
                "RuntimeError: Invalid thread config: thread_m_blocks = 2, thread_k = -1, "
                "thread_n = -1, num_threads = -1 for MKN = [16, 4096, 1024]"
            ],
            "dispatch_failure",
            "unknown",
        ),
        # a JIT library's error that its build tool is not installed
        (
            ["RuntimeError: Kernel JIT failed: ninja (build tool) not found. Install it first."],
            "env_mismatch",
            "compile",
        ),
        (["error: could not build the extension: nvcc not found"], "env_mismatch", "compile"),
        # two packages of one library that must be of one release
        (
            [
                "RuntimeError: kernels-cubin version (1.2.0) does not match kernels version "
                "(1.3.1). Install the same version of both."
            ],
            "env_mismatch",
            "unknown",
        ),
        # an error that says it happened when warming up
        (
            ["RuntimeError: out of memory occurred when warming up the sampler with 64 requests"],
            "device_oom",
            "warmup",
        ),
        # a function named for the data a run is given prepares data: no training step
        (
            [
                "Traceback (most recent call last):",
                '  File "pretrain.py", line 40, in train_valid_test_datasets_provider',
                "    ds = build(cfg)",
                '  File "/srv/data/indexed.py", line 12, in build',
                "    idx = make_index(cfg)",
                "IndexError: index 9 is out of bounds for axis 0 with size 9",
            ],
            "unknown",
            "unknown",
        ),
        # (a function named for the training step still is one)
        (
            [
                "Traceback (most recent call last):",
                '  File "train.py", line 40, in train_step',
                "    loss = model(batch)",
                "IndexError: index 9 is out of bounds for axis 0 with size 9",
            ],
            "unknown",
            "execute",
        ),
        # a headless traceback a paste indented by three spaces, another process's warning cut
        # right after it
        (
            [
                *_frames("   "),
                f"(pid=311) {_SITE}/torch/cuda/__init__.py:63: Future",
            ],
            "unknown",
            "loading",
        ),
        # a warning between a traceback's frames does not end it: its exception follows
        (
            [
                "Traceback (most recent call last):",
                *_frames("  "),
                f"{_SITE}/torch/cuda/__init__.py:63: FutureWarning: the pynvml package is "
                "deprecated.",
                "KeyError: 'layers.0.mlp.gate_up_proj.weight_scale'",
            ],
            "unsupported_config",
            "loading",
        ),
    ],
)
def test_round101_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_a_lone_warning_after_frames_is_still_no_failure(tmp_path: Path) -> None:
    """A warning under source lines that are no traceback (a stack a notice lists) stays quiet."""
    lines = [
        "INFO loading model",
        f"{_SITE}/torch/cuda/__init__.py:63: FutureWarning: the pynvml package is deprecated.",
        "  import pynvml",
        "INFO model loaded",
    ]
    assert classify_both(tmp_path, lines) is None


def test_llamafile_note_that_nvcc_is_missing_is_no_failure(tmp_path: Path) -> None:
    """A program noting that nvcc is not on the PATH and falling back says no error."""
    lines = ["get_nvcc_path: note: nvcc not found on $PATH", "llama server listening"]
    assert classify_both(tmp_path, lines) is None


@pytest.mark.parametrize(
    ("line", "category"),
    [
        ("Error: Invalid thread config: thread_m_blocks = 1, thread_k = 8", "dispatch_failure"),
        ("RuntimeError: JIT failed: ninja (build tool) not found.", "env_mismatch"),
        ("RuntimeError: a-cubin version (0.6.8) does not match a version (0.7.0)", "env_mismatch"),
    ],
)
def test_a_round101_line_is_found_mid_log(tmp_path: Path, line: str, category: str) -> None:
    classify_mid_log(tmp_path, line, category)
