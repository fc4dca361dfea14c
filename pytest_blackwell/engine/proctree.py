"""Finding and killing every process of one engine.

Each engine's processes carry a unique token in their environment (inherited by everything vLLM
spawns, even after reparenting or a new session). On Linux ``/proc`` is enough; elsewhere
``psutil`` is used when installed, and the process group always gets killed.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import signal
import time
from pathlib import Path
from typing import Any

_PROC = Path("/proc")


def _proc_state(pid: int) -> str:
    try:
        stat = (_PROC / str(pid) / "stat").read_text()
    except OSError:
        return ""
    return stat.rsplit(")", 1)[-1].split()[0]


def _title(pid: int) -> str:
    try:
        raw = (_PROC / str(pid) / "cmdline").read_bytes()
    except OSError:
        return ""
    return raw.replace(b"\0", b" ").decode(errors="replace").strip()


def find_by_token(env_name: str, token: str) -> dict[int, str]:
    """Live (non-zombie) processes whose environment has ``env_name=token``: pid -> title."""
    needle = f"{env_name}={token}".encode()
    found: dict[int, str] = {}
    if _PROC.is_dir():
        for entry in _PROC.iterdir():
            if not entry.name.isdigit():
                continue
            pid = int(entry.name)
            try:
                environ = (entry / "environ").read_bytes()
            except OSError:
                continue
            if needle in environ.split(b"\0") and _proc_state(pid) not in ("Z", "X", ""):
                found[pid] = _title(pid)
        return found
    try:
        psutil: Any = importlib.import_module("psutil")
    except ImportError:
        return found
    for proc in psutil.process_iter(["pid", "cmdline"]):
        with contextlib.suppress(psutil.Error):
            if proc.environ().get(env_name) == token and proc.status() != psutil.STATUS_ZOMBIE:
                found[proc.pid] = " ".join(proc.info["cmdline"] or [])
    return found


def kill_group(pgid: int, sig: int = signal.SIGKILL) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def kill_tree(pgid: int | None, env_name: str, token: str, *, wait_s: float = 3.0) -> list[int]:
    """SIGKILL the process group and every token holder until none is left.

    Returns the pids that were still alive after ``wait_s`` (empty on success).
    """
    deadline = time.monotonic() + wait_s
    while True:
        if pgid is not None:
            kill_group(pgid)
        alive = find_by_token(env_name, token)
        for pid in alive:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        if not alive or time.monotonic() > deadline:
            return sorted(alive)
        time.sleep(0.05)
