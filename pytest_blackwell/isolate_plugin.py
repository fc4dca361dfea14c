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
import time
from collections.abc import Generator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pytest

from pytest_blackwell.engine.variables import DEFAULT_VARIABLES, canonical, parse_vary
from pytest_blackwell.engine_collection import engine_group
from pytest_blackwell.engine_plugin import artifacts_dir, engine_devices, engine_pool
from pytest_blackwell.stash import RECORD_EXTRAS_KEY, TEST_FACTS_KEY

if TYPE_CHECKING:
    from pytest_blackwell.engine.pool import EngineHandle

ISOLATE_HELP = (
    "after a test whose engine failed, run its configuration again changing one variable at a "
    "time and report what the failure follows. WHAT: 'all' (default: "
    f"{', '.join(DEFAULT_VARIABLES)}), 'memory' (memory-budget sweep only) or comma-separated "
    "variable names"
)
VALUES_HELP = (
    "values to try per variable in one-variable comparisons, one line each: NAME: V1, V2 "
    "(e.g. 'memory_budget: 16MiB, 64MiB, 0.5' or 'max_num_seqs: 1, 8')"
)
MEMORY_LIMIT_HELP = (
    "the most memory a memory-budget search may give an engine, e.g. 8GiB (default: the "
    "device's memory, or the host's free memory when engines run on the CPU)"
)
ONE_VARIABLE_HELP = (
    "one_variable(*names, **values): after this test, run its engine configuration again "
    "changing one variable at a time, whether it failed or not (no names: "
    f"{', '.join(DEFAULT_VARIABLES)}; NAME=[...] gives explicit values, e.g. "
    "memory_budget=['16MiB', '64MiB'])."
)

#: Comparisons done in this process: (config key, variables, values) -> ``Comparison.to_dict()``.
_DONE_KEY = pytest.StashKey[dict[str, dict[str, Any]]]()
#: When this session started (an xdist controller only reads a results.json written since).
_STARTED_KEY = pytest.StashKey[float]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("blackwell")
    group.addoption(
        "--blackwell-isolate",
        nargs="?",
        const="all",
        default=None,
        metavar="WHAT",
        help=ISOLATE_HELP,
    )
    group.addoption(
        "--blackwell-isolate-memory-limit",
        default=None,
        metavar="SIZE",
        help=MEMORY_LIMIT_HELP,
    )
    parser.addini("blackwell_isolate", ISOLATE_HELP, default="")
    parser.addini("blackwell_isolate_memory_limit", MEMORY_LIMIT_HELP, default="")
    parser.addini("blackwell_isolate_values", VALUES_HELP, type="linelist", default=[])


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", ONE_VARIABLE_HELP)
    config.stash[_STARTED_KEY] = time.time()
    # bad values are usage errors now, not after the first failing engine
    wanted, values = isolate_setting(config) or (), ini_values(config)
    lacking = [n for n in wanted if n not in DEFAULT_VARIABLES and n not in values]
    if lacking:
        raise pytest.UsageError(
            f"--blackwell-isolate: no values to try for {', '.join(lacking)}; list them in the "
            f"ini option blackwell_isolate_values (e.g. '{lacking[0]}: V1, V2') or vary one of "
            f"{', '.join(DEFAULT_VARIABLES)}"
        )
    memory_limit(config)


def memory_limit(config: pytest.Config) -> tuple[int | None, str]:
    """``(bytes or None, where it came from)`` of the memory-budget search's user limit."""
    from pytest_blackwell.units import parse_size

    text, origin = (
        config.getoption("blackwell_isolate_memory_limit"),
        "--blackwell-isolate-memory-limit",
    )
    if text is None:
        text = str(config.getini("blackwell_isolate_memory_limit") or "").strip() or None
        origin = "ini option blackwell_isolate_memory_limit"
    if text is None:
        return None, origin
    try:
        size = parse_size(str(text), what=origin)
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
    if size <= 0:
        raise pytest.UsageError(f"{origin}: expected a size above 0 bytes, e.g. 8GiB; got {text!r}")
    return size, origin


def isolate_setting(config: pytest.Config) -> tuple[str, ...] | None:
    """The variables ``--blackwell-isolate`` (or the ini option) asks for; None when off."""
    text = config.getoption("blackwell_isolate")
    origin = "--blackwell-isolate"
    if text is None:
        text = str(config.getini("blackwell_isolate") or "").strip() or None
        origin = "ini option blackwell_isolate"
    if text is None:
        return None
    if text == "all":
        return DEFAULT_VARIABLES
    names = []
    for part in text.split(","):
        try:
            name, values = parse_vary(part, origin=origin)
        except ValueError as exc:
            raise pytest.UsageError(
                f"{exc} (write --blackwell-isolate=WHAT when a path follows)"
            ) from None
        if values is not None:
            raise pytest.UsageError(
                f"{origin}: values go in the ini option blackwell_isolate_values or the "
                f"one_variable marker, not here; got {part!r}"
            )
        names.append(name)
    return tuple(dict.fromkeys(names))


def ini_values(config: pytest.Config) -> dict[str, list[Any]]:
    """Explicit values per variable from the ini option ``blackwell_isolate_values``."""
    found: dict[str, list[Any]] = {}
    for line in config.getini("blackwell_isolate_values"):
        try:
            name, values = parse_vary(str(line), origin="ini option blackwell_isolate_values")
        except ValueError as exc:
            raise pytest.UsageError(str(exc)) from None
        if values is None:
            raise pytest.UsageError(
                f"ini option blackwell_isolate_values: expected 'NAME: V1, V2'; got {line!r}"
            )
        found[name] = values
    return found


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
    from pytest_blackwell.engine_plugin import after_launch  # classify hook + result hook

    done = item.config.stash.setdefault(_DONE_KEY, {})
    key = json.dumps(
        [handle.config.key(), list(variables), dict(values)], sort_keys=True, default=str
    )
    if key in done:
        return done[key]
    gpus = [d for d in engine_devices(item.config) if d.is_gpu]  # where engines really run
    limit, origin = memory_limit(item.config)
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
        run = isolate.pool_runner(pool, lambda launched: after_launch(item.config, launched))
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
    defaults = ini_values(item.config)
    if mark is not None:
        try:
            names, values = _marker_request(mark, item.nodeid)
        except ValueError as exc:
            pytest.fail(str(exc), pytrace=False)
        return names, {**{n: v for n, v in defaults.items() if n in names}, **values}
    wanted = isolate_setting(item.config)
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
    facts = item.stash.get(TEST_FACTS_KEY, None)
    config_id = None if facts is None else facts.get("config")
    if facts is None or not config_id:
        return outcome  # the test used no engine
    handle = _handle(item, str(config_id))
    if handle is None:
        return outcome
    request = _request(item, handle.result.failure is not None)
    if request is not None and handle.alive and _same_request_next(item, nextitem):
        return outcome  # the next test uses this running engine: compare after the last one
    if request is not None:
        data = compare(item, handle, *request)
        facts["follows"] = data["follows"]
        facts["isolation"] = data["summary"]  # JUnit blackwell.isolation: the verdict line
    return outcome


def _collected(config: pytest.Config) -> list[dict[str, Any]]:
    own = list(config.stash.get(_DONE_KEY, {}).values())
    if own or config.pluginmanager.get_plugin("dsession") is None:
        return own
    # xdist controller: the workers compared; their verdicts are merged into results.json
    path = artifacts_dir(config) / "results.json"
    try:
        if path.stat().st_mtime < config.stash.get(_STARTED_KEY, 0.0):
            return []  # left from an earlier run
        configs = json.loads(path.read_text(encoding="utf-8")).get("configs") or []
    except (OSError, ValueError):
        return []
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
