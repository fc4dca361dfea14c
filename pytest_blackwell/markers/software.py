"""Software requirements: the CUDA versions, the driver, installed packages.

Nothing heavy is imported to read them: torch's CUDA version comes from the text of its
``version.py`` file, package versions from their installed metadata.

What a device knows of its software:

- ``DeviceInfo.driver_version``: the NVIDIA driver ("570.124.06"), from NVML or a profile.
- ``DeviceInfo.cuda_version``: the newest CUDA version the driver supports (NVML's
  ``nvmlSystemGetCudaDriverVersion``). A device seen only through torch carries torch's CUDA
  there instead, so the driver check treats it as unknown.
- ``DeviceInfo.extra["torch_cuda"]``: the CUDA version the installed torch was built with (the
  torch provider sets it; a simulated device JSON file may carry it). For a detected device
  without it, the installed torch is read.

A simulated device states only what its profile says: unknown versions do not pass.
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_blackwell.device.model import DeviceInfo
from pytest_blackwell.markers.base import (
    MarkerError,
    OnFirstGpu,
    Requirement,
    check_kwargs,
    version_spec,
)

if TYPE_CHECKING:
    from packaging.requirements import Requirement as PackageSpec
    from packaging.specifiers import SpecifierSet

CUDA_SOURCES = ("both", "torch", "driver")

HELP = {
    "requires_cuda": "requires_cuda(spec, of='both'): run only where CUDA matches a version "
    "specifier such as '>=12.8'; of='torch' checks the CUDA version torch was built with, "
    "of='driver' the newest CUDA version the driver supports, 'both' checks both.",
    "requires_driver": "requires_driver(spec): run only where the NVIDIA driver version matches "
    "a specifier such as '>=570'.",
    "requires_package": "requires_package(*requirements): run only where every installed "
    "distribution matches, e.g. requires_package('flashinfer-python>=0.2', 'triton>=3.3').",
}

_TORCH_CUDA = re.compile(r"^cuda\s*(?::[^=]*)?=\s*(?:'([^']*)'|\"([^\"]*)\"|None)", re.M)


@functools.lru_cache(maxsize=1)
def installed_torch_cuda() -> tuple[str | None, str]:
    """(CUDA version torch was built with or None, how that was found), without importing torch."""
    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        return None, "torch is not installed"
    version_file = Path(next(iter(spec.submodule_search_locations))) / "version.py"
    try:
        text = version_file.read_text(encoding="utf-8")
    except OSError:
        return None, "torch's version.py could not be read"
    match = _TORCH_CUDA.search(text)
    value = (match.group(1) or match.group(2)) if match else None
    if not value:
        return None, "the installed torch is a build without CUDA"
    return value, "the installed torch"


def _matches(spec: SpecifierSet, version: str) -> bool:
    from packaging.version import InvalidVersion, Version

    try:
        return Version(version) in spec
    except InvalidVersion:
        return False


def _spec_text(spec: SpecifierSet) -> str:
    return ",".join(sorted(str(s) for s in spec))


@dataclass(frozen=True)
class CudaRequirement(OnFirstGpu):
    spec: SpecifierSet
    of: str

    def wanted(self) -> str:
        which = {"both": "CUDA", "torch": "torch built with CUDA", "driver": "a driver for CUDA"}
        return f"{which[self.of]} {_spec_text(self.spec)}"

    def shortfall(self, device: DeviceInfo) -> str | None:
        checks = ("torch", "driver") if self.of == "both" else (self.of,)
        for check in checks:
            version, how = self._version(device, check)
            label = "torch's CUDA" if check == "torch" else "the driver's CUDA"
            if version is None:
                return f"{label} version is unknown for {device.describe()}: {how}"
            if not _matches(self.spec, version):
                return f"{label} is {version} ({how})"
        return None

    @staticmethod
    def _version(device: DeviceInfo, check: str) -> tuple[str | None, str]:
        simulated = device.source == "simulated"
        if check == "torch":
            value = device.extra.get("torch_cuda")
            if value:
                return str(value), "from the device description" if simulated else "from torch"
            if simulated:
                return None, _simulated_hint(device, "extra.torch_cuda")
            return installed_torch_cuda()
        providers = device.extra.get("providers") or [device.source]
        if device.cuda_version and (simulated or "nvml" in providers):
            return device.cuda_version, "from the device description" if simulated else "NVML"
        if simulated:
            return None, _simulated_hint(device, "cuda_version")
        return None, "NVML is not available (install pytest-blackwell[nvml])"


@dataclass(frozen=True)
class DriverRequirement(OnFirstGpu):
    spec: SpecifierSet

    def wanted(self) -> str:
        return f"NVIDIA driver {_spec_text(self.spec)}"

    def shortfall(self, device: DeviceInfo) -> str | None:
        if not device.driver_version:
            how = (
                _simulated_hint(device, "driver_version")
                if device.source == "simulated"
                else "NVML is not available (install pytest-blackwell[nvml])"
            )
            return f"the driver version is unknown for {device.describe()}: {how}"
        if _matches(self.spec, device.driver_version):
            return None
        return f"{device.describe()} runs driver {device.driver_version}"


def _simulated_hint(device: DeviceInfo, field: str) -> str:
    return (
        f"the simulated profile {device.profile or device.name!r} states none; describe the "
        f"runner in a device JSON file with {field!r}"
    )


@dataclass(frozen=True)
class PackageRequirement:
    """Installed distributions of this environment (the same on every device)."""

    requirements: tuple[PackageSpec, ...]

    def unmet(self, devices: Sequence[DeviceInfo]) -> str | None:
        for requirement in self.requirements:
            try:
                version = importlib.metadata.version(requirement.name)
            except importlib.metadata.PackageNotFoundError:
                return f"requires {requirement}; {requirement.name} is not installed"
            if requirement.specifier and not _matches(requirement.specifier, version):
                return f"requires {requirement}; {requirement.name} {version} is installed"
        return None


def parse_cuda(marker: str, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> Requirement:
    check_kwargs(marker, kwargs, ["spec", "of"], args)
    spec = args[0] if args else kwargs.get("spec")
    of = args[1] if len(args) > 1 else kwargs.get("of", "both")
    if of not in CUDA_SOURCES:
        raise MarkerError(
            f"@pytest.mark.{marker}: of must be 'both', 'torch' (the CUDA version torch was "
            f"built with) or 'driver' (the newest CUDA version the driver supports), got {of!r}"
        )
    return CudaRequirement(version_spec(marker, spec, ">=12.8"), str(of))


def parse_driver(marker: str, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> Requirement:
    check_kwargs(marker, kwargs, ["spec"], args)
    return DriverRequirement(version_spec(marker, args[0] if args else kwargs.get("spec"), ">=570"))


def parse_package(marker: str, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> Requirement:
    from packaging.requirements import InvalidRequirement
    from packaging.requirements import Requirement as PackageSpec

    if kwargs:
        raise MarkerError(
            f"@pytest.mark.{marker}: takes requirement strings as positional arguments, got "
            f"{', '.join(f'{k}=' for k in kwargs)}"
        )
    if not args:
        raise MarkerError(
            f"@pytest.mark.{marker}: expected at least one requirement such as 'triton>=3.3'"
        )
    parsed = []
    for arg in args:
        if not isinstance(arg, str):
            raise MarkerError(
                f"@pytest.mark.{marker}: expected requirement strings such as 'triton>=3.3', "
                f"got {arg!r}"
            )
        try:
            requirement = PackageSpec(arg)
        except InvalidRequirement as exc:
            raise MarkerError(
                f"@pytest.mark.{marker}: cannot parse {arg!r} ({exc}); expected a distribution "
                "name with an optional version specifier, such as 'flashinfer-python>=0.2'"
            ) from None
        if requirement.marker is not None or requirement.url or requirement.extras:
            raise MarkerError(
                f"@pytest.mark.{marker}: {arg!r}: only a name and a version specifier are "
                "checked; drop the extras, URL or environment marker"
            )
        parsed.append(requirement)
    return PackageRequirement(tuple(parsed))


PARSERS = {
    "requires_cuda": parse_cuda,
    "requires_driver": parse_driver,
    "requires_package": parse_package,
}
