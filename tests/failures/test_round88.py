"""Mechanisms of the eighty-eighth round, tuned on half of the twenty-first batch (``fresh400/``,
``fresh402/``, ``fresh404/``, ``fresh406/``, measured before reading with round 87); the other
half (``fresh401/``, ``fresh403/``, ``fresh405/``, ``fresh407/``) and the older unread sets stay
unread.

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # TensorFlow's record of a failed op, at its warning level, naming what XLA lacks
        (
            [
                "2025-05-31 19:37:00.138606: W tensorflow/core/framework/op_kernel.cc:1855] "
                "OP_REQUIRES failed at xla_ops.cc:590 : UNAVAILABLE: No PTX compilation provider "
                "is available. Neither ptxas/nvlink nor nvjtlink is available."
            ],
            "env_mismatch",
            "compile",
        ),
        (
            [
                "2023-09-14 08:17:07.669298: W tensorflow/core/framework/op_kernel.cc:1830] "
                "OP_REQUIRES failed at xla_ops.cc:446 : INTERNAL: libdevice not found at "
                "./libdevice.10.bc"
            ],
            "env_mismatch",
            "compile",
        ),
        # (and NCCL's result string under a library's NCCL wrapper)
        (
            [
                "2023-08-31 01:40:46.786721: W tensorflow/core/framework/op_kernel.cc:1651] "
                "OP_REQUIRES failed at nccl_communicator.cc:116 : Internal: unhandled system error"
            ],
            "nccl_error",
            "unknown",
        ),
        # a shared library a framework cannot load, in its words
        (
            [
                "PreconditionNotMetError: The third-party dynamic library (cudnn64_8.dll) that "
                "Paddle depends on is not configured correctly. (error code is 126)"
            ],
            "env_mismatch",
            "unknown",
        ),
        (
            ["OSError: Cannot find the foo C++ ops library at /x/libfoo_ops.so"],
            "env_mismatch",
            "unknown",
        ),
        # a build without the GPU, with the advice to install one that has it
        (
            [
                "FooError: Check failed: Device API cuda is not enabled. Please install the cuda "
                "version of foo."
            ],
            "env_mismatch",
            "unknown",
        ),
        # a wheel's architecture check, in its newer wording (a precursor read at start-up when
        # it stands alone, as its older wording and torch's are, since round 100)
        (
            [
                "Mismatched GPU Architecture: The installed PaddlePaddle package was compiled for "
                "61 70 75 80 86 ,but your current GPU is 120"
            ],
            "env_mismatch",
            "startup",
        ),
        # the device a program selects refused as not supported: CUDA cannot be set up
        (
            [
                "terminate called after throwing an instance of 'std::runtime_error'",
                "  what():  cudaSetDevice(id) error( cudaErrorNotSupported): operation not "
                "supported /x/Instance.cpp:550",
            ],
            "env_mismatch",
            "startup",
        ),
        # the HSA runtime's documented status for a kernel's hardware exception
        (
            [
                ":0:rocdevice.cpp            :3586: 11833 us:  Callback: Queue 0x7f35 aborting "
                "with error : HSA_STATUS_ERROR_EXCEPTION: An HSAIL operation resulted in a "
                "hardware exception. code: 0x1016"
            ],
            "illegal_memory_access",
            "unknown",
        ),
        # a graph compiler's pass failing right after the first error: compiling
        (
            [
                "[19:08:34.16][GC        ][error][tid:44F8A] Failed to load kernel for node: N1",
                "[19:08:34.16][PASS_MGR  ][error][tid:44F8A] Graph optimization failed pass: load",
            ],
            "unknown",
            "compile",
        ),
        # an HPU runner warming its buckets up, counted
        (
            [
                "INFO 01-26 14:30:11 [hpu_model_runner.py:3943] [Warmup][Graph/decode][1/112] "
                "batch_size:16 query_len:1",
                "ERROR 01-26 14:30:12 [engine.py:474] not enough values to unpack (expected 3, "
                "got 2)",
            ],
            "unknown",
            "warmup",
        ),
        # XLA's GPU graphs that could not be instantiated, right after the error
        (
            [
                "2024-03-28 15:40:01.469587: W external/xla/service/gpu/runtime/support.cc:58] "
                "Intercepted XLA runtime error:",
                "RESOURCE_EXHAUSTED: Failed to get module function:CUDA_ERROR_OUT_OF_MEMORY: out "
                "of memory",
                "2024-03-28 15:40:01.469631: E external/xla/pjrt/client.cc:2732] Execution of "
                "replica 0 failed: INTERNAL: Failed to instantiate GPU graphs: CaptureGpuGraph "
                "failed (Failed to get module function:CUDA_ERROR_OUT_OF_MEMORY: out of memory)",
            ],
            "device_oom",
            "graph_capture",
        ),
        # frames named for compiling kernels at run time, the traceback cut
        (
            [
                "Traceback (most recent call last):",
                '  File "/x/layers/jit/utils.py", line 140, in _maybe_compile_kernels',
                "    _compile_kernels(kind, n, k)",
                '  File "/x/layers/jit/utils.py", line 200, in _compile_kernels',
                "    executor.execute(m=m)",
                '  File "/x/lib/pyt',
            ],
            "unknown",
            "compile",
        ),
        # a compiler's version query shown before the error is no build under way
        (
            [
                "> nvcc -V",
                "nvcc: NVIDIA (R) Cuda compiler driver",
                "Cuda compilation tools, release 11.0, V11.0.221",
                "",
                "ExternalError: CUDNN error(4), CUDNN_STATUS_INTERNAL_ERROR.",
            ],
            "unknown",
            "unknown",
        ),
        # a notebook's traceback cut after its cell frame, under IPython's rule of dashes
        (
            [
                "-" * 75,
                "RuntimeError" + " " * 30 + "Traceback (most recent call last)",
                "Cell In[1], line 7",
                "      4 model = 'a'",
                "      5 # model = 'b'",
                "---",
            ],
            "unknown",
            "unknown",
        ),
    ],
)
def test_round88_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_a_relay_after_the_error_does_not_name_its_category(tmp_path: Path) -> None:
    # the engine core's own error ends its traceback; the output loop's relay of its death,
    # logged after it under the same tag, is another exception's traceback
    lines = [
        'ERROR 08-28 02:33:28 [core.py:634]   File "/x/worker/model_runner.py", line 1725, in '
        "execute_model",
        "ERROR 08-28 02:33:28 [core.py:634]     ids = sampled_token_ids.tolist()",
        "ERROR 08-28 02:33:28 [core.py:634] RuntimeError: stream synchronize failed, code:507035",
        "ERROR 08-28 02:33:28 [async_llm.py:416] AsyncLLM output_handler failed.",
        "ERROR 08-28 02:33:28 [async_llm.py:416] Traceback (most recent call last):",
        'ERROR 08-28 02:33:28 [async_llm.py:416]   File "/x/vllm/v1/engine/async_llm.py", line '
        "375, in output_handler",
        "ERROR 08-28 02:33:28 [async_llm.py:416]     outputs = await engine_core."
        "get_output_async()",
        'ERROR 08-28 02:33:28 [async_llm.py:416]   File "/x/vllm/v1/engine/core_client.py", '
        "line 751, in get_output_async",
        "ERROR 08-28 02:33:28 [async_llm.py:416]     raise self._format_exception(outputs)",
        "ERROR 08-28 02:33:28 [async_llm.py:416] vllm.v1.engine.exceptions.EngineDeadError: "
        "EngineCore encountered an issue. See stack trace (above) for the root cause.",
    ]
    failure = classify_as(tmp_path, lines, "unknown", "execute")
    assert failure.first_error.startswith("RuntimeError: stream synchronize failed")


@pytest.mark.parametrize(
    "lines",
    [
        # a tally of errors by their type in a run's summary
        [
            "[2026-01-03 02:40:24,151] [INFO] [root] Errors by type:",
            "[2026-01-03 02:40:24,151] [INFO] [root]   OutOfMemoryError: 2",
            "[2026-01-03 02:40:24,151] [INFO] [root]   RuntimeError: 319",
        ],
    ],
)
def test_round88_healthy(tmp_path: Path, lines: list[str]) -> None:
    assert classify_both(tmp_path, lines) is None


def test_a_grammar_compiled_is_no_compile_stage(tmp_path: Path) -> None:
    lines = [
        "Traceback (most recent call last):",
        '  File "/x/guided_decoding/grammar.py", line 88, in compile_json_schema',
        "    return Grammar.from_json_schema(schema)",
        "RuntimeError: items must be a list",
    ]
    failure = classify_as(tmp_path, lines, "unsupported_config", "unknown")
    assert failure.evidence["stage"] == "none"
