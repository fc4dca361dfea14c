"""Engines that share a GPU: budgets that fit together, and GPUs taken by someone else."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from pytest_blackwell.device.visible import VisibleDevicesError
from pytest_blackwell.engine.config import EngineConfig
from pytest_blackwell.engine.gpushare import (
    SHARE_ENV,
    BudgetError,
    GpuProcess,
    GpuReading,
    engines_per_gpu,
    memory_share,
    occupied_failure,
    prepare_launch,
    read_nvml,
    select,
)
from pytest_blackwell.engine.probe import resolve

GIB = 1024**3


def h200(
    index: int = 0, free_gib: float = 140.0, processes: tuple[GpuProcess, ...] = ()
) -> GpuReading:
    return GpuReading(
        index=index,
        name="NVIDIA H200",
        total_bytes=141 * GIB,
        free_bytes=int(free_gib * GIB),
        processes=processes,
        uuid=f"GPU-{index:x}aaaaaaa-1111-2222-3333-444444444444",
    )


@pytest.mark.parametrize(
    ("max_engines", "workers", "gpus", "per_worker", "expected"),
    [
        (1, 1, 1, 1, 1),  # one engine, one GPU
        (2, 1, 1, 1, 2),  # --blackwell-max-engines 2
        (1, 4, 2, 1, 2),  # 4 workers wrap around 2 GPUs
        (1, 2, 2, 1, 1),  # one GPU each
        (2, 3, 2, 1, 4),  # 3 workers on 2 GPUs: two workers on one, 2 engines each
        (1, 2, 4, 2, 1),  # 2 GPUs per worker, 2 groups
        (1, 1, 0, 1, 1),  # no GPU at all
    ],
)
def test_engines_per_gpu(
    max_engines: int, workers: int, gpus: int, per_worker: int, expected: int
) -> None:
    found = engines_per_gpu(
        max_engines=max_engines, workers=workers, gpu_count=gpus, per_worker=per_worker
    )
    assert found == expected


def test_the_default_budget_is_split_so_the_engines_fit_together() -> None:
    assert memory_share(None, 1, why="alone") is None
    assert memory_share(0.5, 1, why="alone") is None  # alone: the config's value stands
    assert memory_share(None, 2, why="x") == 0.45
    assert memory_share(None, 3, why="x") == 0.3
    assert 4 * memory_share(None, 4, why="x") <= 0.9  # type: ignore[operator]


def test_an_explicit_budget_that_fits_stays_and_one_that_cannot_is_refused() -> None:
    assert memory_share(0.4, 2, why="x") == 0.4
    with pytest.raises(BudgetError) as info:
        memory_share(0.9, 2, why="--blackwell-max-engines 2")
    message = str(info.value)
    assert "gpu_memory_utilization 0.9 cannot fit" in message
    assert "--blackwell-max-engines 2" in message
    assert "<= 0.47" in message


def test_a_gpu_held_by_another_process_is_env_mismatch_naming_it() -> None:
    stranger = GpuProcess(4242, 120 * GIB, "python serve.py")
    mine = GpuProcess(77, 2 * GIB, "probe")
    failure = occupied_failure([h200(free_gib=19.0, processes=(stranger, mine))], 0.9, [77])
    assert failure is not None
    assert (failure.category, failure.stage) == ("env_mismatch", "startup")
    assert "GPU 0 (NVIDIA H200) has 19.0 GiB free of 141.0 GiB" in failure.first_error
    assert "pid 4242 (python serve.py) uses 120.0 GiB" in failure.first_error
    assert "pid 77" not in failure.first_error
    assert failure.detail["processes"][0] == {
        "pid": 4242,
        "name": "python serve.py",
        "used_bytes": 120 * GIB,
        "own": False,
    }
    assert failure.detail["needed_bytes"] == int(141 * GIB * 0.9)


def test_enough_free_memory_is_no_failure_and_an_unlisted_holder_is_still_reported() -> None:
    assert occupied_failure([h200(free_gib=130.0)], 0.9) is None
    assert occupied_failure([h200(free_gib=70.0)], 0.45) is None
    failure = occupied_failure([h200(free_gib=10.0)], 0.45)
    assert failure is not None
    assert "no process is listed" in failure.first_error
    own = occupied_failure([h200(free_gib=10.0, processes=(GpuProcess(5, GIB),))], 0.45, [5])
    assert own is not None
    assert "this session's own engines" in own.first_error


def test_select_follows_visible_entries() -> None:
    gpus = [h200(0), h200(1), h200(2)]
    assert [g.index for g in select(gpus, None)] == [0, 1, 2]
    assert [g.index for g in select(gpus, ["2", "0"])] == [2, 0]
    assert [g.index for g in select(gpus, ["GPU-1aaa"])] == [1]
    assert select(gpus, ["MIG-abc"]) == []


def test_prepare_launch_splits_translates_and_checks() -> None:
    env = {"CUDA_VISIBLE_DEVICES": "GPU-1aaaaaaa"}
    readings = [h200(0), h200(1, free_gib=100.0)]
    failure = prepare_launch(
        env, None, sharing=2, why="x", vllm_version=(0, 10, 0), readings=readings
    )
    assert failure is None
    assert env["CUDA_VISIBLE_DEVICES"] == "1"
    assert env["CUDA_DEVICE_ORDER"] == "PCI_BUS_ID"
    assert env[SHARE_ENV] == "0.45"
    # The same GPU, now taken by another process: reported before any launch.
    busy = [h200(0), h200(1, free_gib=30.0, processes=(GpuProcess(9, 110 * GIB, "other"),))]
    env = {"CUDA_VISIBLE_DEVICES": "1"}
    failure = prepare_launch(env, None, sharing=2, why="x", vllm_version=(0, 34), readings=busy)
    assert failure is not None
    assert failure.category == "env_mismatch"
    assert failure.detail["gpu"] == 1


def test_prepare_launch_refuses_and_skips_the_check_without_nvml() -> None:
    with pytest.raises(BudgetError):
        prepare_launch({}, 0.8, sharing=2, why="x", vllm_version=(0, 34), readings=None)
    with pytest.raises(VisibleDevicesError):
        prepare_launch(
            {"CUDA_VISIBLE_DEVICES": "MIG-1234"},
            None,
            sharing=1,
            why="x",
            vllm_version=(0, 22, 1),
            readings=None,
        )
    env: dict[str, str] = {}
    assert prepare_launch(env, 0.3, sharing=2, why="x", vllm_version=(0, 34), readings=None) is None
    assert SHARE_ENV not in env  # an explicit value that fits is the engine's own


def test_the_probe_applies_the_share_on_gpu_only() -> None:
    _, gpu = resolve(EngineConfig(model="m"), cpu=False, gpu_share=0.45)
    assert gpu["gpu_memory_utilization"] == 0.45
    _, explicit = resolve(
        EngineConfig(model="m", gpu_memory_utilization=0.3), cpu=False, gpu_share=0.45
    )
    assert explicit["gpu_memory_utilization"] == 0.3
    _, cpu = resolve(EngineConfig(model="m"), cpu=True, gpu_share=0.45)
    assert "gpu_memory_utilization" not in cpu


class FakeNvml:
    """pynvml's calls as a module-like object (passed in at the function boundary)."""

    def __init__(self) -> None:
        self.shut = False

    def nvmlInit(self) -> None:
        pass

    def nvmlShutdown(self) -> None:
        self.shut = True

    def nvmlDeviceGetCount(self) -> int:
        return 1

    def nvmlDeviceGetHandleByIndex(self, index: int) -> str:
        return f"h{index}"

    def nvmlDeviceGetMemoryInfo(self, handle: str) -> Any:
        return SimpleNamespace(total=141 * GIB, free=40 * GIB, used=101 * GIB)

    def nvmlDeviceGetName(self, handle: str) -> bytes:
        return b"NVIDIA H200"

    def nvmlDeviceGetUUID(self, handle: str) -> str:
        return "GPU-0abc"

    def nvmlDeviceGetComputeRunningProcesses(self, handle: str) -> list[Any]:
        return [SimpleNamespace(pid=999999999, usedGpuMemory=100 * GIB)]


def test_read_nvml_turns_nvml_answers_into_readings() -> None:
    nvml = FakeNvml()
    readings = read_nvml(nvml)
    assert readings == [
        GpuReading(
            0,
            "NVIDIA H200",
            141 * GIB,
            40 * GIB,
            (GpuProcess(999999999, 100 * GIB, ""),),
            "GPU-0abc",
        )
    ]
    assert nvml.shut


def test_read_nvml_without_a_driver_is_none() -> None:
    class NoDriver(FakeNvml):
        def nvmlInit(self) -> None:
            raise RuntimeError("NVML Shared Library Not Found")

    assert read_nvml(NoDriver()) is None
