"""The torch child process: its answers, its failures, and the real thing where torch exists."""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import stat
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import SimpleNamespace

import pytest

from pytest_blackwell.device import DetectionReport, detect_devices
from pytest_blackwell.device.torch_probe import (
    PROBE_MARKER,
    missing_driver_reason,
    parse_probe,
    run_torch_probe,
)

KB = 1024


#: Detection that starts the torch child (or the injected runner) even on a host without an
#: NVIDIA driver, so the torch provider's own behaviour is what these tests see.
detect_with_probe = functools.partial(detect_devices, driver_check=lambda: None)


def fake_python(tmp_path: Path, body: str) -> str:
    """An executable standing in for the interpreter, so the real subprocess path runs."""
    path = tmp_path / "python"
    path.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


needs_posix_sh = pytest.mark.skipif(os.name != "posix", reason="fake interpreter is a sh script")


def test_probe_result_becomes_devices(fakes: SimpleNamespace) -> None:
    device = fakes.torch_device(
        "NVIDIA GeForce RTX 5090", (12, 0), "abcd", per_sm_kb=128, optin_kb=99
    )
    probe = run_torch_probe("python", 5, {}, fakes.Runner(fakes.probe_output([device])))
    assert (probe.torch_version, probe.torch_cuda) == ("2.9.0+cu128", "12.8")
    (info,) = probe.devices
    assert (info.name, info.arch, info.source, info.uuid) == (
        "NVIDIA GeForce RTX 5090",
        "sm120",
        "torch",
        "GPU-abcd",
    )
    assert (info.smem_per_sm_bytes, info.smem_per_block_bytes) == (128 * KB, 48 * KB)


@pytest.mark.parametrize(
    ("stdout", "returncode", "stderr", "expected"),
    [
        ("garbage\n", 0, "", "torch subprocess exited with status 0 without a result"),
        (
            "",
            1,
            "Traceback...\nSegmentation fault\n",
            "status 1 without a result: Segmentation fault",
        ),
        (PROBE_MARKER + "{broken\n", 0, "", "without a result"),
        (
            PROBE_MARKER + '{"error": "cannot import torch: ModuleNotFoundError: x"}\n',
            0,
            "",
            "cannot import torch: ModuleNotFoundError: x",
        ),
        (PROBE_MARKER + "[1]\n", 0, "", "torch subprocess printed [1], expected an object"),
        (PROBE_MARKER + '{"torch": 2, "devices": []}\n', 0, "", "malformed result"),
        (PROBE_MARKER + '{"torch": "2", "devices": [3]}\n', 0, "", "malformed devices[0]: 3"),
        (
            PROBE_MARKER
            + '{"torch": "2", "devices": [{"name": "x", "compute_capability": "?"}]}\n',
            0,
            "",
            "malformed devices[0]: compute_capability must look like",
        ),
    ],
)
def test_failing_probe_falls_through_with_the_reason(
    fakes: SimpleNamespace, stdout: str, returncode: int, stderr: str, expected: str
) -> None:
    runner = fakes.Runner(stdout, returncode=returncode, stderr=stderr)
    report = detect_with_probe(None, env={}, nvml=fakes.NVML([]), runner=runner)
    assert expected in dict(report.skipped)["torch"]
    assert report.devices[0].source == "none"


def test_timeout_from_the_runner(fakes: SimpleNamespace) -> None:
    def slow(
        command: Sequence[str], timeout: float, env: Mapping[str, str]
    ) -> tuple[int, str, str]:
        raise subprocess.TimeoutExpired(list(command), timeout)

    report = detect_with_probe(
        None, env={}, nvml=fakes.NVML([]), runner=slow, python="py", timeout=0.5
    )
    assert dict(report.skipped)["torch"] == "torch subprocess (py) timed out after 0.5 s"


def test_missing_interpreter(fakes: SimpleNamespace, tmp_path: Path) -> None:
    missing = str(tmp_path / "no-such-python")
    report = detect_with_probe(None, env={}, nvml=fakes.NVML([]), python=missing)
    assert dict(report.skipped)["torch"].startswith(f"cannot run '{missing}'")


@needs_posix_sh
def test_real_subprocess_printing_garbage(fakes: SimpleNamespace, tmp_path: Path) -> None:
    python = fake_python(tmp_path, "echo 'hello from a broken interpreter'; echo oops >&2; exit 3")
    report = detect_with_probe(None, env={}, nvml=fakes.NVML([]), python=python)
    assert dict(report.skipped)["torch"] == (
        "torch subprocess exited with status 3 without a result: oops"
    )


@needs_posix_sh
def test_real_subprocess_timing_out(fakes: SimpleNamespace, tmp_path: Path) -> None:
    python = fake_python(tmp_path, "exec sleep 30")
    report = detect_with_probe(None, env={}, nvml=fakes.NVML([]), python=python, timeout=0.5)
    assert "timed out after 0.5 s" in dict(report.skipped)["torch"]


def test_parse_probe_keeps_cpu_only_torch_versions() -> None:
    probe = parse_probe({"torch": "2.13.0+cpu", "cuda": None, "devices": []})
    assert (probe.torch_version, probe.torch_cuda, probe.devices) == ("2.13.0+cpu", None, [])


REAL_DETECTION = """
import json, sys
from pytest_blackwell.device import detect_devices
report = detect_devices(None, timeout=120, driver_check=lambda: None)
print(json.dumps({"torch_imported": "torch" in sys.modules, "report": report.to_dict()}))
"""


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")
def test_real_torch_subprocess_and_no_torch_in_the_caller() -> None:
    """Real detection in a fresh interpreter: torch runs in its child, never in the caller."""
    done = subprocess.run(
        [sys.executable, "-c", REAL_DETECTION],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["torch_imported"] is False
    report = DetectionReport.from_dict(result["report"])
    gpus = report.gpus
    if not gpus:
        # CPU-only torch (or no GPU): the torch provider falls through cleanly to "no GPU".
        assert "sees no CUDA device" in dict(report.skipped)["torch"]
        assert [d.source for d in report.devices] == ["none"]
    for device in gpus:
        assert device.smem_per_sm_bytes > 0
        assert 0 < device.smem_per_block_optin_bytes <= device.smem_per_sm_bytes


def test_no_driver_means_torch_is_not_started(fakes: SimpleNamespace) -> None:
    runner = fakes.Runner(fakes.probe_output([]))
    report = detect_devices(
        None, env={}, nvml=fakes.NVML([]), runner=runner, driver_check=lambda: "no driver here"
    )
    assert dict(report.skipped)["torch"] == "no driver here"
    assert runner.calls == []


def test_missing_driver_reason(tmp_path: Path) -> None:
    absent, present = str(tmp_path / "nvidia0"), str(tmp_path)
    assert missing_driver_reason([absent], "linux") == (
        f"no NVIDIA driver on this host (none of {absent} exists), so torch was not started"
    )
    assert missing_driver_reason([absent, present], "linux") is None
    assert missing_driver_reason([absent], "win32") is None  # cannot tell: let torch answer
    assert missing_driver_reason([present], "darwin") == (
        "macOS has no CUDA driver, so torch was not started"
    )
