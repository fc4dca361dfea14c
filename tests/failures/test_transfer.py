"""Mechanisms widened so that they transfer to logs never tuned on (category, misses, hangs).

Every line here is written from the text the library itself prints (JAX's and XLA's CUDA
start-up, TensorRT-LLM's fused MHA runner, torch's extension builder, vLLM's extension import
on macOS, vLLM's throughput report), with names and numbers of our own.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_both as _classify


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # JAX's CUDA plugin, logged as a warning before it falls back to the CPU
        (
            [
                "WARNING:jax._src.xla_bridge:CUDA backend failed to initialize: Found CUDA "
                "version 12010, but JAX was built against version 12030. (Set "
                "TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)"
            ],
            "env_mismatch",
            "startup",
        ),
        # XLA's stream executor cannot initialise the driver
        (
            [
                "2031-01-02 03:04:05.678901: E external/xla/xla/stream_executor/cuda/"
                "cuda_driver.cc:282] failed call to cuInit: CUDA_ERROR_NOT_READY: the "
                "driver stack is not ready",
            ],
            "env_mismatch",
            "startup",
        ),
        # TensorRT-LLM's fused MHA runner has no kernel for these parameters on this GPU
        (
            [
                "[TensorRT-LLM][WARNING] FMHA kernels are not found with these parameters:",
                "  D                     : 96",
            ],
            "dispatch_failure",
            "unknown",
        ),
        # torch.utils.cpp_extension: the ninja build of a JIT extension fails
        (
            [
                "Traceback (most recent call last):",
                '  File "/opt/py/torch/utils/cpp_extension.py", line 2100, in _run_ninja_build',
                "    subprocess.run(",
                "subprocess.CalledProcessError: Command '['ninja', '-v']' returned non-zero "
                "exit status 1.",
            ],
            "env_mismatch",
            "compile",
        ),
        # macOS's loader words a missing symbol "Symbol not found" (Linux: "undefined symbol")
        (
            [
                "WARNING 01-02 03:04:05 [_custom_ops.py:21] Failed to import from vllm._C with "
                "ImportError('dlopen(/opt/x/_C.abi3.so, 0x0002): Symbol not found: __ZN3c104abcEv')"
            ],
            "env_mismatch",
            "startup",
        ),
        # XLA's status text, the message cut at a fixed width after "Out"
        (
            [
                "[3] 2031-01-02 03:04:05.678901: E external/xla/pjrt/local_client.cc:99] "
                "Execution of replica 0 failed: Resource exhausted: Out",
                "of memory while trying to allocate 123456 bytes.",
            ],
            "device_oom",
            "unknown",
        ),
        (
            [
                "tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when "
                "allocating tensor with shape[8,1024] (a stray line)"
            ],
            "device_oom",
            "unknown",
        ),
    ],
)
def test_library_wordings_transfer(
    lines: list[str], category: str, stage: str, tmp_path: Path
) -> None:
    failure = _classify(tmp_path, lines)
    assert failure is not None
    assert (failure.category, failure.stage) == (category, stage), failure


def test_a_numbered_thing_that_failed_is_not_a_zero_count(tmp_path: Path) -> None:
    failure = _classify(tmp_path, ["Execution of partition 0 failed: cannot proceed"])
    assert failure is not None
    assert failure.category == "unknown"
    assert _classify(tmp_path, ["tests: 12 passed, 0 failed"]) is None


def test_throughput_reports_flattened_onto_one_line_with_tokens_moving_are_progress(
    tmp_path: Path,
) -> None:
    report = (
        "INFO 01-02 03:04:{s:02d} metrics.py:100] Avg prompt throughput: 0.0 tokens/s, Avg "
        "generation throughput: {g} tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 "
        "reqs, GPU KV cache usage: 0.3%, CPU KV cache usage: 0.0%"
    )
    flat = " ".join(report.format(s=s, g=g) for s, g in ((1, "0.0"), (6, "41.2"), (11, "40.9")))
    assert _classify(tmp_path, [flat]) is None
    stalled = " ".join(report.format(s=s, g="0.0") for s in (1, 6, 11))
    failure = _classify(tmp_path, [stalled])
    assert failure is not None
    assert failure.category == "timeout"


_FAULT = "RuntimeError: CUDA error: an illegal memory access was encountered"


@pytest.mark.parametrize(
    ("before", "stage", "why"),
    [
        (['INFO:     127.0.0.1:50000 - "GET /health HTTP/1.1" 200 OK'], "execute", "GET"),
        (["Scheduler: Decode batch. #running-req: 3, #token: 900"], "execute", "Decode batch"),
        (["Loading checkpoint shards:  50%|#####     | 2/4 [00:03<00:03]"], "loading", "checkp"),
        (["[TRT] start building engine"], "compile", "building engine"),
        (["/usr/local/cuda/bin/nvcc -O3 -c kernel.cu -o kernel.o"], "compile", "nvcc"),
        (["INFO api_server.py:1] args: Namespace(model='m', port=8000)"], "startup", "Namespace"),
        # the nearest activity wins: the server had answered requests, then loads nothing more
        (
            [
                "Loading checkpoint shards: 100%|##########| 4/4",
                'INFO:     127.0.0.1:50000 - "GET /metrics HTTP/1.1" 200 OK',
            ],
            "execute",
            "GET",
        ),
    ],
)
def test_activity_right_before_the_error_tells_the_stage(
    before: list[str], stage: str, why: str, tmp_path: Path
) -> None:
    failure = _classify(tmp_path, [*before, "some unrelated line", _FAULT])
    assert failure is not None
    assert failure.category == "illegal_memory_access"
    assert failure.stage == stage
    assert failure.evidence["stage"].startswith("activity")
    assert why in failure.evidence["stage"]


def test_activity_is_weaker_than_the_errors_own_frames(tmp_path: Path) -> None:
    lines = [
        'INFO:     127.0.0.1:50000 - "GET /health HTTP/1.1" 200 OK',
        "Traceback (most recent call last):",
        '  File "/opt/x/worker.py", line 10, in load_model',
        "    self.model = get_model()",
        _FAULT,
    ]
    failure = _classify(tmp_path, lines)
    assert failure is not None
    assert failure.stage == "loading"


def test_activity_far_above_the_error_does_not_count(tmp_path: Path) -> None:
    lines = ["Loading checkpoint shards: 100%", *(f"step {i}" for i in range(60)), _FAULT]
    failure = _classify(tmp_path, lines)
    assert failure is not None
    assert failure.stage == "unknown"


@pytest.mark.parametrize(
    ("lines", "stage"),
    [
        # what the error itself says was being done
        (
            [
                "/opt/t/torch/cuda/__init__.py:1: UserWarning: CUDA initialization: The NVIDIA "
                "driver on your system is too old (found version 9000)."
            ],
            "startup",
        ),
        (["RuntimeError: CUDA Setup failed despite GPU being available."], "startup"),
        (["[PTX-JIT] Failed kernel: entry add_one, target: sm_90"], "compile"),
        (["Error: failed to start a llama runner"], "loading"),
        (["ERROR text_generation_launcher: Error when initializing model"], "loading"),
        # frames: CUDA and JAX initialisation, weights processed after loading, a batch built
        (
            [
                "Traceback (most recent call last):",
                '  File "/opt/t/torch/cuda/__init__.py", line 1, in set_device',
                "RuntimeError: CUDA error: something unheard of",
            ],
            "startup",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "/opt/x/loader.py", line 1, in process_weights_after_loading',
                "RuntimeError: CUDA driver error: out of memory",
            ],
            "loading",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "/opt/s/schedule_batch.py", line 1, in get_model_worker_batch',
                _FAULT,
            ],
            "execute",
        ),
    ],
)
def test_phrases_and_frames_of_initialisation_loading_and_serving(
    lines: list[str], stage: str, tmp_path: Path
) -> None:
    failure = _classify(tmp_path, lines)
    assert failure is not None
    assert failure.stage == stage, failure


def test_a_driver_too_old_alone_has_no_stage(tmp_path: Path) -> None:
    line = "error 35 -> CUDA driver version is insufficient for CUDA runtime version"
    failure = _classify(tmp_path, [line])
    assert failure is not None
    assert (failure.category, failure.stage) == ("env_mismatch", "unknown")


@pytest.mark.parametrize(
    "line",
    [
        "cudaSetDevice returned 35 -> CUDA driver version is insufficient for CUDA runtime version",
        "RuntimeError: Unexpected error from cudaGetDeviceCount(). Error 804: forward "
        "compatibility was attempted on non supported HW",
    ],
)
def test_a_driver_failing_while_devices_are_counted_or_chosen_is_startup(
    line: str, tmp_path: Path
) -> None:
    failure = _classify(tmp_path, [line])
    assert failure is not None
    assert (failure.category, failure.stage) == ("env_mismatch", "startup")
    assert failure.evidence["stage"].startswith("phrase 'cu")
