"""The engine fixtures end to end: pytester runs that launch real (CPU) vLLM engines."""

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

SUITE = """
import pytest

def test_generate(vllm_engine):
    out = vllm_engine.generate(["Hello there"], max_tokens=4)
    assert len(out) == 1 and isinstance(out[0], str)

def test_result_ok(vllm_engine_result):
    assert vllm_engine_result.ok, vllm_engine_result.summary

@pytest.mark.memory_budget(kv_cache_memory_bytes="64KiB")
@pytest.mark.expect_failure(category="kv_cache_oom", stage="kv_alloc")
def test_tiny_kv_expected(vllm_engine):
    pass

@pytest.mark.memory_budget(kv_cache_memory_bytes="64KiB")
def test_tiny_kv_unexpected(vllm_engine):
    pass

@pytest.mark.memory_budget(kv_cache_memory_bytes="64KiB")
@pytest.mark.expect_failure(category="smem_limit")
def test_tiny_kv_wrong_expectation(vllm_engine):
    pass

@pytest.mark.expect_failure(category="kv_cache_oom")
def test_healthy_but_expected_to_fail(vllm_engine):
    pass
"""


def load_results(path: Path) -> dict[str, dict[str, object]]:
    data = json.loads((path / "results.json").read_text())
    return {entry["config_id"]: entry for entry in data["configs"]}


def test_engines_fixtures_expectations_and_reuse(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(SUITE)
    artifacts = pytester.path / "artifacts"
    result = pytester.runpytest_subprocess(
        "-p",
        "no:cacheprovider",
        f"--blackwell-artifacts={artifacts}",
        "-rA",
        f"--junitxml={pytester.path / 'junit.xml'}",
        timeout=600,
    )
    result.assert_outcomes(passed=3, failed=3)
    # An unexpected engine failure fails (not errors) the test, summary first.
    result.stdout.fnmatch_lines(
        [
            "*test_tiny_kv_unexpected*",
            "*kv_cache_oom at kv_alloc: *",
        ]
    )
    result.stdout.fnmatch_lines(["*expected smem_limit; got kv_cache_oom at kv_alloc: *"])
    result.stdout.fnmatch_lines(["*expected kv_cache_oom; got an engine that started and served*"])
    results = load_results(artifacts)
    # 6 tests over 2 configurations: exactly 2 launches.
    assert set(results) == {"default", "kvmem=64KiB"}
    assert results["default"]["launches"] == 1
    assert results["kvmem=64KiB"]["launches"] == 1
    assert results["default"]["outcome"] == "passed"
    assert results["kvmem=64KiB"]["failure"]["category"] == "kv_cache_oom"
    assert len(results["default"]["tests"]) == 3
    # Logs are kept, a bug report is written for the failing configuration.
    assert (artifacts / "logs" / "kvmem=64KiB.log").is_file()
    report = (artifacts / "reports" / "kvmem=64KiB.md").read_text()
    assert "kv_cache_oom" in report
    # JUnit carries the classification.
    junit = (pytester.path / "junit.xml").read_text()
    assert 'name="blackwell.category" value="kv_cache_oom"' in junit
    assert 'name="blackwell.outcome" value="expected_failure"' in junit


def test_kv_dtype_keyword_marks_select_one_configuration(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.kv_dtype("fp8", "auto")
        @pytest.mark.attention_backend("FLASH_ATTN")
        def test_dtypes(vllm_engine_result):
            pass
        """
    )
    result = pytester.runpytest_subprocess("--collect-only", "-q", "-m", "kv_dtype(dtype='fp8')")
    result.stdout.fnmatch_lines(["*test_dtypes[[]kv=fp8-attn=FLASH_ATTN]", "1/2 tests collected*"])


def test_unknown_engine_argument_is_a_collection_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.vllm_config(no_such_argument=3)
        def test_bad(vllm_engine_result):
            pass
        """
    )
    result = pytester.runpytest_subprocess("--collect-only", "-q")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*::test_bad: *unknown engine argument(s) no_such_argument*"])
    result.stdout.no_fnmatch_line("*Traceback*")
