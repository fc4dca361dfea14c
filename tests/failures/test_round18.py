"""Mechanisms of the eighteenth round (tuned on fresh36-fresh39): another logging format, warnings
of what may go wrong, a container runtime's prefix, error codes in capitals, Triton's refused
launch, TensorRT's workspace, wrappers above cut tracebacks, cut tracebacks read twice,
destructors after an error, and the stages of Gradio, c10d, TensorRT and NVSHMEM. The lines are
of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


@pytest.mark.parametrize(
    "lines",
    [
        # " - name - LEVEL - " logging: a fallback the program announces at WARNING
        [
            "2025-03-19 20:54:50,520 - foo - WARNING - models.py:1 - AutoConfig.from_pretrained "
            "failed for /m. Exception: The checkpoint you are trying to load has model type "
            "`foo_vl` but Transformers does not recognize this architecture.",
            "2025-03-19 20:54:50,521 - foo - WARNING - archs.py:2 - Try to run with the other "
            "engine",
        ],
        # a warning of what may happen
        [
            "You are using a model of type foo to instantiate a model of type bar. This is not "
            "supported for all configurations of models and can yield errors."
        ],
        ["status=NO_ERROR after 3 steps"],
    ],
    ids=["dash-format-warning", "may-yield-errors", "no-error-code"],
)
def test_lines_of_round_18_that_are_no_failure(tmp_path: Path, lines: list[str]) -> None:
    assert classify_both(tmp_path, lines) is None


def test_the_dash_format_error_level_is_read(tmp_path: Path) -> None:
    line = "2024-05-01 10:00:00,000 - foo - ERROR - engine.py:9 - something broke in the loop"
    failure = classify_as(tmp_path, [line], "unknown", "unknown")
    assert failure.first_error == "something broke in the loop"


def test_a_container_runtime_prefix_is_stripped(tmp_path: Path) -> None:
    stamp = "2025-07-25T07:53:08.21748708+08:00 stdout F"
    lines = [
        f"{stamp} [2025-07-25 07:53:08 TP2] Scheduler hit an exception: Traceback (most recent "
        "call last):",
        f'{stamp}   File "/srv/foo/scheduler.py", line 12, in event_loop_normal',
        f"{stamp}     result = self.run_batch(batch)",
        f'{stamp}   File "/srv/foo/scheduler.py", line 34, in run_batch',
        f"{stamp}     out = self.worker.forward(batch)",
    ]
    classify_as(tmp_path, lines, "unknown", "execute")


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        (
            [
                "Error",
                "FOO_PROCESS_ERROR",
                "The model process encountered an unexpected error.",
            ],
            "engine_died",
            "unknown",
        ),
        (["RuntimeError('Triton Error [CUDA]: invalid argument')"], "smem_limit", "unknown"),
        (
            [
                "[TRT] [E] IBuilder::buildSerializedNetwork: Error Code 4: Internal Error (plugin "
                "foo requires 2105714528 bytes of scratch space, but only 476973629 is available."
            ],
            "device_oom",
            "compile",
        ),
        (
            [
                "[TRT] [W] UNSUPPORTED_STATESkipping tactic 2 due to insufficient memory",
                "[TRT] [E] 2: [virtualMemoryBuffer.cpp::resizePhysical::1] Error Code 2: "
                "OutOfMemory (no further information)",
            ],
            "device_oom",
            "compile",
        ),
        (
            [
                "12:19PM INF [foo] attempting to load with CUDA variant",
                "12:19PM ERR failed starting/connecting to the gRPC service",
            ],
            "engine_died",
            "loading",
        ),
        (
            [
                "[W socket.cpp:1] [c10d] The client socket has timed out after 600s while trying "
                "to connect to (10.0.0.1, 29500)."
            ],
            "timeout",
            "startup",
        ),
        (
            [
                "[TensorRT-LLM][ERROR] Assertion failed: Failed, NCCL error /srv/ncclCommunicator."
                "cpp:90 'invalid usage' (createComm)"
            ],
            "nccl_error",
            "startup",
        ),
    ],
)
def test_words_and_stages_of_round_18(
    tmp_path: Path, lines: list[str], category: str, stage: str
) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize("func", ["process_api", "call_process_api", "call_prediction"])
def test_gradio_serving_a_request_is_execute(tmp_path: Path, func: str) -> None:
    lines = [
        "Traceback (most recent call last):",
        f'  File "/srv/gradio/routes.py", line 1, in {func}',
        "    output = await fn(*args)",
        "RuntimeError: CUDA error: an illegal memory access was encountered",
    ]
    classify_as(tmp_path, lines, "illegal_memory_access", "execute")


def test_a_worker_wrapper_above_a_cut_traceback_reads_its_frames(tmp_path: Path) -> None:
    prefix = "ERROR 04-28 15:55:45 worker_base.py:157]"
    lines = [
        f"{prefix} Error executing method initialize_cache. This might cause deadlock.",
        f"{prefix} Traceback (most recent call last):",
        f'{prefix}   File "/srv/foo/worker.py", line 171, in initialize_cache',
        f"{prefix}     raise_if_cache_size_invalid(num_gpu_blocks,",
        f'{prefix}   File "/srv/foo/worker.py", line 335, in raise_if_cache_size_invalid',
    ]
    classify_as(tmp_path, lines, "kv_cache_oom", "kv_alloc")


def test_a_destructors_traceback_after_an_error_is_not_its_caller(tmp_path: Path) -> None:
    lines = [
        "RuntimeError: CUDA error: out of memory",
        "Exception ignored in: <function Foo.__del__ at 0x7f00>",
        "Traceback (most recent call last):",
        '  File "/srv/foo/foo.py", line 102, in __del__',
        "    self.handle.close()",
        "AttributeError: 'Foo' object has no attribute 'handle'",
    ]
    classify_as(tmp_path, lines, "device_oom", "unknown")
