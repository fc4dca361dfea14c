"""Fixtures for the report tests."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from report_helpers import Case, write_conftest, write_engine_tests


@pytest.fixture
def run_shard(
    pytester: pytest.Pytester,
) -> Callable[..., tuple[pytest.RunResult, Path]]:
    """Run a suite on a simulated device and return the run and its JUnit file."""

    def run(
        name: str,
        device: tuple[str, tuple[int, int], int, int],
        cases: Mapping[str, Case],
        *args: str,
    ) -> tuple[pytest.RunResult, Path]:
        write_conftest(pytester, device)
        write_engine_tests(pytester, cases)
        xml = pytester.path / f"{name}.xml"
        result = pytester.runpytest(f"--junitxml={xml}", "-p", "no:cacheprovider", *args)
        assert xml.is_file(), result.stdout.str()
        return result, xml

    return run
