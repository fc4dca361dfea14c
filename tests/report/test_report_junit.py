"""JUnit output: blackwell.* testcase and testsuite properties, read back with junitparser."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from report_helpers import (
    H100,
    RTX_5090,
    as_dict,
    read_suite_properties,
    read_testcase_properties,
    write_conftest,
)

CASES = {
    "kv=auto": ("pass",),
    "kv=fp8": ("fail", "dispatch_failure", "kv_alloc", "NotImplementedError: FP8 KV cache on CPU"),
    "kv=fp8_e5m2": ("expected", "kv_cache_oom", "kv_alloc"),
    "kv=bf16": ("skip",),
}

RunShard = Callable[..., tuple[pytest.RunResult, Path]]


@pytest.mark.parametrize("family", ["xunit2", "xunit1"])
def test_testcase_properties_for_every_test_with_facts(run_shard: RunShard, family: str) -> None:
    result, xml = run_shard("shard", RTX_5090, CASES, "-o", f"junit_family={family}")
    result.assert_outcomes(passed=2, failed=1, skipped=1)
    props = read_testcase_properties(xml)

    ok = props["test_generate[kv=auto]"]
    assert ok["blackwell.device"] == "NVIDIA GeForce RTX 5090"
    assert ok["blackwell.compute_capability"] == "12.0"
    assert ok["blackwell.config"] == "kv=auto"
    assert ok["blackwell.kv_cache_dtype"] == "auto"
    assert ok["blackwell.outcome"] == "passed"

    bad = props["test_generate[kv=fp8]"]
    assert bad["blackwell.outcome"] == "failed"
    assert bad["blackwell.category"] == "dispatch_failure"
    assert bad["blackwell.stage"] == "kv_alloc"
    assert bad["blackwell.first_error"] == "NotImplementedError: FP8 KV cache on CPU"

    assert props["test_generate[kv=fp8_e5m2]"]["blackwell.outcome"] == "expected_failure"
    assert props["test_generate[kv=bf16]"]["blackwell.outcome"] == "skipped"
    assert all(isinstance(v, str) for p in props.values() for v in p.values())


def test_failure_message_first_line_is_the_summary(run_shard: RunShard) -> None:
    from junitparser import Failure
    from junitparser.xunit2 import JUnitXml

    _, xml = run_shard("shard", RTX_5090, CASES)
    case = next(c for s in JUnitXml.fromfile(str(xml)) for c in s if c.name.endswith("[kv=fp8]"))
    (failure,) = [r for r in case.result if isinstance(r, Failure)]
    assert failure.message.splitlines()[0].removeprefix("Failed: ") == (
        "dispatch_failure at kv_alloc: NotImplementedError: FP8 KV cache on CPU"
    )


def test_tests_without_facts_get_no_properties(pytester: pytest.Pytester) -> None:
    write_conftest(pytester, RTX_5090)
    pytester.makepyfile("def test_plain(): pass")
    result = pytester.runpytest("--junitxml=out.xml")
    result.assert_outcomes(passed=1)
    assert read_testcase_properties(pytester.path / "out.xml") == {"test_plain": {}}
    assert "blackwell matrix" not in result.stdout.str()


def test_testsuite_properties_describe_session(run_shard: RunShard) -> None:
    _, xml = run_shard("shard", H100, {"kv=auto": ("pass",)})
    (pairs,) = read_suite_properties(xml)
    props = as_dict(pairs)
    assert props["blackwell.devices"].startswith("NVIDIA H100 80GB HBM3 (sm_90), 80 GiB")
    assert props["blackwell.device.0.name"] == "NVIDIA H100 80GB HBM3"
    assert props["blackwell.device.0.compute_capability"] == "9.0"
    assert props["blackwell.device.0.smem_per_block_optin_bytes"] == "232448"
    assert props["blackwell.driver"] == "575.57.08"
    assert props["blackwell.cuda"] == "12.9"
    for key in ("torch", "vllm", "flashinfer", "python", "platform"):
        assert props[f"blackwell.{key}"], key
    assert len(pairs) == len(props), "no property written twice"


def test_xdist_keeps_testcase_and_testsuite_properties(pytester: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    write_conftest(pytester, RTX_5090)
    pytester.makepyfile(
        test_engine="""
        import pytest

        @pytest.mark.parametrize("cid", [
            pytest.param(f"kv=c{i}", id=f"kv=c{i}",
                         marks=pytest.mark.facts(config=f"kv=c{i}", kv_cache_dtype=f"c{i}"))
            for i in range(6)
        ])
        def test_generate(cid, worker_id):
            assert worker_id.startswith("gw")
        """
    )
    result = pytester.runpytest_subprocess(
        "-n", "2", "--junitxml=out.xml", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(passed=6)
    props = read_testcase_properties(pytester.path / "out.xml")
    assert len(props) == 6
    for name, values in props.items():
        cid = name[len("test_generate[") : -1]
        assert values["blackwell.config"] == cid
        assert values["blackwell.device"] == "NVIDIA GeForce RTX 5090"
        assert values["blackwell.outcome"] == "passed"
    (pairs,) = read_suite_properties(pytester.path / "out.xml")
    assert as_dict(pairs)["blackwell.devices"].startswith("NVIDIA GeForce RTX 5090 (sm_120), ")
    assert len(pairs) == len(as_dict(pairs)), "the controller writes suite properties once"
    # The controller also prints the local matrix from the workers' reports.
    result.stdout.fnmatch_lines(["*blackwell matrix*", "*test_generate*kv=c0*pass*"])


def test_terminal_matrix_respects_quiet(run_shard: RunShard) -> None:
    result, _ = run_shard("a", RTX_5090, CASES)
    result.stdout.fnmatch_lines(
        [
            "*= blackwell matrix =*",
            "test*config*NVIDIA GeForce RTX 5090 (sm_120)",
            "test_engine.py::test_generate*kv=auto*pass",
            "test_engine.py::test_generate*kv=fp8 *dispatch_failure@kv_alloc",
            "test_engine.py::test_generate*kv=fp8_e5m2*kv_cache_oom@kv_alloc (expected)",
            "test_engine.py::test_generate*kv=bf16*skip",
        ]
    )
    quiet, _ = run_shard("b", RTX_5090, CASES, "-q")
    out = quiet.stdout.str()
    assert "blackwell matrix (failures)" in out
    assert "dispatch_failure@kv_alloc" in out
    assert "kv=auto " not in out
    very_quiet, _ = run_shard("c", RTX_5090, CASES, "-qq")
    assert "blackwell matrix" not in very_quiet.stdout.str()


def test_planted_secrets_reach_neither_junit_nor_terminal(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = "plain-secret-value-77"  # no token shape: caught only by its value
    monkeypatch.setenv("MY_SERVICE_TOKEN", token)
    write_conftest(pytester, RTX_5090)
    pytester.makepyfile(
        test_leak=f"""
        import pytest

        @pytest.mark.facts(config="kv=auto", category="unsupported_config", stage="loading",
                           first_error="OSError: 401 for https://bob:{token}@hf.co/m",
                           outcome="failed")
        def test_leak():
            print("engine env MY_SERVICE_TOKEN={token} --api-key sk-abcdefghijklmnopqrstuvwx")
            pytest.fail("unsupported_config at loading: OSError: 401 using {token}")
        """
    )
    result = pytester.runpytest_subprocess("--junitxml=out.xml", "-rA", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    xml_text = (pytester.path / "out.xml").read_text(encoding="utf-8")
    terminal = result.stdout.str()
    for text in (xml_text, terminal):
        assert token not in text
        assert "sk-abcdefghijklmnopqrstuvwx" not in text
        assert "[REDACTED]" in text
    props = read_testcase_properties(pytester.path / "out.xml")["test_leak"]
    assert props["blackwell.first_error"] == "OSError: 401 for https://[REDACTED]@hf.co/m"


def test_facts_that_appear_late_still_get_the_test_outcome(pytester: pytest.Pytester) -> None:
    write_conftest(pytester, RTX_5090)
    pytester.makepyfile(
        test_late="""
        import pytest
        from pytest_blackwell.stash import TEST_FACTS_KEY

        @pytest.fixture
        def late_facts(request):
            yield
            request.node.stash[TEST_FACTS_KEY] = {"config": "kv=late"}

        def test_fails_then_facts(late_facts):
            assert False

        @pytest.mark.skipif(True, reason="no such GPU")
        def test_skipped_then_facts():
            pass
        """
    )
    pytester.makeconftest(
        pytester.path.joinpath("conftest.py").read_text()
        + """

@pytest.hookimpl(tryfirst=True)
def pytest_runtest_teardown(item):
    if item.name == "test_skipped_then_facts":
        item.stash[TEST_FACTS_KEY] = {"config": "kv=skip"}
"""
    )
    result = pytester.runpytest("--junitxml=out.xml", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1, skipped=1)
    props = read_testcase_properties(pytester.path / "out.xml")
    assert props["test_fails_then_facts"]["blackwell.outcome"] == "failed"
    assert props["test_skipped_then_facts"]["blackwell.outcome"] == "skipped"
    assert props["test_skipped_then_facts"]["blackwell.config"] == "kv=skip"
