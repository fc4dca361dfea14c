"""Mechanisms of the fifty-third round, tuned on ``fresh182/`` to ``fresh185/``.

No failure: a fallback told by its substitute (``The native segment will be used instead``),
a line at a level a logger puts in brackets with its name (LLamaSharp's ``[llama Info]:``).
Categories: vLLM finding no platform to run on (``env_mismatch`` at ``startup``); PyInstaller's
loader failing on a bundled library; a kernel's size check worded without its verb (``must
divisible by``); LLVM's backend with no instruction for an intrinsic (``dispatch_failure`` at
``compile``). Stages: Hugging Face's argument parser building TrainingArguments (``startup``).
The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


@pytest.mark.parametrize(
    "lines",
    [
        [
            "2019-11-01 19:11:24.404448: W tensorflow/compiler/tf2tensorrt/kernels/"
            "trt_engine_op.cc:647] Engine creation for TRTEngineOp_3 failed. The native segment "
            "will be used instead. Reason: Internal: Failed to build TensorRT engine",
            "2019-11-01 19:11:24.406408: I tensorflow/compiler/tf2tensorrt/kernels/"
            "trt_engine_op.cc:632] Building a new TensorRT engine for TRTEngineOp_4",
        ],
        [
            "[llama Info]: Detected cuda major version 12.",
            "[llama Info]: Failed Loading './runtimes/linux-x64/native/cuda12/libllama.so'",
            "[llama Debug]: Trying './runtimes/linux-x64/native/avx/libllama.so'",
            "[llama Info]: Loaded './runtimes/linux-x64/native/avx/libllama.so'",
        ],
    ],
)
def test_round53_no_failure(tmp_path: Path, lines: list[str]) -> None:
    assert classify_both(tmp_path, lines) is None


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        (
            [
                "DEBUG 10-01 12:03:47 [__init__.py:93] CUDA platform is not available because: "
                "NVML Shared Library Not Found",
                "INFO 10-01 12:03:47 [__init__.py:243] No platform detected, vLLM is running on "
                "UnspecifiedPlatform",
            ],
            "env_mismatch",
            "startup",
        ),
        (
            [
                "Initializing dynamic library: koboldcpp_cublas.dll",
                "PyInstallerImportError: Failed to load dynlib/dll "
                "'C:\\Users\\user\\AppData\\Local\\Temp\\_MEI1\\koboldcpp_cublas.dll'. Most likely "
                "this dynlib/dll was not found when the application was frozen.",
            ],
            "env_mismatch",
            "startup",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "/app/moe.py", line 40, in fused_moe',
                '    assert size_k % BLOCK_SIZE_K == 0, "size_k must divisible by BLOCK_SIZE_K"',
                "AssertionError: size_k must divisible by BLOCK_SIZE_K",
            ],
            "unsupported_config",
            "unknown",
        ),
        (
            [
                "load tokenizer Done",
                "LLVM ERROR: Cannot select: intrinsic %llvm.bifrost.2586",
                "Aborted (core dumped)",
            ],
            "dispatch_failure",
            "compile",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "/w/train.py", line 482, in train',
                "    model_args, training_args = parser.parse_args_into_dataclasses()",
                '  File "/env/transformers/hf_argparser.py", line 332, in '
                "parse_args_into_dataclasses",
                "    obj = dtype(**inputs)",
                '  File "/env/transformers/training_args.py", line 1190, in __post_init__',
                "    raise ValueError(",
                "ValueError: Your setup doesn't support bf16/gpu. You need torch>=1.10, using "
                "Ampere GPU with cuda>=11.0",
            ],
            "dispatch_failure",
            "startup",
        ),
    ],
)
def test_round53_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)
