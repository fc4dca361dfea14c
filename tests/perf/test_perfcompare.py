"""Interleaving and the comparison driver, with a measuring function instead of engines."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from pytest_blackwell.engine.benchmark import Workload, WorkloadError, make_prompts
from pytest_blackwell.engine.config import EngineConfig
from pytest_blackwell.engine.perfcompare import (
    PerfResult,
    benchmark_rounds,
    can_coexist,
    round_order,
    run_comparison,
)


def fake_round(tokens_per_s: float, requests: int = 4, tokens: int = 16) -> dict[str, object]:
    wall = requests * tokens / tokens_per_s
    return {
        "wall_s": wall,
        "requests": [
            {"ttft_s": 0.01, "tpot_s": 0.002, "latency_s": wall, "output_tokens": tokens}
            for _ in range(requests)
        ],
    }


def test_rounds_interleave_and_alternate_order_after_warmup() -> None:
    order = round_order(rounds=4, warmup=1)
    assert [(label, measured) for label, _, measured in order] == [
        ("a", False),
        ("b", False),
        ("a", True),
        ("b", True),
        ("b", True),
        ("a", True),
        ("a", True),
        ("b", True),
        ("b", True),
        ("a", True),
    ]
    assert [n for _, n, _ in order] == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]


def test_run_comparison_drops_warmups_and_finds_a_slowdown() -> None:
    calls: list[tuple[str, int]] = []

    def measure(label: str, round_no: int) -> dict[str, object]:
        calls.append((label, round_no))
        if round_no == 0:
            return fake_round(1.0)  # a cold first round that must not count
        return fake_round(100.0 if label == "a" else 50.0 + round_no)

    result = run_comparison(
        measure,
        variable="max_num_seqs",
        values=("8", "1"),
        config_ids=("seqs=8", "seqs=1"),
        workload=Workload(rounds=4, warmup=1),
        metric="output_tokens_per_s",
        max_slowdown=0.1,
    )
    # 4 pairs cannot give a 95% interval of a median: pairs are added until 6 can.
    assert len(calls) == 14
    assert len(result.rounds["a"]) == len(result.rounds["b"]) == 6
    assert result.comparison.verdict == "slower"
    assert 0.5 < result.comparison.ratio < 0.56
    assert result.message().startswith("max_num_seqs=1 vs max_num_seqs=8: output_tokens_per_s")
    data = result.to_dict()
    assert data["summary"]["a"]["output_tokens_per_s"]["median"] == pytest.approx(100.0)
    assert data["order"][:2] == ["a", "b"]


def test_benchmark_rounds_measure_after_warmup() -> None:
    seen: list[int] = []

    def measure(n: int) -> dict[str, object]:
        seen.append(n)
        return fake_round(10.0 * (n + 1))

    rounds = benchmark_rounds(measure, Workload(rounds=3, warmup=2))
    assert seen == [0, 1, 2, 3, 4]
    assert [r["output_tokens_per_s"] for r in rounds] == pytest.approx([30.0, 40.0, 50.0])


def test_engines_coexist_on_cpu_or_when_the_gpu_has_room() -> None:
    a, b = EngineConfig(), EngineConfig(max_num_seqs=1)
    assert can_coexist(a, b, gpu=False, max_alive=1)
    assert not can_coexist(a, b, gpu=True, max_alive=1)
    assert can_coexist(a, b, gpu=True, max_alive=2)
    half = EngineConfig(gpu_memory_utilization=0.4)
    assert can_coexist(half, half.replace(max_num_seqs=1), gpu=True, max_alive=1)
    big = EngineConfig(gpu_memory_utilization=0.6)
    assert not can_coexist(big, big.replace(max_num_seqs=1), gpu=True, max_alive=1)


def test_workload_validation_and_prompts() -> None:
    with pytest.raises(WorkloadError, match="prompts: expected an int >= 1; got 0"):
        Workload(prompts=0)
    with pytest.raises(WorkloadError, match="marker: unknown workload setting"):
        Workload.from_dict({"prompt": 3}, source="marker")
    workload = Workload(prompts=3, input_tokens=5, seed=4)
    first = make_prompts(workload, 512)
    assert first == make_prompts(workload, 512)
    assert first != make_prompts(Workload(prompts=3, input_tokens=5, seed=5), 512)
    assert [len(p) for p in first] == [5, 5, 5]
    assert all(3 <= t < 511 for p in first for t in p)
    assert Workload(prompts=8, concurrency=20).in_flight == 8
    assert Workload(prompts=8, concurrency=2).in_flight == 2


def _compare(measure: Callable[[str, int], dict[str, object]], workload: Workload) -> PerfResult:
    """Value ``b`` against ``a`` of a variable ``v`` on output tokens/s, 10% tolerance."""
    return run_comparison(
        measure,
        variable="v",
        values=("a", "b"),
        config_ids=("x", "y"),
        workload=workload,
        metric="output_tokens_per_s",
        max_slowdown=0.1,
    )


def _noisy_then_steady(
    noisy_pairs: int,
) -> tuple[list[tuple[str, int]], Callable[[str, int], dict[str, object]]]:
    """B is 30% slower throughout; the first ``noisy_pairs`` pairs swing wildly around that."""
    calls: list[tuple[str, int]] = []

    def measure(label: str, round_no: int) -> dict[str, object]:
        calls.append((label, round_no))
        if label == "a":
            return fake_round(100.0)
        swing = (3.0 if round_no % 2 else 0.25) if round_no <= noisy_pairs else 1.0
        return fake_round(70.0 * swing * (1.0 + 0.01 * (round_no % 3)))

    return calls, measure


def test_an_undecided_comparison_adds_pairs_until_it_can_decide() -> None:
    calls, measure = _noisy_then_steady(noisy_pairs=4)
    result = _compare(measure, Workload(rounds=4, warmup=0, extra_rounds=40))
    comparison = result.comparison
    assert comparison.resolved
    assert comparison.verdict == "slower"
    assert 4 < comparison.rounds < 44  # it went on, and stopped once it could tell
    assert len(result.rounds["a"]) == len(result.rounds["b"]) == comparison.rounds
    # The pairs keep alternating which value runs first.
    pairs = [tuple(label for label, _ in calls[i : i + 2]) for i in range(0, len(calls), 2)]
    assert pairs[:6] == [("a", "b"), ("b", "a")] * 3
    assert [n for _, n in calls[8:12]] == [4, 4, 5, 5]


def test_extra_rounds_zero_keeps_the_planned_rounds_and_says_too_noisy() -> None:
    calls, measure = _noisy_then_steady(noisy_pairs=4)
    result = _compare(measure, Workload(rounds=4, warmup=0, extra_rounds=0))
    assert len(calls) == 8
    assert not result.comparison.resolved


def test_a_decided_comparison_adds_nothing() -> None:
    calls: list[str] = []

    def measure(label: str, round_no: int) -> dict[str, object]:
        calls.append(label)
        return fake_round(100.0 + round_no)

    result = _compare(measure, Workload(rounds=6, warmup=1))
    assert result.comparison.verdict == "same"
    assert result.comparison.resolved
    assert len(calls) == 14


def test_round_length_settings_are_validated() -> None:
    assert Workload().min_round_s == 0.5
    assert Workload(min_round_s=0).min_round_s == 0
    with pytest.raises(WorkloadError, match=r"min_round_s: expected seconds >= 0; got -1"):
        Workload(min_round_s=-1)
    with pytest.raises(WorkloadError, match=r"extra_rounds: expected an int >= 0; got 1.5"):
        Workload(extra_rounds=1.5)  # type: ignore[arg-type]
