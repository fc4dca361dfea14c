"""The probe's event channel: JSON lines appended to a file, apart from the engine's log.

Every engine process (the probe, and vLLM's EngineCore and workers it spawns) appends to the
same file, named by ``$PYTEST_BLACKWELL_EVENTS``. Each line is one object with ``event``,
``time`` (wall clock), ``pid`` and event-specific fields:

- ``stage``: ``stage`` entered (a name from the failure vocabulary, or ``ready``);
- ``info``: ``versions`` (vllm, torch, python), ``platform``, ``engine_kwargs`` (as passed),
  ``multiprocessing`` (bool);
- ``backend``: ``names`` of the attention backends the layers really use;
- ``ready``: ``tokens_per_s`` of the probe's own short requests, ``seconds`` they took;
- ``reply``: ``id`` of the request, and ``texts`` + ``token_ids`` or ``error``;
- ``child_exit``: an engine process's child ``pid`` (``title``) ended with ``exit_code`` or
  ``signal`` (seen without reaping it).
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

#: Path of the events file (set by the launcher for the whole engine process tree).
EVENTS_ENV = "PYTEST_BLACKWELL_EVENTS"
#: Test switch: stall the named stage forever so the watchdog's timeout can be exercised.
STALL_ENV = "PYTEST_BLACKWELL_PROBE_STALL"
#: Marks every process of one engine (the launcher sweeps by it).
TOKEN_ENV = "PYTEST_BLACKWELL_ENGINE_TOKEN"

_fd: int | None = None
_fd_pid: int | None = None
#: The stage this process announced last (``None``: none yet).
_current: str | None = None


def emit(event: str, **fields: Any) -> None:
    """Append one event; silently does nothing outside an engine process tree."""
    global _fd, _fd_pid
    path = os.environ.get(EVENTS_ENV)
    if not path:
        return
    if _fd is None or _fd_pid != os.getpid():
        _fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        _fd_pid = os.getpid()
    record = {"event": event, "time": time.time(), "pid": os.getpid(), **fields}
    # One write() per line: O_APPEND keeps lines from different processes whole.
    os.write(_fd, (json.dumps(record, default=str) + "\n").encode())


def stall_requested(stage: str) -> bool:
    return os.environ.get(STALL_ENV, "") == stage


def current_stage() -> str | None:
    """The stage this process announced last, or ``None``."""
    return _current


def enter_stage(stage: str) -> None:
    """Announce ``stage``; stall here forever when the test switch names it."""
    global _current
    _current = stage
    emit("stage", stage=stage)
    if stall_requested(stage):
        print(
            f"pytest-blackwell probe: stalling stage {stage!r} on purpose ({STALL_ENV}={stage})",
            flush=True,
        )
        while True:
            time.sleep(3600)
