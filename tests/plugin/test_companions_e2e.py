"""The plugins GPU CI suites combine with this one, with real (CPU) engines: pytest-xdist,
pytest-randomly, pytest-cov, pytest-html, pytest-timeout and pytest-rerunfailures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.engine,
    pytest.mark.skipif(
        __import__("importlib.util").util.find_spec("vllm") is None, reason="vLLM not installed"
    ),
]

INI = '[pytest]\nblackwell_engine_config = {"max_model_len": 512}\n'

# Two configurations, three tests each, spread over two files and interleaved.
FILE_A = """
import pytest
from helper import prompt

SHORT = pytest.mark.vllm_config(max_model_len=256)

@SHORT
def test_short_1(vllm_engine):
    assert vllm_engine.generate([prompt()], max_tokens=2)

def test_base_1(vllm_engine):
    assert vllm_engine.generate([prompt()], max_tokens=2)

@SHORT
def test_short_2(vllm_engine):
    assert vllm_engine.generate([prompt()], max_tokens=2)
"""
FILE_B = """
import pytest
from helper import prompt

def test_base_2(vllm_engine):
    assert vllm_engine.generate([prompt()], max_tokens=2)

@pytest.mark.vllm_config(max_model_len=256)
def test_short_3(vllm_engine_result):
    assert vllm_engine_result.ok

def test_base_3(vllm_engine_result):
    assert vllm_engine_result.ok

def test_no_engine():
    assert prompt() == "hello"
"""
HELPER = """
def prompt():
    return "hello"
"""


def _records(artifacts: Path) -> dict[str, dict[str, object]]:
    data = json.loads((artifacts / "results.json").read_text())
    return {str(entry["config_id"]): entry for entry in data["configs"]}


@pytest.mark.parametrize(
    "dist",
    [
        ["-n", "2", "-p", "randomly", "--cov=helper", "--html=report.html"],
        ["-n", "2", "--dist", "loadgroup", "-p", "randomly", "--randomly-seed=7"],
    ],
    ids=["load-randomly-cov-html", "loadgroup-randomly"],
)
def test_xdist_launches_one_engine_per_configuration(
    pytester: pytest.Pytester, dist: list[str]
) -> None:
    pytester.makeini(INI)
    pytester.makepyfile(test_a=FILE_A, test_b=FILE_B, helper=HELPER)
    artifacts = pytester.path / "artifacts"
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-p", "xdist", f"--blackwell-artifacts={artifacts}", *dist
    )
    result.assert_outcomes(passed=7)
    records = _records(artifacts)
    assert len(records) == 2
    assert {r["config_id"]: r["launches"] for r in records.values()} == dict.fromkeys(records, 1)
    tests = sorted(t for r in records.values() for t in r["tests"])  # type: ignore[attr-defined]
    assert len(tests) == 6
    assert not any("@" in t for t in tests)
    if "--cov=helper" in dist:
        result.stdout.fnmatch_lines(["*helper.py*100%*"])
        page = (pytester.path / "report.html").read_text()
        for title in ("Device", "Configuration", "Category", "Stage"):
            assert f"&lt;th&gt;{title}&lt;/th&gt;" in page or f"<th>{title}</th>" in page
        assert "len=256" in page


TIMEOUT_RERUN = """
import os
import signal
from pathlib import Path

import pytest
from pytest_blackwell.engine import EngineError

def test_first(vllm_engine):
    assert vllm_engine.generate(["hello"], max_tokens=2)

def test_second(vllm_engine):
    assert vllm_engine.generate(["hello"], max_tokens=2)

def test_hang_then_pass(vllm_engine):
    marker = Path("hung-once.txt")
    if not marker.exists():
        # freeze the engine (in-process: the probe serves the requests) for one attempt
        probe = next(pid for pid, title in vllm_engine.pids().items()
                     if "pytest_blackwell.engine.probe" in title)
        os.kill(probe, signal.SIGSTOP)
        try:
            vllm_engine.generate(["hello"], max_tokens=2)
        except EngineError as exc:
            marker.write_text(str(exc))
            raise
    assert vllm_engine.generate(["hello"], max_tokens=2)

@pytest.mark.vllm_config(max_model_len=10_000_000)
def test_deterministic(vllm_engine):
    pass
"""


def test_timeout_reruns_and_request_limit(pytester: pytest.Pytester) -> None:
    """--timeout shorter than a launch: the launch does not count; a hung request ends as
    ``timeout at execute`` within the request limit, and its rerun gets a fresh engine; a
    deterministic failure is rerun without a relaunch."""
    pytester.makeini(INI)
    pytester.makepyfile(TIMEOUT_RERUN)
    artifacts = pytester.path / "artifacts"
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "timeout", "--timeout=4",
        "-p", "rerunfailures", "--reruns=1", "--blackwell-request-timeout=2",
        f"--blackwell-artifacts={artifacts}", "-rA",
    )  # fmt: skip
    outcomes = result.parseoutcomes()
    assert {k: outcomes.get(k) for k in ("passed", "failed", "rerun")} == {
        "passed": 3,
        "failed": 1,
        "rerun": 2,
    }
    assert "Timeout" not in result.stdout.str()
    # the local matrix counts the last attempt of a rerun test
    result.stdout.re_match_lines([r".*::test_hang_then_pass\s+len=512\s+pass$"])
    hang = (pytester.path / "hung-once.txt").read_text()
    assert hang.startswith("timeout at execute: no progress for a request for 2 s")
    records = _records(artifacts)
    base = next(r for r in records.values() if "10000000" not in str(r["config_id"]))
    assert base["launches"] == 2
    assert base["outcome"] == "passed"
    assert float(base["timings"]["total"]) > 4  # type: ignore[index]
    bad = next(r for r in records.values() if r is not base)
    assert (bad["launches"], bad["outcome"]) == (1, "failed")
    assert bad["failure"]["category"] == "unsupported_config"
