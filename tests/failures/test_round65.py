"""Mechanisms of the sixty-fifth round, tuned on ``fresh226/`` to ``fresh233/``: first on
``fresh226/``, ``fresh228/``, ``fresh230/`` and ``fresh232/`` (the other four measured apart,
unread), then on those four.

Formats: a timestamp followed by a colon, or with its year cut short by a paste
(``026-07-29 11:18:04: (Proc pid=7) ERROR ...``), is still a timestamp.
Error words: pydantic's validation entry (``... (type=value_error)``), a C++ catch block's
``Exception caught at file:...``, ``cannot allocate memory`` and an error report's ``Exception
Message:`` field are errors, never silence; an
unrecognised exception a destructor raised (``Exception ignored in: ...__del__``) does not
replace an error line before it.
Categories: an architecture refused by name (``support for Ascend910 is not implemented``),
an MLIR compiler with no lowering for an op (``failed to legalize operation``) and a GPU
backend without the kernel function asked for (``Function 'x' does not exist``)
(``dispatch_failure``); clang's missing header, a binding's missing native library and the C
compiler Triton ships failing (``tcc.exe``) (``env_mismatch``); a device allocation while a
paged KV cache is being set up (``kv_cache_oom``); a configuration file that cannot be loaded
and an engine's assertion that a request fits a size it was built for (``x <= mMaxY``,
``unsupported_config``); c10d's ``Some NCCL operations have failed or timed out``
(``nccl_error``, not ``timeout``); an Android tombstone's signal line alone (``engine_died``);
a size asserted to be among those compiled (``assert Lq in {16, 32, 64}``, ``dispatch_failure``);
a setting asked for (``please specify``), layers that do not match and a model that cannot be
launched for a missing file (``unsupported_config``).
Stages: a host compiler driver's own error (``clang++: error:``, ``compile``); torch's process
group without the backend asked for and a native library not found (``startup``); the work
announced by a word alone on its line (``Transcribing..``) and the model being run on work
(``Running inference for model``, ``Running model ...``, ``Start to forward``) (``execute``); a
configuration file that cannot be loaded (``loading``); the process groups of every parallel
dimension being set up (``ParallelContext(...)``, ``startup``).
The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both

from pytest_blackwell.failures import StreamClassifier


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        (
            [
                "025-03-01 10:00:00: (EngineCore_DP0 pid=9) ERROR 03-01 10:00:00 [core.py:7]     "
                "raise TimeoutError",
                "025-03-01 10:00:00: (EngineCore_DP0 pid=9) ERROR 03-01 10:00:00 [core.py:7] "
                "TimeoutError",
            ],
            "timeout",
            "unknown",
        ),
        (
            [
                "2025-03-01 10:00:00: (Worker pid=3) ERROR 03-01 10:00:00 [w.py:1] RuntimeError: "
                "CUDA error: an illegal memory access was encountered",
            ],
            "illegal_memory_access",
            "unknown",
        ),
        (
            [
                "llama_model_load: loading model from 'm.gguf'",
                "CANN error: EZ9903: support for Ascend310P is not implemented",
            ],
            "dispatch_failure",
            "loading",
        ),
        (
            [
                "loc(\"kernel.py\":12:8): error: failed to legalize operation 'tt.dot' that was "
                "explicitly marked illegal",
                "Traceback (most recent call last):",
                '  File "triton/compiler/compiler.py", line 278, in compile',
                "    next_module = compile_ir(module, metadata)",
                "RuntimeError: PassManager::run failed",
            ],
            "dispatch_failure",
            "compile",
        ),
        (
            [
                "ggml_metal_init: loading '/opt/app/ggml-metal.metal'",
                "ggml_metal_init: error: Error Domain=MTLLibraryErrorDomain Code=3 "
                "\"program_source:3:10: fatal error: 'ggml-common.h' file not found",
            ],
            "env_mismatch",
            "compile",
        ),
        (
            [
                "Unhandled exception. System.DllNotFoundException: Native Library not found in "
                "default paths.",
                "   at Bindings.NativeLibraryLoader.LoadNativeLibrary()",
            ],
            "env_mismatch",
            "startup",
        ),
        (
            [
                "llm_chat.ts:202 Creating paged KV cache",
                "vkAllocateMemory failed with VK_ERROR_OUT_OF_DEVICE_MEMORY",
            ],
            "kv_cache_oom",
            "kv_alloc",
        ),
        (
            [
                "[build] [4/9] Linking kernels",
                "[build] clang++: error: no such file or directory: 'out/ops/k_gfx942.o'",
            ],
            "unknown",
            "compile",
        ),
        (
            [
                '  File "train.py", line 9, in main',
                "RuntimeError: Distributed package doesn't have NCCL built in",
            ],
            "env_mismatch",
            "startup",
        ),
        (
            [
                "Transcribing...",
                'Thread 12 "python" received signal SIGSEGV, Segmentation fault.',
            ],
            "engine_died",
            "execute",
        ),
        (
            ["signal 11 (SIGSEGV)", "#00 pc 0001 /system/lib64/libc.so (abort+164)"],
            "engine_died",
            "unknown",
        ),
        (
            [
                "Error: Metal error Error while loading function: \"Function 'cast_f16_f32' does "
                'not exist"',
            ],
            "dispatch_failure",
            "loading",
        ),
        (
            [
                "terminate called after throwing an instance of 'std::runtime_error'",
                "  what():  [FT][ERROR] Can't load /models/gpt/1/config.ini Assertion fail: "
                "/src/ParallelGptTritonModel.cc:182",
            ],
            "unsupported_config",
            "loading",
        ),
        (
            [
                "terminate called after throwing an instance of "
                "'tensorrt_llm::common::TllmException'",
                "  what():  [TensorRT-LLM][ERROR] Assertion failed: input_len <= mMaxInputLength "
                "(/src/cpp/plugins/gptAttentionPlugin.cpp:249)",
            ],
            "unsupported_config",
            "unknown",
        ),
        (
            [
                "D/App(2506): Running inference for model: m_8b6c",
                "F/libc    (2506): Fatal signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0",
            ],
            "engine_died",
            "execute",
        ),
        (
            [
                "2024-03-05 17:28:54,974 - INFO - Running model ...",
                "Segmentation fault (core dumped)",
            ],
            "engine_died",
            "execute",
        ),
        (
            [
                "[rank1]:[E ProcessGroupNCCL.cpp:577] [Rank 1] Some NCCL operations have failed or "
                "timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU "
                "operations might run on corrupted/incomplete data.",
            ],
            "nccl_error",
            "unknown",
        ),
        (
            [
                "CalledProcessError: Command '['C:\\\\app\\\\triton\\\\runtime\\\\tcc\\\\tcc.exe', "
                "'cuda_utils.c', '-O3', '-shared']' returned non-zero exit status 1.",
            ],
            "env_mismatch",
            "compile",
        ),
        (
            [
                "Exception Message: Library cublas64_12.dll is not found or cannot be loaded",
                "Exception Type: RuntimeError",
                "Error: Unable to process file: talk.wav",
            ],
            "env_mismatch",
            "unknown",
        ),
        (
            ["AssertionError: assert Lq in {16, 32, 64, 128, 256}, where Lq = 96."],
            "dispatch_failure",
            "unknown",
        ),
        (
            ["RuntimeError: please specify chat template as guided in the pipeline docs"],
            "unsupported_config",
            "unknown",
        ),
        (["AssertionError: miss matched layers: 32 vs 0"], "unsupported_config", "unknown"),
        (
            [
                "RuntimeError: Failed to launch model, detail: [address=0.0.0.0:4639, pid=986] "
                "[Errno 2] No such file or directory",
            ],
            "unsupported_config",
            "loading",
        ),
        (
            [
                "I1212 06:38:03.991222 1 libft.cc:1226] Start to forward",
                "terminate called after throwing an instance of 'std::runtime_error'",
                "  what():  [FT][ERROR]  Assertion fail: /src/layers/FusedAttentionLayer.cu:178",
            ],
            "unknown",
            "execute",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "train.py", line 23, in <module>',
                "    trainer = Trainer(config_file)",
                '  File "/src/trainer.py", line 147, in __init__',
                "    self.parallel_context = ParallelContext(",
                '  File "/src/parallel/context.py", line 33, in __init__',
                "    raise ValueError(",
                "ValueError: ('The number of processes (8)', 'must equal the world size (4).')",
            ],
            "unsupported_config",
            "startup",
        ),
    ],
)
def test_round65_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    ("lines", "line"),
    [
        (["Could not load model from path: m.gguf. Received error  (type=value_error)"], 1),
        (
            [
                "could not create a memory object",
                "Exception caught at file:/src/ggml-sycl.cpp, line:3222, func:operator()",
            ],
            2,
        ),
        (["blas::gemm: cannot allocate memory on host", "done"], 1),
    ],
)
def test_errors_in_plain_words_are_never_silence(
    tmp_path: Path, lines: list[str], line: int
) -> None:
    failure = classify_both(tmp_path, lines)
    assert failure is not None
    assert failure.line == line


def test_memory_that_cannot_be_allocated_is_a_shortage(tmp_path: Path) -> None:
    classify_as(
        tmp_path,
        [
            "ggml_sycl_op_add done",
            "oneapi::mkl::blas::gemm: cannot allocate memory on host",
            "SYCL error: CHECK_TRY_ERROR(gemm_batch(queue, a, b)): Exception caught in this line.",
        ],
        "device_oom",
        "unknown",
    )


def test_a_destructors_ignored_exception_does_not_replace_the_error_before_it(
    tmp_path: Path,
) -> None:
    failure = classify_both(
        tmp_path,
        [
            "Could not load Llama model from path: m.gguf. Received error  (type=value_error)",
            "Exception ignored in: <function Llama.__del__ at 0x7f00>",
            "Traceback (most recent call last):",
            '  File "llama.py", line 1502, in __del__',
            "AttributeError: 'Llama' object has no attribute 'ctx'",
        ],
    )
    assert failure is not None
    assert failure.first_error.startswith("Could not load Llama model")
    assert failure.stage == "loading"


def test_a_bare_generating_line_is_no_build_step(tmp_path: Path) -> None:
    """Only the word alone announces the work: a build's ``Generating Tensile Libraries`` is not
    inference."""
    failure = classify_both(
        tmp_path,
        ["[3/37] Generating Tensile Libraries", "Segmentation fault (core dumped)"],
    )
    assert failure is not None
    assert failure.stage != "execute"


def test_a_stream_reads_the_colon_after_a_timestamp_as_the_prefix() -> None:
    sc = StreamClassifier()
    sc.feed("2025-03-01 10:00:00: (Worker pid=3) INFO 03-01 10:00:00 [w.py:1] Loading weights")
    sc.feed("2025-03-01 10:00:01: (Worker pid=3) ERROR 03-01 10:00:01 [w.py:2] Boom happened")
    failure = sc.result()
    assert failure is not None
    assert failure.first_error == "Boom happened"
    assert failure.detail.get("process") == "Worker"


def test_a_signal_that_asks_a_process_to_stop_is_no_crash(tmp_path: Path) -> None:
    """Only a fatal signal's line alone is a tombstone's; a graceful shutdown logs the others."""
    assert classify_both(tmp_path, ["INFO: Received signal 15 (SIGTERM)", "Shutting down"]) is None


def test_an_exception_caught_and_handled_is_no_error(tmp_path: Path) -> None:
    """Only a catch block's report of where it caught (``Exception caught at file:``) says so."""
    lines = ["Exception caught while checking for updates, continuing", "Ready."]
    assert classify_both(tmp_path, lines) is None
