"""Built-in architecture table and device profiles, and loading of simulated devices.

Shared-memory figures follow NVIDIA's tuning guides (1 KB = 1024 bytes). Memory figures are
the vendor's "GB", which is a GiB (:func:`pytest_blackwell.units.vendor_gb`); a real device
reports a little less because the driver reserves some.

A simulated device request is a profile name (``rtx-pro-6000``), optionally with a count
(``h100*4`` or ``h100:4``), or the path of a JSON file describing custom hardware: one device
object, or ``{"devices": [...]}`` (the output of ``python -m pytest_blackwell detect --json`` is
accepted as it is).
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from pytest_blackwell.device.model import DeviceInfo, parse_compute_capability
from pytest_blackwell.units import KIB, vendor_gb

#: Default shared memory a block gets without opting in, on every architecture we know.
DEFAULT_SMEM_PER_BLOCK = 48 * KIB

#: Most devices a ``NAME*N`` request may ask for (guards against typos such as ``h100*800``).
MAX_SIMULATED_DEVICES = 256


class DeviceProfileError(ValueError):
    """A simulated device request that cannot be honoured (unknown name, bad JSON file)."""


@dataclass(frozen=True)
class ArchSpec:
    """Per-architecture limits that every device of one compute capability shares."""

    compute_capability: tuple[int, int]
    codename: str
    smem_per_sm_bytes: int
    smem_per_block_optin_bytes: int
    smem_per_block_bytes: int = DEFAULT_SMEM_PER_BLOCK

    @property
    def family(self) -> str:
        """Architecture family marker name, e.g. ``sm12x``."""
        return f"sm{self.compute_capability[0]}x"


def _arch(major: int, minor: int, codename: str, per_sm_kb: int, optin_kb: int) -> ArchSpec:
    return ArchSpec((major, minor), codename, per_sm_kb * KIB, optin_kb * KIB)


#: Architecture table keyed by compute capability (shared memory per SM / per block opt-in).
ARCHITECTURES: dict[tuple[int, int], ArchSpec] = {
    spec.compute_capability: spec
    for spec in (
        _arch(8, 0, "Ampere", 164, 163),
        _arch(8, 6, "Ampere", 100, 99),
        _arch(8, 7, "Ampere (Jetson Orin)", 164, 163),
        _arch(8, 9, "Ada Lovelace", 100, 99),
        _arch(9, 0, "Hopper", 228, 227),
        _arch(10, 0, "Blackwell (datacenter)", 228, 227),
        _arch(10, 3, "Blackwell Ultra (datacenter)", 228, 227),
        _arch(11, 0, "Blackwell (Jetson Thor)", 228, 227),
        _arch(12, 0, "Blackwell (RTX)", 128, 99),
        _arch(12, 1, "Blackwell (GB10)", 128, 99),
    )
}


def arch_spec(compute_capability: tuple[int, int] | None) -> ArchSpec | None:
    """The table entry for a compute capability, or ``None`` when the table does not know it."""
    if compute_capability is None:
        return None
    major, minor = compute_capability
    return ARCHITECTURES.get((major, minor))


def with_arch_smem(device: DeviceInfo) -> DeviceInfo:
    """Fill the shared-memory figures a device lacks (zero) from the architecture table."""
    spec = arch_spec(device.compute_capability)
    if spec is None:
        return device
    return replace(
        device,
        smem_per_sm_bytes=device.smem_per_sm_bytes or spec.smem_per_sm_bytes,
        smem_per_block_bytes=device.smem_per_block_bytes or spec.smem_per_block_bytes,
        smem_per_block_optin_bytes=(
            device.smem_per_block_optin_bytes or spec.smem_per_block_optin_bytes
        ),
    )


def _gpu(
    key: str, name: str, cc: tuple[int, int], memory_gb: int, sms: int, memory: str
) -> DeviceInfo:
    base = DeviceInfo(
        name=name,
        compute_capability=cc,
        total_memory_bytes=vendor_gb(memory_gb),
        multiprocessor_count=sms,
        source="simulated",
        profile=key,
        extra={"memory_type": memory},
    )
    return with_arch_smem(base)


#: Built-in profiles, keyed by the name ``--blackwell-device`` accepts.
PROFILES: dict[str, DeviceInfo] = {
    device.profile or "": device
    for device in (
        _gpu(
            "rtx-pro-6000",
            "NVIDIA RTX PRO 6000 Blackwell Workstation Edition",
            (12, 0),
            96,
            188,
            "GDDR7",
        ),
        _gpu("rtx-5090", "NVIDIA GeForce RTX 5090", (12, 0), 32, 170, "GDDR7"),
        _gpu("rtx-pro-4000", "NVIDIA RTX PRO 4000 Blackwell", (12, 0), 24, 70, "GDDR7"),
        # DGX Spark: memory is the 128 GB LPDDR5X pool shared with the Grace CPU.
        _gpu("gb10", "NVIDIA GB10", (12, 1), 128, 48, "LPDDR5X (unified)"),
        # 180 GB is what HGX/DGX B200 systems make usable per GPU (192 GB physical HBM3e).
        _gpu("b200", "NVIDIA B200", (10, 0), 180, 148, "HBM3e"),
        _gpu("gb200", "NVIDIA GB200", (10, 0), 186, 152, "HBM3e"),
        _gpu("h100", "NVIDIA H100 80GB HBM3", (9, 0), 80, 132, "HBM3"),
        _gpu("h200", "NVIDIA H200", (9, 0), 141, 132, "HBM3e"),
        _gpu("l40s", "NVIDIA L40S", (8, 9), 48, 142, "GDDR6"),
        _gpu("rtx-4090", "NVIDIA GeForce RTX 4090", (8, 9), 24, 128, "GDDR6X"),
        _gpu("rtx-3090", "NVIDIA GeForce RTX 3090", (8, 6), 24, 82, "GDDR6X"),
        _gpu("a10", "NVIDIA A10", (8, 6), 24, 72, "GDDR6"),
        _gpu("a100", "NVIDIA A100-SXM4-80GB", (8, 0), 80, 108, "HBM2e"),
        DeviceInfo(name="CPU", compute_capability=None, source="simulated", profile="cpu"),
    )
}

_COUNT_RE = re.compile(r"^(?P<base>.+?)\s*[*:]\s*(?P<count>\d+)$")


def load_profile(
    name_or_path: str,
    *,
    origin: str = "the device request",
    extra: Mapping[str, DeviceInfo] | None = None,
) -> list[DeviceInfo]:
    """Resolve a simulated device request into devices with indices ``0..N-1``.

    ``origin`` says where the request came from (``--blackwell-device``, an environment
    variable, an ini option) and is quoted in every error message. ``extra`` adds profiles
    (e.g. from the ``pytest_blackwell_device_profiles`` hook); built-in names win.
    """
    profiles = {**{k.lower(): v for k, v in (extra or {}).items()}, **PROFILES}
    request = name_or_path.strip()
    if not request:
        raise DeviceProfileError(f"empty device profile (from {origin}); {_known_hint()}")
    base, count = request, 1
    match = _COUNT_RE.match(request)
    if match is not None and not Path(request).is_file():
        base, count = match.group("base"), int(match.group("count"))
        if not 1 <= count <= MAX_SIMULATED_DEVICES:
            raise DeviceProfileError(
                f"device count in {request!r} (from {origin}) must be between 1 and "
                f"{MAX_SIMULATED_DEVICES}, got {count}"
            )
    key = base.lower().replace("_", "-")
    if key not in profiles:
        key = base.lower()
    if key in profiles:
        devices, tag = [profiles[key]], key
    elif _looks_like_path(base):
        devices, tag = load_profile_file(Path(base), origin=origin), base
    else:
        close = difflib.get_close_matches(key, profiles, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise DeviceProfileError(
            f"unknown device profile {base!r} (from {origin}); {hint}{_known_hint(profiles)}"
        )
    if count > 1 and len(devices) != 1:
        raise DeviceProfileError(
            f"{request!r} (from {origin}): a count applies to one device, but {base} "
            f"describes {len(devices)}"
        )
    devices = devices * count
    return [
        replace(device, index=index, source="simulated", profile=tag, extra=dict(device.extra))
        for index, device in enumerate(devices)
    ]


def _looks_like_path(value: str) -> bool:
    return value.lower().endswith(".json") or "/" in value or "\\" in value or Path(value).is_file()


def _known_hint(profiles: Mapping[str, DeviceInfo] = PROFILES) -> str:
    names = ", ".join(profiles)
    return (
        f"known profiles: {names} (add *N or :N for N devices, e.g. h100*4), "
        "or give the path of a JSON file describing the device"
    )


# --------------------------------------------------------------------------- JSON profiles

_INT_FIELDS = (
    "smem_per_sm_bytes",
    "smem_per_block_bytes",
    "smem_per_block_optin_bytes",
    "total_memory_bytes",
    "multiprocessor_count",
)
_TEXT_FIELDS = ("driver_version", "cuda_version", "uuid")
#: Keys ``DeviceInfo.to_dict`` writes that a profile may carry but that we recompute.
_IGNORED_FIELDS = ("arch", "index", "source", "profile")
#: Top-level keys of ``detect --json`` output besides ``devices``.
_REPORT_KEYS = ("skipped", "notes", "schema")


def load_profile_file(path: Path, *, origin: str = "the device request") -> list[DeviceInfo]:
    """Read a JSON file of custom hardware; errors name the file, the field and ``origin``."""
    where = f"device profile file {str(path)!r} (from {origin})"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise DeviceProfileError(f"cannot read {where}: {exc.strerror or exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DeviceProfileError(
            f"{where} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    if isinstance(data, dict) and "devices" in data:
        unknown = sorted(set(data) - {"devices", *_REPORT_KEYS})
        if unknown:
            raise DeviceProfileError(
                f"{where}: unexpected top-level key(s) {unknown}; expected 'devices'"
            )
        entries, prefix = data["devices"], "devices"
        if not isinstance(entries, list) or not entries:
            raise DeviceProfileError(
                f"{where}: 'devices' must be a non-empty list of device objects, got {entries!r}"
            )
    elif isinstance(data, dict):
        entries, prefix = [data], ""
    else:
        raise DeviceProfileError(
            f'{where}: expected a device object or {{"devices": [...]}}, got {type(data).__name__}'
        )
    return [
        _device_from_json(entry, f"{prefix}[{i}]" if prefix else "", where)
        for i, entry in enumerate(entries)
    ]


def _device_from_json(entry: Any, at: str, where: str) -> DeviceInfo:
    def fail(field: str, problem: str) -> DeviceProfileError:
        dotted = ".".join(part for part in (at, field) if part)
        subject = f"field {dotted!r}" if dotted else "the device"
        return DeviceProfileError(f"{where}: {subject} {problem}")

    if not isinstance(entry, dict):
        raise fail("", f"must be a device object, got {entry!r}")
    allowed = {f.name for f in fields(DeviceInfo)} | set(_IGNORED_FIELDS)
    unknown = sorted(set(entry) - allowed)
    if unknown:
        raise fail(unknown[0], f"is not a device field; known fields: {', '.join(sorted(allowed))}")
    name = entry.get("name")
    if not isinstance(name, str) or not name.strip():
        raise fail("name", f"must be a non-empty string, got {name!r}")
    if "compute_capability" not in entry:
        raise fail("compute_capability", 'is missing: give e.g. "12.0" (null for a CPU host)')
    try:
        parse_compute_capability(entry["compute_capability"])
    except ValueError as exc:
        raise fail("compute_capability", str(exc).removeprefix("compute_capability ")) from None
    for key in _INT_FIELDS:
        value = entry.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise fail(key, f"must be a non-negative integer (bytes or a count), got {value!r}")
    for key in _TEXT_FIELDS:
        if entry.get(key) is not None and not isinstance(entry[key], str):
            raise fail(key, f"must be a string or null, got {entry[key]!r}")
    if not isinstance(entry.get("extra", {}), dict):
        raise fail("extra", f"must be an object, got {entry['extra']!r}")
    declared = entry.get("extra", {}).get("features", [])
    if not isinstance(declared, list) or not all(isinstance(n, str) and n for n in declared):
        raise fail("extra.features", f"must be a list of feature names, got {declared!r}")
    torch_cuda = entry.get("extra", {}).get("torch_cuda")
    if torch_cuda is not None and not isinstance(torch_cuda, str):
        raise fail(
            "extra.torch_cuda", f"must be a version string such as '12.8', got {torch_cuda!r}"
        )
    kept = {k: v for k, v in entry.items() if k not in _IGNORED_FIELDS}
    try:
        device = with_arch_smem(DeviceInfo.from_dict(kept))
    except (TypeError, ValueError) as exc:
        raise fail("", f"is not a valid device: {exc}") from None
    if device.is_gpu:
        _check_smem(device, fail)
    return device


def _check_smem(device: DeviceInfo, fail: Callable[[str, str], DeviceProfileError]) -> None:
    if device.smem_per_sm_bytes == 0:
        raise fail(
            "smem_per_sm_bytes",
            f"is required: compute capability {device.cc_string} is not in the built-in "
            f"architecture table (known: {', '.join(f'{a}.{b}' for a, b in ARCHITECTURES)})",
        )
    optin = device.smem_per_block_optin_bytes or device.smem_per_block_bytes
    if optin > device.smem_per_sm_bytes:
        raise fail(
            "smem_per_block_optin_bytes",
            f"({optin}) cannot exceed smem_per_sm_bytes ({device.smem_per_sm_bytes})",
        )
    if device.smem_per_block_optin_bytes and (
        device.smem_per_block_bytes > device.smem_per_block_optin_bytes
    ):
        raise fail(
            "smem_per_block_bytes",
            f"({device.smem_per_block_bytes}) cannot exceed smem_per_block_optin_bytes "
            f"({device.smem_per_block_optin_bytes})",
        )
