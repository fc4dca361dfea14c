"""Mechanisms of the sixth round of generalisation (compiler drivers and error codes that are
never silent, ROCm's memory faults, model files a loader rejects, a device OOM while the KV cache
is built, TensorRT's log levels and builder, the message printed above its own traceback).

Every line here is written from the text the library itself prints (nvcc, NVRTC, the CUDA
runtime, the HSA runtime, TensorRT, llama.cpp, NCCL, nccl-tests, vLLM, TGI's router), with names,
paths and numbers of our own.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as
from classify_helpers import classify_both as _classify

_TB = "Traceback (most recent call last):"


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # compiler drivers asked for an architecture they do not know: no code for this GPU
        (["nvcc fatal   : Value 'sm_75' is not defined for option 'gpu-architecture'"],
         "dispatch_failure", "compile"),
        (["nvcc fatal   : Unsupported gpu architecture 'compute_121'"],
         "dispatch_failure", "compile"),
        (["nvrtc: error: invalid value for --gpu-architecture (-arch)"],
         "dispatch_failure", "compile"),
        # an error code in any program's words is an error, known or not (700 is CUDA's
        # number for an illegal address, 999 names nothing)
        (["CUDA error = 700 at kern.cu:41 'cudaMemcpy(dst, src, n, kind)'"],
         "illegal_memory_access", "unknown"),
        (["CUDA error = 999 at kern.cu:41 'cudaMemcpy(dst, src, n, kind)'"], "unknown", "unknown"),
        # a JavaScript Error object printed by a binding (node-llama-cpp and others)
        (["[Error: could not find a KV slot for the batch (try reducing the size of the batch)]"],
         "kv_cache_oom", "execute"),
        # ROCm: the HSA runtime's wording of a kernel memory fault
        (["Memory access fault by GPU node-2 (Agent handle: 0x5a1) on address 0x7f10. Reason: "
          "Page not present or supervisor privilege."], "illegal_memory_access", "unknown"),
        ([":0:rocdevice.cpp :2984: 1 us: Callback: Queue 0x7f aborting with error : "
          "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The agent attempted to access memory"],
         "illegal_memory_access", "unknown"),
        # a loader rejecting the model file
        (["llama_model_load: error loading model: create_tensor: tensor 'blk.3.attn_q.weight' "
          "not found"], "unsupported_config", "loading"),
        (["error loading model: unknown (magic, version) combination: 67676a74, 00000003; is "
          "this really a GGML file?"], "unsupported_config", "loading"),
        # NCCL refusing to be captured into a CUDA graph
        (["node:7:7 [0] misc/strongstream.cc:53 NCCL WARN NCCL cannot be captured in a graph "
          "if either it wasn't built with CUDA runtime >= 11.3 or if the installed CUDA driver "
          "< R465."], "stream_capture", "graph_capture"),
        # vLLM's multiprocess executor after a worker died: a wrapper
        (["CRITICAL 01-01 00:00:00 [multiproc_executor.py:49] MultiprocExecutor got fatal "
          "signal from worker processes, shutting down. See stack trace above for root cause "
          "issue."], "engine_died", "unknown"),
        # a router that lost the engine process it serves through, while serving
        (['{"level":"ERROR","message":"Request failed during generation: Server error: error '
          'trying to connect: Connection refused (os error 111)"}'], "engine_died", "execute"),
        (["RuntimeError: Executor creation failed due to insufficient GPU memory."],
         "device_oom", "unknown"),
        (["ValueError: No variants in groups ['int8_gemm'] support SM121."],
         "dispatch_failure", "unknown"),
        (["ImportError: mylib.attn requires the compiled extension (_mylib_attn_C)."],
         "env_mismatch", "startup"),
    ],
)  # fmt: skip
def test_lines_of_the_libraries(
    tmp_path: Path, lines: list[str], category: str, stage: str
) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    "line",
    [
        "errors = 0, warnings = 2",
        "[V] [TRT] Conv_12 has no valid tactics for this config, skipping",
        "ImportError: sys.meta_path is None, Python is likely shutting down",
    ],
)
def test_routine_lines_stay_quiet_or_generic(tmp_path: Path, line: str) -> None:
    failure = _classify(tmp_path, [line])
    assert failure is None or (failure.category, failure.evidence["category"]) == (
        "unknown",
        "rule exception",
    )


def _cache_traceback(path: str, func: str) -> list[str]:
    return [
        _TB,
        '  File "/opt/app/run.py", line 12, in <module>',
        "    cache = Cache(model)",
        f'  File "{path}", line 40, in __init__',
        "    self.alloc()",
        f'  File "{path}", line 90, in {func}',
        "    k = torch.zeros(shape, dtype=dtype, device=device)",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 64.00 MiB. GPU 0 has a "
        "total capacity of 15.00 GiB of which 20.00 MiB is free.",
    ]


def test_a_device_oom_while_the_kv_cache_is_built_is_a_kv_cache_oom(tmp_path: Path) -> None:
    failure = _classify(tmp_path, _cache_traceback("/opt/lib/mylib/cache.py", "create_buffers"))
    assert failure is not None
    assert (failure.category, failure.stage) == ("kv_cache_oom", "kv_alloc")
    assert failure.evidence["category"] == "rule torch_oom under frame create_buffers"


def test_a_device_oom_elsewhere_stays_a_device_oom(tmp_path: Path) -> None:
    failure = _classify(tmp_path, _cache_traceback("/opt/lib/mylib/layers.py", "create_buffers"))
    assert failure is not None
    assert failure.category == "device_oom"
    assert failure.stage != "kv_alloc"


def test_the_message_above_a_traceback_lends_it_its_words(tmp_path: Path) -> None:
    lines = [
        "ERROR 01-01 00:00:00 registry.py:1] Error in inspecting model architecture 'FooLM'",
        f"ERROR 01-01 00:00:00 registry.py:1] {_TB}",
        'ERROR 01-01 00:00:00 registry.py:1]   File "/opt/x/registry.py", line 9, in _sub',
        "ERROR 01-01 00:00:00 registry.py:1]     out.check_returncode()",
        "ERROR 01-01 00:00:00 registry.py:1] subprocess.CalledProcessError: Command '['python', "
        "'-m', 'x']' returned non-zero exit status 1.",
    ]
    failure = _classify(tmp_path, lines)
    assert failure is not None
    assert (failure.category, failure.stage) == ("unknown", "startup")
    assert failure.evidence["stage"] == "phrase 'inspecting model architecture'"
    assert failure.first_error.startswith("subprocess.CalledProcessError")


def test_a_message_far_above_a_traceback_is_not_its_own(tmp_path: Path) -> None:
    lines = [
        "ERROR Error in inspecting model architecture 'FooLM'",
        *[f"INFO step {n}" for n in range(10)],
        _TB,
        '  File "/opt/x/run.py", line 9, in go',
        "    go()",
        "subprocess.CalledProcessError: Command 'x' returned non-zero exit status 1.",
    ]
    failure = _classify(tmp_path, lines)
    assert failure is not None
    assert failure.stage == "unknown"


@pytest.mark.parametrize(
    ("before", "stage", "why"),
    [
        # nccl-tests' table of results: the collectives were running
        (["   268435456      67108864     float     sum      -1   4051.2   66.26  124.24      0"],
         "execute", "activity"),
        # TensorRT's builder timing and choosing tactics: an engine build
        (["[V] [TRT] Tactic: 0x00000000000003e8 Time: 0.0412"], "compile", "activity"),
    ],
)  # fmt: skip
def test_what_ran_right_before_tells_the_stage(
    tmp_path: Path, before: list[str], stage: str, why: str
) -> None:
    failure = _classify(tmp_path, [*before, "[F] [TRT] Assertion failed: Unsupported SM."])
    assert failure is not None
    assert (failure.category, failure.stage) == ("dispatch_failure", stage)
    assert failure.evidence["stage"].startswith(why)


def test_trtexec_saying_the_engine_was_not_created_names_the_build(tmp_path: Path) -> None:
    lines = [
        "[E] [TRT] helpers.h (523) - Assertion Error in fixSMVer: 0 (SM version not supported "
        "in this NVRTC version)",
        "[E] Engine creation failed",
        "[E] Engine set up failed",
    ]
    failure = _classify(tmp_path, lines)
    assert failure is not None
    assert (failure.category, failure.stage) == ("dispatch_failure", "compile")
