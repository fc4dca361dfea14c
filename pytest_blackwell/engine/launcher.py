"""Start one engine child, watch it, and stop all of it.

:class:`EngineProcess` runs ``python -m pytest_blackwell.engine.probe`` in its own session and
process group. A reader thread copies the child's combined stdout/stderr line by line into the
log file and the :class:`~pytest_blackwell.failures.StreamClassifier`; another thread follows
the probe's events file. The first fatal error, the death of any engine process, or a stage that
exceeds its time limit ends the engine at once: the process group and every process carrying the
engine's token are killed (see :mod:`pytest_blackwell.engine.proctree`).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from pytest_blackwell.engine.config import EngineConfig
from pytest_blackwell.engine.events import EVENTS_ENV, TOKEN_ENV
from pytest_blackwell.engine.pdeathsig import PARENT_ENV, spawn_from_stable_thread
from pytest_blackwell.engine.proctree import find_by_token, kill_tree
from pytest_blackwell.engine.result import EngineResult
from pytest_blackwell.engine.watch import Watch, died_failure
from pytest_blackwell.failures.model import Failure

#: Seconds per stage before a hang becomes a ``timeout`` failure.
DEFAULT_STAGE_LIMITS: dict[str, float] = {
    "startup": 180.0,
    "loading": 600.0,
    "compile": 900.0,
    "profile": 300.0,
    "kv_alloc": 300.0,
    "graph_capture": 600.0,
    "warmup": 300.0,
    "execute": 300.0,
}

ProgressCallback = Callable[[str, str, float], None]


class EngineError(RuntimeError):
    """The engine cannot serve: it failed to start, failed since, or was stopped."""

    def __init__(self, message: str, failure: Failure | None = None) -> None:
        super().__init__(message)
        self.failure = failure


@dataclass(frozen=True)
class Limits:
    """Time limits in seconds. ``stage_s`` overrides :data:`DEFAULT_STAGE_LIMITS` per stage.

    ``startup_s`` bounds launch-to-ready, ``request_s`` one ``generate`` call, ``shutdown_s``
    the graceful stop before the kill.
    """

    stage_s: Mapping[str, float] = field(default_factory=dict)
    startup_s: float = 1200.0
    request_s: float = 300.0
    shutdown_s: float = 10.0

    def for_stage(self, stage: str) -> float:
        return float(self.stage_s.get(stage, DEFAULT_STAGE_LIMITS.get(stage, 300.0)))

    def to_dict(self) -> dict[str, Any]:
        return {
            "stage_s": dict(self.stage_s),
            "startup_s": self.startup_s,
            "request_s": self.request_s,
            "shutdown_s": self.shutdown_s,
        }


#: Live engines, killed at interpreter exit or on SIGTERM/SIGHUP of this process.
_LIVE: weakref.WeakSet[EngineProcess] = weakref.WeakSet()
_HANDLERS_INSTALLED = False


def _kill_all_live() -> None:
    for engine in list(_LIVE):
        engine.kill()


def _on_signal(signum: int, frame: Any) -> None:
    _kill_all_live()
    previous = _PREVIOUS_HANDLERS.get(signum, signal.SIG_DFL)
    if callable(previous):
        previous(signum, frame)
        return
    signal.signal(signum, previous)
    os.kill(os.getpid(), signum)


_PREVIOUS_HANDLERS: dict[int, Any] = {}


def _install_exit_handlers() -> None:
    global _HANDLERS_INSTALLED
    if _HANDLERS_INSTALLED:
        return
    _HANDLERS_INSTALLED = True
    atexit.register(_kill_all_live)
    if threading.current_thread() is not threading.main_thread():
        return  # signal handlers can only be set from the main thread; atexit still covers us
    for signum in (signal.SIGTERM, signal.SIGHUP):
        _PREVIOUS_HANDLERS[signum] = signal.getsignal(signum)
        signal.signal(signum, _on_signal)


class EngineProcess:
    """One engine child for one config. Not reusable once stopped.

    ``env`` is the complete environment of the child (the pool adds isolation paths); the
    launcher adds the events file, the engine token and unbuffered output.
    """

    def __init__(
        self,
        config: EngineConfig,
        *,
        log_path: Path,
        work_dir: Path,
        env: Mapping[str, str],
        limits: Limits | None = None,
        rules: Any = None,
        on_progress: ProgressCallback | None = None,
    ) -> None:
        self.config = config
        self.log_path = Path(log_path)
        self.work_dir = Path(work_dir)
        self.limits = limits or Limits()
        self.token = uuid.uuid4().hex
        self._env = dict(env)
        self._on_progress = on_progress
        self._proc: subprocess.Popen[bytes] | None = None
        self._watch = Watch(rules)
        self._threads: list[threading.Thread] = []
        self._request_id = 0
        self._stopping = False
        # Reentrant: the SIGTERM handler may run while this thread is already killing.
        self._kill_lock = threading.RLock()
        #: Seconds from the first fatal log line being read to the last engine process gone.
        self.fail_fast_s: float | None = None

    # ----------------------------------------------------------------- start / wait
    def start(self) -> None:
        self.work_dir.mkdir(parents=True, exist_ok=True)
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        config_file = self.work_dir / "config.json"
        config_file.write_text(self.config.to_json())
        events_file = self.work_dir / "events.jsonl"
        events_file.write_bytes(b"")
        env = {
            **self._env,
            **self.config.env,
            EVENTS_ENV: str(events_file),
            TOKEN_ENV: self.token,
            PARENT_ENV: str(os.getpid()),
            "PYTHONUNBUFFERED": "1",
        }
        _install_exit_handlers()
        log = open(self.log_path, "w", encoding="utf-8", errors="replace")  # noqa: SIM115
        self._watch.started()
        # The probe asks the kernel to kill it when the thread that started it ends
        # (pdeathsig): start it from a thread that lives as long as this process.
        self._proc = spawn_from_stable_thread(
            lambda: subprocess.Popen(
                [sys.executable, "-m", "pytest_blackwell.engine.probe", str(config_file)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                env=env,
                cwd=str(self.work_dir),
                start_new_session=True,
            )
        )
        _LIVE.add(self)
        assert self._proc.stdout is not None
        self._spawn(self._read_log, self._proc.stdout, log)
        self._spawn(self._follow_events, events_file)

    def _spawn(self, target: Callable[..., None], *args: Any) -> None:
        thread = threading.Thread(
            target=target, args=args, daemon=True, name=f"pytest-blackwell-{target.__name__}"
        )
        thread.start()
        self._threads.append(thread)

    def _read_log(self, stream: IO[bytes], log: IO[str]) -> None:
        with log:
            for raw in iter(stream.readline, b""):
                line = raw.decode("utf-8", errors="replace").rstrip("\n")
                log.write(line + "\n")
                log.flush()
                if self._watch.feed(line):
                    self._fail_fast()
        self._watch.log_closed()

    def _follow_events(self, path: Path) -> None:
        with open(path, "rb") as fh:
            pending = b""
            while True:
                chunk = fh.read()
                if chunk:
                    pending += chunk
                    *lines, pending = pending.split(b"\n")
                    for raw in lines:
                        with contextlib.suppress(ValueError):
                            self._on_event(json.loads(raw))
                elif self._watch.finished:
                    return
                else:
                    time.sleep(0.05)

    def _on_event(self, event: dict[str, Any]) -> None:
        kind = event.get("event")
        if kind == "child_exit" and not self._stopping:
            self._watch.child_exit(event)
            return
        self._watch.event(event)

    def _fail_fast(self) -> None:
        """The first fatal error is complete: stop everything now, not at vLLM's pace."""
        self._kill()

    def wait_ready(self) -> EngineResult:
        """Block until the engine is ready or has failed; the result either way."""
        last_progress = 0.0
        while True:
            verdict = self._check()
            if verdict is not None or self._watch.ready:
                break
            now = time.monotonic()
            if self._on_progress is not None and now - last_progress >= 0.5:
                last_progress = now
                self._on_progress(self.config.id, self._watch.stage, self._watch.elapsed())
            self._watch.wait(0.1)
        if self._on_progress is not None:
            failure = self._watch.failure
            final = "ready" if failure is None else f"failed at {failure.stage}"
            self._on_progress(self.config.id, final, self._watch.elapsed())
        return self.result

    def _check(self) -> Failure | None:
        """Turn exits, deaths and hangs into the engine's failure (killing it); None: fine."""
        if self._watch.failure is not None:
            self._kill()  # waits for a kill already under way in the reader thread
            return self._watch.failure
        assert self._proc is not None
        code = self._proc.poll()
        if code is not None and not self._stopping:
            self._watch.wait_log_closed(2.0)  # the log's last lines may hold the cause
            self._watch.probe_exited(code)
        elif not self._stopping:
            self._watch.check_limits(self.limits, serving=self._watch.ready)
            self._watch.check_deaths()
        if self._watch.failure is not None:
            self._kill()
        return self._watch.failure

    # ----------------------------------------------------------------- serving
    def request(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Send one request to a ready engine and wait for its reply (within ``request_s``)."""
        failure = self._check()
        if failure is not None or self._proc is None or self._proc.stdin is None:
            raise EngineError(self._unhealthy_message(), failure)
        if self._stopping:
            raise EngineError(f"engine {self.config.id} was stopped")
        self._request_id += 1
        request_id = self._request_id
        try:
            self._proc.stdin.write((json.dumps({**payload, "id": request_id}) + "\n").encode())
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError):
            self._watch.wait_log_closed(2.0)
        deadline = time.monotonic() + self.limits.request_s
        while True:
            reply = self._watch.take_reply(request_id)
            if reply is not None:
                if reply.get("engine_dead"):
                    self._settle_after_error()
                return reply
            failure = self._check()
            if failure is not None:
                raise EngineError(self._unhealthy_message(), failure)
            if time.monotonic() > deadline:
                self._watch.request_timeout(self.limits.request_s)
                self._kill()
                raise EngineError(self._unhealthy_message(), self._watch.failure)
            self._watch.wait(0.05)

    def _settle_after_error(self) -> None:
        """The engine died under a request: give the log and the events a moment to say how."""
        deadline = time.monotonic() + 3.0
        while time.monotonic() < deadline:
            failure = self._check()
            if failure is not None:
                raise EngineError(self._unhealthy_message(), failure)
            self._watch.wait(0.05)
        # No cause turned up: the engine is dead all the same.
        self._watch.engine_dead_reply()
        self._kill()
        raise EngineError(self._unhealthy_message(), self._watch.failure)

    def _unhealthy_message(self) -> str:
        failure = self._watch.failure
        where = f"engine {self.config.id} (log: {self.log_path})"
        if failure is None:
            return f"{where} is not running"
        return f"{failure.summary}\n{where} is not healthy"

    # ----------------------------------------------------------------- stop
    def stop(self) -> EngineResult:
        """Ask the probe to shut down, give it ``shutdown_s``, then kill whatever is left."""
        if self._proc is None:
            return self.result
        if self._proc.poll() is None and not self._stopping and self._watch.failure is None:
            self._stopping = True
            with contextlib.suppress(BrokenPipeError, OSError, ValueError):
                assert self._proc.stdin is not None
                self._proc.stdin.write(b'{"cmd": "shutdown"}\n')
                self._proc.stdin.close()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._proc.wait(timeout=self.limits.shutdown_s)
        self._stopping = True
        self._kill()
        return self.result

    def kill(self) -> None:
        """Kill the whole engine now (idempotent, safe from any thread)."""
        self._stopping = True
        self._kill()

    def _kill(self) -> None:
        with self._kill_lock:
            self._kill_locked()

    def _kill_locked(self) -> None:
        proc = self._proc
        if proc is None:
            return
        leftover = kill_tree(proc.pid, TOKEN_ENV, self.token)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=5.0)
        with contextlib.suppress(OSError, ValueError):
            if proc.stdin is not None:
                proc.stdin.close()
        gone = time.monotonic()
        fatal_at = self._watch.fatal_line_time()
        if fatal_at is not None and self.fail_fast_s is None:
            self.fail_fast_s = gone - fatal_at
        if leftover:
            self._watch.note_leftover(leftover)
        _LIVE.discard(self)

    def pids(self) -> dict[int, str]:
        """Live processes of this engine: pid -> command line (process title)."""
        return find_by_token(TOKEN_ENV, self.token)

    @property
    def result_stage(self) -> str:
        """The stage the engine is in (or failed in)."""
        return self._watch.stage

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def result(self) -> EngineResult:
        proc = self._proc
        status = None if proc is None else proc.poll()
        return self._watch.result(self.config, str(self.log_path), status)


__all__ = [
    "DEFAULT_STAGE_LIMITS",
    "EngineError",
    "EngineProcess",
    "Limits",
    "ProgressCallback",
    "died_failure",
]
