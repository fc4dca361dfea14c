"""Hardware markers: parse and validate them into plain requirement objects.

This module never looks at the device by itself: :func:`unmet` is given the device list. Every
parse error is a :class:`MarkerError` whose message names the marker and says what was expected;
the plugin adds the test's node id and turns it into a collection error.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from pytest_blackwell.device.model import KIB, DeviceInfo

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

#: Decimal gigabyte, the unit GPU vendors use for memory sizes ("H100 80GB").
GB = 1000**3

SMEM_SCOPES = ("block", "sm")

#: Marker name -> the line ``pytest --markers`` shows.
MARKER_HELP: dict[str, str] = {
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
    "requires_gpu_memory": "requires_gpu_memory(gb=N): run only where the GPU has at least N GB "
    "(10^9 bytes, as vendors count) of memory.",
    "requires_gpu": "requires_gpu(count=1): run only where at least COUNT GPUs are visible.",
}

HARDWARE_MARKERS = frozenset(MARKER_HELP)


class MarkerError(ValueError):
    """A hardware marker with bad arguments."""


class Requirement(Protocol):
    """Something a device list either satisfies or not."""

    def unmet(self, devices: Sequence[DeviceInfo]) -> str | None:
        """A precise reason when the devices do not satisfy the requirement, else None."""


def _no_gpu(wanted: str, devices: Sequence[DeviceInfo]) -> str:
    found = devices[0].name if devices else "nothing"
    return f"requires {wanted}; no GPU detected ({found})"


def _gpus(devices: Sequence[DeviceInfo]) -> list[DeviceInfo]:
    return [d for d in devices if d.is_gpu]


class _OnFirstGpu(ABC):
    """A requirement checked against the first GPU (the one an engine uses by default)."""

    @abstractmethod
    def wanted(self) -> str:
        """What is required, as the skip reason says it."""

    @abstractmethod
    def shortfall(self, device: DeviceInfo) -> str | None:
        """What ``device`` has instead, when it falls short; ``None`` when it is enough."""

    def unmet(self, devices: Sequence[DeviceInfo]) -> str | None:
        gpus = _gpus(devices)
        if not gpus:
            return _no_gpu(self.wanted(), devices)
        found = self.shortfall(gpus[0])
        return None if found is None else f"requires {self.wanted()}; {found}"


@dataclass(frozen=True)
class ArchRequirement(_OnFirstGpu):
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
class CapabilityRequirement(_OnFirstGpu):
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
class SmemRequirement(_OnFirstGpu):
    kb: float
    scope: str

    def wanted(self) -> str:
        per = "per block" if self.scope == "block" else "per SM"
        return f"{_num(self.kb)} KB shared memory {per}"

    def shortfall(self, device: DeviceInfo) -> str | None:
        block = self.scope == "block"
        have = device.smem_per_block_optin_bytes if block else device.smem_per_sm_bytes
        if have >= self.kb * KIB:
            return None
        return f"{device.describe()} allows {_num(have / KIB)} KB"


@dataclass(frozen=True)
class GpuMemoryRequirement(_OnFirstGpu):
    gb: float

    def wanted(self) -> str:
        return f"{_num(self.gb)} GB of GPU memory"

    def shortfall(self, device: DeviceInfo) -> str | None:
        if device.total_memory_bytes >= self.gb * GB:
            return None
        return f"{device.describe()} has {device.total_memory_bytes / GB:.1f} GB"


@dataclass(frozen=True)
class GpuCountRequirement:
    count: int

    def unmet(self, devices: Sequence[DeviceInfo]) -> str | None:
        gpus = _gpus(devices)
        plural = "GPU" if self.count == 1 else "GPUs"
        if not gpus:
            return _no_gpu(f"{self.count} {plural}", devices)
        if len(gpus) >= self.count:
            return None
        return f"requires {self.count} {plural}; {len(gpus)} visible ({gpus[0].describe()})"


def _num(value: float) -> str:
    return f"{value:g}"


def _size(marker: str, key: str, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> float:
    if args and key in kwargs:
        raise MarkerError(f"@pytest.mark.{marker}: {key} given twice (positionally and by name)")
    value = args[0] if args else kwargs.get(key)
    if value is None:
        raise MarkerError(f"@pytest.mark.{marker}: expected {key}=<positive number>, got nothing")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise MarkerError(f"@pytest.mark.{marker}: expected {key}=<positive number>, got {value!r}")
    return float(value)


def _check_kwargs(
    marker: str,
    kwargs: Mapping[str, Any],
    allowed: Sequence[str],
    args: tuple[Any, ...] = (),
) -> None:
    if len(args) > len(allowed):
        raise MarkerError(
            f"@pytest.mark.{marker}: takes at most {len(allowed)} argument(s) "
            f"({', '.join(allowed)}), got {len(args)}: {args!r}"
        )
    twice = sorted(set(allowed[: len(args)]) & set(kwargs))
    if twice:
        raise MarkerError(
            f"@pytest.mark.{marker}: {', '.join(twice)} given twice (positionally and by name)"
        )
    unknown = sorted(set(kwargs) - set(allowed))
    if unknown:
        raise MarkerError(
            f"@pytest.mark.{marker}: unknown argument(s) {', '.join(unknown)}; "
            f"expected {', '.join(allowed)}"
        )


_ARCH_LIKE = re.compile(r"^sm_?\d+x?$")
_CC_ATOM = re.compile(r"^\s*(===|==|!=|~=|<=|>=|<|>)\s*\d+(\.\d+)?\s*$")


def parse_capability(marker: str, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> Requirement:
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    _check_kwargs(marker, kwargs, ["spec"], args)
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
    _check_kwargs(marker, kwargs, ["kb", "scope"], args)
    scope = args[1] if len(args) > 1 else kwargs.get("scope", "block")
    if scope not in SMEM_SCOPES:
        raise MarkerError(
            f"@pytest.mark.{marker}: scope must be 'block' (opt-in per-block limit) or 'sm' "
            f"(per multiprocessor), got {scope!r}"
        )
    return SmemRequirement(_size(marker, "kb", args[:1], kwargs), str(scope))


def parse_gpu_memory(marker: str, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> Requirement:
    _check_kwargs(marker, kwargs, ["gb"], args)
    return GpuMemoryRequirement(_size(marker, "gb", args, kwargs))


def parse_gpu_count(marker: str, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> Requirement:
    _check_kwargs(marker, kwargs, ["count"], args)
    count = args[0] if args else kwargs.get("count", 1)
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise MarkerError(f"@pytest.mark.{marker}: expected count=<integer >= 1>, got {count!r}")
    return GpuCountRequirement(count)


_PARSERS = {
    "compute_capability": parse_capability,
    "requires_smem": parse_smem,
    "requires_gpu_memory": parse_gpu_memory,
    "requires_gpu": parse_gpu_count,
}


@dataclass(frozen=True)
class MarkInput:
    """The parts of a ``pytest.Mark`` this module reads (so it stays independent of pytest)."""

    name: str
    args: tuple[Any, ...]
    kwargs: Mapping[str, Any]


def parse_requirements(
    marks: Iterable[MarkInput], custom: Mapping[str, Sequence[Requirement]] | None = None
) -> list[Requirement]:
    """Turn the hardware markers among ``marks`` into requirements.

    Architecture markers on one test combine into one "any of" requirement. ``custom`` maps
    downstream marker names to the requirements they stand for. Non-hardware marks are ignored.
    """
    requirements: list[Requirement] = []
    archs: list[str] = []
    for mark in marks:
        name = mark.name
        if name in ARCH_MARKERS or name in FAMILY_MARKERS:
            if mark.args or mark.kwargs:
                raise MarkerError(f"@pytest.mark.{name} takes no arguments, got {_show(mark)}")
            if name not in archs:
                archs.append(name)
        elif name in _PARSERS:
            requirements.append(_PARSERS[name](name, tuple(mark.args), mark.kwargs))
        elif custom and name in custom:
            requirements.extend(custom[name])
        elif _ARCH_LIKE.match(name):
            known = ", ".join([*ARCH_MARKERS, *FAMILY_MARKERS])
            raise MarkerError(f"@pytest.mark.{name}: unknown architecture; expected one of {known}")
    if archs:
        requirements.insert(0, ArchRequirement(tuple(archs)))
    return requirements


def is_hardware_marker(name: str, custom: Mapping[str, object] | None = None) -> bool:
    """Whether a marker name is (or looks like, e.g. a misspelt ``sm_120``) a hardware marker."""
    return (
        name in HARDWARE_MARKERS or bool(custom and name in custom) or bool(_ARCH_LIKE.match(name))
    )


def _show(mark: MarkInput) -> str:
    parts = [repr(a) for a in mark.args] + [f"{k}={v!r}" for k, v in mark.kwargs.items()]
    return f"({', '.join(parts)})"


def unmet(requirements: Iterable[Requirement], devices: Sequence[DeviceInfo]) -> str | None:
    """The reason of the first requirement the devices do not meet, or None."""
    for requirement in requirements:
        reason = requirement.unmet(devices)
        if reason is not None:
            return reason
    return None


def parse_marker_definition(name: str, spec: Mapping[str, Any], origin: str) -> list[Requirement]:
    """Requirements of a downstream hardware marker declared as data.

    ``spec`` maps built-in marker names to their arguments, e.g.
    ``{"compute_capability": ">=10.0,<11", "requires_smem": {"kb": 200}}``. Architecture
    markers take ``true``. ``origin`` says where the definition came from, for errors.
    """
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise MarkerError(f"{origin}: marker name {name!r} is not a valid identifier")
    marks: list[MarkInput] = []
    for key, value in spec.items():
        if key in ARCH_MARKERS or key in FAMILY_MARKERS:
            if value is not True:
                raise MarkerError(f"{origin}: marker {name!r}: {key} takes true, got {value!r}")
            marks.append(MarkInput(key, (), {}))
        elif key in _PARSERS:
            if isinstance(value, Mapping):
                marks.append(MarkInput(key, (), dict(value)))
            else:
                marks.append(MarkInput(key, (value,), {}))
        else:
            known = ", ".join(sorted(HARDWARE_MARKERS))
            raise MarkerError(
                f"{origin}: marker {name!r}: unknown requirement {key!r}; expected one of {known}"
            )
    if not marks:
        raise MarkerError(f"{origin}: marker {name!r} declares no requirement")
    try:
        return parse_requirements(marks)
    except MarkerError as exc:
        raise MarkerError(f"{origin}: marker {name!r}: {exc}") from None
