"""StreamClassifier: the incremental interface the engine launcher drives."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_blackwell.failures import Failure, StreamClassifier, classify_log

LOGS = Path(__file__).parent / "logs"

TRACEBACK = [
    "(EngineCore_DP0 pid=7) ERROR 03-10 15:08:00 [core.py:718] EngineCore failed to start.",
    "(EngineCore_DP0 pid=7) ERROR 03-10 15:08:00 [core.py:718] Traceback (most recent call last):",
    '(EngineCore_DP0 pid=7) ERROR 03-10 15:08:00 [core.py:718]   File "core.py", line 9, in f',
    "(EngineCore_DP0 pid=7) ERROR 03-10 15:08:00 [core.py:718]     raise ValueError(",
    "(EngineCore_DP0 pid=7) ERROR 03-10 15:08:00 [core.py:718] ValueError: No available memory "
    "for the cache blocks. Try increasing `gpu_memory_utilization`.",
]


def test_starts_in_unknown_stage_with_nothing_to_report() -> None:
    sc = StreamClassifier()
    assert sc.stage == "unknown"
    assert not sc.done
    assert sc.result() is None


def test_stage_follows_log_markers() -> None:
    sc = StreamClassifier()
    sc.feed("INFO 03-10 15:07:17 [gpu_model_runner.py:1953] Starting to load model m...")
    assert sc.stage == "loading"
    sc.feed("INFO 03-10 15:07:27 [gpu_model_runner.py:2007] Model loading took 1.2 GiB and 9 s")
    assert sc.stage == "profile"
    sc.feed("INFO 03-10 15:07:34 [backends.py:559] Dynamo bytecode transform time: 6.71 s")
    assert sc.stage == "compile"
    sc.feed("INFO 03-10 15:08:00 [gpu_worker.py:276] Available KV cache memory: 4.62 GiB")
    assert sc.stage == "kv_alloc"
    sc.feed("Capturing CUDA graphs (mixed prefill-decode, PIECEWISE):  41%|####  | 28/67")
    assert sc.stage == "graph_capture"
    sc.feed("INFO 03-10 15:08:12 [gpu_model_runner.py:2708] Graph capturing finished in 12 secs")
    assert sc.stage == "warmup"
    sc.feed(
        "INFO 03-10 15:08:12 [core.py:214] init engine (profile, create kv cache, warmup "
        "model) took 27.71 seconds"
    )
    assert sc.stage == "execute"


def test_explicit_stage_is_a_floor_for_markers() -> None:
    sc = StreamClassifier()
    sc.note_stage("execute")
    assert sc.stage == "execute"
    sc.feed("INFO 03-10 15:07:17 [gpu_model_runner.py:1953] Starting to load model m...")
    assert sc.stage == "execute"  # a marker of an earlier stage cannot move it back
    for line in TRACEBACK:
        sc.feed(line)
    failure = sc.result()
    assert failure is not None
    assert failure.stage == "execute"


def test_explicit_stage_names_the_stage_of_a_markerless_error() -> None:
    sc = StreamClassifier()
    sc.note_stage("warmup")
    sc.feed("RuntimeError: CUDA error: an illegal memory access was encountered")
    failure = sc.result()
    assert failure is not None
    assert (failure.category, failure.stage) == ("illegal_memory_access", "warmup")


def test_note_stage_rejects_unknown_names() -> None:
    sc = StreamClassifier()
    with pytest.raises(ValueError, match=r"note_stage\(\) expects one of startup, loading"):
        sc.note_stage("booting")


def test_done_right_after_the_exception_line_of_a_known_cause() -> None:
    sc = StreamClassifier()
    for line in TRACEBACK[:-1]:
        sc.feed(line)
        assert not sc.done
    sc.feed(TRACEBACK[-1])
    # A later process line keeps the launcher waiting only while a wrapper may follow.
    for i in range(60):
        if sc.done:
            break
        sc.feed(f"(APIServer pid=1) INFO 03-10 15:08:01 [x.py:1] unrelated line {i}")
    assert sc.done
    failure = sc.result()
    assert failure is not None
    assert failure.category == "kv_cache_oom"
    assert failure.line == 5


def test_done_within_a_few_lines_for_a_quiet_single_line_cause() -> None:
    sc = StreamClassifier()
    sc.feed("RuntimeError: CUDA error: an illegal memory access was encountered")
    fed = 0
    while not sc.done and fed < 50:
        sc.feed("INFO 03-10 15:08:01 [x.py:1] still running")
        fed += 1
    assert sc.done
    assert fed <= 41


def test_relay_waits_for_a_more_specific_cause() -> None:
    sc = StreamClassifier()
    sc.feed(
        "torch.distributed.DistBackendError: NCCL error in: NCCLUtils.hpp:275, unhandled "
        "cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5"
    )
    assert not sc.done
    sc.feed("ncclUnhandledCudaError: Call to CUDA function failed.")
    sc.feed("Last error:")
    sc.feed("Cuda failure 'an illegal memory access was encountered'")
    failure = sc.result()
    assert failure is not None
    assert failure.category == "illegal_memory_access"
    assert failure.line == 4
    assert failure.traceback[0].startswith("torch.distributed.DistBackendError")


def test_feeding_stops_counting_once_done() -> None:
    sc = StreamClassifier()
    for line in TRACEBACK:
        sc.feed(line)
    while not sc.done:
        sc.feed("INFO 03-10 15:08:01 [x.py:1] filler")
    before = sc.result()
    sc.feed("RuntimeError: CUDA error: an illegal memory access was encountered")
    assert sc.result() == before


def test_no_error_lets_the_launcher_decide() -> None:
    sc = StreamClassifier()
    for i in range(100):
        sc.feed(f"INFO 03-10 15:08:{i % 60:02d} [x.py:1] Added request cmpl-{i}.")
    assert sc.result() is None
    assert not sc.done
    # The launcher names the verdict itself, with the stage the classifier tracked (requests
    # were being added: the engine was serving).
    verdict = Failure("timeout", sc.stage, "no progress for 300 s")
    assert verdict.summary == "timeout at execute: no progress for 300 s"


def test_memory_stays_bounded_on_a_long_log() -> None:
    sc = StreamClassifier()
    prefix = "(EngineCore_DP0 pid=7) ERROR 03-10 15:08:00 [core.py:718] "
    sc.feed(prefix + "Traceback (most recent call last):")
    for i in range(5000):  # a runaway recursion
        sc.feed(prefix + f'  File "/x.py", line {i}, in f')
    sc.feed(prefix + "ValueError: No available memory for the cache blocks.")
    for i in range(20000):
        sc.feed(f"(APIServer pid=1) INFO [x.py:1] request {i} ERROR-free")
    failure = sc.result()
    assert failure is not None
    assert failure.category == "kv_cache_oom"
    assert len(failure.traceback) <= 120
    assert failure.traceback[0] == "Traceback (most recent call last):"
    assert failure.traceback[-1].startswith("ValueError: No available memory")


def test_errors_far_below_the_first_do_not_read_what_was_being_done(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A server failing every request after its first error: each error line is weighed, but
    what ran before it (its activity) is read only where it can still reach the answer."""
    from pytest_blackwell.failures import classify as classify_module

    calls: list[int] = []
    real = classify_module.activity_at

    def counting(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(classify_module, "activity_at", counting)
    sc = StreamClassifier()
    sc.feed("(APIServer pid=1) INFO 03-10 15:00:00 [loggers.py:123] Running: 4 reqs")
    for i in range(600):
        sc.feed(
            f"(APIServer pid=1) ERROR 03-10 15:00:01 [serving.py:140] Error in request {i}: "
            "the chat template could not be rendered"
        )
        assert not sc.done  # an unrecognised error: a known cause may still follow
    sc.feed("(APIServer pid=1) INFO 03-10 15:00:02 [loggers.py:123] Running: 4 reqs")
    sc.feed("(APIServer pid=1) ERROR 03-10 15:00:02 [serving.py:140] CUDA error: out of memory")
    failure = sc.result()
    assert failure is not None
    # a known cause replaces unrecognised errors above it, and what ran before it is read
    assert (failure.category, failure.stage) == ("device_oom", "execute")
    assert failure.evidence["stage"].startswith("activity 'Running: 4 reqs'")
    assert len(calls) < 100  # not one read per error line


def test_result_is_stable_and_repeatable_mid_stream() -> None:
    sc = StreamClassifier()
    sc.feed("Traceback (most recent call last):")
    sc.feed('  File "/x.py", line 1, in f')
    first = sc.result()  # provisional: an unfinished traceback
    assert first is not None
    assert first.category == "unknown"
    sc.feed("RuntimeError: CUDA error: misaligned address")
    assert sc.result() == sc.result()
    final = sc.result()
    assert final is not None
    assert final.category == "illegal_memory_access"


def test_stream_agrees_with_classify_log() -> None:
    path = LOGS / "interleaved_tp_workers.log"
    sc = StreamClassifier()
    with open(path, encoding="utf-8") as stream:
        for line in stream:
            sc.feed(line)
            if sc.done:
                break
    assert sc.result() == classify_log(path)
