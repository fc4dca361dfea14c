"""The provider chain: simulated > NVML > torch subprocess > architecture table > no GPU."""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from collections.abc import Mapping, Sequence
from types import SimpleNamespace
from typing import Any

import pytest

from pytest_blackwell.device import (
    DetectionReport,
    DeviceInfo,
    DeviceProfileError,
    ProviderSkipped,
    detect_devices,
)
from pytest_blackwell.device.detect import PROVIDERS, DetectContext

KB = 1024
GIB = 1024**3
UUID_A = "aaaaaaaa-1111-2222-3333-444444444444"
UUID_B = "bbbbbbbb-1111-2222-3333-444444444444"


#: Detection that starts the torch child (or the injected runner) even on a host without an
#: NVIDIA driver, so the torch provider's own behaviour is what these tests see.
detect_with_probe = functools.partial(detect_devices, driver_check=lambda: None)


def rtx_pro_6000(fakes: SimpleNamespace, uuid: str = UUID_A, **kw: Any) -> Any:
    kw.setdefault("memory", 96 * GIB)
    return fakes.GPU(
        "NVIDIA RTX PRO 6000 Blackwell Workstation Edition", (12, 0), f"GPU-{uuid}", **kw
    )


def b200(fakes: SimpleNamespace, uuid: str = UUID_B) -> Any:
    return fakes.GPU("NVIDIA B200", (10, 0), f"GPU-{uuid}", memory=180 * GIB, sms=148)


def torch_rtx(fakes: SimpleNamespace, uuid: str | None = UUID_A) -> Any:
    return fakes.torch_device(
        "NVIDIA RTX PRO 6000 Blackwell Workstation Edition",
        (12, 0),
        uuid,
        per_sm_kb=128,
        optin_kb=99,
        memory=95 * GIB,
        sms=188,
    )


def torch_b200(fakes: SimpleNamespace, uuid: str | None = UUID_B) -> Any:
    return fakes.torch_device(
        "NVIDIA B200", (10, 0), uuid, per_sm_kb=228, optin_kb=227, memory=179 * GIB, sms=148
    )


def timing_out(command: Sequence[str], timeout: float, env: Mapping[str, str]) -> Any:
    raise subprocess.TimeoutExpired(list(command), timeout)


def reasons(report: DetectionReport) -> dict[str, str]:
    return dict(report.skipped)


# --------------------------------------------------------------------------- simulated


def test_simulated_profile_wins_and_nothing_else_runs(fakes: SimpleNamespace) -> None:
    nvml = fakes.NVML([b200(fakes)])
    runner = fakes.Runner()
    report = detect_with_probe("rtx-pro-6000*2", env={}, nvml=nvml, runner=runner)
    assert [(d.name, d.index, d.source) for d in report.devices] == [
        ("NVIDIA RTX PRO 6000 Blackwell Workstation Edition", 0, "simulated"),
        ("NVIDIA RTX PRO 6000 Blackwell Workstation Edition", 1, "simulated"),
    ]
    assert report.simulated
    assert report.skipped == []
    assert nvml.calls == []
    assert runner.calls == []


def test_bad_simulated_request_raises_with_origin(fakes: SimpleNamespace) -> None:
    with pytest.raises(
        DeviceProfileError, match=r"unknown device profile 'b300' \(from --blackwell"
    ):
        detect_with_probe("b300", origin="--blackwell-device", env={}, nvml=fakes.NVML([]))


def test_blank_request_means_detect(fakes: SimpleNamespace) -> None:
    report = detect_with_probe("  ", env={"CUDA_VISIBLE_DEVICES": "-1"})
    assert reasons(report)["simulated"] == "no simulated device requested"
    assert report.devices[0].source == "none"


# --------------------------------------------------------------------------- NVML + torch


def test_nvml_names_the_gpu_and_torch_fills_shared_memory(fakes: SimpleNamespace) -> None:
    nvml = fakes.NVML([rtx_pro_6000(fakes, sms=None)], driver=b"580.65.06", cuda=12090)
    runner = fakes.Runner(fakes.probe_output([torch_rtx(fakes)]))
    report = detect_with_probe(None, env={}, nvml=nvml, runner=runner, python="/opt/py", timeout=7)
    (device,) = report.devices
    assert device.name == "NVIDIA RTX PRO 6000 Blackwell Workstation Edition"
    assert (device.arch, device.index, device.uuid) == ("sm120", 0, f"GPU-{UUID_A}")
    assert device.total_memory_bytes == 96 * GIB  # NVML's figure is kept
    assert device.multiprocessor_count == 188  # NVML lacked it: torch's
    assert (device.smem_per_sm_bytes, device.smem_per_block_optin_bytes) == (128 * KB, 99 * KB)
    assert (device.driver_version, device.cuda_version) == ("580.65.06", "12.9")
    assert device.source == "torch"
    assert device.extra["providers"] == ["nvml", "torch"]
    assert device.extra["torch_cuda"] == "12.8"
    assert reasons(report) == {"simulated": "no simulated device requested"}
    assert nvml.calls == ["init", "shutdown"]
    (command, timeout, _env) = runner.calls[0]
    assert command[:2] == ["/opt/py", "-c"]
    assert timeout == 7


def test_gb10_memory_comes_from_torch_when_nvml_cannot_say(fakes: SimpleNamespace) -> None:
    nvml = fakes.NVML([fakes.GPU("NVIDIA GB10", (12, 1), f"GPU-{UUID_A}", memory=None, sms=48)])
    child = fakes.torch_device(
        "NVIDIA GB10", (12, 1), UUID_A, per_sm_kb=128, optin_kb=99, memory=119 * GIB, sms=48
    )
    report = detect_with_probe(
        None, env={}, nvml=nvml, runner=fakes.Runner(fakes.probe_output([child]))
    )
    assert report.devices[0].total_memory_bytes == 119 * GIB
    assert report.devices[0].arch == "sm121"


def test_torch_timeout_falls_back_to_the_architecture_table(fakes: SimpleNamespace) -> None:
    nvml = fakes.NVML([rtx_pro_6000(fakes), b200(fakes)])
    report = detect_with_probe(None, env={}, nvml=nvml, runner=timing_out, timeout=3)
    assert [(d.arch, d.smem_per_block_optin_bytes) for d in report.devices] == [
        ("sm120", 99 * KB),
        ("sm100", 227 * KB),
    ]
    assert {d.source for d in report.devices} == {"table"}
    assert report.devices[0].extra["providers"] == ["nvml", "table"]
    assert reasons(report)["torch"] == f"torch subprocess ({sys.executable}) timed out after 3 s"


def test_cpu_only_torch_on_a_gpu_host_falls_back_to_the_table(
    fakes: SimpleNamespace, no_torch_gpu: Any
) -> None:
    report = detect_with_probe(None, env={}, nvml=fakes.NVML([b200(fakes)]), runner=no_torch_gpu)
    assert report.devices[0].source == "table"
    assert "sees no CUDA device (a CPU-only build" in reasons(report)["torch"]


def test_unknown_architecture_keeps_nvml_facts_without_inventing_smem(
    fakes: SimpleNamespace,
) -> None:
    nvml = fakes.NVML([fakes.GPU("NVIDIA Rubin", (13, 0), "GPU-cccc", memory=288 * GIB)])
    report = detect_with_probe(None, env={}, nvml=nvml, runner=timing_out)
    (device,) = report.devices
    assert (device.name, device.cc_string, device.source) == ("NVIDIA Rubin", "13.0", "nvml")
    assert device.smem_per_sm_bytes == 0
    assert (
        "does not know NVIDIA Rubin (sm_130) (compute capability 13.0)" in reasons(report)["table"]
    )


def test_table_fills_what_it_knows_and_notes_the_rest(fakes: SimpleNamespace) -> None:
    nvml = fakes.NVML([b200(fakes), fakes.GPU("NVIDIA Rubin", (13, 0), "GPU-cccc")])
    report = detect_with_probe(None, env={}, nvml=nvml, runner=timing_out)
    assert [(d.source, d.smem_per_sm_bytes) for d in report.devices] == [
        ("table", 228 * KB),
        ("nvml", 0),
    ]
    assert report.notes == [
        "the built-in architecture table does not know NVIDIA Rubin (sm_130) "
        "(compute capability 13.0): their shared memory is unknown"
    ]


def test_torch_order_and_uuids_decide_when_they_differ_from_nvml(fakes: SimpleNamespace) -> None:
    # CUDA numbers mixed GPUs fastest first: torch sees the B200 as device 0.
    nvml = fakes.NVML([rtx_pro_6000(fakes), b200(fakes)])
    runner = fakes.Runner(fakes.probe_output([torch_b200(fakes), torch_rtx(fakes)]))
    report = detect_with_probe(None, env={}, nvml=nvml, runner=runner)
    assert [(d.index, d.arch, d.smem_per_sm_bytes) for d in report.devices] == [
        (0, "sm100", 228 * KB),
        (1, "sm120", 128 * KB),
    ]


def test_torch_without_uuids_is_matched_by_position(fakes: SimpleNamespace) -> None:
    nvml = fakes.NVML([rtx_pro_6000(fakes), b200(fakes)])
    runner = fakes.Runner(fakes.probe_output([torch_rtx(fakes, None), torch_b200(fakes, None)]))
    report = detect_with_probe(None, env={}, nvml=nvml, runner=runner)
    assert [d.smem_per_sm_bytes for d in report.devices] == [128 * KB, 228 * KB]


def test_torch_and_nvml_disagreeing_falls_back_to_the_table(fakes: SimpleNamespace) -> None:
    nvml = fakes.NVML([rtx_pro_6000(fakes), b200(fakes)])
    runner = fakes.Runner(fakes.probe_output([torch_rtx(fakes, "ffff")]))
    report = detect_with_probe(None, env={}, nvml=nvml, runner=runner)
    assert "torch sees 1 device(s) and the earlier provider 2" in reasons(report)["torch"]
    assert [d.source for d in report.devices] == ["table", "table"]


# --------------------------------------------------------------------------- NVML failing


def test_nvml_missing_falls_through_to_torch(
    fakes: SimpleNamespace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", None)  # makes `import pynvml` fail
    runner = fakes.Runner(fakes.probe_output([torch_rtx(fakes)]))
    report = detect_with_probe(None, env={}, runner=runner)
    assert "nvidia-ml-py is not installed" in reasons(report)["nvml"]
    (device,) = report.devices
    assert (device.source, device.uuid, device.cuda_version) == ("torch", f"GPU-{UUID_A}", "12.8")
    assert device.extra["providers"] == ["torch"]


def test_nvml_module_is_imported_lazily_as_pynvml(
    fakes: SimpleNamespace, monkeypatch: pytest.MonkeyPatch
) -> None:
    nvml = fakes.NVML([b200(fakes)])
    monkeypatch.setitem(sys.modules, "pynvml", nvml)
    report = detect_with_probe(None, env={}, runner=timing_out)
    assert report.devices[0].name == "NVIDIA B200"
    assert nvml.calls == ["init", "shutdown"]


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"init_error": "Driver Not Loaded"}, "NVML could not start: NVMLError: Driver Not Loaded"),
        ({"count_error": "Unknown Error"}, "NVML query failed: NVMLError: Unknown Error"),
    ],
)
def test_nvml_errors_fall_through_with_the_reason(
    fakes: SimpleNamespace, kwargs: dict[str, str], expected: str
) -> None:
    nvml = fakes.NVML([b200(fakes)], **kwargs)
    runner = fakes.Runner(fakes.probe_output([torch_b200(fakes)]))
    report = detect_with_probe(None, env={}, nvml=nvml, runner=runner)
    assert reasons(report)["nvml"] == expected
    assert report.devices[0].source == "torch"
    assert nvml.calls[-1] == ("shutdown" if "count_error" in kwargs else "init")


def test_nvml_without_compute_capability_falls_through(fakes: SimpleNamespace) -> None:
    nvml = fakes.NVML([fakes.GPU("Old", (0, 0), "GPU-x")])
    report = detect_with_probe(None, env={}, nvml=nvml, runner=fakes.Runner("garbage"))
    assert "NVML query failed" in reasons(report)["nvml"]
    assert report.devices[0].source == "none"


def test_nvml_with_no_gpu(fakes: SimpleNamespace, no_torch_gpu: Any) -> None:
    report = detect_with_probe(None, env={}, nvml=fakes.NVML([]), runner=no_torch_gpu)
    assert reasons(report)["nvml"] == "NVML found no GPU"
    assert report.devices[0].source == "none"


# --------------------------------------------------------------------------- no GPU


def test_no_gpu_host(fakes: SimpleNamespace, no_torch_gpu: Any) -> None:
    report = detect_with_probe(
        None,
        env={},
        nvml=fakes.NVML([], init_error="NVML Shared Library Not Found"),
        runner=no_torch_gpu,
    )
    (host,) = report.devices
    assert (host.is_gpu, host.source, host.index) == (False, "none", 0)
    assert [p for p, _ in report.skipped] == ["simulated", "nvml", "torch", "table"]
    assert reasons(report)["table"].startswith("no GPU was identified")
    assert report.gpus == []
    assert not report.simulated


def test_an_unexpected_provider_error_is_recorded_not_raised() -> None:
    def broken(ctx: DetectContext) -> list[DeviceInfo] | None:
        raise KeyError("boom")

    def polite(ctx: DetectContext) -> list[DeviceInfo] | None:
        raise ProviderSkipped("not today")

    report = detect_with_probe(None, env={}, providers=[("broken", broken), ("polite", polite)])
    assert report.skipped == [
        ("broken", "failed unexpectedly: KeyError: 'boom'"),
        ("polite", "not today"),
    ]
    assert report.devices[0].source == "none"  # even a chain without the "none" provider


def test_default_chain_order() -> None:
    assert [name for name, _ in PROVIDERS] == ["simulated", "nvml", "torch", "table", "none"]


# --------------------------------------------------------------------------- the report


def test_report_json_round_trip(fakes: SimpleNamespace) -> None:
    nvml = fakes.NVML([rtx_pro_6000(fakes), b200(fakes)])
    # the child honours CUDA_VISIBLE_DEVICES too, so it lists the B200 first
    runner = fakes.Runner(fakes.probe_output([torch_b200(fakes), torch_rtx(fakes)]))
    report = detect_with_probe(None, env={"CUDA_VISIBLE_DEVICES": "1,0"}, nvml=nvml, runner=runner)
    data = json.loads(json.dumps(report.to_dict()))
    assert data["skipped"] == [{"provider": "simulated", "reason": "no simulated device requested"}]
    assert [d["compute_capability"] for d in data["devices"]] == ["10.0", "12.0"]
    assert [d["extra"]["physical_index"] for d in data["devices"]] == [1, 0]
    assert DetectionReport.from_dict(data) == report


def test_report_from_dict_accepts_pairs_and_names_bad_entries() -> None:
    report = DetectionReport.from_dict(
        {"devices": [{"name": "CPU", "compute_capability": None}], "skipped": [["nvml", "x"]]}
    )
    assert report.skipped == [("nvml", "x")]
    with pytest.raises(ValueError, match=r"devices\[0\]: compute_capability must look like"):
        DetectionReport.from_dict({"devices": [{"name": "x", "compute_capability": "big"}]})
    with pytest.raises(ValueError, match=r"'devices' must be a list"):
        DetectionReport.from_dict({})
    with pytest.raises(ValueError, match=r"skipped\[0\] must be"):
        DetectionReport.from_dict({"devices": [], "skipped": ["nvml"]})
