"""``CUDA_VISIBLE_DEVICES``: which GPUs a CUDA process sees, and in which order.

CUDA reads the variable as a comma-separated list of device indices, ``GPU-<uuid>`` (a unique
prefix is enough) or ``MIG-<uuid>`` entries, and stops at the first entry it cannot use: an
empty value or ``-1`` therefore hides every GPU, and ``0,-1,1`` shows only GPU 0.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from pytest_blackwell.device.model import DeviceInfo

ENV_VAR = "CUDA_VISIBLE_DEVICES"


def visible_entries(env: Mapping[str, str]) -> list[str] | None:
    """The entries of ``CUDA_VISIBLE_DEVICES`` up to the first unusable one.

    ``None`` when the variable is unset (every GPU is visible); an empty list when it hides
    every GPU.
    """
    raw = env.get(ENV_VAR)
    if raw is None:
        return None
    entries: list[str] = []
    for entry in raw.split(","):
        entry = entry.strip()
        if not (entry.isdigit() or entry.upper().startswith(("GPU-", "MIG-"))):
            break
        entries.append(entry)
    return entries


def hidden_reason(env: Mapping[str, str]) -> str | None:
    """Why no GPU can be visible (``CUDA_VISIBLE_DEVICES`` hides them all), else ``None``."""
    if visible_entries(env) == []:
        return f"{ENV_VAR}={env.get(ENV_VAR, '')!r} hides every GPU"
    return None


def select_visible(
    physical: Sequence[DeviceInfo],
    entries: Sequence[str],
    notes: list[str],
    lookup_mig: Callable[[str], DeviceInfo | None] | None = None,
) -> list[DeviceInfo]:
    """Pick and order ``physical`` devices (in NVML/PCI order) as ``entries`` say.

    Returned devices are renumbered ``0..N-1`` (the CUDA ordinals the process sees) and keep
    their physical index in ``extra["physical_index"]``. Entries that match nothing stop the
    selection as they stop CUDA's, with a line added to ``notes``.
    """
    chosen: list[DeviceInfo] = []
    for entry in entries:
        device = _match(entry, physical, lookup_mig)
        problem = None
        if device is None:
            problem = "matches no GPU"
        elif any(_same(device, other) for other in chosen):
            problem = "repeats an earlier entry"
        if problem is not None or device is None:
            notes.append(
                f"{ENV_VAR} entry {entry!r} {problem}; CUDA ignores it and every entry after it"
            )
            break
        chosen.append(device)
    return [
        replace(device, index=i, extra={**device.extra, "physical_index": device.index})
        for i, device in enumerate(chosen)
    ]


def _match(
    entry: str,
    physical: Sequence[DeviceInfo],
    lookup_mig: Callable[[str], DeviceInfo | None] | None,
) -> DeviceInfo | None:
    if entry.isdigit():
        index = int(entry)
        return physical[index] if index < len(physical) else None
    if entry.upper().startswith("MIG-"):
        return lookup_mig(entry) if lookup_mig is not None else None
    wanted = uuid_key(entry)
    found = [d for d in physical if d.uuid is not None and uuid_key(d.uuid).startswith(wanted)]
    return found[0] if len(found) == 1 else None


def _same(a: DeviceInfo, b: DeviceInfo) -> bool:
    if a.uuid is not None and b.uuid is not None:
        return uuid_key(a.uuid) == uuid_key(b.uuid)
    return a.index == b.index


def uuid_key(uuid: str) -> str:
    """Comparable form of a UUID: NVML writes ``GPU-<hex>``, torch only ``<hex>``."""
    key = uuid.strip().lower()
    for prefix in ("gpu-", "mig-"):
        key = key.removeprefix(prefix)
    return key


# --- what the running vLLM accepts ----------------------------------------------------------

#: The first vLLM release that maps ``GPU-``/``MIG-`` entries itself (through NVML); releases
#: before it read every entry with ``int()`` (checked: 0.10.0 and 0.22.1 do, 0.25.0 does not).
VLLM_ACCEPTS_UUIDS = (0, 23)
#: Set with translated entries: NVML numbers GPUs in PCI bus order, CUDA by default does not.
ORDER_ENV = "CUDA_DEVICE_ORDER"


class VisibleDevicesError(ValueError):
    """``CUDA_VISIBLE_DEVICES`` names devices the running vLLM cannot be given."""


def entries_for_vllm(
    entries: Sequence[str],
    vllm_version: tuple[int, ...],
    uuids: Mapping[int, str] | None,
    *,
    origin: str = ENV_VAR,
) -> tuple[list[str], dict[str, str]]:
    """``CUDA_VISIBLE_DEVICES`` entries the running vLLM accepts, and environment to add.

    ``uuids``: NVML index -> full ``GPU-<uuid>`` (``None`` without NVML). vLLM before
    :data:`VLLM_ACCEPTS_UUIDS` gets ``GPU-`` entries as NVML indices (with
    ``CUDA_DEVICE_ORDER=PCI_BUS_ID`` so CUDA counts the same way) and cannot be given a MIG
    instance at all; later releases look UUIDs up in NVML themselves and get unique prefixes
    completed. Raises :class:`VisibleDevicesError` saying what to do instead.
    """
    old = bool(vllm_version) and vllm_version < VLLM_ACCEPTS_UUIDS
    version = ".".join(str(n) for n in vllm_version) or "unknown"
    result: list[str] = []
    translated = False
    for entry in entries:
        if entry.isdigit():
            result.append(entry)
            continue
        if entry.upper().startswith("MIG-"):
            if old:
                raise VisibleDevicesError(
                    f"{origin} entry {entry!r} is a MIG instance, and vLLM {version} reads every "
                    "entry as an integer index (int()); a MIG instance has no index. Use vLLM "
                    ">= 0.23, or give the whole GPU by index"
                )
            result.append(entry)
            continue
        matches = [
            (index, full)
            for index, full in sorted((uuids or {}).items())
            if uuid_key(full).startswith(uuid_key(entry))
        ]
        if len(matches) > 1:
            raise VisibleDevicesError(
                f"{origin} entry {entry!r} matches {len(matches)} GPUs "
                f"({', '.join(full for _, full in matches)}); give more of the UUID"
            )
        if not old:
            result.append(matches[0][1] if matches else entry)
            continue
        if uuids is None:
            raise VisibleDevicesError(
                f"{origin} entry {entry!r} is a GPU UUID, and vLLM {version} reads every entry "
                "as an integer index (int()); mapping it needs NVML: install nvidia-ml-py, or "
                "give GPUs by index"
            )
        if not matches:
            raise VisibleDevicesError(
                f"{origin} entry {entry!r} matches none of this machine's GPUs "
                f"({', '.join(uuids.values()) or 'none found'})"
            )
        result.append(str(matches[0][0]))
        translated = True
    return result, ({ORDER_ENV: "PCI_BUS_ID"} if translated else {})
