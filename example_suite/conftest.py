"""A downstream project's conftest: its own marker, failure rule, engine tweak and dashboard.

Everything here uses the public hooks of pytest-blackwell (see its hookspecs module).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_blackwell.failures import Rule

LOGS = Path(__file__).parent / "logs"


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
    return engine_config.replace(env={**engine_config.env, "VLLM_LOGGING_LEVEL": "INFO"})


def pytest_blackwell_engine_result(config: pytest.Config, engine_config: Any, result: Any) -> None:
    # Stand-in for a dashboard upload: one JSON line per engine launch.
    out = Path(config.rootpath, ".pytest_blackwell", "dashboard.jsonl")
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("a", encoding="utf-8") as f:
        f.write(json.dumps({"config": engine_config.id, **result.to_dict()}) + "\n")
