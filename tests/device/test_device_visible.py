"""``CUDA_VISIBLE_DEVICES``: order, UUID and MIG entries, and hiding every GPU."""

from __future__ import annotations

import functools
from types import SimpleNamespace
from typing import Any

import pytest

from pytest_blackwell.device import DetectionReport, detect_devices
from pytest_blackwell.device.visible import visible_entries

GIB = 1024**3
UUIDS = [f"{n}{n}{n}{n}0000-1111-2222-3333-444444444444" for n in "abc"]


#: Detection that starts the torch child (or the injected runner) even on a host without an
#: NVIDIA driver, so the torch provider's own behaviour is what these tests see.
detect_with_probe = functools.partial(detect_devices, driver_check=lambda: None)


def three_gpus(fakes: SimpleNamespace) -> Any:
    return fakes.NVML(
        [
            fakes.GPU("NVIDIA H100 80GB HBM3", (9, 0), f"GPU-{UUIDS[0]}", memory=80 * GIB),
            fakes.GPU("NVIDIA H100 80GB HBM3", (9, 0), f"GPU-{UUIDS[1]}", memory=80 * GIB),
            fakes.GPU("NVIDIA H100 80GB HBM3", (9, 0), f"GPU-{UUIDS[2]}", memory=80 * GIB),
        ]
    )


def detect(fakes: SimpleNamespace, visible: str | None, **env: str) -> DetectionReport:
    if visible is not None:
        env["CUDA_VISIBLE_DEVICES"] = visible
    # torch is unavailable here, so what we see is NVML's selection, completed by the table
    return detect_with_probe(None, env=env, nvml=three_gpus(fakes), runner=fakes.Runner("no torch"))


def physical(report: DetectionReport) -> list[Any]:
    return [(d.index, d.extra.get("physical_index")) for d in report.devices]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("0,1", ["0", "1"]),
        (" 2 , GPU-abc ,MIG-xyz", ["2", "GPU-abc", "MIG-xyz"]),
        ("", []),
        ("-1", []),
        ("0,-1,1", ["0"]),
        ("1,nonsense,0", ["1"]),
    ],
)
def test_entries_stop_at_the_first_unusable_one(value: str, expected: list[str]) -> None:
    assert visible_entries({"CUDA_VISIBLE_DEVICES": value}) == expected


def test_unset_means_every_gpu() -> None:
    assert visible_entries({}) is None


def test_all_gpus_when_unset(fakes: SimpleNamespace) -> None:
    report = detect(fakes, None)
    assert [d.index for d in report.devices] == [0, 1, 2]
    assert report.devices[2].uuid == f"GPU-{UUIDS[2]}"


def test_indices_reorder_and_renumber(fakes: SimpleNamespace) -> None:
    report = detect(fakes, "2,0")
    assert physical(report) == [(0, 2), (1, 0)]
    assert [d.uuid for d in report.devices] == [f"GPU-{UUIDS[2]}", f"GPU-{UUIDS[0]}"]
    assert report.notes == []


def test_gpu_uuid_and_unique_prefix(fakes: SimpleNamespace) -> None:
    report = detect(fakes, f"GPU-{UUIDS[1]},GPU-cccc")
    assert physical(report) == [(0, 1), (1, 2)]


@pytest.mark.parametrize("value", ["", "-1", " -1 "])
def test_hiding_every_gpu_means_no_gpu(fakes: SimpleNamespace, value: str) -> None:
    report = detect(fakes, value)
    (host,) = report.devices
    assert host.source == "none"
    skipped = dict(report.skipped)
    assert "hides every GPU" in skipped["nvml"]
    assert "hides every GPU" in skipped["torch"]


def test_everything_after_an_invalid_entry_is_ignored(fakes: SimpleNamespace) -> None:
    assert physical(detect(fakes, "1,-1,0")) == [(0, 1)]


@pytest.mark.parametrize(
    ("value", "entry", "problem"),
    [("1,7,0", "7", "matches no GPU"), ("1,1", "1", "repeats an earlier entry")],
)
def test_entries_that_match_nothing_stop_with_a_note(
    fakes: SimpleNamespace, value: str, entry: str, problem: str
) -> None:
    report = detect(fakes, value)
    assert physical(report) == [(0, 1)]
    assert report.notes == [
        f"CUDA_VISIBLE_DEVICES entry '{entry}' {problem}; CUDA ignores it and every entry after it"
    ]


def test_no_match_at_all_falls_through(fakes: SimpleNamespace) -> None:
    report = detect(fakes, "9")
    assert (
        dict(report.skipped)["nvml"] == "NVML found no GPU visible through CUDA_VISIBLE_DEVICES='9'"
    )
    assert report.devices[0].source == "none"


def test_mig_instance_by_uuid(fakes: SimpleNamespace) -> None:
    mig = fakes.GPU(
        "NVIDIA H100 80GB HBM3 MIG 1g.10gb", (0, 0), "MIG-dddd", memory=10 * GIB, sms=16
    )
    nvml = three_gpus(fakes)
    nvml.gpus[1].mig["MIG-dddd"] = mig
    env = {"CUDA_VISIBLE_DEVICES": "MIG-dddd"}
    report = detect_with_probe(None, env=env, nvml=nvml, runner=fakes.Runner("no torch"))
    (device,) = report.devices
    # MIG handles do not answer the compute-capability query: it comes from the parent GPU.
    assert (device.name, device.arch, device.total_memory_bytes) == (
        "NVIDIA H100 80GB HBM3 MIG 1g.10gb",
        "sm90",
        10 * GIB,
    )
    assert (device.uuid, device.extra["mig"], device.multiprocessor_count) == ("MIG-dddd", True, 16)


def test_mixed_gpus_by_index_warn_about_cuda_device_order(fakes: SimpleNamespace) -> None:
    nvml = fakes.NVML(
        [
            fakes.GPU("NVIDIA GeForce RTX 4090", (8, 9), "GPU-1"),
            fakes.GPU("NVIDIA GeForce RTX 5090", (12, 0), "GPU-2"),
        ]
    )
    report = detect_with_probe(
        None, env={"CUDA_VISIBLE_DEVICES": "1"}, nvml=nvml, runner=fakes.Runner("")
    )
    assert report.devices[0].name == "NVIDIA GeForce RTX 5090"
    assert any("CUDA_DEVICE_ORDER=PCI_BUS_ID" in note for note in report.notes)
    pci = detect_with_probe(
        None,
        env={"CUDA_VISIBLE_DEVICES": "1", "CUDA_DEVICE_ORDER": "PCI_BUS_ID"},
        nvml=nvml,
        runner=fakes.Runner(""),
    )
    assert pci.notes == []


def test_torch_child_gets_the_same_environment(fakes: SimpleNamespace) -> None:
    runner = fakes.Runner("")
    detect_with_probe(
        None, env={"CUDA_VISIBLE_DEVICES": "2,0"}, nvml=three_gpus(fakes), runner=runner
    )
    (_command, _timeout, env) = runner.calls[0]
    assert env == {"CUDA_VISIBLE_DEVICES": "2,0"}


# --- entries the running vLLM accepts ----------------------------------------------------------

from pytest_blackwell.device.visible import (  # noqa: E402
    VisibleDevicesError,
    entries_for_vllm,
)

NVML_UUIDS = {
    0: "GPU-0aaaaaaa-1111-2222-3333-444444444444",
    1: "GPU-1bbbbbbb-1111-2222-3333-444444444444",
}


def test_old_vllm_gets_uuids_as_nvml_indices_in_pci_order() -> None:
    entries, env = entries_for_vllm(["GPU-1bbb", "0"], (0, 22, 1), NVML_UUIDS)
    assert entries == ["1", "0"]
    assert env == {"CUDA_DEVICE_ORDER": "PCI_BUS_ID"}
    assert entries_for_vllm(["1", "0"], (0, 10, 0), None) == (["1", "0"], {})


def test_new_vllm_gets_full_uuids_and_mig_entries_as_they_are() -> None:
    entries, env = entries_for_vllm(["GPU-0aaa", "MIG-77"], (0, 25, 0), NVML_UUIDS)
    assert entries == [NVML_UUIDS[0], "MIG-77"]
    assert env == {}
    assert entries_for_vllm(["GPU-0aaa"], (0, 34), None) == (["GPU-0aaa"], {})


@pytest.mark.parametrize(
    ("entries", "uuids", "words"),
    [
        (["MIG-77"], NVML_UUIDS, ["MIG instance", "vLLM 0.22.1", "int()", ">= 0.23"]),
        (["GPU-0aaa"], None, ["needs NVML", "nvidia-ml-py"]),
        (["GPU-ffff"], NVML_UUIDS, ["matches none", NVML_UUIDS[0]]),
        (["GPU-"], NVML_UUIDS, ["matches 2 GPUs"]),
    ],
)
def test_what_old_vllm_cannot_take_stops_with_a_clear_message(
    entries: list[str], uuids: dict[int, str] | None, words: list[str]
) -> None:
    with pytest.raises(VisibleDevicesError) as info:
        entries_for_vllm(entries, (0, 22, 1), uuids, origin="CUDA_VISIBLE_DEVICES='x'")
    message = str(info.value)
    assert message.startswith("CUDA_VISIBLE_DEVICES='x' entry")
    for word in words:
        assert word in message
