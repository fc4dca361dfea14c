"""One-variable comparisons: keep a configuration fixed, change one variable, compare.

One request type (:class:`IsolationRequest`, built by :func:`prepare` for the pytest glue and
the CLI alike) and one routine, :func:`compare`, which takes a callable that runs a configuration
(``run(config, again=False) -> EngineResult``: the session's engine pool in production, a plain
function in unit tests). The memory budget of a failure that is about memory is searched, not
sampled: it grows geometrically (starting from what the failure says it needed) until the
configuration passes or the ceiling is reached, then bisects to :attr:`IsolationRequest.precision`.
The judgment is :func:`pytest_blackwell.engine.verdict.judge`. Nothing here imports pytest,
torch or vLLM at module import.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

from pytest_blackwell.engine.config import EngineConfig
from pytest_blackwell.engine.result import EngineResult
from pytest_blackwell.engine.variables import (
    DEFAULT_VARIABLES,
    MEMORY,
    base_value,
    domain,
    explicit_values,
    generated_values,
    human_size,
)
from pytest_blackwell.engine.verdict import Comparison, MemoryScope, Trial, judge
from pytest_blackwell.units import parse_size

if TYPE_CHECKING:
    from pytest_blackwell.engine.pool import EngineHandle, EnginePool

__all__ = ["IsolationRequest", "RunConfig", "compare", "pool_runner", "prepare"]

#: A failure in one of these categories, or at one of these stages, is about memory.
MEMORY_CATEGORIES = ("kv_cache_oom", "device_oom")
MEMORY_STAGES = ("kv_alloc", "profile")
#: The budget grows by this factor per launch until the configuration passes.
GROWTH = 4
#: Never more memory launches than this in one search, whatever the ceiling.
MAX_MEMORY_LAUNCHES = 10


class RunConfig(Protocol):
    """Runs one configuration; ``again=True`` launches it a second time (not reused)."""

    def __call__(self, config: EngineConfig, *, again: bool = False) -> EngineResult: ...


@dataclass(frozen=True)
class IsolationRequest:
    """Everything a comparison needs: the configuration, what to vary, what the platform offers.

    ``values``: explicit values per variable (others are generated, memory is searched);
    ``defaults``: values that apply where the configuration leaves a field unset (and
    ``actual_backend``, the backend that ran); ``memory_ceiling_bytes``: the most memory a
    budget may ask for, with ``ceiling_source`` saying where that came from; ``precision``: how
    close a memory threshold is bracketed (0.1: the passing budget is within 10% of the failing).
    """

    config: EngineConfig
    variables: tuple[str, ...] = DEFAULT_VARIABLES
    values: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    kv_dtypes: tuple[str, ...] = ()
    backends: tuple[str, ...] = ()
    defaults: Mapping[str, Any] = field(default_factory=dict)
    device_memory_bytes: int | None = None
    memory_ceiling_bytes: int | None = None
    ceiling_source: str = "no ceiling known"
    precision: float = 0.1
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        lacking = [n for n in self.variables if n not in DEFAULT_VARIABLES and n not in self.values]
        if lacking:
            raise ValueError(
                f"one_variable: no values to try for {', '.join(lacking)}; name explicit values "
                f"for it, or vary one of {', '.join(DEFAULT_VARIABLES)}"
            )
        if not 0.0 < self.precision < 1.0:
            raise ValueError(f"precision: expected a fraction in (0, 1); got {self.precision}")
        for name in ("engine_args", "env"):
            if name in self.variables or name in self.values:
                raise ValueError(f"one_variable: vary one engine argument by name, not {name!r}")

    @property
    def names(self) -> list[str]:
        return list(dict.fromkeys([*self.variables, *self.values]))

    def budget(self, setting: str, value: Any) -> int | None:
        """A memory value in bytes (a ``gpu_memory_utilization`` needs the device's memory)."""
        if setting == "kv_cache_memory_bytes":
            return int(value)
        if setting == "gpu_memory_utilization" and self.device_memory_bytes:
            return int(float(value) * self.device_memory_bytes)
        return None

    def ceiling(self, setting: str) -> float | None:
        """The largest value of ``setting`` a memory variant may take."""
        if setting == "kv_cache_memory_bytes":
            return None if self.memory_ceiling_bytes is None else float(self.memory_ceiling_bytes)
        if self.memory_ceiling_bytes and self.device_memory_bytes:
            return min(1.0, round(self.memory_ceiling_bytes / self.device_memory_bytes, 3))
        return 1.0


def prepare(
    config: EngineConfig,
    variables: Sequence[str],
    values: Mapping[str, Sequence[Any]],
    *,
    gpu_memory_bytes: int | None,
    actual_backend: str | None = None,
    memory_limit: str | int | None = None,
    limit_origin: str = "memory limit",
) -> IsolationRequest:
    """The request for ``config`` on this machine: what the installed vLLM accepts, the
    platform's defaults (CPU when ``gpu_memory_bytes`` is None) and the memory ceiling (the
    device's memory, else the host's free memory, capped by ``memory_limit``)."""
    from pytest_blackwell.engine.capabilities import vllm_capabilities
    from pytest_blackwell.engine.probe import CPU_DEFAULT_KV_CACHE_BYTES

    notes: list[str] = []
    try:
        caps = vllm_capabilities()
        kv_dtypes, backends = tuple(caps.kv_cache_dtypes), tuple(caps.attention_backends)
    except (RuntimeError, OSError) as exc:
        kv_dtypes, backends = (), ()
        notes.append(f"cannot ask vLLM for its dtypes and backends: {exc}")
    defaults: dict[str, Any] = {"actual_backend": actual_backend}
    if gpu_memory_bytes:
        ceiling, source = gpu_memory_bytes, f"device memory {human_size(gpu_memory_bytes)}"
    else:
        import psutil

        # on the CPU backend only the CPU attention backends run (vLLM falls back silently)
        backends = tuple(b for b in backends if b.startswith("CPU_") and "MLA" not in b)
        defaults.update(enforce_eager=True, kv_cache_memory_bytes=CPU_DEFAULT_KV_CACHE_BYTES)
        ceiling = int(psutil.virtual_memory().available)
        source = f"host free memory {human_size(ceiling)}"
    if memory_limit is not None:
        limit = parse_size(memory_limit, what=limit_origin)
        if limit <= 0:
            raise ValueError(f"{limit_origin}: expected a size above 0 bytes; got {memory_limit}")
        if limit < ceiling:
            ceiling, source = limit, f"memory limit {human_size(limit)}"
    return IsolationRequest(
        config,
        tuple(variables),
        {name: tuple(vals) for name, vals in values.items()},
        kv_dtypes,
        backends,
        defaults,
        gpu_memory_bytes or None,
        ceiling,
        source,
        notes=tuple(notes),
    )


def _about_memory(result: EngineResult) -> bool:
    failure = result.failure
    return failure is not None and (
        failure.category in MEMORY_CATEGORIES or failure.stage in MEMORY_STAGES
    )


def _round(setting: str, value: float) -> int | float:
    """Readable values (and config ids): bytes to 1/32 of their power of two, at least 1KiB
    steps; fractions to three decimals."""
    if setting == "kv_cache_memory_bytes":
        step: int = max(1024, 1 << max(0, int(math.log2(max(value, 1))) - 5))
        steps: int = math.ceil(value / step)
        return max(step, steps * step)
    return max(0.001, round(value, 3))


def _hint(request: IsolationRequest, result: EngineResult, setting: str, value: float) -> float:
    """A budget that should pass, from what a failure says it needed (0: it says nothing)."""
    failure = result.failure
    detail = {} if failure is None else failure.detail
    needed, available = detail.get("needed_bytes"), detail.get("available_bytes")
    if isinstance(needed, int) and isinstance(available, int) and needed > available > 0:
        if setting == "kv_cache_memory_bytes":
            return value * needed / available
        if request.device_memory_bytes:
            return value + (needed - available) / request.device_memory_bytes
    wanted = detail.get("max_model_len") or request.config.max_model_len
    fits = detail.get("estimated_max_model_len")
    kv = setting == "kv_cache_memory_bytes"
    if kv and isinstance(fits, int) and isinstance(wanted, int) and 0 < fits < wanted:
        return value * wanted / fits
    return 0.0


class _Search:
    """The memory-budget search for one failing configuration (see the module docstring)."""

    def __init__(self, run: RunConfig, request: IsolationRequest, base: EngineResult) -> None:
        self.run, self.request, self.base = run, request, base
        self.setting, current = base_value(request.config, MEMORY, request.defaults)
        self.current = float(current)
        self.top = request.ceiling(self.setting)
        self.trials: list[Trial] = []

    def bound(self) -> int:
        """At most this many launches: growth to the ceiling, one hint, then bisection."""
        ratio = (self.top or self.current * GROWTH**6) / self.current
        growth = max(1, math.ceil(math.log(max(ratio, 1.0001), GROWTH)))
        bisect = math.ceil(math.log2(math.log(GROWTH) / math.log(1 + self.request.precision)))
        return min(MAX_MEMORY_LAUNCHES, growth + 1 + bisect)

    def attempt(self, value: float) -> str:
        shown = _round(self.setting, value)
        trial = _variant_trial(self.run, self.request, MEMORY, self.setting, shown)
        self.trials.append(trial)
        if trial.result.ok:
            return "pass"
        failure, base = trial.result.failure, self.base.failure
        same = failure is not None and base is not None and failure.category == base.category
        return "fail" if same else "other"

    def search(self) -> list[Trial]:
        lo, hi = self.current, None
        hint = _hint(self.request, self.base, self.setting, lo)
        hinted = False  # the last pass came from a hint: try just below it first
        limit = self.bound()
        while len(self.trials) < limit:
            if hi is None:
                hinted = hint > lo
                nxt = hint * 1.01 if hinted else lo * GROWTH
                if self.top is not None:
                    if lo >= self.top:
                        break
                    nxt = min(nxt, self.top)
                value = float(_round(self.setting, nxt))
                if self.top is not None:
                    value = min(value, self.top)
            else:
                if hi / lo <= 1 + self.request.precision:
                    break
                below = hi / (1 + self.request.precision * 0.9)
                mid = below if hinted and below > lo else math.sqrt(lo * hi)
                hinted = False
                value = float(_round(self.setting, mid))
                if value >= hi or value <= lo:
                    break
            status = self.attempt(value)
            if status == "pass":
                hi = value
            elif status == "fail":
                lo = value
                hint = _hint(self.request, self.trials[-1].result, self.setting, value)
            else:
                break  # another failure: the verdict says what it was
        return self.trials


def _merged(config: EngineConfig, variable: str, setting: str, value: Any) -> EngineConfig:
    try:
        return config.merged(**{setting: value})
    except ValueError as exc:
        raise ValueError(f"one_variable: {variable}={value!r}: {exc}") from None


def _variant_trial(
    run: RunConfig, request: IsolationRequest, variable: str, setting: str, value: Any
) -> Trial:
    config = _merged(request.config, variable, setting, value)
    budget = request.budget(setting, value) if variable == MEMORY else None
    return Trial(variable, setting, value, config.id, run(config), budget)


def _memory_values(request: IsolationRequest, base: EngineResult) -> list[tuple[str, Any]]:
    """Sampled budgets for a configuration whose result is not about memory: the ceiling
    (more memory cannot be tried) and, for a passing configuration, half its budget."""
    setting, current = base_value(request.config, MEMORY, request.defaults)
    top = request.ceiling(setting)
    values: list[Any] = []
    if base.ok:
        values.append(_round(setting, float(current) / 2))
    if top is not None:
        values.append(int(top) if setting == "kv_cache_memory_bytes" else top)
    else:
        values.append(_round(setting, float(current) * GROWTH))
    return [(setting, v) for v in values if v != current]


def compare(run: RunConfig, request: IsolationRequest) -> Comparison:
    """Run the base (twice when it fails: a failure that does not reproduce is flaky and
    stops the comparison) and one variant per value of each variable; judge them.

    Raises ``ValueError`` naming a variable or value that cannot be used.
    """
    config = request.config
    mem_setting, mem_value = base_value(config, MEMORY, request.defaults)
    names = request.names
    plans: dict[str, list[tuple[str, Any]]] = {}
    for name in names:  # every bad value is reported before any engine runs
        if name in request.values:
            plans[name] = explicit_values(
                name, request.values[name], request.kv_dtypes, request.backends
            )
            for setting, value in plans[name]:
                _merged(config, name, setting, value)
    result = run(config)
    if not request.defaults.get("actual_backend") and result.actual_backend:
        defaults = {**request.defaults, "actual_backend": result.actual_backend}
        request = replace(request, defaults=defaults)
    for name in names:
        if name not in plans and name != MEMORY:
            plans[name] = generated_values(
                name, config, request.kv_dtypes, request.backends, request.defaults
            )
    base = Trial("base", None, None, config.id, result, request.budget(mem_setting, mem_value))
    again = run(config, again=True) if result.failure is not None else None
    base_values = {name: base_value(config, name, request.defaults) for name in names}
    searched = MEMORY in names and MEMORY not in plans and _about_memory(result)
    scope = None
    if MEMORY in names:
        top: Any = request.ceiling(mem_setting)
        if mem_setting == "kv_cache_memory_bytes" and top is not None:
            top = int(top)
        scope = MemoryScope(mem_setting, top, request.ceiling_source, request.precision, searched)
    trials: list[Trial] = []
    bound = 2 if again is not None else 1
    flaky = again is not None and (
        again.failure is None
        or result.failure is None
        or again.failure.category != result.failure.category
    )
    seen = {config.key()}
    for name in [] if flaky else names:
        if name == MEMORY and searched:
            search = _Search(run, request, result)
            bound += search.bound()
            trials += search.search()
            continue
        pairs = plans[name] if name in plans else _memory_values(request, result)
        for setting, value in pairs:
            if (setting, value) == base_values[name]:
                continue
            key = config.merged(**{setting: value}).key()
            if key in seen:
                continue
            seen.add(key)
            bound += 1
            trials.append(_variant_trial(run, request, name, setting, value))
    return judge(
        base,
        trials,
        variables=names,
        base_values=base_values,
        again=again,
        domains={n: domain(n, request.kv_dtypes, request.backends) for n in names},
        memory=scope,
        launch_bound=bound,
        notes=request.notes,
    )


def pool_runner(
    pool: EnginePool, on_launch: Callable[[EngineHandle], None] | None = None
) -> RunConfig:
    """A :class:`RunConfig` over an engine pool: every variant goes through the pool (its
    limits, logs and records); a configuration that already ran is not launched again, except
    for ``again=True``. ``on_launch(handle)`` is called after each launch made here."""

    def run(config: EngineConfig, *, again: bool = False) -> EngineResult:
        key = config.key()
        for handle in pool.handles:
            if handle.launches and handle.config.key() == key and not again:
                return handle.result
            if handle.launches and handle.config.key() == key:
                handle.evicted = True  # the pool relaunches an evicted engine on get()
        handle = pool.get(config)
        if on_launch is not None:
            on_launch(handle)
        return handle.result

    return run
