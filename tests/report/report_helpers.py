"""Helpers shared by the report tests (pytester suites with a fake device and facts)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

GIB = 1024**3

RTX_5090 = ("NVIDIA GeForce RTX 5090", (12, 0), 101376, 32 * GIB)
H100 = ("NVIDIA H100 80GB HBM3", (9, 0), 232448, 80 * GIB)

CONFTEST = """
import pytest
from pytest_blackwell.device.model import DeviceInfo
from pytest_blackwell.stash import TEST_FACTS_KEY

DEVICES = [
    DeviceInfo({name!r}, {cc!r}, smem_per_block_optin_bytes={smem}, total_memory_bytes={mem},
               driver_version="575.57.08", cuda_version="12.9", source="simulated", index=i)
    for i in range({count})
]


def pytest_configure(config):
    config.addinivalue_line("markers", "facts(**kw): report facts for this test")
    from pytest_blackwell.plugin.reporting import register

    register(config)


def pytest_blackwell_detect_devices(config, request, origin):
    return DEVICES


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    mark = item.get_closest_marker("facts")
    if mark is not None:
        item.stash[TEST_FACTS_KEY] = dict(mark.kwargs)
"""

ENGINE_TESTS = """
import pytest

CASES = {cases!r}


def _facts(cid, case):
    facts = {{"config": cid, "kv_cache_dtype": cid.split("=")[-1]}}
    kind = case[0]
    if kind == "fail":
        facts.update(outcome="failed", category=case[1], stage=case[2], first_error=case[3])
    elif kind == "expected":
        facts.update(outcome="expected_failure", category=case[1], stage=case[2])
    return facts


PARAMS = [pytest.param(c, id=c, marks=pytest.mark.facts(**_facts(c, v))) for c, v in CASES.items()]


@pytest.mark.parametrize("cid", PARAMS)
def test_generate(cid):
    case = CASES[cid]
    if case[0] == "skip":
        pytest.skip("not on this device")
    if case[0] == "fail":
        pytest.fail(f"{{case[1]}} at {{case[2]}}: {{case[3]}}", pytrace=False)
"""

#: A case: ("pass",), ("skip",), ("fail", category, stage, first_error), ("expected", cat, stage).
Case = tuple[str, ...]


def write_conftest(
    pytester: pytest.Pytester, device: tuple[str, tuple[int, int], int, int], count: int = 1
) -> None:
    name, cc, smem, mem = device
    pytester.makeconftest(CONFTEST.format(name=name, cc=cc, smem=smem, mem=mem, count=count))


def write_engine_tests(pytester: pytest.Pytester, cases: Mapping[str, Case]) -> Path:
    return pytester.makepyfile(test_engine=ENGINE_TESTS.format(cases=dict(cases)))


def read_testcase_properties(xml: Path) -> dict[str, dict[str, str]]:
    """``{testcase name: {property: value}}`` read back with junitparser."""
    from junitparser.xunit2 import JUnitXml

    parsed: Any = JUnitXml.fromfile(str(xml))
    return {
        case.name: {p.name: p.value for p in case.properties()}
        for suite in parsed
        for case in suite
    }


def read_suite_properties(xml: Path) -> list[list[tuple[str, str]]]:
    """The (name, value) property pairs of each testsuite, duplicates kept."""
    from junitparser.xunit2 import JUnitXml

    parsed: Any = JUnitXml.fromfile(str(xml))
    return [[(p.name, p.value) for p in suite.properties()] for suite in parsed]


def as_dict(pairs: Sequence[tuple[str, str]]) -> dict[str, str]:
    return dict(pairs)
