"""Performance numbers in matrix cells: read from report facts, shown, and compared.

A perf_compare test records ``perf.ratio``/``perf.ci_low``/``perf.ci_high``/``perf.verdict`` and
the rounds of both values; a ``vllm_benchmark`` test records ``perf.median``/``perf.min``/
``perf.max`` of one metric. A cell keeps them as plain data (it lands in the JSON matrix, and so
in the next run's baseline).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_blackwell.engine.perfstats import fell_beyond_noise
from pytest_blackwell.report.perfplot import parse_rounds

_NUMBERS = ("ratio", "ci_low", "ci_high", "median", "min", "max", "max_slowdown")
_WORDS = ("metric", "verdict", "variable", "a", "b")


def perf_from_facts(facts: Mapping[str, str]) -> dict[str, Any] | None:
    """The cell's perf data from ``perf.*`` facts (``None`` without a usable measurement)."""
    if "perf.metric" not in facts:
        return None
    perf: dict[str, Any] = {k: facts[f"perf.{k}"] for k in _WORDS if f"perf.{k}" in facts}
    for key in _NUMBERS:
        if f"perf.{key}" in facts:
            try:
                perf[key] = float(facts[f"perf.{key}"])
            except ValueError:
                return None  # a hand-edited or foreign property: no numbers rather than wrong
    if "ratio" not in perf and "median" not in perf:
        return None
    for side in ("a", "b"):
        rounds = parse_rounds(facts.get(f"perf.{side}_rounds"))
        if rounds:
            perf[f"{side}_rounds"] = rounds
    return perf


def perf_text(status: str, perf: Mapping[str, Any]) -> str:
    """``pass 0.98x`` / ``slower 0.31x`` for comparisons, ``pass 812.4`` for a benchmark."""
    if "ratio" in perf:
        label = "slower" if perf.get("verdict") == "slower" and status == "fail" else status
        return f"{label} {float(perf['ratio']):.2f}x"
    return f"{status} {float(perf['median']):.4g}"


def _interval(perf: Mapping[str, Any]) -> tuple[float, float] | None:
    if {"ci_low", "ci_high"} <= set(perf):
        return float(perf["ci_low"]), float(perf["ci_high"])
    if {"min", "max"} <= set(perf):
        return float(perf["min"]), float(perf["max"])
    return None


def perf_regressed(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """Whether the same metric got worse beyond the noise both runs recorded (their intervals
    do not overlap). Different metrics or kinds of measurement are not compared."""
    if old.get("metric") != new.get("metric") or ("ratio" in old) != ("ratio" in new):
        return False
    before, after = _interval(old), _interval(new)
    if before is None or after is None:
        return False
    return fell_beyond_noise(str(new.get("metric")), before, after)


__all__ = ["perf_from_facts", "perf_regressed", "perf_text"]
