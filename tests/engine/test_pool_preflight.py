"""The pool's pre-launch check: a GPU taken by another process is reported, never launched on."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_blackwell.engine import EngineConfig, EnginePool
from pytest_blackwell.engine.gpushare import BudgetError, GpuProcess, GpuReading, prepare_launch
from pytest_blackwell.failures.model import Failure

GIB = 1024**3
TAKEN = [GpuReading(0, "NVIDIA H200", 141 * GIB, 20 * GIB, (GpuProcess(4242, 118 * GIB, "x"),))]


def test_an_occupied_gpu_stands_for_the_launch_and_nothing_starts(tmp_path: Path) -> None:
    seen: list[dict[str, str]] = []

    def preflight(config: EngineConfig, env: dict[str, str], own: list[int]) -> Failure | None:
        seen.append(env)
        return prepare_launch(
            env,
            config.gpu_memory_utilization,
            sharing=2,
            why="test",
            vllm_version=(0, 34),
            readings=TAKEN,
            own_pids=own,
        )

    with EnginePool(tmp_path, base_env={"PATH": "/usr/bin"}, preflight=preflight) as pool:
        handle = pool.get(EngineConfig(max_model_len=256))
        failure = handle.result.failure
        assert failure is not None
        assert (failure.category, failure.stage) == ("env_mismatch", "startup")
        assert "pid 4242 (x) uses 118.0 GiB" in failure.first_error
        assert handle.launches == 1
        assert not handle.alive
        assert seen[0]["PYTEST_BLACKWELL_GPU_MEMORY_SHARE"] == "0.45"
        log = Path(handle.log_path).read_text()
        assert log.startswith("pytest-blackwell: not launched: env_mismatch at startup: GPU 0")
        record = pool.records()[0]
        assert (record["failure"]["category"], record["outcome"]) == ("env_mismatch", "failed")
        assert pool.get(EngineConfig(max_model_len=256)) is handle  # not retried


def test_a_refused_budget_launches_nothing(tmp_path: Path) -> None:
    def preflight(config: EngineConfig, env: dict[str, str], own: list[int]) -> Failure | None:
        return prepare_launch(
            env,
            config.gpu_memory_utilization,
            sharing=2,
            why="--blackwell-max-engines 2",
            vllm_version=(0, 34),
            readings=None,
        )

    with EnginePool(tmp_path, base_env={"PATH": "/usr/bin"}, preflight=preflight) as pool:
        with pytest.raises(BudgetError, match="--blackwell-max-engines 2"):
            pool.get(EngineConfig(gpu_memory_utilization=0.9))
        assert [h.launches for h in pool.handles] == [0]
        assert not (tmp_path / "logs").exists()
