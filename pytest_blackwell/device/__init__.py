"""What hardware the tests run on: ``DeviceInfo``, built-in profiles and detection.

Nothing here imports torch or NVML at import time; detection imports them lazily (torch only
in a child process). The submodules themselves load on first use of a name, so that loading the
plugin (which needs only :class:`DeviceInfo`) stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_blackwell._lazy import lazy_getattr
from pytest_blackwell.device.model import DeviceInfo

if TYPE_CHECKING:
    from pytest_blackwell.device.detect import (
        PROVIDERS,
        REQUEST_ENV_VAR,
        DetectContext,
        DetectionReport,
        ProviderSkipped,
        detect_devices,
        host_device,
    )
    from pytest_blackwell.device.profiles import (
        ARCHITECTURES,
        PROFILES,
        ArchSpec,
        DeviceProfileError,
        arch_spec,
        load_profile,
    )

_LAZY = {
    "PROVIDERS": "detect",
    "REQUEST_ENV_VAR": "detect",
    "DetectContext": "detect",
    "DetectionReport": "detect",
    "ProviderSkipped": "detect",
    "detect_devices": "detect",
    "host_device": "detect",
    "ARCHITECTURES": "profiles",
    "PROFILES": "profiles",
    "ArchSpec": "profiles",
    "DeviceProfileError": "profiles",
    "arch_spec": "profiles",
    "load_profile": "profiles",
}


__getattr__ = lazy_getattr(__name__, _LAZY)


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
