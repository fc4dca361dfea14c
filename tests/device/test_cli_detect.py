"""``python -m pytest_blackwell detect`` and ``profiles``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_blackwell.cli import main
from pytest_blackwell.device import PROFILES

KB = 1024
REQUIRED_KEYS = {
    "name",
    "compute_capability",
    "smem_per_sm_bytes",
    "smem_per_block_bytes",
    "smem_per_block_optin_bytes",
    "total_memory_bytes",
    "source",
}


@pytest.fixture(autouse=True)
def _no_requested_device(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYTEST_BLACKWELL_DEVICE", raising=False)


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(list(argv)) == 0
    data = json.loads(capsys.readouterr().out)
    assert isinstance(data, dict)
    return data


def test_detect_json_with_a_simulated_device(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "detect", "--json", "--device", "rtx-pro-6000")
    (device,) = data["devices"]
    assert set(device) >= REQUIRED_KEYS
    assert device["name"] == "NVIDIA RTX PRO 6000 Blackwell Workstation Edition"
    assert device["compute_capability"] == "12.0"
    assert (device["smem_per_sm_bytes"], device["smem_per_block_optin_bytes"]) == (
        128 * KB,
        99 * KB,
    )
    assert device["smem_per_block_bytes"] == 48 * KB
    assert (device["source"], device["profile"]) == ("simulated", "rtx-pro-6000")
    assert data["skipped"] == []


def test_detect_honours_the_environment_variable(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTEST_BLACKWELL_DEVICE", "b200*2")
    data = run_json(capsys, "detect", "--json")
    assert [(d["name"], d["index"]) for d in data["devices"]] == [
        ("NVIDIA B200", 0),
        ("NVIDIA B200", 1),
    ]
    # --device wins over the environment
    data = run_json(capsys, "detect", "--json", "--device", "cpu")
    assert [d["compute_capability"] for d in data["devices"]] == [None]


@pytest.mark.parametrize(
    ("argv", "env", "origin"),
    [
        (["detect", "--device", "b300"], None, "(from --device)"),
        (["detect"], "b300", "(from environment variable PYTEST_BLACKWELL_DEVICE)"),
    ],
)
def test_detect_with_a_bad_device_says_where_it_came_from(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    env: str | None,
    origin: str,
) -> None:
    if env is not None:
        monkeypatch.setenv("PYTEST_BLACKWELL_DEVICE", env)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: unknown device profile 'b300' ")
    assert origin in err
    assert "rtx-pro-6000" in err


def test_detect_bad_json_file_names_the_field(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "mine.json"
    path.write_text('{"name": "x", "compute_capability": "9.0", "smem_per_sm_bytes": "lots"}')
    assert main(["detect", "--device", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"device profile file '{path}' (from --device)" in err
    assert "field 'smem_per_sm_bytes' must be a non-negative integer" in err


def test_detect_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["detect", "--device", "gb10*2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == [
        "#", "name", "cc", "smem/SM", "smem/block", "(opt-in)", "memory", "SMs", "source",
    ]  # fmt: skip
    assert lines[1].split() == [
        "0", "NVIDIA", "GB10", "12.1", "128", "KB", "48", "KB", "(99", "KB)", "128.0", "GiB",
        "48", "simulated", "(gb10)",
    ]  # fmt: skip
    assert lines[2].startswith("1  NVIDIA GB10")


def test_detect_without_a_gpu_lists_why_providers_were_passed_over(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "-1")
    data = run_json(capsys, "detect", "--json")
    assert [d["source"] for d in data["devices"]] == ["none"]
    skipped = {s["provider"]: s["reason"] for s in data["skipped"]}
    assert skipped["nvml"] == "CUDA_VISIBLE_DEVICES='-1' hides every GPU"
    assert set(skipped) == {"simulated", "nvml", "torch", "table"}

    assert main(["detect"]) == 0
    out = capsys.readouterr().out
    assert "CPU" in out
    assert "passed over:\n  simulated: no simulated device requested\n" in out
    assert "  nvml: CUDA_VISIBLE_DEVICES='-1' hides every GPU" in out


def test_profiles_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["profiles"]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line for line in out.splitlines()[1:] if line.strip()}
    assert set(PROFILES) <= set(rows)
    assert "12.0" in rows["rtx-pro-6000"]
    assert "228 KB   48 KB (227 KB)" in rows["b200"]
    assert "no GPU" in rows["cpu"]


def test_profiles_json(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "profiles", "--json")
    profiles = {p["profile"]: p for p in data["profiles"]}
    assert list(profiles) == list(PROFILES)
    assert profiles["gb10"]["compute_capability"] == "12.1"
    assert profiles["a100"]["smem_per_block_optin_bytes"] == 163 * KB


def test_module_entry_point() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pytest_blackwell", "detect", "--json", "--device", "h100*2"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    devices = json.loads(done.stdout)["devices"]
    assert [(d["arch"], d["index"], d["smem_per_block_optin_bytes"]) for d in devices] == [
        ("sm90", 0, 227 * KB),
        ("sm90", 1, 227 * KB),
    ]
