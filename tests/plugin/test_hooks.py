"""Every pytest_blackwell_* hook, end to end: a conftest implements it, pytester runs it."""

from __future__ import annotations

import importlib.util
import json

import pytest

LOG = """\
(EngineCore_DP0 pid=7) INFO 11-20 08:00:01 [gpu_model_runner.py:2653] Model loading took 3.1 GiB
(EngineCore_DP0 pid=7) WARNING 11-20 08:00:03 [k.py:91] MYLIB_ASSERT(tile <= 128) failed
(EngineCore_DP0 pid=7) ERROR 11-20 08:00:03 [core.py:708] EngineCore encountered a fatal error.
"""


def test_hardware_markers_hook(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
        def pytest_blackwell_hardware_markers(config):
            return {"datacenter_blackwell": {"compute_capability": ">=10.0,<11",
                                             "requires_smem": {"kb": 200}}}
        """
    )
    pytester.makepyfile("import pytest\n@pytest.mark.datacenter_blackwell\ndef test_dc(): pass\n")
    pytester.runpytest("--strict-markers", "--blackwell-device=gb200").assert_outcomes(passed=1)
    result = pytester.runpytest("--strict-markers", "--blackwell-device=rtx-5090", "-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*requires compute capability >=10.0,<11; *(sm_120) has 12.0"])


def test_failure_rules_hook_adds_a_category(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
        from pytest_blackwell.failures import Rule

        def pytest_blackwell_failure_rules(config):
            return [Rule(name="mylib", category="mylib_assert",
                         pattern=r"MYLIB_ASSERT\\((?P<condition>[^)]*)\\)",
                         keywords=("MYLIB_ASSERT",))]
        """
    )
    (pytester.path / "engine.log").write_text(LOG)
    pytester.makepyfile(
        """
        def test_rule(blackwell_classify):
            failure = blackwell_classify("engine.log")
            assert failure.category == "mylib_assert"
            assert failure.detail["condition"] == "tile <= 128"
        """
    )
    pytester.runpytest().assert_outcomes(passed=1)


def test_without_the_rule_the_wrapper_reads_as_engine_died(pytester: pytest.Pytester) -> None:
    (pytester.path / "engine.log").write_text(LOG)
    pytester.makepyfile(
        """
        def test_rule(blackwell_classify):
            assert blackwell_classify("engine.log").category == "engine_died"
        """
    )
    pytester.runpytest().assert_outcomes(passed=1)


def test_classify_hook_overrides(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
        from dataclasses import replace

        def pytest_blackwell_classify(config, log_path, failure):
            if failure is not None and "MYLIB_ASSERT" in open(log_path).read():
                return replace(failure, category="mylib_assert", detail={"by": "hook"})
            return None
        """
    )
    (pytester.path / "engine.log").write_text(LOG)
    (pytester.path / "clean.log").write_text("INFO all good\n")
    pytester.makepyfile(
        """
        def test_hook(blackwell_classify):
            failure = blackwell_classify("engine.log")
            assert (failure.category, failure.detail) == ("mylib_assert", {"by": "hook"})
            assert blackwell_classify("clean.log") is None
        """
    )
    pytester.runpytest().assert_outcomes(passed=1)


def test_expect_failure_accepts_a_hook_category_and_rejects_unknown(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeconftest(
        """
        from pytest_blackwell.failures import Rule

        def pytest_blackwell_failure_rules(config):
            return [Rule(name="mylib", category="mylib_assert", pattern="MYLIB_ASSERT",
                         keywords=("MYLIB_ASSERT",))]
        """
    )
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.expect_failure(category="mylib_assert")
        def test_known(vllm_engine_result): pass

        @pytest.mark.expect_failure(category="kv_cache_boom", stage="kv_alloc")
        def test_unknown(vllm_engine_result): pass
        """
    )
    result = pytester.runpytest("--collect-only", "-q")
    result.stdout.fnmatch_lines(
        [
            "*::test_unknown: @pytest.mark.expect_failure: unknown category 'kv_cache_boom'; "
            "expected one of *mylib_assert*"
        ]
    )
    result.stdout.no_fnmatch_line("*test_known*unknown category*")


@pytest.mark.engine
@pytest.mark.skipif(importlib.util.find_spec("vllm") is None, reason="vLLM not installed")
def test_adjust_engine_config_and_engine_result_hooks(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
        import json

        import pytest

        def pytest_blackwell_adjust_engine_config(config, engine_config):
            # Force a KV cache far too small: proves the adjusted config is the one launched.
            return engine_config.replace(kv_cache_memory_bytes=64 * 1024)

        class SecondPlugin:
            # A wrapper sees the result of the implementations inside it: the changes chain.
            @pytest.hookimpl(wrapper=True)
            def pytest_blackwell_adjust_engine_config(self, engine_config):
                adjusted = yield
                return adjusted.replace(max_model_len=256)

        def pytest_configure(config):
            config.pluginmanager.register(SecondPlugin(), "second")

        def pytest_blackwell_engine_result(config, engine_config, result):
            with open("results.jsonl", "a") as f:
                f.write(json.dumps({"id": engine_config.id, **result.to_dict()}) + "\\n")
        """
    )
    pytester.makepyfile(
        """
        def test_a(vllm_engine_result):
            assert vllm_engine_result.failure.category == "kv_cache_oom"

        def test_b(vllm_engine_result):
            assert not vllm_engine_result.ok
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", timeout=600)
    result.assert_outcomes(passed=2)
    lines = (pytester.path / "results.jsonl").read_text().splitlines()
    assert len(lines) == 1  # one launch shared by both tests, published once
    published = json.loads(lines[0])
    assert published["id"] == "len=256-kvmem=64KiB"
    assert published["failure"]["category"] == "kv_cache_oom"


def test_adjust_engine_config_runs_once_per_configuration_at_collection(
    pytester: pytest.Pytester,
) -> None:
    """Ids and engine groups name the adjusted configuration; a wrapper chains on the result."""
    pytester.makeconftest(
        """
        import pytest

        CALLS = []

        def pytest_blackwell_adjust_engine_config(config, engine_config):
            CALLS.append(engine_config.id)
            if engine_config.kv_cache_dtype == "fp8":
                return engine_config.replace(kv_cache_dtype="fp8_e5m2")
            return None

        class Wrapper:
            @pytest.hookimpl(wrapper=True)
            def pytest_blackwell_adjust_engine_config(self, engine_config):
                adjusted = yield  # the result of the implementations inside
                if adjusted.kv_cache_dtype == "auto":
                    return adjusted.replace(max_model_len=256)
                return adjusted

        def pytest_configure(config):
            config.pluginmanager.register(Wrapper(), "wrapper")

        def pytest_collection_finish(session):
            print("CALLS", sorted(CALLS))
        """
    )
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.kv_dtype("auto", "fp8")
        def test_a(vllm_engine_result): pass

        @pytest.mark.kv_dtype("fp8")
        def test_b(vllm_engine_result): pass

        def test_c(vllm_engine_result): pass
        """
    )
    result = pytester.runpytest("--collect-only", "-q", "-s", "-p", "no:randomly")
    result.stdout.fnmatch_lines(
        [
            "*test_a[[]len=256-kv=auto[]]",
            "*test_a[[]kv=fp8_e5m2[]]",
            "*test_b[[]kv=fp8_e5m2[]]",
            "*test_c",
        ]
    )
    # Once per distinct configuration: the base, auto and fp8 (test_b's fp8 is test_a's).
    result.stdout.fnmatch_lines(["CALLS ['default', 'kv=auto', 'kv=fp8']"])


def test_adjust_engine_config_must_return_a_configuration(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
        def pytest_blackwell_adjust_engine_config(config, engine_config):
            return {"max_model_len": 256}
        """
    )
    pytester.makepyfile("def test_a(vllm_engine_result): pass")
    result = pytester.runpytest("--collect-only", "-q")
    assert result.ret != 0
    result.stderr.fnmatch_lines(
        ["*pytest_blackwell_adjust_engine_config returned dict for default; expected an Engine*"]
    )
