"""Configuration markers -> the matrix of engine configurations a test runs against.

``kv_dtype(*dtypes)``, ``attention_backend(*names)``, ``memory_budget(gpu_memory_utilization=...,
kv_cache_memory_bytes=...)`` (values may be lists) and ``vllm_config(**engine_args)`` expand, as a
cartesian product, into :class:`Variant` objects: the configuration, a readable id and the keyword
marks that let ``-m "kv_dtype(dtype='fp8')"`` select one configuration across a suite.
This module knows nothing of pytest; errors are :class:`ConfigMarkerError` naming the marker.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from pytest_blackwell.engine.config import EngineConfig
from pytest_blackwell.markers.base import MarkInput
from pytest_blackwell.units import parse_size

CONFIG_MARKERS: dict[str, str] = {
    "kv_dtype": "kv_dtype(*dtypes): run the test once per KV-cache dtype ('auto', 'fp8', ...).",
    "attention_backend": "attention_backend(*names): run the test once per attention backend "
    "('FLASH_ATTN', 'FLASHINFER', 'TRITON_ATTN', ...).",
    "memory_budget": "memory_budget(gpu_memory_utilization=..., kv_cache_memory_bytes=...): run "
    "the test per memory budget; values may be lists, sizes accept '512MiB', '2GiB' or ints.",
    "vllm_config": "vllm_config(**engine_args): any other vLLM engine argument for this test's "
    "engines (env={...} adds environment variables).",
    "expect_failure": "expect_failure(category, stage=None): pass only when the engine's first "
    "failure has this category (and stage); anything else fails the test.",
}


class ConfigMarkerError(ValueError):
    """A configuration marker with bad arguments."""


@dataclass(frozen=True)
class Variant:
    """One point of a test's configuration matrix."""

    config: EngineConfig
    id: str
    #: (marker name, kwargs) pairs to attach to the generated test instance.
    marks: tuple[tuple[str, dict[str, Any]], ...]


def _strings(marker: str, args: tuple[Any, ...], kwargs: Mapping[str, Any], key: str) -> list[str]:
    values = list(args)
    if key in kwargs:
        extra = kwargs[key]
        values.extend(extra if isinstance(extra, (list, tuple)) else [extra])
    unknown = sorted(set(kwargs) - {key})
    if unknown:
        raise ConfigMarkerError(
            f"@pytest.mark.{marker}: unknown argument(s) {', '.join(unknown)}; expected "
            f"names as positional strings or {key}=..."
        )
    if not values or not all(isinstance(v, str) and v.strip() for v in values):
        raise ConfigMarkerError(
            f"@pytest.mark.{marker}: expected one or more non-empty strings, got {values!r}"
        )
    return list(dict.fromkeys(values))


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _budgets(kwargs: Mapping[str, Any]) -> list[dict[str, Any]]:
    allowed = ("gpu_memory_utilization", "kv_cache_memory_bytes")
    unknown = sorted(set(kwargs) - set(allowed))
    if unknown or not kwargs:
        raise ConfigMarkerError(
            "@pytest.mark.memory_budget: expected gpu_memory_utilization=<fraction or list> "
            f"and/or kv_cache_memory_bytes=<size or list>, got {dict(kwargs)!r}"
        )
    gmus: list[float | None] = [None]
    sizes: list[int | None] = [None]
    if "gpu_memory_utilization" in kwargs:
        gmus = []
        for value in _as_list(kwargs["gpu_memory_utilization"]):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
                raise ConfigMarkerError(
                    "@pytest.mark.memory_budget: gpu_memory_utilization must be a fraction in "
                    f"(0, 1], got {value!r}"
                )
            gmus.append(float(value))
    if "kv_cache_memory_bytes" in kwargs:
        sizes = []
        for value in _as_list(kwargs["kv_cache_memory_bytes"]):
            try:
                size = parse_size(value, what="kv_cache_memory_bytes")
            except ValueError as exc:
                raise ConfigMarkerError(f"@pytest.mark.memory_budget: {exc}") from None
            if size <= 0:
                raise ConfigMarkerError(
                    f"@pytest.mark.memory_budget: kv_cache_memory_bytes must be more than 0 "
                    f"bytes, got {value!r}"
                )
            sizes.append(size)
    return [
        {
            k: v
            for k, v in (("gpu_memory_utilization", g), ("kv_cache_memory_bytes", s))
            if v is not None
        }
        for g, s in itertools.product(gmus, sizes)
    ]


def apply_engine_args(base: EngineConfig, args: Mapping[str, Any], origin: str) -> EngineConfig:
    """:meth:`EngineConfig.merged` with a marker's or option's arguments, errors naming
    ``origin``."""
    try:
        return base.merged(**args)
    except (TypeError, ValueError) as exc:
        raise ConfigMarkerError(f"{origin}: {exc}") from None


def expand(base: EngineConfig, marks: Sequence[MarkInput]) -> list[Variant]:
    """The configurations a test with these marks (closest first) runs against."""
    first: dict[str, MarkInput] = {}
    vllm_configs: list[MarkInput] = []
    for mark in marks:
        if mark.name == "vllm_config":
            vllm_configs.append(mark)
        elif mark.name in CONFIG_MARKERS and mark.name not in first:
            first[mark.name] = mark
    config = base
    for mark in reversed(vllm_configs):  # farthest first, so closer marks override
        if mark.args:
            raise ConfigMarkerError(
                f"@pytest.mark.vllm_config: takes keyword engine arguments only, got {mark.args!r}"
            )
        config = apply_engine_args(config, mark.kwargs, "@pytest.mark.vllm_config")

    axes: list[list[tuple[dict[str, Any], tuple[str, dict[str, Any]] | None]]] = []
    if "kv_dtype" in first:
        m = first["kv_dtype"]
        axes.append(
            [
                ({"kv_cache_dtype": d}, ("kv_dtype", {"dtype": d}))
                for d in _strings("kv_dtype", m.args, m.kwargs, "dtype")
            ]
        )
    if "attention_backend" in first:
        m = first["attention_backend"]
        axes.append(
            [
                ({"attention_backend": n}, ("attention_backend", {"name": n}))
                for n in _strings("attention_backend", m.args, m.kwargs, "name")
            ]
        )
    if "memory_budget" in first:
        m = first["memory_budget"]
        if m.args:
            raise ConfigMarkerError(
                f"@pytest.mark.memory_budget: takes keyword arguments only, got {m.args!r}"
            )
        axes.append([(b, ("memory_budget", b)) for b in _budgets(m.kwargs)])

    variants: list[Variant] = []
    for combo in itertools.product(*axes) if axes else [()]:
        changes: dict[str, Any] = {}
        marks_out: list[tuple[str, dict[str, Any]]] = []
        for change, mark_out in combo:
            changes.update(change)
            if mark_out is not None:
                marks_out.append(mark_out)
        variant_config = replace(config, **changes)
        variants.append(Variant(variant_config, variant_id(base, variant_config), tuple(marks_out)))
    return variants


def variant_id(base: EngineConfig, config: EngineConfig) -> str:
    """The id of what ``config`` changes relative to ``base`` (``default`` when nothing): a
    test instance's id among the configurations of its markers."""
    changed: dict[str, Any] = {
        f.name: getattr(config, f.name)
        for f in fields(EngineConfig)
        if f.name not in ("engine_args", "env") and getattr(config, f.name) != getattr(base, f.name)
    }
    changed["engine_args"] = {
        k: v for k, v in config.engine_args.items() if base.engine_args.get(k) != v
    }
    changed["env"] = {k: v for k, v in config.env.items() if base.env.get(k) != v}
    return EngineConfig(**changed).id


def has_config_marks(names: Iterable[str]) -> bool:
    return any(name in CONFIG_MARKERS and name != "expect_failure" for name in names)


@dataclass(frozen=True)
class Expectation:
    category: str
    stage: str | None

    def describe(self) -> str:
        return self.category if self.stage is None else f"{self.category} at {self.stage}"


def parse_expect_failure(mark: MarkInput) -> Expectation:
    """``expect_failure(category, stage=None)`` (category may be given by name)."""
    unknown = sorted(set(mark.kwargs) - {"category", "stage"})
    args = list(mark.args)
    category = args.pop(0) if args else mark.kwargs.get("category")
    stage = args.pop(0) if args else mark.kwargs.get("stage")
    if unknown or args or not isinstance(category, str) or not category:
        raise ConfigMarkerError(
            "@pytest.mark.expect_failure: expected expect_failure(category='<category>', "
            f"stage=None), got {mark.args!r} {dict(mark.kwargs)!r}"
        )
    if stage is not None and not isinstance(stage, str):
        raise ConfigMarkerError(
            f"@pytest.mark.expect_failure: stage must be a string, got {stage!r}"
        )
    return Expectation(category, stage)
