"""Built-in profiles, the architecture table, ``NAME*N`` requests and JSON profile files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_blackwell.device import (
    ARCHITECTURES,
    PROFILES,
    DeviceInfo,
    DeviceProfileError,
    arch_spec,
    load_profile,
)

KB = 1024
GIB = 1024**3

#: profile -> (compute capability, smem per SM in KB, smem per block opt-in in KB)
EXPECTED_SMEM = {
    "rtx-pro-6000": ((12, 0), 128, 99),
    "rtx-5090": ((12, 0), 128, 99),
    "rtx-pro-4000": ((12, 0), 128, 99),
    "gb10": ((12, 1), 128, 99),
    "b200": ((10, 0), 228, 227),
    "gb200": ((10, 0), 228, 227),
    "h100": ((9, 0), 228, 227),
    "h200": ((9, 0), 228, 227),
    "l40s": ((8, 9), 100, 99),
    "rtx-4090": ((8, 9), 100, 99),
    "rtx-3090": ((8, 6), 100, 99),
    "a10": ((8, 6), 100, 99),
    "a100": ((8, 0), 164, 163),
}

#: profile -> memory in vendor GB (read as GiB)
EXPECTED_MEMORY_GB = {
    "rtx-pro-6000": 96,
    "rtx-5090": 32,
    "rtx-pro-4000": 24,
    "gb10": 128,
    "b200": 180,
    "gb200": 186,
    "h100": 80,
    "h200": 141,
    "l40s": 48,
    "rtx-4090": 24,
    "rtx-3090": 24,
    "a10": 24,
    "a100": 80,
}


def test_profile_names_are_exactly_the_documented_ones() -> None:
    assert set(PROFILES) == {*EXPECTED_SMEM, "cpu"}


@pytest.mark.parametrize(("profile", "expected"), EXPECTED_SMEM.items())
def test_gpu_profile_shared_memory(profile: str, expected: tuple[Any, int, int]) -> None:
    cc, per_sm_kb, optin_kb = expected
    device = PROFILES[profile]
    assert device.compute_capability == cc
    assert device.smem_per_sm_bytes == per_sm_kb * KB
    assert device.smem_per_block_optin_bytes == optin_kb * KB
    assert device.smem_per_block_bytes == 48 * KB


@pytest.mark.parametrize(("profile", "gb"), EXPECTED_MEMORY_GB.items())
def test_gpu_profile_memory_and_identity(profile: str, gb: int) -> None:
    device = PROFILES[profile]
    assert device.total_memory_bytes == gb * GIB
    assert device.name.startswith("NVIDIA ")
    assert device.multiprocessor_count > 0
    assert (device.source, device.profile, device.index) == ("simulated", profile, 0)


def test_sm120_and_sm100_are_distinct_architectures() -> None:
    consumer, datacenter = PROFILES["rtx-pro-6000"], PROFILES["b200"]
    assert (consumer.arch, consumer.family) == ("sm120", "sm12x")
    assert (datacenter.arch, datacenter.family) == ("sm100", "sm10x")
    # The whole point: a kernel tuned for 227 KB per block does not fit sm_120's 99 KB.
    assert consumer.smem_per_block_optin_bytes == 99 * KB < datacenter.smem_per_block_optin_bytes
    assert PROFILES["gb10"].arch == "sm121"
    assert PROFILES["gb10"].family == "sm12x"


def test_cpu_profile_has_no_gpu() -> None:
    cpu = PROFILES["cpu"]
    assert not cpu.is_gpu
    assert cpu.compute_capability is None
    assert cpu.describe() == "CPU (no GPU)"


def test_architecture_table_is_keyed_by_compute_capability() -> None:
    spec = arch_spec((12, 1))
    assert spec is not None
    assert (spec.family, spec.smem_per_sm_bytes, spec.smem_per_block_optin_bytes) == (
        "sm12x",
        128 * KB,
        99 * KB,
    )
    assert arch_spec((13, 0)) is None
    assert arch_spec(None) is None
    assert all(s.smem_per_block_bytes == 48 * KB for s in ARCHITECTURES.values())
    for device in PROFILES.values():
        if device.is_gpu:
            assert device.compute_capability in ARCHITECTURES


def test_device_list_survives_a_json_round_trip() -> None:
    devices = [*PROFILES.values(), *load_profile("h100*2")]
    text = json.dumps([device.to_dict() for device in devices])
    assert [DeviceInfo.from_dict(data) for data in json.loads(text)] == devices
    assert json.loads(text)[0]["compute_capability"] == "12.0"


# --------------------------------------------------------------------------- requests


@pytest.mark.parametrize("request_text", ["h100*4", "h100:4", " H100 * 4 ", "H100:4"])
def test_multi_gpu_notation(request_text: str) -> None:
    devices = load_profile(request_text)
    assert [d.index for d in devices] == [0, 1, 2, 3]
    assert {(d.name, d.source, d.profile) for d in devices} == {
        ("NVIDIA H100 80GB HBM3", "simulated", "h100")
    }


def test_profile_names_ignore_case_and_underscores() -> None:
    assert load_profile("RTX_PRO_6000") == [PROFILES["rtx-pro-6000"]]


@pytest.mark.parametrize("request_text", ["h100*0", "h100:100000"])
def test_device_count_out_of_range(request_text: str) -> None:
    with pytest.raises(DeviceProfileError, match=r"must be between 1 and \d+") as info:
        load_profile(request_text, origin="--blackwell-device")
    assert "--blackwell-device" in str(info.value)


def test_unknown_profile_lists_known_ones_and_origin() -> None:
    with pytest.raises(DeviceProfileError) as info:
        load_profile("rtx6000", origin="environment variable PYTEST_BLACKWELL_DEVICE")
    message = str(info.value)
    assert "unknown device profile 'rtx6000'" in message
    assert "did you mean 'rtx-5090'?" in message or "did you mean 'rtx-pro-6000'?" in message
    assert "environment variable PYTEST_BLACKWELL_DEVICE" in message
    for name in PROFILES:
        assert name in message


def test_a_file_named_like_a_profile_does_not_shadow_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "h100").write_text("{}", encoding="utf-8")
    assert load_profile("h100")[0].profile == "h100"


def test_a_json_path_without_extension(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mygpu").write_text('{"name": "Mine", "compute_capability": "8.6"}')
    assert [(d.name, d.profile) for d in load_profile("mygpu*2")] == [
        ("Mine", "mygpu"),
        ("Mine", "mygpu"),
    ]


def test_empty_request_is_an_error() -> None:
    with pytest.raises(DeviceProfileError, match="empty device profile"):
        load_profile("  ")


# --------------------------------------------------------------------------- JSON files


def write(tmp_path: Path, data: Any, name: str = "gpu.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def test_json_single_device_fills_smem_from_the_table(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        {"name": "Prototype", "compute_capability": "12.0", "total_memory_bytes": 8 * GIB},
    )
    (device,) = load_profile(str(path))
    assert (device.name, device.arch, device.total_memory_bytes) == ("Prototype", "sm120", 8 * GIB)
    assert (device.smem_per_sm_bytes, device.smem_per_block_optin_bytes) == (128 * KB, 99 * KB)
    assert (device.source, device.profile, device.index) == ("simulated", str(path), 0)


def test_json_devices_list_with_custom_architecture(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        {
            "devices": [
                {
                    "name": "Future GPU",
                    "compute_capability": [13, 0],
                    "smem_per_sm_bytes": 256 * KB,
                    "smem_per_block_optin_bytes": 255 * KB,
                },
                {"name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0"},
            ]
        },
    )
    future, hopper = load_profile(str(path))
    assert (future.index, future.cc_string, future.smem_per_sm_bytes) == (0, "13.0", 256 * KB)
    assert future.smem_per_block_bytes == 0  # unknown architecture: nothing invented
    assert (hopper.index, hopper.smem_per_block_optin_bytes) == (1, 227 * KB)


def test_json_profile_with_count(tmp_path: Path) -> None:
    path = write(tmp_path, {"name": "Box", "compute_capability": "8.9"})
    assert [d.index for d in load_profile(f"{path}*3")] == [0, 1, 2]


def test_detect_json_output_is_a_valid_profile(tmp_path: Path) -> None:
    report = {
        "devices": [d.to_dict() for d in load_profile("gb10*2")],
        "skipped": [{"provider": "nvml", "reason": "not installed"}],
        "notes": [],
    }
    path = write(tmp_path, report)
    devices = load_profile(str(path))
    assert [(d.name, d.arch, d.index) for d in devices] == [
        ("NVIDIA GB10", "sm121", 0),
        ("NVIDIA GB10", "sm121", 1),
    ]
    assert {d.profile for d in devices} == {str(path)}


def test_json_cpu_host(tmp_path: Path) -> None:
    path = write(tmp_path, {"name": "Build box", "compute_capability": None})
    (device,) = load_profile(str(path))
    assert not device.is_gpu


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ("{not json", r"is not valid JSON: .* line 1 column 2"),
        ([1, 2], r"expected a device object or \{\"devices\": \[\.\.\.\]\}, got list"),
        ({"devices": []}, r"'devices' must be a non-empty list"),
        ({"devices": [{"name": "x"}], "extra_key": 1}, r"unexpected top-level key\(s\)"),
        ({"devices": ["x"]}, r"field 'devices\[0\]' must be a device object"),
        ({"compute_capability": "12.0"}, r"field 'name' must be a non-empty string"),
        ({"name": "x"}, r"field 'compute_capability' is missing"),
        ({"name": "x", "compute_capability": "twelve"}, r"field 'compute_capability' must look"),
        (
            {
                "devices": [
                    {"name": "a", "compute_capability": "9.0"},
                    {"name": "b", "compute_capability": "9.0", "smem_per_sm_bytes": -5},
                ]
            },
            r"field 'devices\[1\]\.smem_per_sm_bytes' must be a non-negative integer.*-5",
        ),
        (
            {"name": "x", "compute_capability": "9.0", "total_memory_bytes": "80GB"},
            r"field 'total_memory_bytes' must be a non-negative integer",
        ),
        (
            {"name": "x", "compute_capability": "9.0", "smem_per_block_opt_in_bytes": 1},
            r"field 'smem_per_block_opt_in_bytes' is not a device field; known fields: .*"
            r"smem_per_block_optin_bytes",
        ),
        (
            {"name": "x", "compute_capability": "13.0"},
            r"field 'smem_per_sm_bytes' is required: compute capability 13.0 is not in the "
            r"built-in architecture table",
        ),
        (
            {"name": "x", "compute_capability": "12.0", "smem_per_block_optin_bytes": 200 * KB},
            r"field 'smem_per_block_optin_bytes' \(204800\) cannot exceed smem_per_sm_bytes",
        ),
        (
            {"name": "x", "compute_capability": "9.0", "driver_version": 580},
            r"field 'driver_version' must be a string or null",
        ),
    ],
)
def test_invalid_json_profile_names_file_field_and_origin(
    tmp_path: Path, data: Any, expected: str
) -> None:
    path = write(tmp_path, data)
    with pytest.raises(DeviceProfileError, match=expected) as info:
        load_profile(str(path), origin="ini option blackwell_device")
    message = str(info.value)
    assert f"device profile file '{path}'" in message
    assert "(from ini option blackwell_device)" in message


def test_missing_json_file(tmp_path: Path) -> None:
    missing = tmp_path / "nope.json"
    with pytest.raises(DeviceProfileError, match=r"cannot read device profile file .*nope\.json"):
        load_profile(str(missing), origin="--blackwell-device")


def test_count_on_a_multi_device_file_is_rejected(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        {
            "devices": [
                {"name": "a", "compute_capability": "9.0"},
                {"name": "b", "compute_capability": "9.0"},
            ]
        },
    )
    with pytest.raises(DeviceProfileError, match="a count applies to one device"):
        load_profile(f"{path}*2")
