"""Side-by-side measurement of two configurations: interleaved rounds, one verdict.

:func:`run_comparison` takes the measuring as a callable (``measure(label, round_no)`` returns one
round's raw data from the engine of value ``"a"`` or ``"b"``), so the interleaving and the
statistics are tested without engines, and the same code drives real ones.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pytest_blackwell.engine.benchmark import Workload
from pytest_blackwell.engine.config import EngineConfig
from pytest_blackwell.engine.perfstats import Comparison, compare, round_metrics, summarize

MeasureRound = Callable[[str, int], Mapping[str, Any]]


@dataclass(frozen=True)
class PerfResult:
    """A finished comparison of ``variable`` = ``values[0]`` (A) against ``values[1]`` (B).

    ``rounds`` holds each value's measured rounds (metrics per round, warm-ups dropped) in the
    order they ran; ``order`` the labels as they were measured.
    """

    variable: str
    values: tuple[str, str]
    config_ids: tuple[str, str]
    workload: Workload
    comparison: Comparison
    rounds: dict[str, list[dict[str, float]]] = field(default_factory=dict)
    order: tuple[str, ...] = ()
    coexist: bool = True

    def summary(self, label: str) -> dict[str, dict[str, float]]:
        return summarize(self.rounds[label])

    def message(self) -> str:
        a, b = self.values
        return f"{self.variable}={b} vs {self.variable}={a}: {self.comparison.describe()}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "variable": self.variable,
            "values": list(self.values),
            "config_ids": list(self.config_ids),
            "workload": self.workload.to_dict(),
            "comparison": self.comparison.to_dict(),
            "rounds": {k: [dict(r) for r in v] for k, v in self.rounds.items()},
            "summary": {label: self.summary(label) for label in self.rounds},
            "order": list(self.order),
            "coexist": self.coexist,
        }


def pair_order(pair_no: int) -> tuple[str, str]:
    """Which value runs first in measured pair ``pair_no``: A B, B A, A B, ..."""
    return ("a", "b") if pair_no % 2 == 0 else ("b", "a")


def round_order(rounds: int, warmup: int) -> list[tuple[str, int, bool]]:
    """``(label, round_no, measured)`` in run order: warm-ups of both, then pairs whose order
    alternates (A B, B A, A B ...) so neither value always runs right after the other."""
    order: list[tuple[str, int, bool]] = []
    for n in range(warmup):
        order += [("a", n, False), ("b", n, False)]
    for n in range(rounds):
        order += [(label, warmup + n, True) for label in pair_order(n)]
    return order


def run_comparison(
    measure: MeasureRound,
    *,
    variable: str,
    values: tuple[str, str],
    config_ids: tuple[str, str],
    workload: Workload,
    metric: str,
    max_slowdown: float,
    coexist: bool = True,
) -> PerfResult:
    """Measure both values in interleaved rounds and compare ``metric`` of B against A.

    After ``workload.rounds`` pairs, while the interval cannot tell a slowdown of
    ``max_slowdown`` from none (:attr:`Comparison.resolved`), up to ``workload.extra_rounds``
    more pairs are measured, one at a time, continuing the alternation.
    """
    rounds: dict[str, list[dict[str, float]]] = {"a": [], "b": []}
    order: list[str] = []

    def run(label: str, round_no: int, measured: bool) -> None:
        data = measure(label, round_no)
        order.append(label)
        if measured:
            rounds[label].append(round_metrics(data))

    def current() -> Comparison:
        return compare(
            metric,
            [r[metric] for r in rounds["a"]],
            [r[metric] for r in rounds["b"]],
            max_slowdown=max_slowdown,
        )

    for label, round_no, measured in round_order(workload.rounds, workload.warmup):
        run(label, round_no, measured)
    comparison = current()
    planned = workload.warmup + workload.rounds
    for extra in range(workload.extra_rounds):
        if comparison.resolved:
            break
        for label in pair_order(workload.rounds + extra):
            run(label, planned + extra, True)
        comparison = current()
    return PerfResult(
        variable=variable,
        values=values,
        config_ids=config_ids,
        workload=workload,
        comparison=comparison,
        rounds=rounds,
        order=tuple(order),
        coexist=coexist,
    )


def benchmark_rounds(
    measure: Callable[[int], Mapping[str, Any]], workload: Workload
) -> list[dict[str, float]]:
    """One configuration alone: warm-ups dropped, then ``workload.rounds`` rounds' metrics."""
    for n in range(workload.warmup):
        measure(n)
    return [round_metrics(measure(workload.warmup + n)) for n in range(workload.rounds)]


#: Fraction of one GPU two engines may claim together and still start side by side.
_GPU_SHARE = 0.9


def can_coexist(a: EngineConfig, b: EngineConfig, *, gpu: bool, max_alive: int) -> bool:
    """Whether both engines may stay up during a comparison (else launches alternate).

    On CPU the KV cache is an explicit small size and both fit; on a GPU when the session
    allows two engines alive, or when both set ``gpu_memory_utilization`` and together claim
    at most 90% of the device.
    """
    if not gpu or max_alive >= 2:
        return True
    shares = [c.gpu_memory_utilization for c in (a, b)]
    return all(s is not None for s in shares) and sum(s or 0.0 for s in shares) <= _GPU_SHARE


@dataclass(frozen=True)
class BenchmarkResult:
    """One configuration's benchmark: the metrics of each measured round."""

    config_id: str
    workload: Workload
    rounds: list[dict[str, float]]

    def summary(self) -> dict[str, dict[str, float]]:
        """Per metric: ``median``, ``min``, ``max``, ``spread`` over the rounds."""
        return summarize(self.rounds)

    def median(self, metric: str) -> float:
        return self.summary()[metric]["median"]

    @property
    def output_tokens_per_s(self) -> float:
        return self.median("output_tokens_per_s")

    @property
    def requests_per_s(self) -> float:
        return self.median("requests_per_s")

    def to_dict(self) -> dict[str, Any]:
        return {
            "config_id": self.config_id,
            "workload": self.workload.to_dict(),
            "rounds": [dict(r) for r in self.rounds],
            "summary": self.summary(),
        }


__all__ = [
    "BenchmarkResult",
    "MeasureRound",
    "PerfResult",
    "benchmark_rounds",
    "can_coexist",
    "round_order",
    "run_comparison",
]
