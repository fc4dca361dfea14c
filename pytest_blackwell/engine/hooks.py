"""Stage hooks and a child watcher, installed inside every engine process.

Stage events come from wrapping the vLLM worker/engine methods that start each stage (reliable
across the CPU and GPU workers of current vLLM); a missing method is skipped, so log markers
seen by the classifier remain the fallback. Nothing here may break the engine: hook failures
are swallowed.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import os
import threading
import time
from pathlib import Path
from typing import Any

from pytest_blackwell.engine.events import emit, enter_stage
from pytest_blackwell.engine.pdeathsig import arm as arm_parent_death_signal

_INSTALLED = False

#: (module, class or "" for a module-level function, attribute, stage before, stage after).
_STAGE_POINTS: tuple[tuple[str, str, str, str, str | None], ...] = (
    ("vllm.v1.worker.gpu_worker", "Worker", "load_model", "loading", None),
    ("vllm.v1.worker.cpu_worker", "CPUWorker", "load_model", "loading", None),
    ("vllm.v1.worker.gpu_worker", "Worker", "determine_available_memory", "profile", None),
    ("vllm.v1.worker.cpu_worker", "CPUWorker", "determine_available_memory", "profile", None),
    ("vllm.v1.engine.core", "", "get_kv_cache_configs", "kv_alloc", None),
    ("vllm.v1.worker.gpu_worker", "Worker", "initialize_from_config", "kv_alloc", None),
    ("vllm.v1.worker.gpu_worker", "Worker", "compile_or_warm_up_model", "warmup", None),
    ("vllm.v1.worker.cpu_worker", "CPUWorker", "compile_or_warm_up_model", "warmup", None),
    (
        "vllm.v1.worker.gpu_model_runner",
        "GPUModelRunner",
        "capture_model",
        "graph_capture",
        "warmup",
    ),
)


def _attention_backends(worker: Any) -> list[str]:
    context = worker.vllm_config.compilation_config.static_forward_context
    names: set[str] = set()
    for layer in context.values():
        getter = getattr(layer, "get_attn_backend", None)
        if getter is not None:
            names.add(str(getter().get_name()))
    return sorted(names)


def _wrap(owner: Any, attr: str, before: str, after: str | None) -> None:
    original = owner.__dict__.get(attr) if isinstance(owner, type) else getattr(owner, attr, None)
    if original is None or getattr(original, "_pytest_blackwell_hook", False):
        return

    @functools.wraps(original)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        enter_stage(before)
        result = original(*args, **kwargs)
        if attr == "load_model" and args:
            with contextlib.suppress(Exception):
                emit("backend", names=_attention_backends(args[0]))
        if after is not None:
            enter_stage(after)
        return result

    wrapper._pytest_blackwell_hook = True  # type: ignore[attr-defined]
    setattr(owner, attr, wrapper)


def install_stage_hooks() -> None:
    """Wrap the stage entry points of the installed vLLM (idempotent)."""
    global _INSTALLED
    if _INSTALLED:
        return
    _INSTALLED = True
    for module_name, class_name, attr, before, after in _STAGE_POINTS:
        try:
            module = importlib.import_module(module_name)
            owner = getattr(module, class_name) if class_name else module
        except Exception:  # a layout this vLLM does not have: skip the point
            continue
        _wrap(owner, attr, before, after)


def _children() -> set[int]:
    pids: set[int] = set()
    with contextlib.suppress(OSError):
        for task in Path("/proc/self/task").iterdir():
            with contextlib.suppress(OSError):
                pids.update(int(p) for p in (task / "children").read_text().split())
    return pids


def _title(pid: int) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return ""
    return raw.replace(b"\0", b" ").decode(errors="replace").strip()[:200]


_titles: dict[int, str] = {}
_reported: set[int] = set()
_report_lock = threading.Lock()


def _report_exit(pid: int, *, signal_number: int | None, exit_code: int | None) -> None:
    with _report_lock:
        if pid in _reported:
            return
        _reported.add(pid)
    emit(
        "child_exit",
        child=pid,
        title=_titles.get(pid) or _title(pid),
        signal=signal_number,
        exit_code=exit_code,
    )


def _watch_children(interval_s: float) -> None:
    while True:
        for pid in _children():
            _titles[pid] = _title(pid) or _titles.get(pid, "")
        for pid in list(_titles):
            if pid in _reported:
                _titles.pop(pid, None)
                continue
            try:
                # WNOWAIT: look at the exit status but leave reaping to vLLM.
                info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                continue  # reaped by its owner: the Popen.poll hook reports it
            if info is None:
                continue
            killed = info.si_code in (os.CLD_KILLED, os.CLD_DUMPED)
            _report_exit(
                pid,
                signal_number=info.si_status if killed else None,
                exit_code=None if killed else info.si_status,
            )
        time.sleep(interval_s)


def _hook_multiprocessing_reaping() -> None:
    """Report children that vLLM's own process monitor reaps before the watcher looks."""
    import multiprocessing.popen_fork as popen_fork

    original = popen_fork.Popen.poll
    if getattr(original, "_pytest_blackwell_hook", False):
        return

    @functools.wraps(original)
    def poll(self: Any, flag: int = os.WNOHANG) -> int | None:
        code: int | None = original(self, flag)
        if code is not None:
            with contextlib.suppress(Exception):
                _report_exit(
                    int(self.pid),
                    signal_number=-code if code < 0 else None,
                    exit_code=code if code >= 0 else None,
                )
        return code

    poll._pytest_blackwell_hook = True  # type: ignore[attr-defined]
    popen_fork.Popen.poll = poll  # type: ignore[method-assign]


def start_child_watcher(interval_s: float = 0.2) -> bool:
    """Report deaths of this process's children as ``child_exit`` events (Linux only)."""
    _hook_multiprocessing_reaping()
    if not Path("/proc/self/task").is_dir() or not hasattr(os, "waitid"):
        return False
    thread = threading.Thread(
        target=_watch_children, args=(interval_s,), name="pytest-blackwell-watch", daemon=True
    )
    thread.start()
    return True


def install_in_engine_process() -> None:
    """Everything an engine process needs: stage hooks and the child watcher."""
    arm_parent_death_signal()
    install_stage_hooks()
    start_child_watcher()
