"""Which GPUs an xdist worker's engines may use (``CUDA_VISIBLE_DEVICES`` for its engines)."""

from __future__ import annotations

import re


def worker_index(worker_id: str | None) -> int | None:
    """``gw3`` -> 3; ``None`` (not an xdist worker) -> ``None``."""
    if not worker_id:
        return None
    match = re.fullmatch(r"gw(\d+)", worker_id)
    return int(match.group(1)) if match else None


def visible_for_worker(
    gpu_count: int, worker_id: str | None, per_worker: int, outer: str | None
) -> str | None:
    """The ``CUDA_VISIBLE_DEVICES`` value for one worker's engines, or ``None`` to leave it.

    Worker ``gwN`` gets ``per_worker`` consecutive GPUs starting at ``N * per_worker``, wrapping
    around when there are more workers than GPU groups (engines of two workers then share a
    GPU, and the report header says so). ``outer`` is the ``CUDA_VISIBLE_DEVICES`` the session was
    started with: its entries (indices, ``GPU-<uuid>`` or MIG ids) are what gets handed out, so an
    outer restriction is respected; it is read the way CUDA reads it (up to the first entry
    that is not a device), and a value that hides every GPU is left alone.
    """
    index = worker_index(worker_id)
    if index is None or gpu_count <= 0 or per_worker <= 0:
        return None
    from pytest_blackwell.device.visible import visible_entries

    entries = visible_entries({} if outer is None else {"CUDA_VISIBLE_DEVICES": outer})
    if entries == []:
        return None  # the outer value hides every GPU: nothing to hand out, leave it as is
    ids = entries if entries is not None else [str(i) for i in range(gpu_count)]
    groups = max(1, len(ids) // per_worker)
    start = (index % groups) * per_worker
    return ",".join(ids[start : start + per_worker])
