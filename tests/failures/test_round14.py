"""Mechanisms of the fourteenth round (tuned on fresh24-fresh27): library failures in any case,
exception groups, a linker or a container runtime missing what it needs, TensorRT-LLM's plugin
size check, torch's allocation limit, phrases that tell start-up and loading, a compile inside
the profiling run, and the words of a frame read in the same error's later report. The lines are
of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        (
            ["2026-01-02 10:00:00 [E:foo, call.cc:93] CUDNN failure 3: CUDNN_STATUS_BAD_PARAM"],
            "unknown",
            "unknown",
        ),
        (
            ["exceptiongroup.ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)"],
            "unknown",
            "unknown",
        ),
        (
            ["BaseExceptionGroup: unhandled errors in a TaskGroup (2 sub-exceptions)"],
            "unknown",
            "unknown",
        ),
        (["/usr/bin/ld: cannot find -lcuda: No such file or directory"], "env_mismatch", "compile"),
        (
            [
                'Error response from daemon: could not select device driver "nvidia" with '
                "capabilities: [[gpu]]"
            ],
            "env_mismatch",
            "startup",
        ),
        (
            ["[FooLLM][ERROR] Assertion failed: d == a + length (/src/plugins/foo.cpp:12)"],
            "env_mismatch",
            "loading",
        ),
        # (round 17: ComfyUI's executor reporting a node's failure is execute)
        (["!!! Exception during processing !!! Allocation on device "], "device_oom", "execute"),
        (
            ["RuntimeError: Allocation on device 0 would exceed allowed memory. (out of memory)"],
            "device_oom",
            "unknown",
        ),
        (
            [
                "[2026-01-02 10:00:00] Received sigquit from a child proces. It usually means the "
                "child failed."
            ],
            "engine_died",
            "unknown",
        ),
    ],
)
def test_library_and_runtime_words(
    tmp_path: Path, lines: list[str], category: str, stage: str
) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    ("line", "category", "stage"),
    [
        (
            "ValueError: Total number of attention heads (12) must be divisible by tensor "
            "parallel size (8).",
            "unsupported_config",
            "startup",
        ),
        (
            "torch.distributed.DistStoreError: Timed out after 601 seconds waiting for clients. "
            "1/2 clients joined.",
            "timeout",
            "startup",
        ),
        (
            "CUDA error 100 at foo.cu:12: no CUDA-capable device is detected",
            "env_mismatch",
            "startup",
        ),
        ("error: creating server: Internal - failed to load all models", "unknown", "loading"),
    ],
)
def test_phrases_that_tell_the_stage(tmp_path: Path, line: str, category: str, stage: str) -> None:
    classify_as(tmp_path, [line], category, stage)


def test_a_functions_warning_level_is_read(tmp_path: Path) -> None:
    line = "warmup: WARNING: flash attention not supported by CUDA0, memory usage will increase"
    assert classify_both(tmp_path, ["main: build = 1 (abc)", line, "srv  start: listening"]) is None


def test_a_compile_inside_the_profiling_run_is_the_compile(tmp_path: Path) -> None:
    lines = [
        "INFO 01-02 10:00:00 [gpu_model_runner.py:1] Model loading took 1.2 GiB and 3.4 seconds",
        "ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'",
    ]
    classify_as(tmp_path, lines, "dispatch_failure", "compile")


def test_safetensors_opening_a_checkpoint_is_loading(tmp_path: Path) -> None:
    lines = [
        "Traceback (most recent call last):",
        '  File "/srv/foo/pipe.py", line 9, in add_adapter',
        "    with safe_open(path, framework='pt') as f:",
        "safetensors_rust.SafetensorError: Error while deserializing header: HeaderTooLarge",
    ]
    classify_as(tmp_path, lines, "unsupported_config", "loading")


def test_the_words_of_a_later_reports_frames_tell_the_stage(tmp_path: Path) -> None:
    lines = [
        "CUDA error: an illegal memory access was encountered",
        "Traceback (most recent call last):",
        '  File "foo\\\\changer.py", line 239, in on_request',
        '  File "foo\\\\model.py", line 216, in run_model',
        "RuntimeError: CUDA error: an illegal memory access was encountered",
    ]
    classify_as(tmp_path, lines, "illegal_memory_access", "execute")


def test_a_unit_tests_name_serves_nothing(tmp_path: Path) -> None:
    lines = [
        "Traceback (most recent call last):",
        '  File "/srv/foo/tests/test_attn.py", line 9, in test_batch_decode',
        "    run(q, k, v)",
        "RuntimeError: CUDA error: an illegal memory access was encountered",
    ]
    classify_as(tmp_path, lines, "illegal_memory_access", "unknown")


@pytest.mark.parametrize(
    "before",
    ["Generating: 0/1", "Sampling with k_euler_ancestral for 20 steps", "Denoising  40%|####"],
)
def test_a_progress_bar_of_the_work_is_execute(tmp_path: Path, before: str) -> None:
    lines = ["INFO model ready", before, "RuntimeError: CUDA error: unspecified launch failure"]
    failure = classify_as(tmp_path, lines, "illegal_memory_access", "execute")
    assert failure.evidence["stage"].startswith("activity")


def test_a_layer_built_with_the_model_is_loading(tmp_path: Path) -> None:
    lines = [
        "Traceback (most recent call last):",
        '  File "/srv/vllm/model_executor/layers/vocab_parallel_embedding.py", line 9, in __init__',
        "    self.weight = torch.empty(n, d, device='cuda')",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB.",
    ]
    classify_as(tmp_path, lines, "device_oom", "loading")
