"""Mechanisms of the sixty-eighth round, tuned on ``fresh251/``, ``fresh253/``, ``fresh255/``,
``fresh257/`` (measured twice before) and ``fresh258/``, ``fresh260/``, ``fresh262/``,
``fresh264/`` (measured before reading with round 67); ``fresh259/``, ``fresh261/``,
``fresh263/`` and ``fresh265/`` were measured apart and left unread.

Silent misses: Windows Error Reporting's own crash record (``EventType=APPCRASH``), glog's
``*** Check failure stack trace: ***`` without its message, ComfyUI's ``!!! Exception during
processing !!!`` with a message no rule knows, a CI runner's ``Nov 26 23:08:31`` time in front of
every line. Categories: torch's test harness comparing a child's exit code (a death), an
unknown execution provider, a missing weight tensor named, a settings combination refused (``is
not compatible with``), llama.cpp's ``invalid argument: -x``, RADV's submission without memory;
an indented ``TimeoutError``; a KV-cache rule whose pattern had lost its ``kv cache`` words (any
``not enough memory for ...`` was a KV cache); ninja stopping after nvcc's own errors does not
replace them. Stages: SGLang's scheduler loop, torchelastic's rendezvous package, a model cache
moving weights to the GPU, llama-cpp-python's ``Llama`` being built, Triton's C helper being
compiled, vLLM's CUDA-graph memory profiling, a count of slices being processed, a chat program
running its first prompts, a ctypes DLL that cannot be found (start-up shape), an import in
IPython's notebook frames (not a first use); TensorRT's execution context is loading only when
it is created, and dynamo's pass-through wrapper compiles nothing. The lines are of our own, in
the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both

_TORCH = "/usr/lib/python3.12/site-packages/torch"


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        (
            ["Version=1", "EventType=APPCRASH", "EventTime=1338", "Sig[0].Value=server.exe"],
            "engine_died",
            "unknown",
        ),
        (
            [
                "*** Check failure stack trace: ***",
                "    @        0x10addf9f8  absl::log_internal::LogMessage::SendToLog()",
                "    @        0x10a95b318  engine::Session::Session()",
            ],
            "unknown",
            "unknown",
        ),
        (
            ["got prompt", "!!! Exception during processing !!! the widget frobnicated twice"],
            "unknown",
            "execute",
        ),
        (
            [
                "Loading pipeline components...: 100%|####| 7/7 [00:03<00:00,  2.01it/s]",
                "!!! Exception during processing !!! You are moving the pipeline to the GPU "
                "while the text encoder is offloaded. This is not compatible with offloading.",
            ],
            "unsupported_config",
            "loading",
        ),
        (
            [
                'Dec 01 10:00:01   File "/opt/lib/testing/common.py", line 450, in _check',
                "Dec 01 10:00:01     self.assertTrue(ok, msg=msg)",
                "Dec 01 10:00:01 AssertionError: False is not true : Expected zero exit code but "
                "got -6",
            ],
            "engine_died",
            "unknown",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "run.py", line 9, in main',
                "    session = rt.Session(path, providers=['xpu_'])",
                "RuntimeError: Unknown provider type: xpu_",
            ],
            "unsupported_config",
            "unknown",
        ),
        (
            [
                "llama.cpp: loading model from /models/m.bin",
                "error loading model: missing output_norm.weight",
            ],
            "unsupported_config",
            "loading",
        ),
        (["error: invalid argument: --tensor-split-mode"], "unsupported_config", "startup"),
        (
            [
                "radv/amdgpu: Not enough memory for command submission.",
                "[ERROR] ggml_vulkan: device lost on Vulkan0",
            ],
            "device_oom",
            "unknown",
        ),
        (
            [
                "  Traceback (most recent call last):     ",
                '    File "vllm/executor.py", line 9, in get_response     ',
                "      raise TimeoutError     ",
                "  TimeoutError     ",
            ],
            "timeout",
            "unknown",
        ),
        (
            [
                'kernels/gemm_dispatch.cuh(88): error: identifier "scale_t" is undefined',
                '1 error detected in the compilation of "kernels/gemm.cu".',
                "ninja: build stopped: subcommand failed.",
            ],
            "unknown",
            "compile",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "sglang/srt/managers/scheduler.py", line 40, in run_scheduler_process',
                "    scheduler.run_event_loop()",
                '  File "sglang/srt/managers/scheduler.py", line 900, in run_event_loop',
                "    self.event_loop_hicache()",
                '  File "sglang/srt/mem_cache/radix_cache.py", line 12, in load_back',
                "    assert node.value is not None",
                "AssertionError",
            ],
            "unknown",
            "execute",
        ),
        (
            [
                "Traceback (most recent call last):",
                f'  File "{_TORCH}/distributed/elastic/rendezvous/c10d_rendezvous_backend.py", '
                "line 113, in _call_store",
                "    return getattr(self._store, store_op)(*args, **kwargs)",
                "RuntimeError: Connection reset by peer",
            ],
            "engine_died",
            "startup",
        ),
        (
            [
                '  File "app/model_cache/cache.py", line 325, in _move_model_to_vram',
                "    return entry.full_load_to_vram()",
                '  File "app/model_cache/cached.py", line 77, in full_load_to_vram',
                "    state[k] = v.to(self._device, copy=True)",
                "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 26.00 MiB.",
            ],
            "device_oom",
            "loading",
        ),
        (
            [
                '  File "/usr/lib/python3/site-packages/llama_cpp/llama.py", line 328, in __init__',
                "    assert self.model is not None",
                "AssertionError",
                "make: *** No rule to make target 'build'.  Stop.",
            ],
            "unknown",
            "loading",
        ),
        (
            [
                "Fatal Python error: Segmentation fault",
                "",
                "Current thread 0x000078eb0d55e080 (most recent call first):",
                '  File "/opt/triton/backends/nvidia/driver.py", line 71 in '
                "compile_module_from_src",
                '  File "/opt/triton/backends/nvidia/driver.py", line 89 in __init__',
            ],
            "engine_died",
            "compile",
        ),
        (
            [
                "(EngineCore pid=9) INFO 04-14 23:39:44 [gpu_model_runner.py:5876] Profiling CUDA "
                "graph memory: PIECEWISE=5 (largest=64), FULL=3 (largest=32)",
                "(EngineCore pid=9) ERROR 04-14 23:39:45 [core.py:1108] EngineCore failed to "
                "start.",
            ],
            "engine_died",
            "profile",
        ),
        (
            [
                "ggml_cuda_init: found 1 CUDA devices:",
                "asr: processing 12 chunks",
                "CUDA error: no kernel image is available for execution on the device",
            ],
            "dispatch_failure",
            "execute",
        ),
        (
            [
                "Loading model...",
                "Loading finished",
                "Running system prompts...",
                "CUDA error: no kernel image is available for execution on the device",
            ],
            "dispatch_failure",
            "execute",
        ),
        (
            [
                "Initializing dynamic library: backend_vulkan.dll",
                "Traceback (most recent call last):",
                '  File "ctypes\\__init__.py", line 374, in __init__',
                "FileNotFoundError: Could not find module 'C:\\app\\backend_vulkan.dll' (or one "
                "of its dependencies). Try using the full path with constructor syntax.",
            ],
            "env_mismatch",
            "startup",
        ),
        (
            [
                "ImportError                               Traceback (most recent call last)",
                "<ipython-input-3-1f2e> in <module>()",
                "----> 2 from visionlib import zoo",
                "/usr/lib/python3/site-packages/visionlib/layers/deform.py in <module>()",
                "----> 9 from visionlib import _C",
                "ImportError: /usr/lib/python3/site-packages/visionlib/_C.so: undefined symbol: "
                "_ZN2at6Tensor4cudaEv",
            ],
            "env_mismatch",
            "startup",
        ),
        (
            [
                "[03/01/2024-10:00:00] [TRT] [E] 3: [executionContext.cpp::setInputShape::2309] "
                "Error Code 3: API Usage Error (Parameter check failed, condition: "
                "satisfyProfile Runtime dimension does not satisfy any optimization profile.)",
            ],
            "unsupported_config",
            "unknown",
        ),
        (
            [
                "CUDA error: out of memory",
                "Traceback (most recent call last):",
                '  File "app.py", line 48, in generate_video',
                "    seed = set_seed(seed)",
                f'  File "{_TORCH}/_dynamo/eval_frame.py", line 838, in _fn',
                "    return fn(*args, **kwargs)",
                f'  File "{_TORCH}/cuda/random.py", line 128, in manual_seed_all',
                "    _lazy_call(cb, seed_all=True)",
            ],
            "device_oom",
            "execute",
        ),
    ],
)
def test_round68_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_a_bare_exception_line_after_frames_takes_no_message_from_below(tmp_path: Path) -> None:
    """Python prints an exception without a message as its type alone: the next line is another
    record, not its message (a message-less type with no frames above may still take one)."""
    lines = [
        '  File "app.py", line 3, in build',
        "    assert ready",
        "AssertionError",
        "make: *** No rule to make target 'build'.  Stop.",
    ]
    failure = classify_both(tmp_path, lines)
    assert failure is not None
    assert failure.first_error == "AssertionError"


def test_not_enough_memory_for_something_else_is_no_kv_cache(tmp_path: Path) -> None:
    """The KV-cache rule asks for the cache in the words: other memory is the device's."""
    for words, category in (
        ("not enough memory for the kv cache", "kv_cache_oom"),
        ("Insufficient GPU memory for KVCache allocation", "kv_cache_oom"),
        ("not enough memory for the scratch buffer", "device_oom"),
    ):
        failure = classify_both(tmp_path, [f"ERROR: {words}"])
        assert failure is not None
        assert failure.category == category, (words, failure)


def test_a_run_of_tensorrt_is_not_loading_unless_the_context_is_created(tmp_path: Path) -> None:
    """The execution context's constructor runs as the engine is read; its other checks do not."""
    lines = [
        "[E] [TRT] 2: [executionContext.cpp::nvinfer1::rt::ExecutionContext::ExecutionContext::"
        "470] Error Code 2: OutOfMemory (no further information)",
    ]
    failure = classify_as(tmp_path, lines, "device_oom", "loading")
    assert "ExecutionContext" in failure.evidence["stage"]


def test_a_timeout_setting_is_no_timeout(tmp_path: Path) -> None:
    """A configuration printed before a run names its timeouts: a setting, not an error (an
    indented one too, now that an indented ``TimeoutError`` is read)."""
    for indent in ("", "    "):
        lines = [
            "config:",
            f"{indent}Timeout: 1800",
            f"{indent}Retries: 3",
            "INFO starting server",
            "INFO ready",
        ]
        assert classify_both(tmp_path, lines) is None
