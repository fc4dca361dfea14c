"""What hardware the tests run on: ``DeviceInfo``, built-in profiles and detection.

Nothing here imports torch or NVML at import time; detection imports them lazily (torch only
in a child process).
"""

from __future__ import annotations

from pytest_blackwell.device.detect import (
    PROVIDERS,
    REQUEST_ENV_VAR,
    DetectContext,
    DetectionReport,
    ProviderSkipped,
    detect_devices,
    host_device,
)
from pytest_blackwell.device.model import DeviceInfo
from pytest_blackwell.device.profiles import (
    ARCHITECTURES,
    PROFILES,
    ArchSpec,
    DeviceProfileError,
    arch_spec,
    load_profile,
)

__all__ = [
    "ARCHITECTURES",
    "PROFILES",
    "PROVIDERS",
    "REQUEST_ENV_VAR",
    "ArchSpec",
    "DetectContext",
    "DetectionReport",
    "DeviceInfo",
    "DeviceProfileError",
    "ProviderSkipped",
    "arch_spec",
    "detect_devices",
    "host_device",
    "load_profile",
]
