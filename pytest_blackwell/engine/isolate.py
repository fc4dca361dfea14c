"""One-variable comparisons: keep a configuration fixed, change one setting, compare.

:func:`one_variable_variants` derives, from one :class:`EngineConfig`, variants that each change
exactly one variable (KV-cache dtype, attention backend, CUDA graphs, memory budget, or any engine
argument given explicit values); :func:`run_isolation` runs them through an
:class:`~pytest_blackwell.engine.pool.EnginePool` (engines that already ran are reused) and
judges what the failure follows (:mod:`pytest_blackwell.engine.verdict`). Nothing here imports
pytest, torch or vLLM.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

from pytest_blackwell.engine.config import EngineConfig, parse_size
from pytest_blackwell.engine.variables import DEFAULT_VARIABLES, MEMORY
from pytest_blackwell.engine.verdict import Isolation, budget_bytes, describe, judge

if TYPE_CHECKING:
    from pytest_blackwell.engine.pool import EngineHandle, EnginePool
    from pytest_blackwell.engine.result import EngineResult

__all__ = [
    "DEFAULT_VARIABLES",
    "MEMORY",
    "Isolation",
    "Variant",
    "base_value",
    "budget_bytes",
    "describe",
    "one_variable_variants",
    "parse_memory_value",
    "parse_vary",
    "platform_inputs",
    "run_isolation",
]

#: At most this many generated values per variable (each one is an engine launch).
MAX_VALUES = 3
#: KV-cache dtypes worth trying as an alternative; others (MLA-only, exotic quantised caches)
#: only when named explicitly.
_KV_PLAIN = ("auto", "bfloat16", "float16", "fp8", "fp8_e4m3", "fp8_e5m2")
_FP8_PAIR = {"fp8": "fp8_e5m2", "fp8_e4m3": "fp8_e5m2", "fp8_e5m2": "fp8_e4m3"}
#: General-purpose attention backends, in the order they are tried.
BACKEND_PREFERENCE = (
    "FLASH_ATTN",
    "FLASHINFER",
    "TRITON_ATTN",
    "FLEX_ATTENTION",
    "TORCH_SDPA",
    "CPU_ATTN",
)
#: vLLM's own default when a configuration sets no memory budget (on GPU).
DEFAULT_GPU_MEMORY_UTILIZATION = 0.9
_CONFIG_FIELDS = {f.name for f in fields(EngineConfig)} - {"engine_args", "env"}


@dataclass(frozen=True)
class Variant:
    """The base configuration with one variable changed.

    ``variable`` is what the comparison is about (``memory_budget`` for either memory setting),
    ``setting`` the configuration field or engine argument actually changed, ``value`` its new
    (JSON-able) value.
    """

    variable: str
    setting: str
    value: Any
    config: EngineConfig

    @property
    def label(self) -> str:
        """``kv_cache_dtype=auto``, ``kv_cache_memory_bytes=4MiB``, ``enforce_eager=True``."""
        return f"{self.setting}={describe(self.setting, self.value)}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "variable": self.variable,
            "setting": self.setting,
            "value": self.value,
            "label": self.label,
            "config_id": self.config.id,
            "config": self.config.to_dict(),
        }


def parse_memory_value(value: Any, *, what: str = MEMORY) -> tuple[str, Any]:
    """``(setting, value)`` for one memory-budget value.

    A fraction in (0, 1] (float, or a string such as ``"0.5"``) is a ``gpu_memory_utilization``;
    an int or a size (``"512MiB"``) is a ``kv_cache_memory_bytes``.
    """
    if isinstance(value, bool):
        raise ValueError(
            f"{what}: expected a fraction like 0.5 or a size like '64MiB'; got {value}"
        )
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return "kv_cache_memory_bytes", parse_size(value, what=what)
        value = int(number) if number.is_integer() and number > 1 else number
    if isinstance(value, float):
        if not 0.0 < value <= 1.0:
            raise ValueError(
                f"{what}: a float is a gpu_memory_utilization and must be in (0, 1]; got {value}"
            )
        return "gpu_memory_utilization", value
    if isinstance(value, int):
        return "kv_cache_memory_bytes", parse_size(value, what=what)
    raise ValueError(
        f"{what}: expected a fraction like 0.5 or a size like '64MiB'; got "
        f"{type(value).__name__} {value!r}"
    )


def _memory_setting(config: EngineConfig, defaults: Mapping[str, Any]) -> tuple[str, Any]:
    if config.kv_cache_memory_bytes is not None:
        return "kv_cache_memory_bytes", config.kv_cache_memory_bytes
    if config.gpu_memory_utilization is not None:
        return "gpu_memory_utilization", float(config.gpu_memory_utilization)
    if defaults.get("kv_cache_memory_bytes") is not None:
        return "kv_cache_memory_bytes", int(defaults["kv_cache_memory_bytes"])
    gmu = defaults.get("gpu_memory_utilization", DEFAULT_GPU_MEMORY_UTILIZATION)
    return "gpu_memory_utilization", float(gmu)


def base_value(
    config: EngineConfig, variable: str, defaults: Mapping[str, Any] | None = None
) -> tuple[str, Any]:
    """``(setting, value)`` of ``variable`` in ``config``, unset fields read from ``defaults``."""
    defaults = defaults or {}
    if variable == MEMORY:
        return _memory_setting(config, defaults)
    if variable in _CONFIG_FIELDS:
        value = getattr(config, variable)
    else:
        value = config.engine_args.get(variable)
    if value is None:
        value = defaults.get(variable, "auto" if variable == "kv_cache_dtype" else None)
    return variable, value


def _generated(
    variable: str,
    config: EngineConfig,
    kv_dtypes: Sequence[str],
    backends: Sequence[str],
    defaults: Mapping[str, Any],
) -> list[tuple[str, Any]]:
    setting, current = base_value(config, variable, defaults)
    values: list[Any]
    if variable == "kv_cache_dtype":
        fp8_pair = _FP8_PAIR.get(str(current), "")
        values = ["fp8"] if current in (None, "auto") else ["auto", fp8_pair]
        accepted = set(kv_dtypes) | {"auto"}
        values = [v for v in values if v in accepted and v in _KV_PLAIN]
    elif variable == "attention_backend":
        skip = {current, defaults.get("actual_backend")}
        values = [b for b in BACKEND_PREFERENCE if b in backends and b not in skip]
    elif variable == "enforce_eager":
        values = [not bool(current)] if current is not None else [True, False]
    elif variable == MEMORY:
        if setting == "kv_cache_memory_bytes":
            values = [max(1, int(current) // 2), int(current) * 4]
        else:
            gmu = float(current)
            values = [round(gmu / 2, 3), round(min(0.95, gmu + (1 - gmu) / 2), 3)]
    else:
        raise ValueError(
            f"one_variable: no values to try for {variable!r}; name explicit values for it, "
            f"or vary one of {', '.join(DEFAULT_VARIABLES)}"
        )
    return [(setting, v) for v in values[:MAX_VALUES] if v != current]


def _explicit(
    variable: str, values: Iterable[Any], kv_dtypes: Sequence[str], backends: Sequence[str]
) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for value in values:
        if variable == MEMORY:
            out.append(parse_memory_value(value, what=f"{MEMORY} value {value!r}"))
            continue
        if variable == "kv_cache_dtype" and kv_dtypes and value not in (*kv_dtypes, "auto"):
            raise ValueError(
                f"one_variable: kv_cache_dtype {value!r} is not accepted here; expected one of "
                f"{', '.join(kv_dtypes)}"
            )
        if variable == "attention_backend" and backends and value not in backends:
            raise ValueError(
                f"one_variable: attention backend {value!r} is not known here; expected one of "
                f"{', '.join(backends)}"
            )
        if variable == "enforce_eager" and not isinstance(value, bool):
            raise ValueError(
                f"one_variable: enforce_eager values must be True or False; got {value!r}"
            )
        out.append((variable, value))
    return out


def _coerce(text: str) -> Any:
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return value if isinstance(value, (int, float, list, dict)) else text


def parse_vary(spec: str, *, origin: str = "--vary") -> tuple[str, list[Any] | None]:
    """``NAME`` or ``NAME=V1,V2`` (also ``NAME: V1, V2``) -> ``(name, values or None)``.

    Values are read as JSON where they parse (``8``, ``0.5``, ``true``) and kept as strings
    otherwise (``fp8``, ``64MiB``); ``memory`` is short for ``memory_budget``.
    """
    name, sep, rest = spec.replace(":", "=", 1).partition("=")
    name = name.strip()
    name = MEMORY if name == "memory" else name
    if not name.isidentifier():
        raise ValueError(
            f"{origin}: expected NAME or NAME=V1,V2 with NAME a variable such as "
            f"{', '.join(DEFAULT_VARIABLES)} or an engine argument; got {spec!r}"
        )
    if not sep:
        return name, None
    values = [_coerce(part.strip()) for part in rest.split(",") if part.strip()]
    if not values:
        raise ValueError(f"{origin}: {name}= names no values; got {spec!r}")
    return name, values


def platform_inputs(
    backends: Sequence[str], *, cpu: bool, actual_backend: str | None = None
) -> tuple[tuple[str, ...], dict[str, Any]]:
    """``(backends worth trying, defaults)`` for engines on the CPU backend or on a GPU.

    On CPU only the CPU attention backends can run (vLLM silently falls back to them), and the
    engine child's own defaults apply: eager mode and an explicit small KV cache.
    """
    from pytest_blackwell.engine.probe import CPU_DEFAULT_KV_CACHE_BYTES

    defaults: dict[str, Any] = {"actual_backend": actual_backend}
    if not cpu:
        return tuple(backends), defaults
    defaults.update(enforce_eager=True, kv_cache_memory_bytes=CPU_DEFAULT_KV_CACHE_BYTES)
    return tuple(b for b in backends if b.startswith("CPU_") and "MLA" not in b), defaults


def one_variable_variants(
    config: EngineConfig,
    variables: Sequence[str] = DEFAULT_VARIABLES,
    *,
    kv_dtypes: Sequence[str],
    backends: Sequence[str],
    device_memory_bytes: int | None = None,
    extra: Mapping[str, Sequence[Any]] | None = None,
    defaults: Mapping[str, Any] | None = None,
) -> list[Variant]:
    """Variants of ``config`` that each change exactly one of ``variables``.

    ``kv_dtypes``/``backends``: what the installed vLLM accepts (see
    :func:`~pytest_blackwell.engine.capabilities.vllm_capabilities`); an empty list means
    "unknown" (no generated values for that variable). ``extra`` maps a variable (any of the
    above, ``memory_budget``, an ``EngineConfig`` field or a vLLM engine argument) to the values
    to try instead of generated ones; its variables are varied too. ``defaults`` gives the values
    that apply where ``config`` leaves a field unset (e.g. ``{"enforce_eager": True,
    "kv_cache_memory_bytes": 64 * 2**20}`` on CPU, ``actual_backend`` the backend that ran).
    ``device_memory_bytes`` is kept for callers that translate budgets; values equal to the
    base's are skipped, as are duplicates. Raises ``ValueError`` naming the bad variable/value.
    """
    del device_memory_bytes  # budgets are translated when judging, not when generating
    extra = dict(extra or {})
    defaults = dict(defaults or {})
    names = list(dict.fromkeys([*variables, *extra]))
    variants: list[Variant] = []
    seen = {config.key()}
    for variable in names:
        if variable in ("engine_args", "env"):
            raise ValueError(f"one_variable: vary one engine argument by name, not {variable!r}")
        if variable in extra:
            values = extra[variable]
            if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
                values = [values]
            pairs = _explicit(variable, values, kv_dtypes, backends)
        else:
            pairs = _generated(variable, config, kv_dtypes, backends, defaults)
        current = base_value(config, variable, defaults)
        for setting, value in pairs:
            if (setting, value) == current:
                continue
            try:
                changed = config.merged(**{setting: value})
            except ValueError as exc:
                raise ValueError(f"one_variable: {variable}={value!r}: {exc}") from None
            if changed.key() in seen:
                continue
            seen.add(changed.key())
            variants.append(Variant(variable, setting, value, changed))
    return variants


def _result(
    pool: EnginePool, config: EngineConfig, on_launch: Callable[[EngineHandle], None] | None
) -> EngineResult:
    """The result of ``config``'s engine: from its earlier launch when there was one (a
    comparison needs the outcome and tokens/s, not a live engine), else launched now."""
    key = config.key()
    for handle in pool.handles:
        if handle.launches and handle.config.key() == key:
            return handle.result
    handle = pool.get(config)
    if on_launch is not None:
        on_launch(handle)
    return handle.result


def run_isolation(
    pool: EnginePool,
    config: EngineConfig,
    variants: Sequence[Variant],
    *,
    device_memory_bytes: int | None = None,
    defaults: Mapping[str, Any] | None = None,
    variables: Sequence[str] | None = None,
    on_launch: Callable[[EngineHandle], None] | None = None,
) -> Isolation:
    """Run ``config`` and each variant through ``pool`` (reusing engines) and judge them.

    ``variables`` lists every variable asked for (also those with no variant, so the verdict can
    say they were not varied); by default the variants' own. ``on_launch(handle)`` is called
    after each engine launched here (e.g. to let a classify hook revise its failure).
    """
    base = _result(pool, config, on_launch)
    rows = [
        (v.variable, v.setting, v.value, v.config.id, _result(pool, v.config, on_launch))
        for v in variants
    ]
    asked = list(variables) if variables is not None else []
    asked += [v.variable for v in variants if v.variable not in asked]
    return judge(
        config,
        base,
        rows,
        variables=asked,
        base_values={name: base_value(config, name, defaults) for name in asked},
        device_memory_bytes=device_memory_bytes,
    )
