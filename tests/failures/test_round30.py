"""Mechanisms of the thirtieth round (tuned on fresh86-fresh89): an NCCL WARN that says what it
falls back to, Python's exit with an error code, TGI's shard that crashed, asyncio's task whose
exception nobody retrieved, a traceback pasted without its indentation, vLLM's fatal signal from
its workers, a zero count in a results table, NCCL's error strings printed by another library,
work said to have failed, Triton's build of its launcher, an OpenAI-compatible server's request
handlers, a graph runner's capture, ONNX Runtime's Python exceptions and koboldcpp's warm-up.
The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # NCCL's own warning level, whatever it says it does next
        (
            [
                "node1:11:12 [1] graph/search.cc:900 NCCL WARN Could not find a path for pattern "
                "4, falling back to simple order"
            ],
            "nccl_error",
            "unknown",
        ),
        # an exit with an error code, and the launcher's report of the shard it ended
        (
            [
                "Traceback (most recent call last):",
                '  File "/srv/interceptor.py", line 9, in intercept',
                "    exit(1)",
                "SystemExit: 1",
            ],
            "unknown",
            "unknown",
        ),
        (
            [
                "SystemExit: 1 rank=0",
                "2024-01-01T00:00:00.000000Z ERROR text_generation_launcher: Shard 0 crashed",
            ],
            "engine_died",
            "unknown",
        ),
        # asyncio: a task's exception as a repr on one line
        (
            [
                "Task exception was never retrieved",
                "future: <Task finished name='Task-3' coro=<Router.loop_for_fwd() done, defined "
                "at /srv/router.py:80> exception=CompilationError('at 3:4: bad')>",
            ],
            "unknown",
            "execute",
        ),
        # vLLM's executor: a worker died by a signal
        (
            [
                "ERROR 01-01 00:00:00 [multiproc_executor.py:1] Got fatal signal from worker "
                "processes, shutting down. See stack trace above for root cause issue."
            ],
            "engine_died",
            "unknown",
        ),
        # NCCL's error string printed by the library that called it
        (
            [
                "CUDA error: unhandled cuda error (run with NCCL_DEBUG=INFO for details)",
                "  current device: 0, in function comm_allreduce at ggml-cuda.cu:1",
            ],
            "nccl_error",
            "unknown",
        ),
        # a served model's work said to have failed
        (
            [
                "app.errors.TranscriptionError: Transcription failed: CUDA failed with error an "
                "illegal memory access was encountered"
            ],
            "illegal_memory_access",
            "execute",
        ),
        # ONNX Runtime's Python exception carrying its status
        (
            [
                "EPFail: [ONNXRuntimeError] : 11 : EP_FAIL : TensorRT EP could not build Engine "
                "for fused node: TRTKernel_1"
            ],
            "unknown",
            "compile",
        ),
        # koboldcpp warming its model up
        (
            [
                "Starting model warm up, please wait a moment...",
                "ggml/src/ggml-cuda/fattn.cuh:1: GGML_ASSERT(blocks > 0) failed",
            ],
            "unknown",
            "warmup",
        ),
    ],
)
def test_round30_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    ("path", "func", "stage"),
    [
        ("/env/triton/runtime/build.py", "_build", "compile"),
        ("/env/vllm/entrypoints/openai/serving_chat.py", "_tokenize_prompt", "execute"),
        ("/env/vllm/worker/model_runner.py", "capture", "graph_capture"),
    ],
)
def test_frames_of_a_cut_traceback_tell_the_stage(
    tmp_path: Path, path: str, func: str, stage: str
) -> None:
    lines = [
        "Traceback (most recent call last):",
        '  File "/env/app/main.py", line 1, in main',
        "    run()",
        f'  File "{path}", line 2, in {func}',
        "    ret = call()",
    ]
    classify_as(tmp_path, lines, "unknown", stage)


def test_a_traceback_pasted_without_its_indentation_keeps_its_frames(tmp_path: Path) -> None:
    """Each source line at the margin belongs to the frame line above it; the traceback, cut
    inside its last frame, still tells the stage of the death above it."""
    lines = [
        "[2025-01-01 00:00:00] Received sigquit from a child process. It usually means the "
        "child failed.",
        "[2025-01-01 00:00:00 TP0] Scheduler hit an exception: Traceback (most recent call last):",
        'File "/srv/sglang/srt/managers/scheduler.py", line 1, in run_scheduler_process',
        "scheduler = Scheduler(server_args)",
        'File "/srv/sglang/srt/managers/scheduler.py", line 2, in init',
        "self.tp_worker = TpWorkerClass(",
        'File "/srv/sglang/srt/managers/tp_worker.py", line 3, in init',
        "self.model_runner = ModelRunner(",
        'File "/srv/sglang/srt/model_executor/model_runner.py", line 4, in init',
        "min_per_gpu_memory = self.init_torch_distributed()",
        'File "/srv/sglang/srt/model_executor/model_runner.py", line 5, in init_torch_distributed',
        "initialize_model_parallel(tensor_model_parallel_size=self.tp_size)",
        'File "/srv/sglang/srt/distributed/parallel_state.py", line 6, in initialize_mode',
    ]
    classify_as(tmp_path, lines, "engine_died", "startup")


def test_an_exception_line_after_an_unindented_frame_is_still_the_exception(
    tmp_path: Path,
) -> None:
    lines = [
        "Traceback (most recent call last):",
        'File "/srv/app.py", line 1, in load_model',
        "KeyError: 'weight'",
    ]
    failure = classify_as(tmp_path, lines, "unknown", "loading")
    assert failure.first_error == "KeyError: 'weight'"


@pytest.mark.parametrize("text", ["SystemExit: 0", "SystemExit: None"])
def test_a_clean_exit_is_no_failure(tmp_path: Path, text: str) -> None:
    lines = [
        "Traceback (most recent call last):",
        '  File "a.py", line 1, in f',
        "    exit()",
        text,
    ]
    assert classify_both(tmp_path, lines) is None


def test_a_zero_count_in_a_results_table_is_no_failure(tmp_path: Path) -> None:
    lines = [
        "============ Serving Benchmark Result ============",
        "Successful requests:                      1000",
        "Failed requests:                          0",
        "Benchmark duration (s):                   61.2",
    ]
    assert classify_both(tmp_path, lines) is None
