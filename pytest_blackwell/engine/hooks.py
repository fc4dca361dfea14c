"""Stage hooks and a child watcher, installed inside every engine process.

Stage events come from wrapping the vLLM functions that start each stage
(:data:`~pytest_blackwell.engine.stagepoints.STAGE_POINTS`) and from torch's compile callbacks.
The hooks never import a module themselves: a module the engine has already imported is wrapped
at once, any other when the engine imports it (a ``sys.meta_path`` finder runs the wrapping
right after the module's own code). Importing ``vllm.v1.worker.cpu_worker`` in a GPU engine,
for example, would replace ``torch.cuda.Event`` and friends with CPU placeholders. A point this
vLLM lacks is skipped, so the log markers seen by the classifier remain the fallback. Nothing here
may break the engine: hook failures are swallowed.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.abc
import importlib.machinery
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from pytest_blackwell.engine.events import current_stage, emit, enter_stage
from pytest_blackwell.engine.pdeathsig import arm as arm_parent_death_signal
from pytest_blackwell.engine.stagepoints import (
    DYNAMO_CALLBACK_MODULE,
    RESTORE,
    STAGE_POINTS,
    StagePoint,
)

_INSTALLED = False
_MARK = "_pytest_blackwell_hook"

ModuleHook = Callable[[ModuleType], None]


class _HookedLoader(importlib.abc.Loader):
    """Runs the real loader, then the hooks; the module keeps its real loader afterwards."""

    def __init__(self, loader: Any, pending: dict[str, list[ModuleHook]], name: str) -> None:
        self._loader = loader
        self._pending = pending
        self._name = name

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        module: ModuleType | None = self._loader.create_module(spec)
        return module

    def exec_module(self, module: ModuleType) -> None:
        spec = module.__spec__
        if spec is not None:
            spec.loader = self._loader
        module.__loader__ = self._loader
        self._loader.exec_module(module)
        # Taken only now: a find_spec() that never loads the module must not use them up.
        _run_hooks(module, self._pending.pop(self._name, []))

    def __getattr__(self, name: str) -> Any:  # get_source, get_filename, is_package, ...
        return getattr(self._loader, name)


class PostImportFinder(importlib.abc.MetaPathFinder):
    """Calls hooks on a module right after the engine imports it (never imports anything)."""

    def __init__(self) -> None:
        self.hooks: dict[str, list[ModuleHook]] = {}
        self._busy = threading.local()

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        hooks = self.hooks.get(fullname)
        if not hooks or getattr(self._busy, "name", None) == fullname:
            return None
        self._busy.name = fullname
        try:
            spec = None
            for finder in sys.meta_path:
                if finder is self or not hasattr(finder, "find_spec"):
                    continue
                spec = finder.find_spec(fullname, path, target)
                if spec is not None:
                    break
        finally:
            self._busy.name = None
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        spec.loader = _HookedLoader(spec.loader, self.hooks, fullname)
        return spec


_FINDER = PostImportFinder()


def _run_hooks(module: ModuleType, hooks: Sequence[ModuleHook]) -> None:
    for hook in hooks:
        with contextlib.suppress(Exception):  # never break the engine's import
            hook(module)


def when_imported(name: str, hook: ModuleHook) -> None:
    """Call ``hook(module)`` now if ``name`` is imported, else right after it is (no import)."""
    module = sys.modules.get(name)
    if module is not None:
        _run_hooks(module, [hook])
        return
    _FINDER.hooks.setdefault(name, []).append(hook)
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)


def _attention_backends(worker: Any) -> list[str]:
    context = worker.vllm_config.compilation_config.static_forward_context
    names: set[str] = set()
    for layer in context.values():
        getter = getattr(layer, "get_attn_backend", None)
        if getter is not None:
            names.add(str(getter().get_name()))
    return sorted(names)


def _enter_compile() -> str | None:
    """Announce ``compile``; the stage to go back to afterwards."""
    previous = current_stage()
    enter_stage("compile")
    return previous


def wrap_point(owner: Any, point: StagePoint) -> bool:
    """Wrap ``owner.<point.attr>`` (its own attribute only); False when it has none."""
    attr = point.attr
    original = owner.__dict__.get(attr) if isinstance(owner, type) else getattr(owner, attr, None)
    if original is None or not callable(original) or getattr(original, _MARK, False):
        return False

    @functools.wraps(original)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if point.skip_if_true is not None and kwargs.get(point.skip_if_true):
            return original(*args, **kwargs)  # a measurement, not the stage itself
        previous = current_stage()
        enter_stage(point.before)
        result = original(*args, **kwargs)  # on an error the stage stays where it failed
        if attr == "load_model" and args:
            with contextlib.suppress(Exception):
                emit("backend", names=_attention_backends(args[0]))
        if point.after == RESTORE:
            if previous is not None and previous != point.before:
                enter_stage(previous)
        elif point.after is not None:
            enter_stage(point.after)
        return result

    setattr(wrapper, _MARK, True)
    setattr(owner, attr, wrapper)
    return True


def _point_hook(point: StagePoint) -> ModuleHook:
    def hook(module: ModuleType) -> None:
        owner = getattr(module, point.owner) if point.owner else module
        wrap_point(owner, point)

    return hook


def _dynamo_hook(module: ModuleType) -> None:
    """Dynamo tracing starts before vLLM's backend is called: follow torch's own callbacks."""
    handler = module.callback_handler
    if getattr(handler, _MARK, False):
        return
    resume: list[str | None] = []

    def on_start(*_: Any) -> None:
        resume.append(_enter_compile())

    def on_end(*_: Any) -> None:
        previous = resume.pop() if resume else None
        if sys.exc_info()[0] is not None:
            return  # torch runs end callbacks in a finally: a failed compile stays `compile`
        if previous is not None and previous != "compile":
            enter_stage(previous)

    handler.register_start_callback(on_start)
    handler.register_end_callback(on_end)
    with contextlib.suppress(Exception):
        setattr(handler, _MARK, True)


def install_stage_hooks() -> None:
    """Wrap the stage points of the running vLLM as its modules load (idempotent)."""
    global _INSTALLED
    if _INSTALLED:
        return
    _INSTALLED = True
    for point in STAGE_POINTS:
        when_imported(point.module, _point_hook(point))
    when_imported(DYNAMO_CALLBACK_MODULE, _dynamo_hook)


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


def _hook_multiprocessing_reaping(popen_fork: ModuleType) -> None:
    """Report children that vLLM's own process monitor reaps before the watcher looks."""
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
    popen_fork.Popen.poll = poll


def start_child_watcher(interval_s: float = 0.2) -> bool:
    """Report deaths of this process's children as ``child_exit`` events (Linux only)."""
    when_imported("multiprocessing.popen_fork", _hook_multiprocessing_reaping)
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
