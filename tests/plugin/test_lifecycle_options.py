"""Request limit resolution, the rerun policy hook, xdist grouping and the pytest-html columns,
without engines."""

from __future__ import annotations

import re

import pytest

from pytest_blackwell.plugin.html import column_values
from pytest_blackwell.plugin.runtime import plain_nodeid
from pytest_blackwell.plugin.settings import resolve_request_timeout
from pytest_blackwell.report.matrix import row_test_name


def test_request_timeout_cli_beats_env_beats_ini() -> None:
    assert resolve_request_timeout("7", "8", "9") == (7.0, "--blackwell-request-timeout")
    assert resolve_request_timeout(None, "8", "9") == (8.0, "$PYTEST_BLACKWELL_REQUEST_TIMEOUT")
    assert resolve_request_timeout(None, None, "9.5") == (
        9.5,
        "ini option blackwell_request_timeout",
    )
    assert resolve_request_timeout(None, "", "") == (300.0, "default")


@pytest.mark.parametrize(
    ("cli", "env", "ini", "origin"),
    [
        ("soon", None, None, "--blackwell-request-timeout"),
        (None, "0", None, "$PYTEST_BLACKWELL_REQUEST_TIMEOUT"),
        (None, None, "-3", "ini option blackwell_request_timeout"),
        (None, None, "inf", "ini option blackwell_request_timeout"),
    ],
)
def test_bad_request_timeout_names_where_it_came_from(
    cli: str | None, env: str | None, ini: str | None, origin: str
) -> None:
    with pytest.raises(pytest.UsageError) as info:
        resolve_request_timeout(cli, env, ini)
    assert str(info.value).startswith(f"{origin}: expected a positive number of seconds")


def test_bad_request_timeout_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_x(): pass")
    result = pytester.runpytest("--blackwell-request-timeout=later")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--blackwell-request-timeout: expected a positive number of seconds, got 'later'*"]
    )


def test_request_timeout_from_env_reaches_engine_limits(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTEST_BLACKWELL_REQUEST_TIMEOUT", "12.5")
    pytester.makeini("[pytest]\nblackwell_request_timeout = 99\n")
    pytester.makepyfile(
        """
        from pytest_blackwell.plugin.runtime import limits

        def test_limits(pytestconfig):
            assert limits(pytestconfig).request_s == 12.5
        """
    )
    pytester.runpytest("-p", "no:randomly").assert_outcomes(passed=1)


def test_transient_failure_policy_and_its_hook(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
        def pytest_blackwell_transient_failure(config, failure):
            if failure.category == "device_oom" and "another process" in failure.first_error:
                return True
            return None
        """
    )
    pytester.makepyfile(
        """
        import pytest
        from pytest_blackwell.failures import Failure

        @pytest.mark.parametrize(("category", "first_error", "transient"), [
            ("engine_died", "engine process EngineCore (pid 7) was killed by SIGKILL", True),
            ("nccl_error", "NCCL error: unhandled system error", True),
            ("timeout", "no progress for a request for 3 s (limit 3 s)", True),
            ("kv_cache_oom", "No available memory for the cache blocks", False),
            ("unsupported_config", "ValueError: max_model_len too large", False),
            ("device_oom", "CUDA out of memory; another process holds 70 GiB", True),
            ("device_oom", "CUDA out of memory. Tried to allocate 2.00 GiB", False),
        ])
        def test_policy(pytestconfig, category, first_error, transient):
            failure = Failure(category, "execute", first_error)
            hook = pytestconfig.hook.pytest_blackwell_transient_failure
            assert hook(config=pytestconfig, failure=failure) is transient
        """
    )
    pytester.runpytest("-p", "no:randomly").assert_outcomes(passed=7)


@pytest.mark.parametrize("dist", [[], ["--dist", "loadgroup"]], ids=["load", "loadgroup"])
def test_xdist_keeps_each_configuration_on_one_worker(
    pytester: pytest.Pytester, dist: list[str]
) -> None:
    # Engines stand in (only the scheduling is looked at); the configurations are real.
    pytester.makeconftest(
        """
        import pytest

        @pytest.fixture
        def vllm_engine_result(_blackwell_variant):
            return None
        """
    )
    pytester.makepyfile(
        test_x="""
        import pytest
        SHORT = pytest.mark.vllm_config(max_model_len=256)
        def test_a1(vllm_engine_result): pass
        @SHORT
        def test_b1(vllm_engine_result): pass
        def test_a2(vllm_engine_result): pass
        @SHORT
        def test_b2(vllm_engine_result): pass
        def test_c(): pass
        def test_d(): pass
        @pytest.mark.xdist_group("mine")
        def test_e1(): pass
        @pytest.mark.xdist_group("mine")
        def test_e2(): pass
        """,
        test_y="""
        import pytest
        def test_a3(vllm_engine_result): pass
        @pytest.mark.vllm_config(max_model_len=256)
        def test_b3(vllm_engine_result): pass
        """,
    )
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-p", "xdist", "-n", "2", "-p", "randomly", "-v", *dist
    )  # fmt: skip
    result.assert_outcomes(passed=10)
    result.stdout.fnmatch_lines(["*scheduling tests via EngineGroupScheduling*"])
    workers: dict[str, set[str]] = {}
    for line in result.outlines:
        found = re.match(r"\[(gw\d+)\].* PASSED \S+::(test_[a-z]+)", line)
        if found:
            workers.setdefault(found.group(2), set()).add(found.group(1))
    assert len(workers["test_a"]) == 1, workers
    assert len(workers["test_b"]) == 1, workers
    assert len(workers["test_e"]) == 1, workers


def test_xdist_group_suffix_is_dropped_from_names() -> None:
    assert plain_nodeid("t.py::test_a[kv=fp8]@blackwell:0123abcd") == "t.py::test_a[kv=fp8]"
    assert plain_nodeid("t.py::test_a[user@host]") == "t.py::test_a[user@host]"
    assert plain_nodeid("t.py::test_a") == "t.py::test_a"
    assert row_test_name("t", "test_a[kv=fp8]@blackwell:0123abcd", "kv=fp8", []) == "t::test_a"
    assert row_test_name("t", "test_a[user@host]", "", []) == "t::test_a[user@host]"


def test_html_columns_read_report_properties() -> None:
    props: list[tuple[str, object]] = [
        ("blackwell.device", "NVIDIA RTX PRO 6000"),
        ("blackwell.config", "kv=fp8"),
        ("blackwell.category", "kv_cache_oom"),
        ("blackwell.stage", "kv_alloc"),
        ("other", "x"),
    ]
    assert column_values(props) == ["NVIDIA RTX PRO 6000", "kv=fp8", "kv_cache_oom", "kv_alloc"]
    assert column_values([("blackwell.config", "kv=auto")]) == ["", "kv=auto", "", ""]
