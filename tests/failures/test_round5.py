"""Mechanisms of the fifth round of generalisation (the traceback that belongs to an error,
serving-loop frames, activity after loading, status codes and tables of the libraries).

Every line here is written from the text the library itself prints (Python's logging and
asyncio, faulthandler, cuBLAS's status names, nlohmann::json's exceptions, Triton server's model
table, SGLang's token pool), with names, paths and numbers of our own.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_both as _classify

_TB = "Traceback (most recent call last):"


def _frame(func: str, path: str = "/opt/eng/engine.py") -> list[str]:
    return [f'  File "{path}", line 10, in {func}', "    self.go()"]


@pytest.mark.parametrize(
    ("lines", "category", "stage", "why"),
    [
        # logger.exception in another process: the summary first, the traceback right after it
        (
            [
                "(Api pid=1) ERROR 01-01 00:00:00 [srv.py:1] EngineDeadError: EngineCore "
                "encountered an issue. See stack trace (above) for the root cause.",
                "(Core pid=2) Process Core:",
                f"(Core pid=2) {_TB}",
                *(f"(Core pid=2) {t}" for t in _frame("run_busy_loop")),
                *(f"(Core pid=2) {t}" for t in _frame("_process_engine_step")),
            ],
            "engine_died",
            "execute",
            "frame _process_engine_step (traceback after the error)",
        ),
        # a known cause, a blank line, the thread's banner, then its traceback (cut): the cut
        # traceback right after a cause lends it its frames' stage (weaker than the cause's own
        # words, as a quick scan reading it apart finds it)
        (
            [
                "RuntimeError: LayerNorm failed with error code no kernel image is available "
                "for execution on the device",
                "",
                "Exception in ControllerMain:",
                _TB,
                *_frame("loop_for_forward"),
                *_frame("forward_prefill_batch"),
            ],
            "dispatch_failure",
            "execute",
            "frame forward_prefill_batch (traceback after the error)",
        ),
    ],
)
def test_the_traceback_right_after_an_error_tells_its_stage(
    tmp_path: Path, lines: list[str], category: str, stage: str, why: str
) -> None:
    failure = _classify(tmp_path, lines)
    assert failure is not None
    assert (failure.category, failure.stage) == (category, stage)
    assert failure.evidence["stage"] == why


def test_a_traceback_far_after_the_error_is_not_its_own(tmp_path: Path) -> None:
    lines = [
        "RuntimeError: LayerNorm failed with error code no kernel image is available for "
        "execution on the device",
        *[f"INFO step {n}" for n in range(50)],
        _TB,
        *_frame("forward_prefill_batch"),
    ]
    failure = _classify(tmp_path, lines)
    assert failure is not None
    assert (failure.category, failure.stage) == ("dispatch_failure", "unknown")


def test_the_latest_of_a_marker_and_the_frames_after_the_error_wins(tmp_path: Path) -> None:
    marker = "INFO Capturing CUDA graphs (mixed prefill-decode, PIECEWISE): 10%"
    cause = "EngineDeadError: EngineCore encountered an issue."
    failure = _classify(tmp_path, [marker, cause, _TB, *_frame("load_weights")])
    assert failure is not None
    assert failure.stage == "graph_capture"  # the marker is later than the frames' loading


def test_asyncio_names_the_coroutine_that_raised(tmp_path: Path) -> None:
    lines = [
        "Task exception was never retrieved",
        "future: <Task finished name='Task-3' coro=<Router.loop_for_fwd() done, defined at "
        "/opt/srv/router.py:10> exception=RuntimeError('CUDA error: an illegal memory access "
        "was encountered')>",
    ]
    failure = _classify(tmp_path, lines)
    assert failure is not None
    assert (failure.stage, failure.evidence["stage"]) == ("execute", "frame loop_for_fwd")


@pytest.mark.parametrize(
    ("activity", "stage"),
    [
        ("[TRT-LLM] [I] Model init total -- 12.50s", "profile"),
        ("loaded weights in 812.00 ms, 3.20 GB loaded at 3.94 GB/s", "profile"),
    ],
)
def test_weights_loaded_right_before_an_error_is_after_loading(
    tmp_path: Path, activity: str, stage: str
) -> None:
    failure = _classify(tmp_path, [activity, "ERROR: something nobody knows"])
    assert failure is not None
    assert failure.stage == stage
    assert failure.evidence["stage"].startswith("activity ")


@pytest.mark.parametrize(
    ("line", "category"),
    [
        # cuBLAS's status names: no code for this architecture; a kernel that failed to run
        ("RuntimeError: CUDA error: CUBLAS_STATUS_ARCH_MISMATCH when calling `cublasLt(...)`",
         "dispatch_failure"),
        ("RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm`",
         "unknown"),
        # the same statuses as numbers (DeepSpeed's GEMM wrapper prints cublasStatus_t)
        ("!!!! kernel execution error. (m: 64, n: 8, k: 128, error: 8)", "dispatch_failure"),
        ("!!!! kernel execution error. (m: 64, n: 8, k: 128, error: 13)", "unknown"),
        # SGLang's token pool has no free slots for the batch
        ("Prefill out of memory. Try to lower your batch size.", "kv_cache_oom"),
        ("Decode out of memory. Try to lower your batch size.", "kv_cache_oom"),
        # TensorRT-LLM's LLM API when a worker of its executor did not start: a wrapper
        ("RuntimeError: Executor worker returned error", "engine_died"),
        # nlohmann::json reading an engine config that lacks a key
        ("[E] [json.exception.out_of_range.403] key 'hidden_size' not found",
         "unsupported_config"),
    ],
)  # fmt: skip
def test_library_status_words(tmp_path: Path, line: str, category: str) -> None:
    failure = _classify(tmp_path, [line])
    assert failure is not None
    assert failure.category == category


def test_a_frame_of_the_token_pool_says_the_kv_pool_ran_out(tmp_path: Path) -> None:
    lines = [
        _TB,
        *_frame("prepare_for_extend", "/opt/srt/schedule_batch.py"),
        *_frame("alloc_paged_token_slots_extend", "/opt/srt/mem_cache/common.py"),
        "RuntimeError: (the message was cut)",
    ]
    failure = _classify(tmp_path, lines)
    assert failure is not None
    assert (failure.category, failure.stage) == ("kv_cache_oom", "execute")
    assert failure.evidence["category"] == "frame alloc_paged_token_slots_extend"


def test_an_unavailable_row_of_the_model_table_is_a_failure(tmp_path: Path) -> None:
    lines = [
        "I0101 00:00:00.000000 7 server.cc:600]",
        "+--------+---------+--------------------------------------------------+",
        "| Model  | Version | Status                                           |",
        "+--------+---------+--------------------------------------------------+",
        "| ranker | 1       | READY                                            |",
        "| gen    | 1       | UNAVAILABLE: Internal: unexpected error when     |",
        "|        |         | creating modelInstanceState: [json.exception.out |",
        "| old    | 1       | UNAVAILABLE: unloaded                            |",
        "+--------+---------+--------------------------------------------------+",
    ]
    failure = _classify(tmp_path, lines)
    assert failure is not None
    assert failure.stage == "loading"
    assert failure.first_error.startswith("UNAVAILABLE: Internal")


def test_an_unloaded_model_in_the_table_is_no_failure(tmp_path: Path) -> None:
    lines = [
        "| Model  | Version | Status                |",
        "| ranker | 1       | READY                 |",
        "| old    | 1       | UNAVAILABLE: unloaded |",
    ]
    assert _classify(tmp_path, lines) is None


def test_a_wrapped_json_error_in_the_table_names_the_config(tmp_path: Path) -> None:
    lines = [
        "| gen    | 1       | UNAVAILABLE: Internal: unexpected error when creating modelInstan |",
        "|        |         | ceState: [json.exception.out_                                     |",
        "|        |         | of_range.403] key 'vocab_size' not found                          |",
    ]
    failure = _classify(tmp_path, lines)
    assert failure is not None
    assert (failure.category, failure.stage) == ("unsupported_config", "loading")


def test_a_thread_dump_of_a_waiting_process_is_a_hang(tmp_path: Path) -> None:
    lines = [
        "Thread 0x00007f0000000001 (most recent call first):",
        '  File "/usr/lib/python3.12/threading.py", line 300 in wait',
        '  File "/opt/srt/worker_thread.py", line 50 in resolve_batch_result',
        '  File "/opt/srt/scheduler.py", line 90 in event_loop_overlap',
        '  File "<string>", line 1 in <module>',
    ]
    failure = _classify(tmp_path, lines)
    assert failure is not None
    assert (failure.category, failure.stage) == ("timeout", "execute")
    assert failure.evidence["category"].startswith("hang: a thread dump")


def test_a_thread_dump_of_a_running_thread_is_no_hang(tmp_path: Path) -> None:
    lines = [
        "Thread 0x00007f0000000001 (most recent call first):",
        '  File "/opt/srt/layers.py", line 300 in forward',
        '  File "/opt/srt/scheduler.py", line 90 in event_loop_overlap',
    ]
    failure = _classify(tmp_path, lines)
    assert failure is not None
    assert failure.category == "unknown"


def test_the_capability_warning_is_no_stage_prior_for_the_cause_after_it(
    tmp_path: Path,
) -> None:
    warning = (
        "UserWarning: NVIDIA GeForce RTX 9090 with CUDA capability sm_120 is not compatible "
        "with the current PyTorch installation."
    )
    alone = _classify(tmp_path, [warning])
    assert alone is not None
    assert (alone.category, alone.stage) == ("env_mismatch", "startup")
    cause = "RuntimeError: CUDA error: no kernel image is available for execution on the device"
    failure = _classify(tmp_path, [warning, cause])
    assert failure is not None
    assert (failure.category, failure.stage) == ("dispatch_failure", "unknown")


@pytest.mark.parametrize(
    ("lines", "stage"),
    [
        (["[E] Encountered an error in forward function: something nobody knows"], "execute"),
        ([_TB, *_frame("get_tensor", "/opt/loader/st.py"), "RuntimeError: boom"], "loading"),
        ([_TB, *_frame("_start_executor_workers"), "RuntimeError: boom"], "startup"),
    ],
)
def test_more_words_and_frames_of_engines(tmp_path: Path, lines: list[str], stage: str) -> None:
    failure = _classify(tmp_path, lines)
    assert failure is not None
    assert failure.stage == stage
