"""perf_compare end to end: real (CPU) vLLM engines measured side by side in one pytest run."""

from __future__ import annotations

import importlib.util
import json

import pytest

pytestmark = [
    pytest.mark.engine,
    pytest.mark.skipif(importlib.util.find_spec("vllm") is None, reason="vLLM not installed"),
]

SUITE = """
import pytest

# 8 concurrent prompts: one sequence at a time (B) against a batch of 8 (A).
@pytest.mark.perf_compare(max_num_seqs=[8, 1], prompts=8, max_tokens=8)
def test_batching_matters():
    pass

# The same configuration as A above: the engine still up from the comparison serves it.
@pytest.mark.vllm_config(max_num_seqs=8)
def test_benchmark_fixture(vllm_benchmark):
    result = vllm_benchmark(prompts=4, input_tokens=8, max_tokens=8, rounds=3, warmup=1)
    assert len(result.rounds) == 3
    summary = result.summary()
    assert summary["output_tokens_per_s"]["median"] > 0
    assert summary["ttft_p90_s"]["median"] >= summary["ttft_p50_s"]["median"] > 0
    assert summary["tpot_p50_s"]["median"] > 0

# Two values that cannot matter (sampling is greedy), read through the fixture: they must not
# be called slower. The false-alarm rate at the default 10% tolerance is measured by
# bench/perf_noise.py, not here; a shared 2-core CI runner gets a 50% tolerance.
@pytest.mark.perf_compare(seed=[0, 1], prompts=8, max_tokens=16, max_slowdown=0.5)
def test_seed_through_the_fixture(vllm_perf_comparison):
    assert vllm_perf_comparison.values == ("0", "1")
    pairs = vllm_perf_comparison.comparison.rounds
    assert len(vllm_perf_comparison.rounds["a"]) == len(vllm_perf_comparison.rounds["b"]) == pairs
    assert 6 <= pairs <= 18  # 6 planned, up to 12 more while undecided

# An engine that cannot start: nothing is compared, the test fails with its first error.
@pytest.mark.vllm_config(kv_cache_memory_bytes="64KiB")
@pytest.mark.perf_compare(max_num_seqs=[8, 1])
def test_engine_that_cannot_start():
    pass
"""


def test_slowdown_fails_with_its_interval_and_noise_passes(pytester: pytest.Pytester) -> None:
    pytester.makeini('[pytest]\nblackwell_engine_config = {"max_model_len": 256}\n')
    pytester.makepyfile(SUITE)
    artifacts = pytester.path / "artifacts"
    junit = pytester.path / "junit.xml"
    result = pytester.runpytest_subprocess(
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        f"--blackwell-artifacts={artifacts}",
        f"--junitxml={junit}",
        timeout=1500,
    )
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*perf_compare could not measure: the engine with A (len=256-kvmem=64KiB-seqs=8) "
            "failed: kv_cache_oom at kv_alloc: *",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*performance regression: max_num_seqs=1 vs max_num_seqs=8: output_tokens_per_s "
            "ratio B/A 0.* (95% CI 0.*-0.*, * paired rounds): slower*",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*= blackwell performance =*",
            "slower  *test_batching_matters: output_tokens_per_s max_num_seqs=1 vs 8: ratio 0.*",
            "bench   *test_benchmark_fixture*: output_tokens_per_s median *",
            "*test_seed_through_the_fixture: *seed=1 vs 0: ratio *",
        ]
    )
    xml = junit.read_text()
    for name in ("metric", "ratio", "ci_low", "ci_high", "verdict"):
        assert f'name="blackwell.perf.{name}"' in xml
    assert 'name="blackwell.perf.verdict" value="slower"' in xml
    assert 'name="blackwell.perf.verdict" value="not_measured"' in xml
    configs = {
        c["config_id"]: c for c in json.loads((artifacts / "results.json").read_text())["configs"]
    }
    slower = configs["len=256-seqs=1"]["perf"][0]
    assert slower["comparison"]["verdict"] == "slower"
    assert slower["comparison"]["ci_high"] < 0.9
    assert slower["values"] == ["8", "1"]
    assert slower["coexist"] is True  # on CPU both engines stay up: 2 launches, not 14
    assert configs["len=256-seqs=1"]["launches"] == configs["len=256-seqs=8"]["launches"] == 1
    assert len(configs["len=256-seqs=8"]["tests"]) == 2  # the benchmark reused A's engine
    assert configs["len=256-kvmem=64KiB-seqs=8"]["failure"]["category"] == "kv_cache_oom"
    assert "len=256-kvmem=64KiB-seqs=1" not in configs  # B is never launched after A failed
    assert slower["order"][:4] == ["a", "b", "a", "b"]
    assert len(slower["order"]) == 2 + 2 * slower["comparison"]["rounds"]  # warm-ups + pairs
    assert slower["comparison"]["confidence"] >= 0.95
    # A slowdown is a finding worth a bug report, with the rounds drawn.
    report = (artifacts / "reports" / "len=256-seqs=1.md").read_text()
    assert "## Performance comparison" in report
    assert "<svg" in report
