"""The ``perf_compare`` marker as plain data: which variable, which two values, how measured.

``perf_compare(VARIABLE=[A, B], metric="output_tokens_per_s", max_slowdown=0.10, prompts=8,
input_tokens=16, max_tokens=16, concurrency=None, rounds=6, warmup=1, prompt_seed=0,
min_round_s=0.5, extra_rounds=12)``: exactly
one keyword names a configuration variable (an EngineConfig field such as ``kv_cache_dtype`` or
``max_num_seqs``, the alias ``kv_dtype``, or any other vLLM engine argument) with a list of two
values; the others describe the measurement. This module knows nothing of pytest; errors are
:class:`~pytest_blackwell.markers.config.ConfigMarkerError` naming the marker.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pytest_blackwell.engine.benchmark import Workload, WorkloadError
from pytest_blackwell.engine.config import EngineConfig
from pytest_blackwell.engine.perfstats import METRICS
from pytest_blackwell.markers.base import MarkInput
from pytest_blackwell.markers.config import ConfigMarkerError, apply_engine_args

PERF_MARKER = (
    "perf_compare(VARIABLE=[A, B], metric='output_tokens_per_s', max_slowdown=0.10, prompts=8, "
    "input_tokens=16, max_tokens=16, concurrency=None, rounds=6, warmup=1, prompt_seed=0, "
    "min_round_s=0.5, extra_rounds=12): measure engines with VARIABLE=A and VARIABLE=B side by "
    "side in interleaved rounds (each at least min_round_s long; up to extra_rounds more pairs "
    "while the interval is too wide to decide); fail when B is slower than A by more than "
    "max_slowdown with 95% confidence."
)
#: Marker keywords that describe the measurement (all others name the variable).
_WORKLOAD_KEYS = {
    "prompts": "prompts",
    "input_tokens": "input_tokens",
    "max_tokens": "max_tokens",
    "concurrency": "concurrency",
    "rounds": "rounds",
    "warmup": "warmup",
    "prompt_seed": "seed",
    "min_round_s": "min_round_s",
    "extra_rounds": "extra_rounds",
}
_SETTINGS = {"metric", "max_slowdown", *_WORKLOAD_KEYS}
#: Friendly names for configuration fields (the same words as the configuration markers).
ALIASES = {"kv_dtype": "kv_cache_dtype"}
_WHERE = "@pytest.mark.perf_compare"


@dataclass(frozen=True)
class PerfSpec:
    """What one ``perf_compare`` marker asks for."""

    variable: str
    values: tuple[Any, Any]
    metric: str
    max_slowdown: float
    workload: Workload

    def configs(self, base: EngineConfig) -> tuple[EngineConfig, EngineConfig]:
        """``base`` with the variable set to A, and to B."""
        a, b = (
            apply_engine_args(base, {self.variable: v}, f"{_WHERE}({self.variable}={v!r})")
            for v in self.values
        )
        if a.key() == b.key():
            raise ConfigMarkerError(
                f"{_WHERE}: {self.variable}={self.values[0]!r} and {self.values[1]!r} give the "
                "same engine configuration; nothing to compare"
            )
        return a, b

    @property
    def labels(self) -> tuple[str, str]:
        return (str(self.values[0]), str(self.values[1]))


def parse_perf_compare(mark: MarkInput, defaults: Mapping[str, Any] | None = None) -> PerfSpec:
    """Read one ``perf_compare`` marker; ``defaults`` fill settings it leaves out."""
    if mark.args:
        raise ConfigMarkerError(
            f"{_WHERE}: takes keyword arguments only (VARIABLE=[A, B], metric=..., ...); got "
            f"positional {mark.args!r}"
        )
    kwargs = {**(defaults or {}), **mark.kwargs}
    variables = sorted(set(mark.kwargs) - _SETTINGS)
    if len(variables) != 1:
        found = ", ".join(variables) or "none"
        raise ConfigMarkerError(
            f"{_WHERE}: expected exactly one configuration variable with two values, e.g. "
            f"kv_cache_dtype=['auto', 'fp8'] (settings are {', '.join(sorted(_SETTINGS))}); "
            f"found variables: {found}"
        )
    name = variables[0]
    values = kwargs[name]
    if not isinstance(values, (list, tuple)) or len(values) != 2:
        raise ConfigMarkerError(
            f"{_WHERE}: {name} must be a list of two values [A, B] (B is measured against A); "
            f"got {values!r}"
        )
    if values[0] == values[1]:
        raise ConfigMarkerError(f"{_WHERE}: {name} compares {values[0]!r} with itself")
    metric = kwargs.get("metric", "output_tokens_per_s")
    if metric not in METRICS:
        raise ConfigMarkerError(
            f"{_WHERE}: unknown metric {metric!r}; expected one of {', '.join(METRICS)}"
        )
    slowdown = kwargs.get("max_slowdown", 0.10)
    if isinstance(slowdown, bool) or not isinstance(slowdown, (int, float)):
        raise ConfigMarkerError(
            f"{_WHERE}: max_slowdown must be a fraction such as 0.10; got {slowdown!r}"
        )
    if not 0.0 <= float(slowdown) < 1.0:
        raise ConfigMarkerError(
            f"{_WHERE}: max_slowdown must be within [0, 1) (0.10 = 10% slower); got {slowdown!r}"
        )
    workload_args = {_WORKLOAD_KEYS[k]: v for k, v in kwargs.items() if k in _WORKLOAD_KEYS}
    try:
        workload = Workload.from_dict(workload_args, source=_WHERE)
    except WorkloadError as exc:
        raise ConfigMarkerError(str(exc)) from None
    if workload.rounds < 2:
        raise ConfigMarkerError(f"{_WHERE}: rounds must be at least 2 for an interval")
    return PerfSpec(
        variable=ALIASES.get(name, name),
        values=(values[0], values[1]),
        metric=str(metric),
        max_slowdown=float(slowdown),
        workload=workload,
    )


__all__ = ["ALIASES", "PERF_MARKER", "PerfSpec", "parse_perf_compare"]
