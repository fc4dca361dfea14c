"""Mechanisms of the sixty-fifth round, tuned on ``fresh226/``, ``fresh228/``, ``fresh230/`` and
``fresh232/`` (the other four shards of that collection were measured apart, unread).

Formats: a timestamp followed by a colon, or with its year cut short by a paste
(``026-07-29 11:18:04: (Proc pid=7) ERROR ...``), is still a timestamp.
Error words: pydantic's validation entry (``... (type=value_error)``), a C++ catch block's
``Exception caught at file:...`` and ``cannot allocate memory`` are errors, never silence; an
unrecognised exception a destructor raised (``Exception ignored in: ...__del__``) does not
replace an error line before it.
Categories: an architecture refused by name (``support for Ascend910 is not implemented``),
an MLIR compiler with no lowering for an op (``failed to legalize operation``) and
(``dispatch_failure``); clang's missing header and a binding's missing native library
(``env_mismatch``); a device allocation while a paged KV cache is being set up
(``kv_cache_oom``).
Stages: a host compiler driver's own error (``clang++: error:``, ``compile``); torch's process
group without the backend asked for and a native library not found (``startup``); the work
announced by a word alone on its line (``Transcribing..``, ``execute``).
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
