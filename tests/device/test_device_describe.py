"""One description of a session's devices, shared by the report header and JUnit."""

from __future__ import annotations

from dataclasses import replace

from pytest_blackwell.device.model import DeviceInfo, describe_devices
from pytest_blackwell.device.profiles import PROFILES

H200 = PROFILES["h200"]
L40S = PROFILES["l40s"]


def test_one_gpu_names_its_memory_shared_memory_and_origin() -> None:
    assert describe_devices([H200]) == (
        "NVIDIA H200 (sm_90), 141 GiB, smem 228 KB/SM 227 KB/block [simulated]"
    )


def test_identical_devices_are_counted_and_different_ones_listed() -> None:
    second = replace(H200, index=1)
    assert describe_devices([H200, second, L40S]) == (
        "2x NVIDIA H200 (sm_90), 141 GiB, smem 228 KB/SM 227 KB/block [simulated]; "
        "NVIDIA L40S (sm_89), 48 GiB, smem 100 KB/SM 99 KB/block [simulated]"
    )


def test_a_host_without_gpu_and_an_empty_list() -> None:
    cpu = DeviceInfo(name="CPU", compute_capability=None, source="none")
    assert describe_devices([cpu]) == "CPU (no GPU) [via none]"
    assert describe_devices([]) == "no device"
