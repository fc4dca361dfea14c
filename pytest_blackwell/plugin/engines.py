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

from pytest_blackwell.markers import MarkInput
from pytest_blackwell.markers.config import (
    CONFIG_MARKERS,
    Expectation,
    Variant,
    parse_expect_failure,
)
from pytest_blackwell.plugin.runtime import (
    RECORD_EXTRAS_KEY,
    RESULTS_KEY,
    adjusted,
    classify_with_hooks,
    engine_devices,
    engine_pool,
    existing_pool,
    item_engine_config,
    launch_guard,
    plain_nodeid,
    relaunch_policy,
    skip_unless_runnable,
)
from pytest_blackwell.plugin.settings import (
    facts_of,
    settings_of,
    worker_output,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from pytest_blackwell.engine.pool import EngineHandle
    from pytest_blackwell.engine.result import EngineResult
    from pytest_blackwell.failures import Failure

_RESULT_KEY = pytest.StashKey["EngineResult"]()
_EXPECT_KEY = pytest.StashKey[Expectation]()
_STRICT_KEY = pytest.StashKey[bool]()
_WRITTEN_KEY = pytest.StashKey[list[Path]]()
#: xdist controller: the engine records each worker handed over (``workeroutput``).
_WORKER_RECORDS_KEY = pytest.StashKey[list[list[dict[str, Any]]]]()
#: ``workeroutput`` key of a worker's engine records (a JSON list).
WORKEROUTPUT_RECORDS = "blackwell_records"


def pytest_configure(config: pytest.Config) -> None:
    for line in CONFIG_MARKERS.values():
        config.addinivalue_line("markers", line)


# --- fixtures ---------------------------------------------------------------------------------


@pytest.fixture
def _blackwell_variant(request: pytest.FixtureRequest) -> Variant | None:
    variant: Variant | None = getattr(request, "param", None)
    return variant


@pytest.fixture
def blackwell_classify(pytestconfig: pytest.Config) -> Callable[[str | os.PathLike[str]], Any]:
    """``blackwell_classify(path)`` -> the log's first ``Failure`` (or ``None``), classified
    with this session's rules (including those added by hooks)."""

    def classify(log: str | os.PathLike[str]) -> Failure | None:
        return classify_with_hooks(pytestconfig, log)

    return classify


def _launch(request: pytest.FixtureRequest, variant: Variant | None) -> EngineHandle:
    item = request.node
    skip_unless_runnable(item)
    expect = item.get_closest_marker("expect_failure")
    if expect is not None:
        item.stash[_EXPECT_KEY] = parse_expect_failure(
            MarkInput(expect.name, expect.args, expect.kwargs)
        )
    config = variant.config if variant is not None else item_engine_config(item)
    if config is None:  # not a pytest.Function: the session's base configuration
        config = adjusted(request.config, settings_of(request.config).base_config)
    pool = engine_pool(request.config)
    with launch_guard(item):  # a launch does not count against pytest-timeout's limit
        handle = pool.get(config, relaunch_failed=relaunch_policy(item))
    result = handle.result
    item.stash[_RESULT_KEY] = result
    pool.note_test(config, plain_nodeid(item.nodeid))
    facts = facts_of(item)
    facts.set_device(engine_devices(request.config), replace=True)
    facts.config = config.id
    facts.kv_cache_dtype = config.kv_cache_dtype or "auto"
    facts.attention_backend = result.actual_backend or config.attention_backend or "default"
    # A rerun on a fresh engine: nothing of the earlier attempt's failure holds.
    failure = result.failure
    facts.category = None if failure is None else failure.category
    facts.stage = None if failure is None else failure.stage
    facts.first_error = None if failure is None else failure.first_error
    return handle


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
    facts_of(pyfuncitem).outcome = "expected_failure"
    return outcome


# --- session end ------------------------------------------------------------------------------


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Close the engines; the controller (or a run without xdist) writes results.json."""
    from pytest_blackwell.report.results import merge_records, write_results

    config = session.config
    pool = existing_pool(config)
    if pool is not None:
        pool.close()
    records = pool.records() if pool is not None else []
    extra = config.stash.get(RECORD_EXTRAS_KEY, {})
    for record in records:
        record.update(extra.get(str(record["config_id"]), {}))
    output = worker_output(config)
    if output is not None:  # xdist worker: hand the records to the controller (plain JSON)
        output[WORKEROUTPUT_RECORDS] = json.dumps(records)
        return
    configs = merge_records([records, *config.stash.get(_WORKER_RECORDS_KEY, [])])
    config.stash[RESULTS_KEY] = configs
    devices = engine_devices(config)
    config.stash[_WRITTEN_KEY] = write_results(settings_of(config).artifacts, configs, devices)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """xdist controller: keep the engine records a worker handed over as it finished."""
    raw = (getattr(node, "workeroutput", None) or {}).get(WORKEROUTPUT_RECORDS)
    if raw:
        node.config.stash.setdefault(_WORKER_RECORDS_KEY, []).append(json.loads(raw))


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    written = config.stash.get(_WRITTEN_KEY, [])
    if not written or config.get_verbosity() < -1:
        return
    terminalreporter.write_line(f"blackwell: engine results in {written[0]}")
    for path in written[1:]:
        terminalreporter.write_line(f"blackwell: bug report {path}")
