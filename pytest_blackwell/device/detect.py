"""Device detection: a chain of small providers, tried in order, that never crashes.

1. ``simulated``: the requested profile name or JSON file (see :mod:`.profiles`);
2. ``nvml``: NVIDIA's management library (``nvidia-ml-py``, imported as ``pynvml``), which names
   the GPUs without creating a CUDA context;
3. ``torch``: ``torch.cuda.get_device_properties`` in a short-lived subprocess, for the
   shared-memory figures NVML does not report (the CUDA context lives and dies in the child);
4. ``table``: the built-in architecture table fills shared memory from the compute capability;
5. ``none``: no GPU, one ``DeviceInfo`` for the CPU host.

A provider returns devices, ``None`` (nothing to add) or raises :class:`ProviderSkipped` with the
reason it was passed over; any other exception is recorded the same way. The chain stops at the
first provider whose devices are complete (every GPU has its shared-memory figures). Each
device's ``source`` names the provider that completed it and ``extra["providers"]`` every
provider that contributed.
"""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pytest_blackwell.device.model import DeviceInfo
from pytest_blackwell.device.profiles import DeviceProfileError, load_profile, with_arch_smem
from pytest_blackwell.device.torch_probe import Runner, missing_driver_reason, run_torch_probe
from pytest_blackwell.device.visible import (
    ENV_VAR,
    hidden_reason,
    select_visible,
    uuid_key,
    visible_entries,
)

__all__ = [
    "PROVIDERS",
    "REQUEST_ENV_VAR",
    "DetectContext",
    "DetectionReport",
    "DeviceProfileError",
    "ProviderSkipped",
    "detect_devices",
    "host_device",
]

#: Environment variable naming a simulated device (between the command line and the ini file).
REQUEST_ENV_VAR = "PYTEST_BLACKWELL_DEVICE"


class ProviderSkipped(Exception):
    """Raised by a provider that cannot contribute; the message is the reason shown to users."""


@dataclass
class DetectContext:
    """What providers read (the request, the environment) and the devices found so far."""

    request: str | None = None
    origin: str = "the device request"
    python: str = sys.executable
    timeout: float = 20.0
    env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    runner: Runner | None = None
    #: A ``pynvml``-like module to use instead of importing ``pynvml`` (tests inject fakes).
    nvml: Any = None
    #: Says why the torch child would be pointless (no NVIDIA driver at all), else ``None``.
    driver_check: Callable[[], str | None] = missing_driver_reason
    devices: list[DeviceInfo] | None = None
    notes: list[str] = field(default_factory=list)
    #: Profiles added on top of the built-in ones (the device_profiles hook).
    extra_profiles: Mapping[str, DeviceInfo] = field(default_factory=dict)


Provider = Callable[[DetectContext], "list[DeviceInfo] | None"]


@dataclass
class DetectionReport:
    """Detected devices plus the ``(provider, reason)`` pairs of providers passed over."""

    devices: list[DeviceInfo]
    skipped: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def gpus(self) -> list[DeviceInfo]:
        return [device for device in self.devices if device.is_gpu]

    @property
    def simulated(self) -> bool:
        return any(device.source == "simulated" for device in self.devices)

    def to_dict(self) -> dict[str, Any]:
        return {
            "devices": [device.to_dict() for device in self.devices],
            "skipped": [{"provider": p, "reason": r} for p, r in self.skipped],
            "notes": list(self.notes),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DetectionReport:
        """Inverse of :meth:`to_dict`; raises ``ValueError`` naming the bad entry."""
        entries = data.get("devices")
        if not isinstance(entries, list):
            raise ValueError(f"detection report: 'devices' must be a list, got {entries!r}")
        devices = []
        for i, entry in enumerate(entries):
            if not isinstance(entry, dict):
                raise ValueError(f"detection report: devices[{i}] must be an object")
            try:
                devices.append(DeviceInfo.from_dict(entry))
            except ValueError as exc:
                raise ValueError(f"detection report: devices[{i}]: {exc}") from None
        skipped = []
        for i, item in enumerate(data.get("skipped") or []):
            if isinstance(item, dict) and {"provider", "reason"} <= set(item):
                skipped.append((str(item["provider"]), str(item["reason"])))
            elif isinstance(item, (list, tuple)) and len(item) == 2:
                skipped.append((str(item[0]), str(item[1])))
            else:
                raise ValueError(
                    f"detection report: skipped[{i}] must be "
                    f'{{"provider": ..., "reason": ...}}, got {item!r}'
                )
        return cls(devices, skipped, [str(note) for note in data.get("notes") or []])


# --------------------------------------------------------------------------- providers


def simulated_provider(ctx: DetectContext) -> list[DeviceInfo] | None:
    if ctx.request is None or not ctx.request.strip():
        raise ProviderSkipped("no simulated device requested")
    return load_profile(ctx.request, origin=ctx.origin, extra=ctx.extra_profiles)


def nvml_provider(ctx: DetectContext) -> list[DeviceInfo] | None:
    hidden = hidden_reason(ctx.env)
    if hidden is not None:
        raise ProviderSkipped(hidden)
    nvml = ctx.nvml if ctx.nvml is not None else _import_nvml()
    try:
        nvml.nvmlInit()
    except Exception as exc:
        raise ProviderSkipped(f"NVML could not start: {_describe(exc)}") from None
    entries = visible_entries(ctx.env)
    try:
        driver = _text(_optional(nvml.nvmlSystemGetDriverVersion))
        cuda = _cuda_version(_optional(nvml.nvmlSystemGetCudaDriverVersion))
        physical = [
            _nvml_device(nvml, nvml.nvmlDeviceGetHandleByIndex(i), i, driver, cuda)
            for i in range(int(nvml.nvmlDeviceGetCount()))
        ]
        if entries is None:
            devices = physical
        else:
            _note_order(ctx, physical, entries)
            devices = select_visible(
                physical,
                entries,
                ctx.notes,
                lambda uuid: _nvml_mig(nvml, uuid, driver, cuda),
            )
    except Exception as exc:
        raise ProviderSkipped(f"NVML query failed: {_describe(exc)}") from None
    finally:
        _optional(nvml.nvmlShutdown)
    if not devices:
        where = "" if entries is None else f" visible through {ENV_VAR}={ctx.env[ENV_VAR]!r}"
        raise ProviderSkipped(f"NVML found no GPU{where}")
    return devices


def torch_provider(ctx: DetectContext) -> list[DeviceInfo] | None:
    hidden = hidden_reason(ctx.env) or ctx.driver_check()
    if hidden is not None:
        raise ProviderSkipped(hidden)
    try:
        probe = run_torch_probe(ctx.python, ctx.timeout, ctx.env, ctx.runner)
    except RuntimeError as exc:
        raise ProviderSkipped(str(exc)) from None
    found = probe.devices
    if not found:
        build = "" if probe.torch_cuda else " (a CPU-only build: torch.version.cuda is None)"
        raise ProviderSkipped(f"torch {probe.torch_version} sees no CUDA device{build}")
    if ctx.devices is None:
        return found
    extra = {"torch_version": probe.torch_version, "torch_cuda": probe.torch_cuda}
    return _merge_torch(ctx.devices, found, extra)


def table_provider(ctx: DetectContext) -> list[DeviceInfo] | None:
    if ctx.devices is None:
        raise ProviderSkipped("no GPU was identified, so there is no compute capability to look up")
    filled, unknown, changed = [], [], False
    for device in ctx.devices:
        if device.is_gpu and device.smem_per_sm_bytes == 0:
            completed = with_arch_smem(device)
            if completed.smem_per_sm_bytes == 0:
                unknown.append(f"{device.describe()} (compute capability {device.cc_string})")
            else:
                device, changed = _contributed(completed, "table"), True
        filled.append(device)
    if unknown:
        reason = "the built-in architecture table does not know " + ", ".join(unknown)
        if not changed:
            raise ProviderSkipped(reason)
        ctx.notes.append(f"{reason}: their shared memory is unknown")
    return filled if changed else None


def none_provider(ctx: DetectContext) -> list[DeviceInfo] | None:
    return None if ctx.devices is not None else [host_device()]


#: The default chain, in order.
PROVIDERS: tuple[tuple[str, Provider], ...] = (
    ("simulated", simulated_provider),
    ("nvml", nvml_provider),
    ("torch", torch_provider),
    ("table", table_provider),
    ("none", none_provider),
)


def host_device() -> DeviceInfo:
    """The CPU host, standing in for "no GPU"."""
    return DeviceInfo(
        name="CPU",
        compute_capability=None,
        source="none",
        extra={"machine": platform.machine(), "cpu_count": os.cpu_count() or 0},
    )


# --------------------------------------------------------------------------- the chain


def detect_devices(
    request: str | None = None,
    *,
    origin: str = "the device request",
    python: str = sys.executable,
    timeout: float = 20.0,
    env: Mapping[str, str] | None = None,
    runner: Runner | None = None,
    nvml: Any = None,
    driver_check: Callable[[], str | None] = missing_driver_reason,
    providers: Sequence[tuple[str, Provider]] = PROVIDERS,
    extra_profiles: Mapping[str, DeviceInfo] | None = None,
) -> DetectionReport:
    """Detect the devices this process would use, or simulate ``request``.

    ``request`` is a profile name, ``NAME*N``/``NAME:N`` or a JSON file path; ``origin`` says
    where it came from for error messages. A bad request raises :class:`DeviceProfileError`;
    everything else falls through to the next provider with the reason in ``skipped``.
    ``python`` runs the torch subprocess (skipped at once when ``driver_check`` finds no NVIDIA
    driver); ``env`` defaults to ``os.environ``; ``runner`` and ``nvml`` replace the subprocess
    runner and the ``pynvml`` module (for tests).
    """
    ctx = DetectContext(
        request=request,
        origin=origin,
        python=python,
        timeout=timeout,
        env=dict(os.environ) if env is None else env,
        runner=runner,
        nvml=nvml,
        driver_check=driver_check,
        extra_profiles=dict(extra_profiles or {}),
    )
    skipped: list[tuple[str, str]] = []
    for name, provider in providers:
        try:
            result = provider(ctx)
        except DeviceProfileError:
            raise
        except ProviderSkipped as exc:
            skipped.append((name, str(exc)))
            continue
        except Exception as exc:  # a provider must never take the session down
            skipped.append((name, f"failed unexpectedly: {_describe(exc)}"))
            continue
        if result is not None:
            ctx.devices = result
            if all(d.smem_per_sm_bytes > 0 for d in result if d.is_gpu):
                break
    devices = ctx.devices if ctx.devices else [host_device()]
    return DetectionReport(devices, skipped, ctx.notes)


# --------------------------------------------------------------------------- NVML helpers


def _import_nvml() -> Any:
    import importlib

    try:
        return importlib.import_module("pynvml")
    except ImportError as exc:
        raise ProviderSkipped(
            f"nvidia-ml-py is not installed ({exc}); install pytest-blackwell[nvml]"
        ) from None


def _nvml_device(
    nvml: Any, handle: Any, index: int, driver: str | None, cuda: str | None
) -> DeviceInfo:
    major, minor = nvml.nvmlDeviceGetCudaComputeCapability(handle)
    return _nvml_info(nvml, handle, (int(major), int(minor)), index, driver, cuda)


def _nvml_info(
    nvml: Any, handle: Any, cc: tuple[int, int], index: int, driver: str | None, cuda: str | None
) -> DeviceInfo:
    memory = _optional(lambda: nvml.nvmlDeviceGetMemoryInfo(handle).total)  # GB10: unsupported
    sms = _optional(lambda: nvml.nvmlDeviceGetAttributes(handle).multiprocessorCount)
    return DeviceInfo(
        name=_text(nvml.nvmlDeviceGetName(handle)) or "unknown NVIDIA GPU",
        compute_capability=cc,
        total_memory_bytes=int(memory or 0),
        multiprocessor_count=int(sms or 0),
        driver_version=driver,
        cuda_version=cuda,
        index=index,
        source="nvml",
        uuid=_text(_optional(lambda: nvml.nvmlDeviceGetUUID(handle))),
        extra={"providers": ["nvml"]},
    )


def _nvml_mig(nvml: Any, uuid: str, driver: str | None, cuda: str | None) -> DeviceInfo | None:
    """A MIG instance named by its UUID; compute capability comes from its parent GPU."""
    try:
        handle = nvml.nvmlDeviceGetHandleByUUID(uuid)
        parent = nvml.nvmlDeviceGetDeviceHandleFromMigDeviceHandle(handle)
        major, minor = nvml.nvmlDeviceGetCudaComputeCapability(parent)
        device = _nvml_info(nvml, handle, (int(major), int(minor)), 0, driver, cuda)
    except Exception:
        return None
    return replace(device, uuid=device.uuid or uuid, extra={**device.extra, "mig": True})


def _note_order(ctx: DetectContext, physical: list[DeviceInfo], entries: list[str]) -> None:
    mixed = len({d.name for d in physical}) > 1
    if (
        mixed
        and any(e.isdigit() for e in entries)
        and ctx.env.get("CUDA_DEVICE_ORDER") != "PCI_BUS_ID"
    ):
        ctx.notes.append(
            f"{ENV_VAR} indices were read in PCI bus order (NVML's); CUDA numbers mixed GPUs "
            "fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID is set"
        )


def _cuda_version(value: Any) -> str | None:
    """NVML reports the driver's CUDA version as an integer, e.g. 12080 for 12.8."""
    if not isinstance(value, int) or value <= 0:
        return None
    return f"{value // 1000}.{(value % 1000) // 10}"


# --------------------------------------------------------------------------- merging


def _merge_torch(
    known: list[DeviceInfo], found: list[DeviceInfo], extra: dict[str, Any]
) -> list[DeviceInfo]:
    """Fill devices an earlier provider named with torch's figures, in CUDA ordinal order."""
    by_uuid = {uuid_key(d.uuid): d for d in found if d.uuid}
    if all(d.uuid and uuid_key(d.uuid) in by_uuid for d in known):
        order = [uuid_key(d.uuid) for d in found if d.uuid]
        pairs = sorted(
            ((d, by_uuid[uuid_key(d.uuid or "")]) for d in known),
            key=lambda pair: order.index(uuid_key(pair[1].uuid or "")),
        )
    elif len(known) == len(found):
        pairs = list(zip(known, found, strict=True))
    else:
        raise ProviderSkipped(
            f"torch sees {len(found)} device(s) and the earlier provider {len(known)}, "
            "and their UUIDs do not match"
        )
    merged = []
    for index, (device, child) in enumerate(pairs):
        filled = replace(
            device,
            index=index,
            smem_per_sm_bytes=child.smem_per_sm_bytes or device.smem_per_sm_bytes,
            smem_per_block_bytes=child.smem_per_block_bytes or device.smem_per_block_bytes,
            smem_per_block_optin_bytes=(
                child.smem_per_block_optin_bytes or device.smem_per_block_optin_bytes
            ),
            total_memory_bytes=device.total_memory_bytes or child.total_memory_bytes,
            multiprocessor_count=device.multiprocessor_count or child.multiprocessor_count,
            extra={**device.extra, **extra},
        )
        merged.append(_contributed(filled, "torch") if child.smem_per_sm_bytes else filled)
    return merged


def _contributed(device: DeviceInfo, provider: str) -> DeviceInfo:
    providers = [*device.extra.get("providers", []), provider]
    return replace(device, source=provider, extra={**device.extra, "providers": providers})


# --------------------------------------------------------------------------- small helpers


def _optional(call: Callable[[], Any]) -> Any:
    """``call()``, or ``None`` when it fails (an NVML query the device does not support)."""
    try:
        return call()
    except Exception:
        return None


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bytes):  # older NVML bindings return bytes
        return value.decode("utf-8", "replace")
    return str(value)


def _describe(exc: BaseException) -> str:
    message = str(exc).strip()
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__
