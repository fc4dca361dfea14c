"""The launcher's verdicts from log lines and probe events (no engine needed)."""

from __future__ import annotations

import time

from pytest_blackwell.engine.config import EngineConfig
from pytest_blackwell.engine.launcher import Limits
from pytest_blackwell.engine.watch import Watch

KV_OOM_LOG = [
    "(EngineCore pid=1) INFO 12-02 13:19:02 [core.py:133] Initializing a V1 LLM engine",
    "Traceback (most recent call last):",
    '  File "/x/vllm/v1/core/kv_cache_utils.py", line 700, in check_enough_kv_cache_memory',
    "    raise ValueError(",
    "ValueError: To serve at least one request with the model's max seq len (4096), (0.0 GiB"
    " KV cache is needed, which is larger than the available KV cache memory (0.0 GiB).",
    "(EngineCore pid=1) INFO 12-02 13:19:03 [core.py:1] next line",
]


def _stage(watch: Watch, stage: str, when: float) -> None:
    watch.event({"event": "stage", "stage": stage, "time": when, "pid": 1})


def test_stage_events_give_timings_and_ready_gives_throughput() -> None:
    watch = Watch()
    watch.started()
    t0 = time.time()
    _stage(watch, "loading", t0 + 1.0)
    _stage(watch, "kv_alloc", t0 + 3.0)
    watch.event({"event": "backend", "names": ["CPU_ATTN"], "time": t0 + 3.1})
    watch.event({"event": "ready", "tokens_per_s": 50.0, "time": t0 + 4.0})
    result = watch.result(EngineConfig(attention_backend="FLASHINFER"), "x.log", None)
    assert result.ok
    assert result.timings["loading"] == 2.0
    assert result.timings["kv_alloc"] == 1.0
    assert result.tokens_per_s == 50.0
    assert (result.requested_backend, result.actual_backend) == ("FLASHINFER", "CPU_ATTN")


def test_first_fatal_error_in_the_log_is_the_verdict_with_the_probe_stage() -> None:
    watch = Watch()
    _stage(watch, "kv_alloc", time.time())
    stop = [watch.feed(line) for line in KV_OOM_LOG]
    assert any(stop)
    assert watch.failure is not None
    assert (watch.failure.category, watch.failure.stage) == ("kv_cache_oom", "kv_alloc")
    assert watch.fatal_line_time() is not None


def test_process_killed_by_a_signal_without_an_error_is_engine_died_with_the_signal() -> None:
    watch = Watch()
    _stage(watch, "execute", time.time())
    watch.child_exit({"child": 42, "title": "VLLM::EngineCore", "signal": 9, "exit_code": None})
    watch.check_deaths()
    assert watch.failure is None  # a short grace for the log to show an earlier cause
    time.sleep(0.6)
    watch.check_deaths()
    assert watch.failure is not None
    assert watch.failure.category == "engine_died"
    assert watch.failure.detail["signal"] == "SIGKILL"
    assert watch.failure.first_error == (
        "engine process VLLM::EngineCore (pid 42) was killed by SIGKILL"
    )


def test_helper_process_exiting_normally_is_not_a_failure() -> None:
    watch = Watch()
    watch.child_exit({"child": 7, "title": "resource_tracker", "signal": None, "exit_code": 0})
    time.sleep(0.1)
    watch.check_deaths()
    assert watch.failure is None


def test_stage_over_its_limit_is_a_timeout_in_that_stage() -> None:
    watch = Watch()
    watch.started()
    _stage(watch, "profile", time.time())
    watch.check_limits(Limits(stage_s={"profile": 0.05}), serving=False)
    assert watch.failure is None
    time.sleep(0.1)
    watch.feed("pytest-blackwell probe: stalling stage 'profile' on purpose")
    watch.check_limits(Limits(stage_s={"profile": 0.05}), serving=False)
    assert watch.failure is not None
    assert (watch.failure.category, watch.failure.stage) == ("timeout", "profile")
    assert watch.failure.detail["last_log_line"].startswith("pytest-blackwell probe: stalling")


def test_probe_killed_by_a_signal_is_engine_died() -> None:
    watch = Watch()
    _stage(watch, "loading", time.time())
    watch.probe_exited(-11)
    assert watch.failure is not None
    assert (watch.failure.category, watch.failure.stage) == ("engine_died", "loading")
    assert watch.failure.detail["signal"] == "SIGSEGV"
