"""Statistics of performance rounds, on synthetic data with known answers."""

from __future__ import annotations

import math
import random

import pytest

from pytest_blackwell.engine.perfstats import (
    Comparison,
    compare,
    fell_beyond_noise,
    median_interval,
    paired_ratio,
    percentile,
    round_metrics,
    summarize,
    verdict,
)


def test_percentile_interpolates_like_numpy() -> None:
    values = [1.0, 2.0, 3.0, 4.0]
    assert percentile(values, 50) == 2.5
    assert percentile(values, 90) == pytest.approx(3.7)
    assert percentile(values, 0) == 1.0
    assert percentile(values, 100) == 4.0
    assert percentile([7.0], 90) == 7.0
    with pytest.raises(ValueError, match="no values"):
        percentile([], 50)
    with pytest.raises(ValueError, match=r"within 0\.\.100"):
        percentile(values, 101)


def test_round_metrics_from_request_timings() -> None:
    round_data = {
        "wall_s": 2.0,
        "requests": [
            {"ttft_s": 0.1, "tpot_s": 0.01, "latency_s": 1.0, "output_tokens": 10},
            {"ttft_s": 0.3, "tpot_s": 0.03, "latency_s": 2.0, "output_tokens": 30},
        ],
    }
    metrics = round_metrics(round_data)
    assert metrics["output_tokens_per_s"] == 20.0
    assert metrics["requests_per_s"] == 1.0
    assert metrics["ttft_p50_s"] == pytest.approx(0.2)
    assert metrics["ttft_p90_s"] == pytest.approx(0.28)
    assert metrics["tpot_p50_s"] == pytest.approx(0.02)
    with pytest.raises(ValueError, match="needs requests and a wall time"):
        round_metrics({"wall_s": 0.0, "requests": []})


def test_summarize_gives_median_and_spread() -> None:
    rounds = [
        dict.fromkeys(("output_tokens_per_s", "requests_per_s"), v)
        | dict.fromkeys(("ttft_p50_s", "ttft_p90_s", "tpot_p50_s", "tpot_p90_s"), 0.1)
        for v in (90.0, 100.0, 110.0)
    ]
    summary = summarize(rounds)
    assert summary["output_tokens_per_s"] == {
        "median": 100.0,
        "min": 90.0,
        "max": 110.0,
        "spread": pytest.approx(0.2),
    }
    assert summary["ttft_p50_s"]["spread"] == 0.0


def test_median_interval_ranks_and_coverage() -> None:
    # Coverage of x(k)..x(n+1-k) is 1 - 2 P(Binomial(n, 1/2) <= k-1): the sign test's interval.
    assert median_interval(6) == (1, pytest.approx(1 - 2 / 64))
    assert median_interval(8)[0] == 1  # k=2 would cover only 93%
    assert median_interval(9) == (2, pytest.approx(1 - 2 * 10 / 512))
    assert median_interval(18)[0] == 5
    for n in range(6, 60):
        k, cover = median_interval(n)
        assert cover >= 0.95
        assert k == n // 2 or 1 - 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2**n < 0.95
    # Too few values for 95%: the widest interval, with what it really covers.
    assert median_interval(5) == (1, pytest.approx(0.9375))
    assert median_interval(2) == (1, pytest.approx(0.5))
    with pytest.raises(ValueError, match="at least one value"):
        median_interval(0)


def test_paired_ratio_of_a_constant_factor_is_exact() -> None:
    a = [100.0, 120.0, 80.0, 110.0, 90.0, 105.0]
    ratio, low, high, cover = paired_ratio(a, [v * 0.5 for v in a])
    assert ratio == pytest.approx(0.5)
    assert low == pytest.approx(0.5)
    assert high == pytest.approx(0.5)
    assert cover > 0.95


def test_an_interrupted_round_does_not_decide_the_comparison() -> None:
    # Equal engines; in two of twelve pairs another process stole B's core for most of the round.
    rng = random.Random(3)
    a = [100 * math.exp(rng.gauss(0, 0.02)) for _ in range(12)]
    b = [100 * math.exp(rng.gauss(0, 0.02)) for _ in range(12)]
    b[3] /= 8
    b[9] /= 5
    result = compare("output_tokens_per_s", a, b, max_slowdown=0.1)
    assert (result.verdict, result.resolved) == ("same", True)
    assert 0.9 < result.ratio < 1.1
    # The same two outliers with a real 30% slowdown: still called, still inside the tolerance.
    slow = compare("output_tokens_per_s", a, [v * 0.7 for v in b], max_slowdown=0.1)
    assert slow.verdict == "slower"
    assert 0.6 < slow.ratio < 0.8


def test_too_few_pairs_never_fail_a_test() -> None:
    a = [100.0] * 4
    result = compare("output_tokens_per_s", a, [50.0, 51.0, 49.0, 50.5], max_slowdown=0.1)
    assert result.confidence == pytest.approx(0.875)
    assert (result.verdict, result.resolved) == ("same", False)
    assert "(88% CI 0.490-0.510, 4 paired rounds): same" in result.describe()


def test_pairing_cancels_drift_that_would_hide_a_difference() -> None:
    # The machine gets slower over the run; B is 5% slower than A in every pair.
    drift = [100.0 * (1 - 0.08 * i) for i in range(8)]
    comparison = compare("output_tokens_per_s", drift, [v * 0.95 for v in drift], max_slowdown=0.02)
    assert comparison.verdict == "slower"
    assert comparison.slowdown == pytest.approx(0.05)
    # Unpaired, the two sets of rounds overlap almost entirely: the drift hides the difference.
    b = [v * 0.95 for v in drift]
    assert sum(min(drift) <= v <= max(drift) for v in b) == len(b) - 1


def test_verdicts_respect_the_tolerance() -> None:
    assert verdict("output_tokens_per_s", 0.80, 0.88, 0.10) == "slower"
    assert verdict("output_tokens_per_s", 0.85, 0.95, 0.10) == "same"  # not beyond 10% surely
    assert verdict("output_tokens_per_s", 0.97, 1.04, 0.10) == "same"
    assert verdict("output_tokens_per_s", 1.12, 1.30, 0.10) == "faster"
    # Latencies: B/A above 1 is slower.
    assert verdict("ttft_p50_s", 1.2, 1.4, 0.10) == "slower"
    assert verdict("ttft_p50_s", 0.7, 0.8, 0.10) == "faster"


def test_noise_alone_is_same_and_a_real_slowdown_is_slower() -> None:
    rng = random.Random(7)
    false_alarms = 0
    for _ in range(200):
        a = [100 * math.exp(rng.gauss(0, 0.03)) for _ in range(6)]
        b = [100 * math.exp(rng.gauss(0, 0.03)) for _ in range(6)]
        false_alarms += compare("output_tokens_per_s", a, b, max_slowdown=0.1).failed
    assert false_alarms <= 2
    a = [100 * math.exp(rng.gauss(0, 0.03)) for _ in range(6)]
    b = [70 * math.exp(rng.gauss(0, 0.03)) for _ in range(6)]
    result = compare("output_tokens_per_s", a, b, max_slowdown=0.1)
    assert result.verdict == "slower"
    assert result.ci_low < result.ratio < result.ci_high < 0.9
    assert "ratio B/A 0." in result.describe()
    assert "(95% CI " in result.describe()
    assert Comparison.from_dict(result.to_dict()) == result


def test_compare_rejects_what_it_cannot_use() -> None:
    with pytest.raises(ValueError, match="unknown metric 'tokens'"):
        compare("tokens", [1.0, 2.0], [1.0, 2.0], max_slowdown=0.1)
    with pytest.raises(ValueError, match="at least 2 paired rounds"):
        paired_ratio([1.0], [1.0])
    with pytest.raises(ValueError, match="3 A rounds but 2 B rounds"):
        paired_ratio([1.0, 1.0, 1.0], [1.0, 1.0])
    with pytest.raises(ValueError, match="positive"):
        paired_ratio([1.0, 0.0], [1.0, 1.0])


def test_fell_beyond_noise_needs_intervals_apart() -> None:
    assert fell_beyond_noise("output_tokens_per_s", (95.0, 105.0), (80.0, 90.0))
    assert not fell_beyond_noise("output_tokens_per_s", (95.0, 105.0), (90.0, 96.0))
    assert not fell_beyond_noise("output_tokens_per_s", (95.0, 105.0), (110.0, 120.0))
    assert fell_beyond_noise("ttft_p50_s", (0.10, 0.12), (0.15, 0.2))  # latency grew
    assert not fell_beyond_noise("ttft_p50_s", (0.10, 0.12), (0.05, 0.08))


def test_a_wide_interval_is_not_resolved() -> None:
    a = [100.0] * 6
    wide = compare(
        "output_tokens_per_s", a, [60.0, 140.0, 70.0, 130.0, 95.0, 105.0], max_slowdown=0.1
    )
    assert wide.verdict == "same"
    assert not wide.resolved
    tight = compare(
        "output_tokens_per_s", a, [99.0, 101.0, 100.0, 100.5, 99.5, 100.2], max_slowdown=0.1
    )
    assert (tight.verdict, tight.resolved) == ("same", True)
    slow = compare("output_tokens_per_s", a, [50.0, 52.0, 51.0, 49.0, 50.0, 53.0], max_slowdown=0.1)
    assert (slow.verdict, slow.resolved) == ("slower", True)
    latency = compare("ttft_p50_s", a, [101.0, 99.0, 100.0, 100.0, 99.0, 101.0], max_slowdown=0.1)
    assert latency.resolved
