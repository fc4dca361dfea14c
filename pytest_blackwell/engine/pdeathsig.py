"""Let the kernel end every engine process when its parent dies (Linux ``PR_SET_PDEATHSIG``).

pytest killed by ``SIGKILL`` (a cancelled CI job, the OOM killer) runs no cleanup at all, so the
engine must not depend on it. Each engine process asks the kernel for a signal when its parent
goes: pytest's death takes the probe (``SIGTERM``, on which it kills its process group), the
probe's death takes vLLM's EngineCore (``SIGKILL``), and so on down the tree. Three
properties of the setting shape this module:

- it is cleared in the child of a ``fork()``: :func:`arm` re-arms it in forked children
  (``os.register_at_fork``), and spawned Python children arm it when the probe's module is
  imported in them (see :func:`pytest_blackwell.engine.hooks.install_in_engine_process`);
- it fires when the *thread* that created the child ends, not the process: the launcher starts
  the probe from the main thread or from one long-lived thread (:func:`spawn_from_stable_thread`);
- a parent that died before the child armed it is missed: after arming, the child compares
  ``getppid()`` with the parent recorded in :data:`PARENT_ENV` and exits if it differs.

Elsewhere (macOS, Windows) :func:`arm` does nothing and says so; the launcher's process-group
kill and the probe's parent watch remain the second line.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import queue
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

#: The pid each engine process expects as its parent (set by whoever starts it).
PARENT_ENV = "PYTEST_BLACKWELL_PARENT_PID"

_PR_SET_PDEATHSIG = 1
_armed_signal: int | None = None
_at_fork_registered = False

T = TypeVar("T")


def _prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    except OSError:
        return None
    prctl: Callable[..., int] = libc.prctl
    return prctl


def supported() -> bool:
    """True where the kernel can deliver a parent-death signal (Linux)."""
    return _prctl() is not None


def _set(sig: int) -> bool:
    prctl = _prctl()
    if prctl is None:
        return False
    return prctl(_PR_SET_PDEATHSIG, ctypes.c_ulong(sig), 0, 0, 0) == 0


#: The parent this process expects, read from :data:`PARENT_ENV` by the first :func:`arm`.
_expected_parent: int | None = None
#: The process the state above belongs to (a forked child inherits it and must not trust it).
_state_pid: int | None = None


def arm(sig: int | None = None) -> bool:
    """Ask for ``sig`` (default: what this process armed before, else SIGKILL) when this
    process's parent dies; exit now if it is already gone.

    Also re-arms in every child this process forks, and records this process as the parent
    its own children expect. Idempotent. Returns False where the platform has no
    parent-death signal.
    """
    global _armed_signal, _at_fork_registered, _expected_parent, _state_pid
    if _state_pid != os.getpid():
        _state_pid = os.getpid()
        _armed_signal = None
        expected = os.environ.get(PARENT_ENV, "")
        _expected_parent = int(expected) if expected.isdigit() else None
    if sig is None:  # keep what this process armed already (the probe's SIGTERM)
        sig = _armed_signal if _armed_signal is not None else signal.SIGKILL
    ok = _set(sig)
    if ok and _expected_parent is not None and os.getppid() != _expected_parent:
        # The parent died between our start and the prctl call: the signal will never come.
        os._exit(1)
    _armed_signal = sig if ok else None
    os.environ[PARENT_ENV] = str(os.getpid())
    if not _at_fork_registered:
        _at_fork_registered = True
        os.register_at_fork(before=_before_fork, after_in_child=_after_fork_in_child)
    return ok


_fork_parent: int | None = None


def _before_fork() -> None:
    global _fork_parent
    _fork_parent = os.getpid()


def _after_fork_in_child() -> None:
    global _armed_signal, _expected_parent, _state_pid
    if _armed_signal is None:
        return
    _state_pid, _expected_parent = os.getpid(), _fork_parent
    # A forked child has nothing to clean up: it simply dies with its parent.
    _armed_signal = signal.SIGKILL
    _set(_armed_signal)
    if _fork_parent is not None and os.getppid() != _fork_parent:
        os._exit(1)
    os.environ[PARENT_ENV] = str(os.getpid())


def armed_signal() -> int | None:
    """The parent-death signal armed in this process by :func:`arm` (``None``: not armed)."""
    return _armed_signal


# ---------------------------------------------------------------- the launching side


class _Spawner:
    """One long-lived daemon thread that starts children for threads that may end sooner."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[tuple[Callable[[], Any], queue.SimpleQueue[Any]]] = (
            queue.SimpleQueue()
        )
        thread = threading.Thread(target=self._run, name="pytest-blackwell-spawner", daemon=True)
        thread.start()

    def _run(self) -> None:
        while True:
            job, reply = self._jobs.get()
            try:
                reply.put((True, job()))
            except BaseException as exc:  # handed back to the caller, raised there
                reply.put((False, exc))

    def call(self, job: Callable[[], T]) -> T:
        reply: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._jobs.put((job, reply))
        ok, value = reply.get()
        if not ok:
            raise value
        result: T = value
        return result


_spawner: _Spawner | None = None
_spawner_lock = threading.Lock()


def spawn_from_stable_thread(start: Callable[[], T]) -> T:
    """Run ``start`` (which creates a child process) on a thread that lives as long as we do.

    The kernel sends the parent-death signal when the creating *thread* exits; a child made
    by a short-lived worker thread would be killed with that thread.
    """
    global _spawner
    if threading.current_thread() is threading.main_thread():
        return start()
    with _spawner_lock:
        if _spawner is None:
            _spawner = _Spawner()
    return _spawner.call(start)


__all__ = ["PARENT_ENV", "arm", "armed_signal", "spawn_from_stable_thread", "supported"]
