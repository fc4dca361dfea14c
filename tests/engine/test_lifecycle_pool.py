"""The pool under interruptions and reruns, with a real engine."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from pytest_blackwell.engine import EngineConfig, EngineHandle, EnginePool

pytestmark = pytest.mark.engine


class Interrupt(KeyboardInterrupt):
    """Stands for Ctrl-C (or a per-test timeout) arriving while the pool waits for an engine."""


def test_interrupted_launch_stops_engine_and_next_get_relaunches(
    tmp_path: Path, engine_env: dict[str, str]
) -> None:
    armed = {"stage": "loading"}

    def progress(config_id: str, stage: str, elapsed: float) -> None:
        if stage == armed.get("stage"):
            armed.clear()
            raise Interrupt()

    config = EngineConfig(max_model_len=512)
    with EnginePool(tmp_path, base_env=engine_env, on_progress=progress) as pool:
        with pytest.raises(Interrupt):
            pool.get(config)
        (handle,) = pool.handles
        assert handle.pids() == {}, "the interrupted engine is still running"
        assert handle.interrupted is not None
        assert handle.interrupted.startswith("launch interrupted by Interrupt in stage loading")
        (record,) = pool.records()
        assert (record["outcome"], record["launches"]) == ("interrupted", 1)
        with pytest.raises(Exception, match="engine was stopped: launch interrupted"):
            handle.generate(["hello"], max_tokens=2)

        again = pool.get(config)
        assert again is handle
        assert handle.launches == 2
        assert handle.result.ok, handle.result.summary
        assert handle.generate(["hello"], max_tokens=2)
        (record,) = pool.records()
        assert (record["outcome"], record["launches"], record["interrupted"]) == ("passed", 2, None)

        # a failed engine is relaunched only when the caller's policy says so
        probe = next(p for p, t in handle.pids().items() if "engine.probe" in t)
        os.kill(probe, signal.SIGKILL)
        with pytest.raises(Exception, match="engine_died"):
            _keep_generating(handle)
        assert pool.get(config, relaunch_failed=lambda f: False).launches == 2
        assert pool.get(config).launches == 2
        relaunched = pool.get(config, relaunch_failed=lambda f: f.category == "engine_died")
        assert relaunched.launches == 3
        assert relaunched.result.ok


def _keep_generating(handle: EngineHandle) -> None:
    for _ in range(50):
        handle.generate(["hello"], max_tokens=2)
