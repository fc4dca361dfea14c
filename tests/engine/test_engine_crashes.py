"""End to end: hangs, killed engine processes and interrupted sessions, with real engines.

Every case checks that no process of the engine survives (found by the engine's token in the
environment of every process on the machine, so escaped orphans count too).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from pytest_blackwell.engine import EngineConfig, EngineError, EngineHandle, EnginePool, Limits
from pytest_blackwell.engine.events import STALL_ENV, TOKEN_ENV
from pytest_blackwell.engine.proctree import find_by_token

pytestmark = pytest.mark.engine

BASE = EngineConfig(max_model_len=512)
#: vLLM's own process layout (probe -> EngineCore -> Worker) instead of the in-process default.
MULTIPROCESS = {"VLLM_ENABLE_V1_MULTIPROCESSING": "1"}


def test_stalled_stage_is_a_timeout_in_that_stage(
    tmp_path: Path, engine_env: dict[str, str]
) -> None:
    limits = Limits(stage_s={"kv_alloc": 3.0})
    with EnginePool(tmp_path, limits=limits, base_env=engine_env) as pool:
        handle = pool.get(BASE.merged(env={STALL_ENV: "kv_alloc"}))
        failure = handle.result.failure
        assert failure is not None
        assert (failure.category, failure.stage) == ("timeout", "kv_alloc")
        assert failure.detail["limit_s"] == 3.0
        assert "stalling stage 'kv_alloc' on purpose" in failure.detail["last_log_line"]
        assert handle.result.timings["kv_alloc"] >= 3.0
        assert handle.pids() == {}


@pytest.mark.parametrize("victim", ["VLLM::EngineCore", "VLLM::Worker"])
def test_engine_process_killed_mid_run_is_engine_died(
    tmp_path: Path, engine_env: dict[str, str], victim: str
) -> None:
    with EnginePool(tmp_path, base_env=engine_env) as pool:
        handle = pool.get(BASE.merged(env=MULTIPROCESS))
        assert handle.result.ok, handle.result.summary
        assert handle.generate(["hello"], max_tokens=4)
        pids = handle.pids()
        target = next(pid for pid, title in pids.items() if title.startswith(victim))
        os.kill(target, signal.SIGKILL)
        started = time.monotonic()
        with pytest.raises(EngineError) as info:
            _keep_generating(handle)
        took = time.monotonic() - started
        failure = handle.result.failure
        assert failure is not None
        assert failure.category == "engine_died"
        if victim == "VLLM::EngineCore":
            assert failure.detail.get("signal") == "SIGKILL"
        else:  # vLLM may report a killed worker before anyone has its exit code: then no signal
            assert failure.detail.get("signal") in ("SIGKILL", None)
        assert str(info.value).splitlines()[0] == failure.summary
        assert took < 10, f"engine death took {took:.1f} s to notice"
        assert handle.pids() == {}
    for pid in pids:
        assert not _alive(pid), f"{pids[pid]} (pid {pid}) outlived its engine"


_INTERRUPTED = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from pytest_blackwell.engine import EngineConfig
    from pytest_blackwell.engine.launcher import EngineProcess

    work = Path(sys.argv[1])
    engine = EngineProcess(EngineConfig(max_model_len=512), log_path=work / "engine.log",
                           work_dir=work / "engine", env=dict(__import__("os").environ))
    print(engine.token, flush=True)
    engine.start()
    engine.wait_ready()
    """
)


@pytest.mark.parametrize(
    ("sig", "multiprocess"),
    [
        (signal.SIGINT, False),
        (signal.SIGTERM, False),
        (signal.SIGKILL, False),
        (signal.SIGKILL, True),
    ],
    ids=["ctrl-c", "sigterm", "sigkill", "sigkill-multiprocess"],
)
def test_interrupted_session_leaves_no_engine_process(
    tmp_path: Path, engine_env: dict[str, str], sig: signal.Signals, multiprocess: bool
) -> None:
    env = {**engine_env, **(MULTIPROCESS if multiprocess else {})}
    session = subprocess.Popen(
        [sys.executable, "-c", _INTERRUPTED, str(tmp_path)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert session.stdout is not None
    token = session.stdout.readline().strip()
    events = tmp_path / "engine" / "events.jsonl"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and not _reached(events, "loading"):
        time.sleep(0.2)
    assert _reached(events, "loading"), "the engine never started building"
    assert find_by_token(TOKEN_ENV, token)
    time.sleep(1)  # inside vLLM's engine construction
    session.send_signal(sig)
    session.wait(timeout=30)
    assert session.returncode != 0
    # SIGKILL runs no cleanup in the session: the kernel's parent-death signal must do it.
    gone_by = time.monotonic() + 2.0
    leftover = find_by_token(TOKEN_ENV, token)
    while leftover and time.monotonic() < gone_by:
        time.sleep(0.1)
        leftover = find_by_token(TOKEN_ENV, token)
    assert leftover == {}, f"processes outlived the interrupted session by 2 s: {leftover}"


def _reached(events: Path, stage: str) -> bool:
    try:
        return f'"stage": "{stage}"' in events.read_text()
    except OSError:
        return False


def _keep_generating(handle: EngineHandle) -> None:
    for _ in range(50):  # a dead EngineCore makes vLLM's own client wait forever
        handle.generate(["hello world"] * 2, max_tokens=32)


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"
