"""Mechanisms of the thirty-first round (tuned on fresh90-fresh93): Python's error message
printed without its type, an API's error object, a model status table, cuDNN's loader, a wrapper
that names the error it wraps, a request handler that failed, an error with its code, ggml's
report of the call that failed, an option that needs another, a crash status printed unsigned,
TensorRT's builder refusing a network, c10d's watchdog, a failed benchmark, and an exit status a
shell was asked for. The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # Python's error message without its exception type
        (
            ["scheduler init state: 'NoneType' object has no attribute 'items'"],
            "unknown",
            "unknown",
        ),
        # an OpenAI-compatible API's error object
        (
            ["{", '  "object": "error",', '  "message": "Internal Server Error (Request ID: 1)"'],
            "unknown",
            "execute",
        ),
        # a model status table: a model that could not be loaded
        (
            [
                "| Model  | Version | Status                                     |",
                "| resnet | 1       | UNAVAILABLE: Internal: unable to build it  |",
            ],
            "unknown",
            "loading",
        ),
        # cuDNN's loader, and the work the program had started
        (
            [
                "Starting transcription on: talk.wav",
                "Could not load library cudnn_cnn_infer64_8.dll. Error code 126",
            ],
            "env_mismatch",
            "execute",
        ),
        # a wrapper that names the error it wraps is read as that error
        (
            [
                "vllm.engine.multiprocessing.MQEngineDeadError: Engine loop is not running. "
                "Inspect the stacktrace to find the original error: ValueError('bad shape')."
            ],
            "unknown",
            "unknown",
        ),
        # a request handler that failed
        (
            [
                "ERROR 2025-01-01 00:00:00,000 replica -- Encountered failure while handling "
                "request: RuntimeError('boom')"
            ],
            "unknown",
            "execute",
        ),
        # an error with its code comes first, before an allocation failure of a later request
        (
            [
                "onnx runtime error 6: Non-zero status code returned while running Conv node. "
                "Status Message: safeint.h:17 Integer overflow",
                "onnx runtime error 6: Non-zero status code returned while running Conv node. "
                "Status Message: bfc_arena.cc:368 Failed to allocate memory for requested buffer",
            ],
            "unknown",
            "execute",
        ),
        # ggml printing the call that failed under the error
        (
            [
                "CUDA error: invalid argument",
                "  current device: 0, in function flash_attn_ext at fattn.cu:10",
                "  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, n)",
            ],
            "smem_limit",
            "unknown",
        ),
        # an option refused without another it needs
        (
            [
                "llama_new_context_with_model: K cache quantization requires flash_attn",
                "common_init_from_params: failed to create context with model 'm.gguf'",
            ],
            "unsupported_config",
            "kv_alloc",
        ),
        # Windows' crash status printed as an unsigned 64-bit number
        (
            ["Error loading model.", "(Exit code: 18446744072635812000). Unknown error."],
            "engine_died",
            "loading",
        ),
        # TensorRT's builder refusing a parsed network
        (
            [
                "Building an engine from file model.onnx; this may take a while...",
                "[TensorRT] ERROR: Network must have at least one output",
            ],
            "unsupported_config",
            "compile",
        ),
        # c10d's watchdog record once its log prefix is taken off
        (
            [
                "[E ProcessGroupNCCL.cpp:915] [Rank 0] NCCL watchdog thread terminated with "
                "exception: CUDA error: unknown error"
            ],
            "nccl_error",
            "unknown",
        ),
        # a benchmark of the model failing while it runs
        (
            [
                "Error during benchmark: CUDA error: no kernel image is available for execution "
                "on the device"
            ],
            "dispatch_failure",
            "execute",
        ),
    ],
)
def test_round31_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    ("asked", "status", "category"),
    [
        ("C:\\sd>echo %errorlevel%", "-1073741795", "engine_died"),  # a Windows crash status
        ("$ echo $?", "139", "engine_died"),  # 128 + SIGSEGV
        ("$ echo $?", "1", "unknown"),
    ],
)
def test_an_exit_status_a_shell_showed(
    tmp_path: Path, asked: str, status: str, category: str
) -> None:
    lines = ["[INFO ] model.cpp:1 - loading model from 'm.safetensors'", "", asked, status]
    failure = classify_as(tmp_path, lines, category, "loading")
    assert failure.detail["exit_code"] == int(status)


def test_an_exit_status_of_zero_is_no_failure(tmp_path: Path) -> None:
    assert classify_both(tmp_path, ["$ ./run.sh", "done", "$ echo $?", "0"]) is None
