"""The variables of a one-variable comparison: their names, how values are written, which
values are worth trying. A light module (no pytest, torch or vLLM), read by the pytest glue at
configure time and by :mod:`pytest_blackwell.engine.isolate`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import fields
from typing import Any

from pytest_blackwell.engine.config import EngineConfig
from pytest_blackwell.units import format_size, parse_size

#: The memory budget: ``gpu_memory_utilization`` or ``kv_cache_memory_bytes`` (whichever the
#: configuration uses). ``memory`` is accepted as a short name wherever a variable is named.
MEMORY = "memory_budget"
MEMORY_SETTINGS = ("kv_cache_memory_bytes", "gpu_memory_utilization")

#: What ``--blackwell-isolate`` changes by default, one at a time.
DEFAULT_VARIABLES = ("kv_cache_dtype", "attention_backend", "enforce_eager", MEMORY)

#: KV-cache dtypes worth trying as an alternative; others (MLA-only, exotic quantised caches)
#: only when named explicitly.
KV_PLAIN = ("auto", "bfloat16", "float16", "fp8", "fp8_e4m3", "fp8_e5m2")
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
#: At most this many generated values per discrete variable (each one is an engine launch).
MAX_VALUES = 3
#: vLLM's own default when a configuration sets no memory budget (on GPU).
DEFAULT_GPU_MEMORY_UTILIZATION = 0.9
_CONFIG_FIELDS = {f.name for f in fields(EngineConfig)} - {"engine_args", "env"}


def canonical(name: str) -> str:
    """The variable's name: ``memory`` is short for ``memory_budget`` (the one place it is)."""
    name = name.strip()
    return MEMORY if name == "memory" else name


def describe(setting: str, value: Any) -> str:
    """A value as people write it: sizes in KiB/MiB/GiB, fractions without trailing zeros."""
    if value is None:
        return "default"
    if setting == "kv_cache_memory_bytes" and isinstance(value, int):
        return human_size(value)
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True, separators=(",", ":"))
    return str(value)


def human_size(nbytes: int) -> str:
    """``4MiB`` when exact, else rounded: ``36.5GiB``, ``1.2MiB``."""
    exact = format_size(nbytes)
    if not exact.isdigit() or nbytes < 1024:
        return exact
    for unit, factor in (("TiB", 1024**4), ("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if nbytes >= factor:
            return f"{nbytes / factor:.1f}{unit}"
    return exact


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
    name = canonical(name)
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


def base_value(
    config: EngineConfig, variable: str, defaults: Mapping[str, Any] | None = None
) -> tuple[str, Any]:
    """``(setting, value)`` of ``variable`` in ``config``, unset fields read from ``defaults``
    (for ``memory_budget``: the memory setting the configuration uses)."""
    defaults = defaults or {}
    if variable == MEMORY:
        if config.kv_cache_memory_bytes is not None:
            return "kv_cache_memory_bytes", config.kv_cache_memory_bytes
        if config.gpu_memory_utilization is not None:
            return "gpu_memory_utilization", float(config.gpu_memory_utilization)
        if defaults.get("kv_cache_memory_bytes") is not None:
            return "kv_cache_memory_bytes", int(defaults["kv_cache_memory_bytes"])
        gmu = defaults.get("gpu_memory_utilization", DEFAULT_GPU_MEMORY_UTILIZATION)
        return "gpu_memory_utilization", float(gmu)
    if variable in _CONFIG_FIELDS:
        value = getattr(config, variable)
    else:
        value = config.engine_args.get(variable)
    if value is None:
        value = defaults.get(variable, "auto" if variable == "kv_cache_dtype" else None)
    if variable == "attention_backend" and value is None:
        value = defaults.get("actual_backend")
    return variable, value


def domain(variable: str, kv_dtypes: Sequence[str], backends: Sequence[str]) -> tuple[Any, ...]:
    """Every value of a discrete variable that the platform offers (empty: unknown/unbounded).

    A variable whose tried values (with the base's) cover its domain can be said not to matter.
    """
    if variable == "enforce_eager":
        return (True, False)
    if variable == "kv_cache_dtype":
        return tuple(v for v in ("auto", *kv_dtypes) if v in KV_PLAIN)
    if variable == "attention_backend":
        return tuple(backends)
    return ()


def generated_values(
    variable: str,
    config: EngineConfig,
    kv_dtypes: Sequence[str],
    backends: Sequence[str],
    defaults: Mapping[str, Any],
) -> list[tuple[str, Any]]:
    """``(setting, value)`` pairs worth trying for a discrete variable (memory is searched)."""
    setting, current = base_value(config, variable, defaults)
    values: list[Any]
    if variable == "kv_cache_dtype":
        fp8_pair = _FP8_PAIR.get(str(current), "")
        values = ["fp8"] if current in (None, "auto") else ["auto", fp8_pair]
        accepted = set(kv_dtypes) | {"auto"}
        values = [v for v in values if v in accepted and v in KV_PLAIN]
    elif variable == "attention_backend":
        skip = {current, defaults.get("actual_backend")}
        values = [b for b in BACKEND_PREFERENCE if b in backends and b not in skip]
    elif variable == "enforce_eager":
        values = [not bool(current)] if current is not None else [True, False]
    else:
        raise ValueError(
            f"one_variable: no values to try for {variable!r}; name explicit values for it, "
            f"or vary one of {', '.join(DEFAULT_VARIABLES)}"
        )
    return [(setting, v) for v in values[:MAX_VALUES] if v != current]


def explicit_values(
    variable: str, values: Iterable[Any], kv_dtypes: Sequence[str], backends: Sequence[str]
) -> list[tuple[str, Any]]:
    """``(setting, value)`` pairs for values a user named; ``ValueError`` for a bad one."""
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
