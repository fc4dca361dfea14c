"""Mechanisms of the forty-third round (tuned on fresh142-fresh145): torch's newer and older
capability warnings, a kernel library that does not know the GPU's architecture, an attention
backend refusing FP8 KV caches "not yet", torch.distributed's collectives out of step, a GGUF
architecture the loader does not implement, TensorRT's ONNX parser without an importer, the lazy
import of transformers' and diffusers' modules and mistral.rs' dummy run. The lines are of our
own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        (
            [
                "/env/lib/python3.12/site-packages/torch/cuda/__init__.py:283: UserWarning: ",
                "    Found GPU0 NVIDIA GB10 which is of cuda capability 12.1.",
                "    Minimum and Maximum cuda capability supported by this version of PyTorch is",
                "    (8.0) - (12.0)",
                "  warnings.warn(",
                "Python: 3.12.12",
                "CUDA available: True",
            ],
            "env_mismatch",
            "startup",
        ),
        (
            [
                "UserWarning: Found GPU0 Tesla K80 which is of cuda capability 3.7. PyTorch no "
                "longer supports this GPU because it is too old."
            ],
            "env_mismatch",
            "startup",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "/srv/aiter/jit/core.py", line 40, in get_gfx',
                "    return GFX_MAP[name]",
                "KeyError: 'gfx1101'",
                "",
                "During handling of the above exception, another exception occurred:",
                "",
                'KeyError: "Unknown GPU architecture: gfx1101. Supported architectures: '
                "['gfx90a', 'gfx942']\"",
            ],
            "dispatch_failure",
            "unknown",
        ),
        (
            ["NotImplementedError: TritonMLA with FP8 KV cache not yet supported"],
            "dispatch_failure",
            "unknown",
        ),
        (
            [
                "RuntimeError: Detected mismatch between collectives on ranks. Rank 1 is running "
                "collective: CollectiveFingerPrint(SequenceNumber=5, OpType=BARRIER)"
            ],
            "nccl_error",
            "unknown",
        ),
        (
            ["Loading model: /models/x.gguf", "Detected unimplemented GGUF Arch: deepseek4"],
            "unsupported_config",
            "loading",
        ),
        (
            [
                "/src/onnx-tensorrt/ModelImporter.cpp:134 In function parseGraph:",
                "[8] No importer registered for op: Mish",
            ],
            "unsupported_config",
            "compile",
        ),
        (
            [
                "RuntimeError: Failed to import diffusers.models.autoencoders.autoencoder_kl "
                "because of the following error (look up to see its traceback):"
            ],
            "env_mismatch",
            "startup",
        ),
        (
            [
                "2025-01-01T00:00:00Z  INFO mistralrs_core::pipeline::normal: Model loaded.",
                "2025-01-01T00:00:01Z  INFO mistralrs_core: Beginning dummy run.",
                "thread '<unnamed>' panicked at src/driver/safe/core.rs:252:76:",
                "called `Result::unwrap()` on an `Err` value: DriverError(CUDA_ERROR_ILLEGAL_"
                'ADDRESS, "an illegal memory access was encountered")',
            ],
            "illegal_memory_access",
            "warmup",
        ),
    ],
)
def test_round43_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)
