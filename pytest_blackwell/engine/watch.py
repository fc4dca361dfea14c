"""`Watch`: the launcher's view of one engine, fed by the log and the events (thread-safe).

It owns the streaming classifier, the current stage and its clock, the timings, the replies to
requests, and the verdict: the first :class:`Failure` wins and is never replaced.
"""

from __future__ import annotations

import signal
import threading
import time
from dataclasses import replace
from typing import Any

from pytest_blackwell.engine.config import EngineConfig
from pytest_blackwell.engine.result import EngineResult
from pytest_blackwell.failures import StreamClassifier
from pytest_blackwell.failures.model import Failure

#: After an engine process dies, seconds to wait for the log to show an earlier cause.
SIGNAL_GRACE_S = 0.5
EXIT_GRACE_S = 2.0


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def died_failure(
    stage: str, *, what: str, pid: int | None, signal_number: int | None, exit_status: int | None
) -> Failure:
    """An ``engine_died`` failure for a process that ended without an error of its own."""
    detail: dict[str, Any] = {"process": what, "pid": pid}
    if signal_number is not None:
        name = _signal_name(signal_number)
        detail.update(signal=name, signal_number=signal_number)
        message = f"engine process {what} (pid {pid}) was killed by {name}"
    else:
        detail["exit_status"] = exit_status
        message = f"engine process {what} (pid {pid}) exited with status {exit_status}"
    return Failure("engine_died", stage, message, detail=detail)


def _lacks_signal(failure: Failure) -> bool:
    return failure.category == "engine_died" and "signal" not in failure.detail


def _prefer_cause(found: Failure | None, ours: Failure) -> Failure:
    """The classifier's failure when it names a real cause; else ours (it knows the signal).

    A classifier ``engine_died`` without a signal (e.g. vLLM's "engine core exited
    unexpectedly" warning) keeps its line and traceback but gains our detail and message.
    """
    if found is None:
        return ours
    if not _lacks_signal(found):
        return found
    return replace(found, first_error=ours.first_error, detail={**found.detail, **ours.detail})


class Watch:
    """State of one engine launch; every method may be called from any thread."""

    def __init__(self, rules: Any = None) -> None:
        self._cond = threading.Condition()
        self._classifier = StreamClassifier(rules=rules)
        self._classifier.note_stage("startup")  # the probe starts there: stages stay exact
        self.failure: Failure | None = None
        self.stage = "startup"
        self.ready = False
        self.tokens_per_s: float | None = None
        self.versions: dict[str, str] = {}
        self.info: dict[str, Any] = {}
        self.backends: list[str] = []
        self.leftover: list[int] = []
        self._t0 = time.monotonic()
        self._wall0 = time.time()
        self._stage_since = self._t0
        self._stage_wall = self._wall0
        self._timings: dict[str, float] = {}
        self._line_times: list[float] = []
        self._last_line = ""
        self._log_closed = False
        self._replies: dict[int, dict[str, Any]] = {}
        self._death: tuple[float, dict[str, Any]] | None = None
        self._pending_since: float | None = None

    # ------------------------------------------------------------------ inputs
    def started(self) -> None:
        with self._cond:
            self._t0 = self._stage_since = time.monotonic()
            self._wall0 = self._stage_wall = time.time()

    def feed(self, line: str) -> bool:
        """One log line; True exactly once, when the classifier says the engine must stop."""
        with self._cond:
            self._line_times.append(time.monotonic())
            if line.strip():
                self._last_line = line.strip()
            if self.failure is not None:
                return False
            self._classifier.feed(line)
            if not self._classifier.done or self._pending_since is not None:
                return False
            found = self._classifier.result()
            if found is not None and _lacks_signal(found) and self._death is None:
                # vLLM's own "engine died" line: wait briefly for the child_exit event that
                # names the signal (check_deaths settles it).
                self._pending_since = time.monotonic()
                return False
            self.failure = found
            self._cond.notify_all()
            return self.failure is not None

    def log_closed(self) -> None:
        with self._cond:
            self._log_closed = True
            self._cond.notify_all()

    def event(self, event: dict[str, Any]) -> None:
        with self._cond:
            kind = event.get("event")
            when = float(event.get("time", time.time()))
            if kind == "stage":
                self._enter(str(event["stage"]), when)
            elif kind == "info":
                self.info = event
                self.versions = {str(k): str(v) for k, v in (event.get("versions") or {}).items()}
            elif kind == "backend":
                self.backends = sorted(set(self.backends) | set(event.get("names") or []))
            elif kind == "ready":
                self._close_stage(when)
                self._timings["total"] = round(when - self._wall0, 3)
                tps = event.get("tokens_per_s")
                self.tokens_per_s = None if tps is None else float(tps)
                self.ready = True
            elif kind == "reply":
                self._replies[int(event["id"])] = event
            self._cond.notify_all()

    def _close_stage(self, when: float) -> None:
        spent = max(0.0, when - self._stage_wall)
        self._timings[self.stage] = round(self._timings.get(self.stage, 0.0) + spent, 3)

    def _enter(self, stage: str, when: float) -> None:
        if stage == self.stage:
            return
        if not self.ready:
            self._close_stage(when)
        self.stage = stage
        self._stage_since = time.monotonic()
        self._stage_wall = when
        if self.failure is None:
            self._classifier.note_stage(stage)

    def child_exit(self, event: dict[str, Any]) -> None:
        """An engine process ended; decide after a grace period (see :meth:`check_deaths`)."""
        with self._cond:
            if self.failure is not None or self._death is not None:
                return
            if event.get("signal") is None and not event.get("exit_code"):
                return  # a helper process finishing normally
            grace = SIGNAL_GRACE_S if event.get("signal") is not None else EXIT_GRACE_S
            self._death = (time.monotonic() + grace, event)
            self._cond.notify_all()

    # ------------------------------------------------------------------ verdicts
    def check_deaths(self) -> None:
        """Settle a pending death: the classifier's cause, ours (with the signal), or both."""
        with self._cond:
            if self.failure is not None:
                return
            now = time.monotonic()
            ours = None
            if self._death is not None:
                deadline, event = self._death
                ours = died_failure(
                    self.stage,
                    what=str(event.get("title") or "child"),
                    pid=event.get("child"),
                    signal_number=event.get("signal"),
                    exit_status=event.get("exit_code"),
                )
            found = self._classifier.result() if self._classifier.done else None
            if ours is not None and (found is not None or now >= deadline):
                self.failure = _prefer_cause(found or self._classifier.result(), ours)
            elif (
                found is not None
                and self._pending_since is not None
                and now - self._pending_since >= SIGNAL_GRACE_S
            ):
                self.failure = found
            if self.failure is not None:
                self._cond.notify_all()

    def probe_exited(self, code: int) -> None:
        with self._cond:
            if self.failure is not None:
                return
            ours = died_failure(
                self.stage,
                what="probe",
                pid=None,
                signal_number=-code if code < 0 else None,
                exit_status=code if code >= 0 else None,
            )
            self.failure = _prefer_cause(self._classifier.result(), ours)
            self._cond.notify_all()

    def check_limits(self, limits: Any, *, serving: bool) -> None:
        with self._cond:
            if self.failure is not None or serving:
                return
            now = time.monotonic()
            stage_limit = float(limits.for_stage(self.stage))
            in_stage = now - self._stage_since
            total = now - self._t0
            if in_stage > stage_limit:
                self._timeout(in_stage, stage_limit, "stage")
            elif total > float(limits.startup_s):
                self._timeout(total, float(limits.startup_s), "startup")

    def engine_dead_reply(self) -> None:
        """vLLM reported its engine dead to a request and nothing names a cause."""
        with self._cond:
            if self.failure is None:
                self.failure = _prefer_cause(
                    self._classifier.result(),
                    Failure(
                        "engine_died",
                        self.stage,
                        "vLLM reported its engine dead (EngineDeadError) with no earlier cause",
                        detail={"process": "EngineCore"},
                    ),
                )
                self._cond.notify_all()

    def request_timeout(self, limit: float) -> None:
        with self._cond:
            if self.failure is None:
                self.stage = "execute"
                self._timeout(limit, limit, "request")

    def _timeout(self, elapsed: float, limit: float, kind: str) -> None:
        what = {
            "stage": f"in stage {self.stage}",
            "startup": "before the engine was ready",
            "request": "for a request",
        }[kind]
        self.failure = Failure(
            "timeout",
            self.stage,
            f"no progress {what} for {elapsed:.0f} s (limit {limit:g} s)",
            detail={
                "limit_s": limit,
                "elapsed_s": round(elapsed, 1),
                "limit": kind,
                "last_log_line": self._last_line,
            },
        )
        self._cond.notify_all()

    def note_leftover(self, pids: list[int]) -> None:
        with self._cond:
            self.leftover = pids

    # ------------------------------------------------------------------ queries
    def take_reply(self, request_id: int) -> dict[str, Any] | None:
        with self._cond:
            return self._replies.pop(request_id, None)

    def wait(self, timeout: float) -> None:
        with self._cond:
            self._cond.wait(timeout)

    def wait_log_closed(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        with self._cond:
            while not self._log_closed and time.monotonic() < deadline:
                self._cond.wait(0.05)

    @property
    def finished(self) -> bool:
        return self._log_closed

    def elapsed(self) -> float:
        return time.monotonic() - self._t0

    def fatal_line_time(self) -> float | None:
        with self._cond:
            failure = self.failure
            if failure is None or failure.line <= 0 or failure.line > len(self._line_times):
                return None
            return self._line_times[failure.line - 1]

    def result(self, config: EngineConfig, log_path: str, status: int | None) -> EngineResult:
        with self._cond:
            timings = dict(self._timings)
            if self.failure is not None and not self.ready:
                timings[self.stage] = round(
                    timings.get(self.stage, 0.0) + time.monotonic() - self._stage_since, 3
                )
            return EngineResult(
                config_id=config.id,
                ok=self.ready and self.failure is None,
                failure=self.failure,
                timings=timings,
                tokens_per_s=self.tokens_per_s,
                log_path=log_path,
                exit_status=status,
                requested_backend=config.attention_backend,
                actual_backend="+".join(self.backends) or None,
                versions=dict(self.versions),
            )
