"""Mechanisms of the eighty-fourth round, tuned on half of the seventeenth batch (``fresh368/``,
``fresh370/``, ``fresh372/``, ``fresh374/``, measured before reading with round 83); the other
half (``fresh369/``, ``fresh371/``, ``fresh373/``, ``fresh375/``) and the older unread sets stay
unread.

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # Triton's CompilationError relayed without its type: its position, the kernel's source
        (
            [
                "RuntimeError: Worker failed with error 'at 1:0:",
                "def _matmul_kernel(",
                "^",
                'ValueError("type fp8e4nv not supported in this architecture. The supported fp8 '
                "dtypes are ('fp8e4b15', 'fp8e5')\")', please check the stack trace above",
            ],
            "dispatch_failure",
            "compile",
        ),
        # requests named by their ids right before the engine core's death
        (
            [
                "INFO 01-01 10:00:00 [logger.py:41] Received prompt for cmpl-0f3a9c2b7d4e4f1a8b6c",
                "INFO 01-01 10:00:01 Finished request chatcmpl-9e8d7c6b5a4f3e2d1c0b",
                "ERROR 01-01 10:00:02 [core.py:502] EngineCore encountered a fatal error.",
            ],
            "engine_died",
            "execute",
        ),
        # a class called by a known name: the executor being built
        (
            [
                "Traceback (most recent call last):",
                '  File "/x/vllm/v1/engine/core.py", line 60, in __init__',
                "    self.model_executor = executor_class(vllm_config)",
                '  File "/x/vllm/executor/executor_base.py", line 52, in __init__',
                "RuntimeError: something the executor did not like",
            ],
            "unknown",
            "startup",
        ),
        # nvcc's diagnostic on a source line, and a makefile's echo of the file it compiles
        (['kern.cu(77): error: identifier "cudaFooBar" is undefined'], "unknown", "compile"),
        (
            [
                "make -C src build",
                "Compiling  kern.cu                 > ../build/kern.o",
                "Killed",
            ],
            "engine_died",
            "compile",
        ),
        # a CUDA graph API call, quoted in a check's report, that failed
        (
            [
                'CUDA RT call "cudaGraphExecUpdate(exec, graph, &info)" in line 88 of file g.cu '
                "failed with invalid value (1)."
            ],
            "stream_capture",
            "graph_capture",
        ),
        # a stream synchronize returning CUDA's number for an illegal address
        (
            [
                "[E] Error[1]: [runner.cpp::execute::700] Error Code 1: Myelin (synchronize "
                "failed (700))"
            ],
            "illegal_memory_access",
            "unknown",
        ),
        # torch's capture-status enum named in a check is no capture
        (
            ["RuntimeError: Unknown CUDA graph CaptureStatus12345"],
            "unknown",
            "unknown",
        ),
        # torch's extension builder finding another CUDA toolkit than torch's
        (
            [
                "RuntimeError:",
                "The detected CUDA version (12.6) mismatches the version that was used to compile",
                "PyTorch (12.1). Please make sure to use the same CUDA versions.",
            ],
            "env_mismatch",
            "compile",
        ),
        # kernels of a library named in a refusal, with an adjective before them
        (
            ["RuntimeError: No available MMHA kernels are found for this head size and dtype."],
            "dispatch_failure",
            "unknown",
        ),
        # a server's loop that gave up after repeated errors, inside its scheduler's loop
        (
            [
                "Traceback (most recent call last):",
                '  File "/x/runtime/managers/scheduler.py", line 359, in event_loop',
                "    raise RuntimeError(",
                "RuntimeError: Worker loop terminated after 5 consecutive errors. Last error: boom",
            ],
            "engine_died",
            "execute",
        ),
        # a limit said as a comparison, in a setting's refusal
        (
            ["Assertion failed: max_lora_rank must be smaller than mMaxLowRank (64)"],
            "unsupported_config",
            "unknown",
        ),
        (
            ["Assertion failed: Number of beams (8) is larger than maximum number of beams (4)"],
            "unsupported_config",
            "unknown",
        ),
        # a LoRA adapter's matrix missing from a checkpoint
        (
            ["KeyError: 'model.layers.3.self_attn.q_proj.lora_B'"],
            "unsupported_config",
            "loading",
        ),
        # the messages endpoint of a server handling a request
        (
            [
                "Traceback (most recent call last):",
                '  File "/x/vllm/entrypoints/anthropic/api_router.py", line 70, in create_messages',
                "    generator = await handler.create_messages(request, raw_request)",
                "ValueError: The provided grammar contains features not supported by the backend.",
            ],
            "unsupported_config",
            "execute",
        ),
        # a logger's source location left alone at the start of each line by the paste
        (
            [
                "[multiproc_executor.py:671] Traceback (most recent call last):",
                '[multiproc_executor.py:671]   File "/x/vllm/v1/worker/gpu_worker.py", line 263, '
                "in determine_available_memory",
                "[multiproc_executor.py:671]     self.model_runner.profile_run()",
                "[multiproc_executor.py:671] RuntimeError: something else went wrong",
            ],
            "unknown",
            "profile",
        ),
    ],
)
def test_round84_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)
