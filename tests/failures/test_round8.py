"""Mechanisms of the eighth round of generalisation (a stall that goes on is no hang, wrapped
error lines read as one, components and levels the libraries name, the call on the innermost
frame's source line).

Every line here is written from the text the library itself prints (vLLM, TensorRT-LLM,
TurboMind, CTranslate2, gunicorn, llama.cpp, PyTorch, pydantic, a ComfyUI error report), with
names, paths and numbers of our own.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as
from classify_helpers import classify_both as _classify

_STALL = (
    "(EngineCore pid=10) INFO 01-01 00:01:00 [shm_broadcast.py:700] No available shared memory "
    "broadcast block found in 60 seconds. This typically happens when some processes are hanging."
)


def test_a_stall_the_engine_comes_out_of_is_no_hang(tmp_path: Path) -> None:
    lines = [
        "(Worker pid=11) INFO 01-01 00:00:00 [gpu_model_runner.py:1] Profiling CUDA graph memory",
        _STALL,
        "(Worker pid=11) INFO 01-01 00:01:10 [gpu_model_runner.py:2] Estimated CUDA graph memory: "
        "0.40 GiB total",
    ]
    assert _classify(tmp_path, lines) is None


@pytest.mark.parametrize(
    "after",
    [
        [],
        ['(APIServer pid=9) INFO:     127.0.0.1:5000 - "GET /v1/jobs/7 HTTP/1.1" 200 OK'] * 3,
        ["Pyspy dump for PID 11:", 'Thread 11 (active): "MainThread"', "    step (core.py:9)"],
    ],
)
def test_a_stall_nothing_of_the_engine_follows_is_a_hang(tmp_path: Path, after: list[str]) -> None:
    failure = _classify(tmp_path, [_STALL, *after])
    assert failure is not None
    assert failure.category == "timeout"


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # TensorRT-LLM names the component that did not fit on the next line
        (["RuntimeError: Executor creation failed due to insufficient GPU memory.",
          "The following component could not be created: KV cache"], "kv_cache_oom", "kv_alloc"),
        (["RuntimeError: Executor creation failed due to insufficient GPU memory.",
          "The following component could not be created: Sampler"], "device_oom", "unknown"),
        # an error line no rule knows, its message wrapped onto the next line
        (["E0101 00:00:00.0 1 backend.cc:1] ERROR: failed to create instance: CUDA runtime error "
          "in ::cudaMallocAsync(ptr, n, mStr",
          "eam->get()): out of memory (/src/buffers.h:112)"], "device_oom", "unknown"),
        (["RuntimeError: CUDA failed with error out of memory"], "device_oom", "unknown"),
        (["[2025-01-01 00:00:00 +0000] [1] [ERROR] Worker (pid:42) was sent SIGKILL! Perhaps out "
          "of memory?"], "engine_died", "unknown"),
        (["[TensorRT-LLM][ERROR] 1: [stdArchiveReader.cpp::stdArchiveReader::40] Error Code 1: "
          "Serialization"], "env_mismatch", "loading"),
        (["Exception: inference server did not become ready after waiting."], "timeout",
         "startup"),
        (["- **Exception Message:** torch._scaled_mm is only supported on CUDA devices with "
          "compute capability >= 9.0 or 8.9"], "dispatch_failure", "unknown"),
        # round 9
        (["test: Test CUDA failure common.cu:941 'system not yet initialized'"], "env_mismatch",
         "startup"),
        (["Error: llama runner process has terminated: error loading model: unable to allocate "
          "backend buffer"], "device_oom", "loading"),
        (["cuBLAS call cublasLtMatmulAlgoGetHeuristic(handle, desc, a, b, c, d, pref, 1, res, "
          "&found) failed"], "dispatch_failure", "unknown"),
        (["llama_model_load: error loading model: unknown model architecture: ''"],
         "unsupported_config", "loading"),
        (["NotImplementedError: block scaled fp8 gemm is not implemented for Blackwell"],
         "dispatch_failure", "unknown"),
        (["   Error: assert(head_size == 64 || head_size == 128);"], "dispatch_failure", "unknown"),
        (["RuntimeError: Worker failed with error 'FooMLA kv_data_type torch.uint8 is not "
          "supported. Supported dtypes: [torch.bfloat16]'"], "dispatch_failure", "unknown"),
        # the CUDA runtime's error string is an error of its own: the abort after it is its doing
        (["[binding] CUDA error: an internal operation failed", "Aborted (core dumped)"],
         "unknown", "unknown"),
        # round 10
        (["error loading model: llama.cpp: tensor 'layers.7"], "unsupported_config", "loading"),
        (["llama_model_load: error loading model: missing tensor 'blk.4.attn_q.weight'"],
         "unsupported_config", "loading"),
        (['"model requires more system memory (18.7 GiB) than is available (4.1 GiB)"'],
         "device_oom", "loading"),
        (["  x HTTP 500 - OOM during ~25K-token prefill"], "device_oom", "execute"),
        (["error reading config: the file ends too early"], "unknown", "unknown"),
    ],
)  # fmt: skip
def test_lines_of_the_libraries(
    tmp_path: Path, lines: list[str], category: str, stage: str
) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    "line",
    [
        "ggml_cuda_host_malloc: failed to allocate 4096.00 MiB of pinned memory: out of memory",
        "[TensorRT-LLM][WARNING] [json.exception.type_error.302] type must be number, but is null",
        "2025-01-01 00:00:00,000 vllm.attention.selector 7 INFO     Cannot use FlashAttention-2 "
        "backend for Volta and Turing GPUs.",
        " [3848:0604/123848.823:WARNING:net\\dns\\config_win.cc:605] Failed to read DnsConfig.",
        "warning: failed to mlock 1024-byte buffer (after previously locking 0 bytes): Cannot "
        "allocate memory",
    ],
)
def test_warnings_and_fallbacks_are_no_failure(tmp_path: Path, line: str) -> None:
    assert _classify(tmp_path, [line]) is None


def test_a_response_that_fails_validation_is_no_config_error(tmp_path: Path) -> None:
    lines = [
        "pydantic_core._pydantic_core.ValidationError: 2 validation errors for "
        "ChatCompletionStreamResponse"
    ]
    failure = _classify(tmp_path, lines)
    assert failure is not None
    assert failure.category == "unknown"


def test_the_innermost_call_names_native_code_on_the_stack(tmp_path: Path) -> None:
    lines = [
        "Traceback (most recent call last):",
        '  File "/opt/app/transcribe.py", line 9, in run_segments',
        "    result = self.model.generate(features, prompts)",
        "RuntimeError: CUDA failed with error out of memory",
    ]
    failure = _classify(tmp_path, lines)
    assert failure is not None
    assert (failure.category, failure.stage) == ("device_oom", "execute")
    assert failure.evidence["stage"] == "frame generate"


def test_the_callers_error_right_after_a_cause_says_what_was_being_done(tmp_path: Path) -> None:
    lines = [
        "alloc_buffer: allocating 4096.00 MiB on device 0: cudaMalloc failed: out of memory",
        "llama_model_load: error loading model: could not load the tensors",
    ]
    failure = _classify(tmp_path, lines)
    assert failure is not None
    assert (failure.category, failure.stage) == ("device_oom", "loading")
    assert failure.evidence["stage"].endswith("(the error its caller reported)")


def test_an_unrelated_error_far_after_a_cause_does_not_lend_its_words(tmp_path: Path) -> None:
    lines = [
        "alloc_buffer: allocating 4096.00 MiB on device 0: cudaMalloc failed: out of memory",
        *[f"INFO step {n}" for n in range(5)],
        "llama_model_load: error loading model: could not load the tensors",
    ]
    failure = _classify(tmp_path, lines)
    assert failure is not None
    assert failure.stage == "unknown"


def test_nvcc_counting_a_files_errors_is_a_compile(tmp_path: Path) -> None:
    lines = ['3 errors detected in the compilation of "/opt/ext/csrc/kernel.cu".']
    failure = _classify(tmp_path, lines)
    assert failure is not None
    assert failure.stage == "compile"


@pytest.mark.parametrize(
    ("lines", "stage"),
    [
        (["Load (200 / 200)", "Warmup...", "Segmentation fault (core dumped)"], "warmup"),
        (["RuntimeError: cudaGraphInstantiate(&handle, graph, nullptr, nullptr, 0) failed: too "
          "many resources requested for launch"], "graph_capture"),
    ],
)  # fmt: skip
def test_what_the_program_said_it_was_doing(tmp_path: Path, lines: list[str], stage: str) -> None:
    failure = _classify(tmp_path, lines)
    assert failure is not None
    assert failure.stage == stage


@pytest.mark.parametrize(
    "line",
    [
        "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. "
        "Your GPU has compute capability 7.0. You can use float16 instead by explicitly setting "
        "the `dtype` flag in CLI, for example: --dtype=half.",
        "Value error, The quantization method foo is not supported for the current GPU. Minimum "
        "capability: 100. Current capability: 86. [type=value_error, input_value=ArgsKwargs((), "
        "{'model': 'm'}), input_type=ArgsKwargs]",
    ],
)
def test_config_checks_of_an_engine_run_at_startup(tmp_path: Path, line: str) -> None:
    classify_as(tmp_path, [line], "dispatch_failure", "startup")
