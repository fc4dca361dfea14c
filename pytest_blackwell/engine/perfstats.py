"""Performance statistics as pure functions: round metrics, spreads, and paired comparisons.

A *round* is one pass of a benchmark workload (see :mod:`pytest_blackwell.engine.benchmark`).
Two configurations are compared on rounds measured in pairs (A, B, A, B ...): the ratio of each
pair cancels slow drifts of the machine. The ratio B/A is the median of the pair ratios and its
interval the distribution-free one of a median (order statistics, the sign test's interval): a
round that another process interrupted moves a mean and a t interval a long way, a median and
its rank interval hardly at all. Everything here is plain data in, plain data out.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

#: Metrics a round yields; the first two are better when higher, the others when lower.
METRICS = (
    "output_tokens_per_s",
    "requests_per_s",
    "ttft_p50_s",
    "ttft_p90_s",
    "tpot_p50_s",
    "tpot_p90_s",
)
HIGHER_IS_BETTER = frozenset({"output_tokens_per_s", "requests_per_s"})
VERDICTS = ("slower", "same", "faster")
#: The interval's confidence: a verdict other than ``same`` needs at least this much.
CONFIDENCE = 0.95


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0..100), linear between closest ranks (numpy's default)."""
    if not values:
        raise ValueError("percentile of no values")
    if not 0.0 <= q <= 100.0:
        raise ValueError(f"percentile: q must be within 0..100; got {q}")
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100.0
    low = math.floor(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def round_metrics(round_data: Mapping[str, Any]) -> dict[str, float]:
    """The metrics of one round from its wall time and per-request timings."""
    requests = list(round_data.get("requests") or [])
    wall = float(round_data.get("wall_s") or 0.0)
    if not requests or wall <= 0.0:
        raise ValueError(f"a benchmark round needs requests and a wall time; got {round_data!r}")
    tokens = sum(int(r["output_tokens"]) for r in requests)
    ttft = [float(r["ttft_s"]) for r in requests]
    tpot = [float(r["tpot_s"]) for r in requests if int(r["output_tokens"]) > 1] or [0.0]
    return {
        "output_tokens_per_s": tokens / wall,
        "requests_per_s": len(requests) / wall,
        "ttft_p50_s": percentile(ttft, 50),
        "ttft_p90_s": percentile(ttft, 90),
        "tpot_p50_s": percentile(tpot, 50),
        "tpot_p90_s": percentile(tpot, 90),
    }


def summarize(rounds: Sequence[Mapping[str, float]]) -> dict[str, dict[str, float]]:
    """Per metric over rounds: ``median``, ``min``, ``max`` and ``spread`` ((max-min)/median)."""
    if not rounds:
        raise ValueError("summarize: no rounds")
    out: dict[str, dict[str, float]] = {}
    for metric in METRICS:
        values = [float(r[metric]) for r in rounds]
        median = statistics.median(values)
        out[metric] = {
            "median": median,
            "min": min(values),
            "max": max(values),
            "spread": (max(values) - min(values)) / median if median > 0 else 0.0,
        }
    return out


def ci_label(confidence: float = CONFIDENCE) -> str:
    """``95% CI`` (or the lower coverage that too few pairs give, e.g. ``88% CI``)."""
    return f"{min(confidence, CONFIDENCE) * 100:.0f}% CI"


def median_interval(n: int, confidence: float = CONFIDENCE) -> tuple[int, float]:
    """The rank ``k`` (1-based) whose order statistics ``x(k)..x(n+1-k)`` bound the median of
    ``n`` values with at least ``confidence``, and that interval's exact coverage.

    Below 6 values no rank reaches 95%: ``k`` is 1 (min..max) and the coverage says how sure
    that widest interval is (94% for 5 values, 50% for 2).
    """
    if n < 1:
        raise ValueError(f"median_interval: needs at least one value; got {n}")
    best_k, best_cover = 1, 1.0 - 2.0 * 0.5**n
    cdf = 0.0  # P(Binomial(n, 1/2) <= k - 1)
    for k in range(1, n // 2 + 1):
        cdf += math.comb(n, k - 1) * 0.5**n
        cover = 1.0 - 2.0 * cdf
        if cover < confidence:
            break
        best_k, best_cover = k, cover
    return best_k, best_cover


@dataclass(frozen=True)
class Comparison:
    """The ratio B/A of one metric with its 95% interval, and what it means.

    ``ratio``/``ci_low``/``ci_high`` are in the metric's own direction (for tokens/s a ratio
    below 1 is slower; for a latency, above 1). ``slowdown`` is the point estimate of how much
    slower B is (negative: faster), as a fraction of A's performance.
    """

    metric: str
    ratio: float
    ci_low: float
    ci_high: float
    verdict: str
    max_slowdown: float
    slowdown: float
    rounds: int
    a_values: tuple[float, ...]
    b_values: tuple[float, ...]
    #: The interval's exact coverage (at least 95% from 6 pairs on; less with fewer).
    confidence: float = CONFIDENCE

    @property
    def failed(self) -> bool:
        return self.verdict == "slower"

    @property
    def resolved(self) -> bool:
        """Whether the interval is narrow enough to tell a slowdown of ``max_slowdown`` from
        none: it lies wholly on one side of ``1 - max_slowdown`` (in performance terms). A
        ``same`` that is not resolved means "too noisy to say", not "no slowdown"."""
        if self.confidence < CONFIDENCE:
            return False
        low, high = _perf_interval(self.metric, self.ci_low, self.ci_high)
        return low >= 1.0 - self.max_slowdown or high < 1.0 - self.max_slowdown

    def describe(self) -> str:
        """``ratio 0.42 (95% CI 0.38-0.47) of output_tokens_per_s, B/A: slower ...``."""
        return (
            f"{self.metric} ratio B/A {self.ratio:.3f} ({self.ci_label} {self.ci_low:.3f}-"
            f"{self.ci_high:.3f}, {self.rounds} paired rounds): {self.verdict} "
            f"(tolerance {self.max_slowdown:.0%}, point slowdown {self.slowdown:+.1%})"
        )

    @property
    def ci_label(self) -> str:
        return ci_label(self.confidence)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["a_values"] = list(self.a_values)
        data["b_values"] = list(self.b_values)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Comparison:
        return cls(
            metric=str(data["metric"]),
            ratio=float(data["ratio"]),
            ci_low=float(data["ci_low"]),
            ci_high=float(data["ci_high"]),
            verdict=str(data["verdict"]),
            max_slowdown=float(data["max_slowdown"]),
            slowdown=float(data["slowdown"]),
            rounds=int(data["rounds"]),
            a_values=tuple(float(v) for v in data.get("a_values") or ()),
            b_values=tuple(float(v) for v in data.get("b_values") or ()),
            confidence=float(data.get("confidence", CONFIDENCE)),
        )


def paired_ratio(a: Sequence[float], b: Sequence[float]) -> tuple[float, float, float, float]:
    """Median ratio B/A of paired rounds, its interval's bounds and that interval's coverage."""
    if len(a) != len(b):
        raise ValueError(f"paired_ratio: {len(a)} A rounds but {len(b)} B rounds")
    if len(a) < 2:
        raise ValueError("paired_ratio: at least 2 paired rounds are needed for an interval")
    if any(v <= 0 for v in (*a, *b)):
        raise ValueError("paired_ratio: round values must be positive")
    ratios = sorted(y / x for x, y in zip(a, b, strict=True))
    k, cover = median_interval(len(ratios))
    return statistics.median(ratios), ratios[k - 1], ratios[len(ratios) - k], cover


def _perf_interval(metric: str, ratio_low: float, ratio_high: float) -> tuple[float, float]:
    """A ratio interval as B's performance relative to A's (above 1: B is better)."""
    if metric in HIGHER_IS_BETTER:
        return ratio_low, ratio_high
    return 1.0 / ratio_high, 1.0 / ratio_low  # a latency: B/A of 1.25 is 0.8 of A's performance


def verdict(metric: str, ratio_low: float, ratio_high: float, max_slowdown: float) -> str:
    """``slower`` when the whole interval says B is worse than A by more than ``max_slowdown``,
    ``faster`` when it says B is better by more than that, ``same`` otherwise (the caller
    passes ``same``'s interval when it is not confident enough to say more)."""
    perf_low, perf_high = _perf_interval(metric, ratio_low, ratio_high)
    if perf_high < 1.0 - max_slowdown:
        return "slower"
    if perf_low > 1.0 + max_slowdown:
        return "faster"
    return "same"


def compare(
    metric: str, a: Sequence[float], b: Sequence[float], *, max_slowdown: float
) -> Comparison:
    """Compare paired rounds of ``metric``: B against A."""
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; expected one of {', '.join(METRICS)}")
    ratio, low, high, cover = paired_ratio(a, b)
    perf = ratio if metric in HIGHER_IS_BETTER else 1.0 / ratio
    return Comparison(
        metric=metric,
        ratio=ratio,
        ci_low=low,
        ci_high=high,
        verdict=verdict(metric, low, high, max_slowdown) if cover >= CONFIDENCE else "same",
        max_slowdown=max_slowdown,
        slowdown=1.0 - perf,
        rounds=len(a),
        a_values=tuple(float(v) for v in a),
        b_values=tuple(float(v) for v in b),
        confidence=cover,
    )


def fell_beyond_noise(metric: str, before: tuple[float, float], after: tuple[float, float]) -> bool:
    """True when a metric got worse between two runs by more than the noise of both.

    ``before`` and ``after`` are each run's interval of the value (a ratio's confidence
    interval, or the min..max of a benchmark's rounds): worse beyond noise means the intervals
    do not overlap and ``after`` lies on the bad side.
    """
    (b_low, b_high), (a_low, a_high) = sorted(before), sorted(after)
    if metric in HIGHER_IS_BETTER:
        return a_high < b_low
    return a_low > b_high


__all__ = [
    "CONFIDENCE",
    "HIGHER_IS_BETTER",
    "METRICS",
    "VERDICTS",
    "Comparison",
    "ci_label",
    "compare",
    "fell_beyond_noise",
    "median_interval",
    "paired_ratio",
    "percentile",
    "round_metrics",
    "summarize",
    "verdict",
]
