"""Hardware markers: architectures, compute capability, shared memory, GPU memory and count."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pytest_blackwell.device.model import DeviceInfo
from pytest_blackwell.markers.base import (
    MarkerError,
    OnFirstGpu,
    Requirement,
    check_kwargs,
    gpus,
    no_gpu,
    num,
)
from pytest_blackwell.units import GIB, KIB, holds_vendor_gb

if TYPE_CHECKING:
    from packaging.specifiers import SpecifierSet

#: Exact architecture markers -> compute capability.
ARCH_MARKERS: dict[str, tuple[int, int]] = {
    "sm80": (8, 0),
    "sm86": (8, 6),
    "sm89": (8, 9),
    "sm90": (9, 0),
    "sm100": (10, 0),
    "sm103": (10, 3),
    "sm110": (11, 0),
    "sm120": (12, 0),
    "sm121": (12, 1),
}

#: Architecture family markers -> compute capability major.
FAMILY_MARKERS: dict[str, int] = {"sm8x": 8, "sm9x": 9, "sm10x": 10, "sm11x": 11, "sm12x": 12}

SMEM_SCOPES = ("block", "sm")

#: Marker name -> the line ``pytest --markers`` shows.
HELP: dict[str, str] = {
    **{
        name: f"{name}: run only on an {name} GPU (compute capability {cc[0]}.{cc[1]} exactly); "
        "several architecture markers mean any of them."
        for name, cc in ARCH_MARKERS.items()
    },
    **{
        name: f"{name}: run only on a GPU of compute capability {major}.x."
        for name, major in FAMILY_MARKERS.items()
    },
    "compute_capability": "compute_capability(spec): run only where the compute capability "
    "matches a version specifier such as '>=9.0', '==12.0' or '>=8.9,<10'.",
    "requires_smem": "requires_smem(kb=N, scope='block'): run only where a thread block may use "
    "N KB (1 KB = 1024 B) of shared memory (scope 'block': the opt-in per-block limit; 'sm': per "
    "multiprocessor).",
    "requires_gpu_memory": "requires_gpu_memory(gb=N): run only where the GPU is sold with at "
    "least N GB of memory (an H100 80GB holds gb=80 though its driver reports 79.6 GiB).",
    "requires_gpu": "requires_gpu(count=1): run only where at least COUNT GPUs are visible.",
}


@dataclass(frozen=True)
class ArchRequirement(OnFirstGpu):
    """Any of the exact architectures or families (``sm120``, ``sm12x`` ...)."""

    names: tuple[str, ...]

    def wanted(self) -> str:
        return " or ".join(self.names)

    def shortfall(self, device: DeviceInfo) -> str | None:
        cc = device.compute_capability
        for name in self.names:
            if ARCH_MARKERS.get(name) == cc or (cc and FAMILY_MARKERS.get(name) == cc[0]):
                return None
        return f"{device.describe()} is {device.arch}"


@dataclass(frozen=True)
class CapabilityRequirement(OnFirstGpu):
    text: str
    spec: SpecifierSet

    def wanted(self) -> str:
        return f"compute capability {self.text}"

    def shortfall(self, device: DeviceInfo) -> str | None:
        from packaging.version import Version

        if Version(device.cc_string or "0.0") in self.spec:
            return None
        return f"{device.describe()} has {device.cc_string}"


@dataclass(frozen=True)
class SmemRequirement(OnFirstGpu):
    kb: float
    scope: str

    def wanted(self) -> str:
        per = "per block" if self.scope == "block" else "per SM"
        return f"{num(self.kb)} KB shared memory {per}"

    def shortfall(self, device: DeviceInfo) -> str | None:
        block = self.scope == "block"
        have = device.smem_per_block_optin_bytes if block else device.smem_per_sm_bytes
        if have >= self.kb * KIB:
            return None
        return f"{device.describe()} allows {num(have / KIB)} KB"


@dataclass(frozen=True)
class GpuMemoryRequirement(OnFirstGpu):
    gb: float

    def wanted(self) -> str:
        return f"{num(self.gb)} GB of GPU memory"

    def shortfall(self, device: DeviceInfo) -> str | None:
        if holds_vendor_gb(device.total_memory_bytes, self.gb):
            return None
        return f"{device.describe()} reports {device.total_memory_bytes / GIB:.1f} GiB"


@dataclass(frozen=True)
class GpuCountRequirement:
    count: int

    def unmet(self, devices: Sequence[DeviceInfo]) -> str | None:
        found = gpus(devices)
        plural = "GPU" if self.count == 1 else "GPUs"
        if not found:
            return no_gpu(f"{self.count} {plural}", devices)
        if len(found) >= self.count:
            return None
        return f"requires {self.count} {plural}; {len(found)} visible ({found[0].describe()})"


def _size(marker: str, key: str, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> float:
    if args and key in kwargs:
        raise MarkerError(f"@pytest.mark.{marker}: {key} given twice (positionally and by name)")
    value = args[0] if args else kwargs.get(key)
    if value is None:
        raise MarkerError(f"@pytest.mark.{marker}: expected {key}=<positive number>, got nothing")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise MarkerError(f"@pytest.mark.{marker}: expected {key}=<positive number>, got {value!r}")
    return float(value)


ARCH_LIKE = re.compile(r"^sm_?\d+x?$")
_CC_ATOM = re.compile(r"^\s*(===|==|!=|~=|<=|>=|<|>)\s*\d+(\.\d+)?\s*$")


def parse_capability(marker: str, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> Requirement:
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    check_kwargs(marker, kwargs, ["spec"], args)
    spec = args[0] if args else kwargs.get("spec")
    if len(args) > 1 or not isinstance(spec, str) or not spec.strip():
        raise MarkerError(
            f"@pytest.mark.{marker}: expected one specifier string such as '>=9.0', '==12.0' "
            f"or '>=8.9,<10', got {spec if len(args) <= 1 else args!r}"
        )
    try:
        if not all(_CC_ATOM.match(part) for part in spec.split(",")):
            raise InvalidSpecifier(spec)
        parsed = SpecifierSet(spec)
    except InvalidSpecifier:
        raise MarkerError(
            f"@pytest.mark.{marker}: cannot parse {spec!r}; expected comparisons of compute "
            "capabilities joined by commas, such as '>=9.0', '==12.0' or '>=8.9,<10'"
        ) from None
    return CapabilityRequirement(spec.replace(" ", ""), parsed)


def parse_smem(marker: str, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> Requirement:
    check_kwargs(marker, kwargs, ["kb", "scope"], args)
    scope = args[1] if len(args) > 1 else kwargs.get("scope", "block")
    if scope not in SMEM_SCOPES:
        raise MarkerError(
            f"@pytest.mark.{marker}: scope must be 'block' (opt-in per-block limit) or 'sm' "
            f"(per multiprocessor), got {scope!r}"
        )
    return SmemRequirement(_size(marker, "kb", args[:1], kwargs), str(scope))


def parse_gpu_memory(marker: str, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> Requirement:
    check_kwargs(marker, kwargs, ["gb"], args)
    return GpuMemoryRequirement(_size(marker, "gb", args, kwargs))


def parse_gpu_count(marker: str, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> Requirement:
    check_kwargs(marker, kwargs, ["count"], args)
    count = args[0] if args else kwargs.get("count", 1)
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise MarkerError(f"@pytest.mark.{marker}: expected count=<integer >= 1>, got {count!r}")
    return GpuCountRequirement(count)


PARSERS = {
    "compute_capability": parse_capability,
    "requires_smem": parse_smem,
    "requires_gpu_memory": parse_gpu_memory,
    "requires_gpu": parse_gpu_count,
}
