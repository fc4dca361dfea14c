"""Finding and killing every process of one engine (with psutil).

Each engine's processes carry a unique token in their environment, inherited by everything vLLM
spawns, even after reparenting or a new session; the process group is killed as well. psutil
reads process tables the same way wherever it runs, so nothing here parses ``/proc`` by hand.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time

import psutil

_GONE = (psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD)


def _title(proc: psutil.Process) -> str:
    with contextlib.suppress(psutil.Error):
        return " ".join(proc.cmdline()).strip()
    return ""


def _raw_environ_has(pid: int, needle: bytes) -> bool:
    """Whole-block check of a process's initial environment (Linux).

    A process title set with ``setproctitle`` (vLLM names its processes ``VLLM::EngineCore``)
    overwrites the start of that block with NULs; psutil's parser stops at the first empty
    entry and misses the rest, so the block is searched as a whole.
    """
    try:
        with open(f"/proc/{pid}/environ", "rb") as fh:
            return needle in fh.read().split(b"\0")
    except OSError:
        return False


def find_by_token(env_name: str, token: str) -> dict[int, str]:
    """Live (non-zombie) processes whose environment has ``env_name=token``: pid -> title.

    Processes of other users, or that vanish while being read, are passed over.
    """
    needle = f"{env_name}={token}".encode()
    found: dict[int, str] = {}
    for proc in psutil.process_iter():
        if proc.pid == os.getpid():
            continue
        with contextlib.suppress(psutil.Error):
            if proc.environ().get(env_name) != token and not _raw_environ_has(proc.pid, needle):
                continue
            if proc.status() in _GONE:
                continue
            found[proc.pid] = _title(proc)
    return found


def kill_group(pgid: int, sig: int = signal.SIGKILL) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _running_in_group(pgid: int) -> list[int]:
    """Processes of group ``pgid`` that have not yet exited (zombies have).

    A process that is exiting (killed, or shutting down after its worker died) has already
    given up its memory, so its environment, and with it the token, can no longer be read.
    """
    running = []
    for proc in psutil.process_iter():
        with contextlib.suppress(psutil.Error, OSError):
            if os.getpgid(proc.pid) == pgid and proc.status() not in _GONE:
                running.append(proc.pid)
    return running


def kill_tree(pgid: int | None, env_name: str, token: str, *, wait_s: float = 3.0) -> list[int]:
    """SIGKILL the process group and every token holder until none is left running.

    Returns the pids that were still alive after ``wait_s`` (empty on success).
    """
    deadline = time.monotonic() + wait_s
    while True:
        if pgid is not None:
            kill_group(pgid)
        alive = list(find_by_token(env_name, token))
        for pid in alive:
            with contextlib.suppress(psutil.Error):
                psutil.Process(pid).kill()
        if not alive and pgid is not None:
            alive = _running_in_group(pgid)  # killed, but still exiting
        if not alive or time.monotonic() > deadline:
            return sorted(alive)
        time.sleep(0.05)
