"""`DeviceInfo`: what we know about one GPU (or the absence of one), as plain data."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from pytest_blackwell.units import GIB, KIB

#: Values of ``DeviceInfo.source``.
SOURCES = ("simulated", "nvml", "torch", "table", "none")


@dataclass(frozen=True)
class DeviceInfo:
    """One device. Sizes are bytes; ``compute_capability`` is ``(major, minor)``.

    ``source`` says which provider produced it. A CPU-only host is represented by a
    single ``DeviceInfo`` with ``is_gpu == False`` (the ``cpu`` profile or source ``none``).
    """

    name: str
    compute_capability: tuple[int, int] | None
    smem_per_sm_bytes: int = 0
    smem_per_block_bytes: int = 0
    smem_per_block_optin_bytes: int = 0
    total_memory_bytes: int = 0
    multiprocessor_count: int = 0
    driver_version: str | None = None
    cuda_version: str | None = None
    index: int = 0
    source: str = "none"
    profile: str | None = None
    uuid: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def is_gpu(self) -> bool:
        return self.compute_capability is not None

    @property
    def arch(self) -> str | None:
        """Exact architecture name, e.g. ``sm120`` for compute capability 12.0."""
        if self.compute_capability is None:
            return None
        major, minor = self.compute_capability
        return f"sm{major}{minor}"

    @property
    def family(self) -> str | None:
        """Architecture family, e.g. ``sm12x`` for 12.0 and 12.1."""
        if self.compute_capability is None:
            return None
        return f"sm{self.compute_capability[0]}x"

    @property
    def cc_string(self) -> str | None:
        """Compute capability as ``"12.0"``."""
        if self.compute_capability is None:
            return None
        return f"{self.compute_capability[0]}.{self.compute_capability[1]}"

    def describe(self) -> str:
        """Short human description: ``NVIDIA RTX PRO 6000 Blackwell (sm_120)``."""
        if self.compute_capability is None:
            return f"{self.name} (no GPU)"
        major, minor = self.compute_capability
        return f"{self.name} (sm_{major}{minor})"

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["compute_capability"] = self.cc_string
        data["arch"] = self.arch
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DeviceInfo:
        """Inverse of :meth:`to_dict`; raises ``ValueError`` naming the bad field."""
        known = {f.name for f in fields(cls)}
        kwargs: dict[str, Any] = {k: v for k, v in data.items() if k in known}
        if "name" not in kwargs:
            raise ValueError("device description has no 'name'")
        kwargs["compute_capability"] = parse_compute_capability(data.get("compute_capability"))
        for key in (
            "smem_per_sm_bytes",
            "smem_per_block_bytes",
            "smem_per_block_optin_bytes",
            "total_memory_bytes",
            "multiprocessor_count",
            "index",
        ):
            if key in kwargs:
                value = kwargs[key]
                if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                    raise ValueError(f"'{key}' must be a non-negative integer, got {value!r}")
        kwargs["extra"] = dict(kwargs.get("extra") or {})
        return cls(**kwargs)


def parse_compute_capability(value: Any) -> tuple[int, int] | None:
    """Accept ``"12.0"``, ``[12, 0]``, ``(12, 0)`` or ``None``."""
    if value is None:
        return None
    if isinstance(value, str):
        parts = value.strip().split(".")
        if len(parts) == 2 and all(p.isdigit() for p in parts):
            return int(parts[0]), int(parts[1])
    elif (
        isinstance(value, (list, tuple))
        and len(value) == 2
        and all(isinstance(p, int) and not isinstance(p, bool) for p in value)
    ):
        return int(value[0]), int(value[1])
    raise ValueError(f"compute_capability must look like '12.0' or [12, 0], got {value!r}")


def describe_devices(devices: Sequence[DeviceInfo]) -> str:
    """One line about a session's devices, the same in the report header and in JUnit.

    ``2x NVIDIA H200 (sm_90), 141 GiB, smem 228 KB/SM 227 KB/block [simulated]``: runs of
    identical devices are counted, different ones joined with ``; ``; ``no device`` for none.
    """
    groups: list[list[Any]] = []
    for device in devices:
        text = _one_line(device)
        if groups and groups[-1][0] == text:
            groups[-1][1] += 1
        else:
            groups.append([text, 1])
    return "; ".join(text if n == 1 else f"{n}x {text}" for text, n in groups) or "no device"


def _one_line(device: DeviceInfo) -> str:
    text = device.describe()
    if device.is_gpu and device.total_memory_bytes:
        text += f", {device.total_memory_bytes / GIB:.0f} GiB"
    if device.is_gpu and device.smem_per_sm_bytes:
        text += (
            f", smem {device.smem_per_sm_bytes // KIB} KB/SM "
            f"{device.smem_per_block_optin_bytes // KIB} KB/block"
        )
    origin = "simulated" if device.source == "simulated" else f"via {device.source}"
    return f"{text} [{origin}]"
