"""GPU memory for engines that share a GPU, and GPUs already taken by another process.

vLLM's ``gpu_memory_utilization`` (default 0.9) is the share of a GPU's *total* memory one engine
may use, and at start-up vLLM refuses to run unless that much is *free* ("Free memory on device
... is less than desired GPU memory utilization"). Two engines on one GPU at the default
therefore never fit. :func:`memory_share` splits the budget between the engines that may run on
one GPU at once (or refuses an explicit value that cannot fit), and :func:`occupied_failure`
turns a GPU that is already taken by another process into an ``env_mismatch`` naming that
process, before the launch, so it never reads as the configuration's failure.

Everything here is pure: NVML readings come in as :class:`GpuReading` (see :func:`read_nvml`,
which imports NVML lazily and returns ``None`` without it).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pytest_blackwell.failures.model import Failure
from pytest_blackwell.units import GIB

#: vLLM's default ``gpu_memory_utilization``.
VLLM_DEFAULT_UTILIZATION = 0.9
#: What the engines on one GPU may ask for together: every engine process also holds a CUDA
#: context (~0.3-1 GiB) outside its budget, so the sum must stay below the whole GPU.
SHARED_CEILING = 0.95
#: Environment variable the probe reads: the ``gpu_memory_utilization`` to use when the
#: configuration sets none (applied on GPU builds only).
SHARE_ENV = "PYTEST_BLACKWELL_GPU_MEMORY_SHARE"


class BudgetError(ValueError):
    """Engines sharing a GPU cannot all get the memory their configurations ask for."""


@dataclass(frozen=True)
class GpuProcess:
    pid: int
    used_bytes: int | None
    name: str = ""


@dataclass(frozen=True)
class GpuReading:
    """One GPU as NVML sees it right now (``index``: NVML/PCI order)."""

    index: int
    name: str
    total_bytes: int
    free_bytes: int
    processes: tuple[GpuProcess, ...] = ()
    uuid: str | None = None


def engines_per_gpu(*, max_engines: int, workers: int, gpu_count: int, per_worker: int) -> int:
    """How many engines may be alive on one GPU at the same time.

    ``max_engines`` engines per process; ``workers`` xdist workers (1 without xdist) handed out
    in groups of ``per_worker`` GPUs, wrapping around when there are more workers than groups
    (see :mod:`pytest_blackwell.engine.gpu_assign`).
    """
    if gpu_count <= 0:
        return max(1, max_engines)
    groups = max(1, gpu_count // max(1, per_worker))
    workers_per_group = math.ceil(max(1, workers) / groups)
    return max(1, max_engines) * workers_per_group


def memory_share(requested: float | None, sharing: int, *, why: str) -> float | None:
    """The ``gpu_memory_utilization`` one engine gets when ``sharing`` engines share a GPU.

    ``None`` (alone on its GPU, nothing to change) or the split default. An explicit
    ``requested`` value is kept when ``sharing`` of them fit, else :class:`BudgetError` says
    what would fit; ``why`` explains the sharing (e.g. which options cause it).
    """
    if sharing <= 1:
        return None
    if requested is None:
        return math.floor(VLLM_DEFAULT_UTILIZATION / sharing * 1000) / 1000
    if requested * sharing > SHARED_CEILING:
        fits = math.floor(SHARED_CEILING / sharing * 100) / 100
        raise BudgetError(
            f"gpu_memory_utilization {requested:g} cannot fit: {sharing} engines may share one "
            f"GPU ({why}) and together they would ask for {requested * sharing:.2f} of it "
            f"(at most {SHARED_CEILING:g}); use gpu_memory_utilization <= {fits:g}, a "
            "kv_cache_memory_bytes budget with a smaller gpu_memory_utilization, or fewer "
            "engines per GPU"
        )
    return requested


def _gib(nbytes: int | None) -> str:
    return "?" if nbytes is None else f"{nbytes / GIB:.1f} GiB"


def occupied_failure(
    gpus: Sequence[GpuReading], utilization: float, own_pids: Sequence[int] = ()
) -> Failure | None:
    """An ``env_mismatch`` when a GPU lacks the free memory the engine will ask for at start-up.

    ``utilization``: the engine's ``gpu_memory_utilization``; ``own_pids``: processes of this
    session's own engines (named as such, not as strangers). ``None`` when every GPU has room.
    """
    for gpu in gpus:
        needed = int(gpu.total_bytes * utilization)
        if gpu.free_bytes >= needed:
            continue
        own = set(own_pids)
        others = [p for p in gpu.processes if p.pid not in own]
        ours = [p for p in gpu.processes if p.pid in own]
        holders = ", ".join(
            f"pid {p.pid}{f' ({p.name})' if p.name else ''} uses {_gib(p.used_bytes)}"
            for p in sorted(others, key=lambda p: -(p.used_bytes or 0))
        )
        if others:
            who = f"other processes hold it: {holders}"
        elif ours:
            who = "this session's own engines hold it (lower --blackwell-max-engines)"
        else:
            who = "no process is listed (another container, or a MIG or vGPU tenant, holds it)"
        message = (
            f"GPU {gpu.index} ({gpu.name}) has {_gib(gpu.free_bytes)} free of "
            f"{_gib(gpu.total_bytes)}, but the engine needs {_gib(needed)} free at start-up "
            f"(gpu_memory_utilization {utilization:g}); {who}"
        )
        detail: dict[str, Any] = {
            "gpu": gpu.index,
            "gpu_name": gpu.name,
            "free_bytes": gpu.free_bytes,
            "total_bytes": gpu.total_bytes,
            "needed_bytes": needed,
            "gpu_memory_utilization": utilization,
            "processes": [
                {"pid": p.pid, "name": p.name, "used_bytes": p.used_bytes, "own": p.pid in own}
                for p in gpu.processes
            ],
        }
        return Failure("env_mismatch", "startup", message, detail=detail)
    return None


def select(gpus: Sequence[GpuReading], entries: Sequence[str] | None) -> list[GpuReading]:
    """The readings of the GPUs ``CUDA_VISIBLE_DEVICES`` entries name (all when ``None``).

    Index and ``GPU-`` UUID (prefix) entries are matched; MIG entries are skipped (NVML reports
    a MIG instance's memory on its own handle, which this check does not read).
    """
    if entries is None:
        return list(gpus)
    chosen: list[GpuReading] = []
    for entry in entries:
        if entry.isdigit():
            chosen += [g for g in gpus if g.index == int(entry)]
        elif entry.upper().startswith("GPU-"):
            key = entry.lower()
            chosen += [g for g in gpus if g.uuid is not None and g.uuid.lower().startswith(key)]
    return chosen


def read_nvml(nvml: Any = None) -> list[GpuReading] | None:
    """Every GPU's memory and compute processes from NVML; ``None`` without NVML or a driver.

    ``nvml``: a ``pynvml``-like module to use instead of importing ``pynvml``.
    """
    pynvml = nvml
    if pynvml is None:
        import importlib

        try:
            pynvml = importlib.import_module("pynvml")
        except ImportError:
            return None
    try:
        pynvml.nvmlInit()
    except Exception:
        return None
    try:
        return [_reading(pynvml, i) for i in range(pynvml.nvmlDeviceGetCount())]
    except Exception:
        return None
    finally:
        with contextlib.suppress(Exception):
            pynvml.nvmlShutdown()


def _reading(pynvml: Any, index: int) -> GpuReading:
    handle = pynvml.nvmlDeviceGetHandleByIndex(index)
    memory = pynvml.nvmlDeviceGetMemoryInfo(handle)
    name = pynvml.nvmlDeviceGetName(handle)
    uuid = pynvml.nvmlDeviceGetUUID(handle)
    processes: list[GpuProcess] = []
    with contextlib.suppress(Exception):
        for proc in pynvml.nvmlDeviceGetComputeRunningProcesses(handle):
            used = getattr(proc, "usedGpuMemory", None)
            processes.append(
                GpuProcess(
                    int(proc.pid), None if used is None else int(used), _process_name(int(proc.pid))
                )
            )
    return GpuReading(
        index=index,
        name=name.decode() if isinstance(name, bytes) else str(name),
        total_bytes=int(memory.total),
        free_bytes=int(memory.free),
        processes=tuple(processes),
        uuid=uuid.decode() if isinstance(uuid, bytes) else str(uuid),
    )


def _process_name(pid: int) -> str:
    try:
        import psutil

        return " ".join(psutil.Process(pid).cmdline())[:120] or psutil.Process(pid).name()
    except Exception:  # another container's pid, or gone already
        return ""


def prepare_launch(
    env: dict[str, str],
    requested: float | None,
    *,
    sharing: int,
    why: str,
    vllm_version: tuple[int, ...],
    readings: Sequence[GpuReading] | None,
    own_pids: Sequence[int] = (),
) -> Failure | None:
    """Everything checked on a GPU host right before a launch; adds to ``env`` what it decides.

    1. ``CUDA_VISIBLE_DEVICES`` is rewritten into what vLLM ``vllm_version`` accepts
       (:func:`~pytest_blackwell.device.visible.entries_for_vllm`);
    2. the engine's memory share goes to :data:`SHARE_ENV` (:func:`memory_share`);
    3. the GPUs it will use must have that much free (:func:`occupied_failure`), when
       ``readings`` (NVML) are available.

    Raises :class:`BudgetError` or ``VisibleDevicesError`` (nothing may be launched); returns
    the ``env_mismatch`` failure that stands for the launch, or ``None``.
    """
    from pytest_blackwell.device.visible import ENV_VAR, entries_for_vllm, visible_entries

    entries = visible_entries(env)
    if entries:
        uuids = None
        if readings is not None:
            uuids = {r.index: r.uuid for r in readings if r.uuid is not None}
        entries, extra = entries_for_vllm(
            entries, vllm_version, uuids, origin=f"{ENV_VAR}={env[ENV_VAR]!r}"
        )
        env[ENV_VAR] = ",".join(entries)
        env.update(extra)
    share = memory_share(requested, sharing, why=why)
    if share is not None and requested is None:
        env[SHARE_ENV] = f"{share:g}"
    if readings is None:
        return None
    utilization = requested if requested is not None else share or VLLM_DEFAULT_UTILIZATION
    return occupied_failure(select(readings, entries), utilization, own_pids)
