"""pytest glue for one-variable comparisons: ``--blackwell-isolate`` and ``one_variable``.

After a test whose engine failed (with ``--blackwell-isolate``), or after any test marked
``one_variable(...)``, the test's configuration is run again through the session's engine pool
with one variable changed at a time (:mod:`pytest_blackwell.engine.isolate`); each configuration
is compared once per session. The verdict lands in ``results.json`` (``isolation`` and
``follows`` of the configuration's entry, hence in its bug report), in the test's JUnit
properties (``blackwell.follows``) and in the terminal summary.
"""

from __future__ import annotations

import json
from collections.abc import Generator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pytest

from pytest_blackwell.engine.variables import DEFAULT_VARIABLES, canonical
from pytest_blackwell.plugin.runtime import (
    RECORD_EXTRAS_KEY,
    RESULTS_KEY,
    engine_devices,
    engine_group,
    engine_pool,
)
from pytest_blackwell.plugin.settings import (
    existing_facts,
    settings_of,
)

if TYPE_CHECKING:
    from pytest_blackwell.engine.pool import EngineHandle

ONE_VARIABLE_HELP = (
    "one_variable(*names, **values): after this test, run its engine configuration again "
    "changing one variable at a time, whether it failed or not (no names: "
    f"{', '.join(DEFAULT_VARIABLES)}; NAME=[...] gives explicit values, e.g. "
    "memory_budget=['16MiB', '64MiB'])."
)

#: Comparisons done in this process: (config key, variables, values) -> ``Comparison.to_dict()``.
_DONE_KEY = pytest.StashKey[dict[str, dict[str, Any]]]()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", ONE_VARIABLE_HELP)


def _marker_request(mark: pytest.Mark, nodeid: str) -> tuple[list[str], dict[str, list[Any]]]:
    names: list[str] = []
    for arg in mark.args:
        if not isinstance(arg, str):
            raise ValueError(
                f"{nodeid}: @pytest.mark.one_variable: expected variable names as strings; got "
                f"{arg!r}"
            )
        names.append(canonical(arg))
    values: dict[str, list[Any]] = {}
    for key, value in mark.kwargs.items():
        values[canonical(key)] = list(value) if isinstance(value, (list, tuple)) else [value]
    if not names and not values:
        names = list(DEFAULT_VARIABLES)
    return [*names, *(n for n in values if n not in names)], values


def _handle(item: pytest.Item, config_id: str) -> EngineHandle | None:
    found = [h for h in engine_pool(item.config).handles if h.config.id == config_id]
    return found[-1] if found else None


def compare(
    item: pytest.Item,
    handle: EngineHandle,
    variables: Sequence[str],
    values: Mapping[str, list[Any]],
) -> dict[str, Any]:
    """The comparison for the handle's configuration (run once per session and request)."""
    from pytest_blackwell.engine import isolate

    done = item.config.stash.setdefault(_DONE_KEY, {})
    key = json.dumps(
        [handle.config.key(), list(variables), dict(values)], sort_keys=True, default=str
    )
    if key in done:
        return done[key]
    gpus = [d for d in engine_devices(item.config) if d.is_gpu]  # where engines really run
    settings = settings_of(item.config)
    limit, origin = settings.isolate_memory_limit, settings.origin("isolate_memory_limit")
    pool = engine_pool(item.config)
    try:
        request = isolate.prepare(
            handle.config,
            variables,
            values,
            gpu_memory_bytes=(gpus[0].total_memory_bytes or None) if gpus else None,
            actual_backend=handle.result.actual_backend,
            memory_limit=limit,
            limit_origin=origin,
        )
        run = isolate.pool_runner(pool)
        data = isolate.compare(run, request).to_dict()
    except ValueError as exc:
        pytest.fail(f"one-variable comparison of {handle.config.id}: {exc}", pytrace=False)
    done[key] = data
    extras = item.config.stash.setdefault(RECORD_EXTRAS_KEY, {})
    extras.setdefault(handle.config.id, {}).update(isolation=data, follows=data["follows"])
    for row in data["runs"]:
        if row["config"] != handle.config.id:
            extras.setdefault(row["config"], {}).setdefault(
                "variant_of", f"{handle.config.id} ({row['label']})"
            )
    return data


def _request(item: pytest.Item, failed: bool) -> tuple[list[str], dict[str, list[Any]]] | None:
    mark = item.get_closest_marker("one_variable")
    settings = settings_of(item.config)
    defaults = settings.isolate_values
    if mark is not None:
        try:
            names, values = _marker_request(mark, item.nodeid)
        except ValueError as exc:
            pytest.fail(str(exc), pytrace=False)
        return names, {**{n: v for n, v in defaults.items() if n in names}, **values}
    wanted = settings.isolate
    if wanted is None or not failed:
        return None
    names = list(wanted)
    return names, {n: v for n, v in defaults.items() if n in names}


def _same_request_next(item: pytest.Item, nextitem: pytest.Item | None) -> bool:
    """True when the next test runs the same configuration with the same marker request."""
    if nextitem is None or engine_group(nextitem) != engine_group(item):
        return False
    mine, theirs = (
        item.get_closest_marker("one_variable"),
        nextitem.get_closest_marker("one_variable"),
    )
    return (
        mine is not None
        and theirs is not None
        and mine.args == theirs.args
        and mine.kwargs == theirs.kwargs
    )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(
    item: pytest.Item, nextitem: pytest.Item | None
) -> Generator[None, Any, Any]:
    outcome = yield
    facts = existing_facts(item)
    if facts is None or not facts.config:
        return outcome  # the test used no engine
    handle = _handle(item, facts.config)
    if handle is None:
        return outcome
    request = _request(item, handle.result.failure is not None)
    if request is not None and handle.alive and _same_request_next(item, nextitem):
        return outcome  # the next test uses this running engine: compare after the last one
    if request is not None:
        data = compare(item, handle, *request)
        facts.follows = data["follows"]
        facts.isolation = data["summary"]  # JUnit blackwell.isolation: the verdict line
    return outcome


def _collected(config: pytest.Config) -> list[dict[str, Any]]:
    """The session's comparisons: this process's, or in an xdist controller those the workers
    handed over with their engine records."""
    own = list(config.stash.get(_DONE_KEY, {}).values())
    if own:
        return own
    configs = config.stash.get(RESULTS_KEY, [])
    return [c["isolation"] for c in configs if isinstance(c.get("isolation"), dict)]


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    if config.get_verbosity() <= -2:
        return
    found = _collected(config)
    if not found:
        return
    from pytest_blackwell.engine.verdict import table_lines
    from pytest_blackwell.report.redact import Redactor

    redactor = Redactor.from_environ()
    terminalreporter.write_sep("=", "blackwell one-variable comparison")
    for data in found:
        for line in table_lines(data):
            terminalreporter.write_line(redactor.redact(line))
