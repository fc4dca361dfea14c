"""pytest glue for performance: the ``perf_compare`` marker and the benchmark fixtures.

Measuring and statistics live in :mod:`pytest_blackwell.engine.perfcompare` and
:mod:`pytest_blackwell.engine.perfstats`; engines come from the session's pool
(:func:`pytest_blackwell.plugin.runtime.engine_pool`). This module maps markers, fixtures, the
call phase and report facts onto them.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from types import FunctionType
from typing import TYPE_CHECKING, Any

import pytest

from pytest_blackwell.markers import MarkInput
from pytest_blackwell.markers.config import ConfigMarkerError, Variant
from pytest_blackwell.markers.perf import PERF_MARKER, PerfSpec, parse_perf_compare
from pytest_blackwell.plugin.runtime import (
    COMPARISON_FIXTURE,
    RECORD_EXTRAS_KEY,
    adjusted,
    engine_devices,
    engine_pool,
    skip_unless_runnable,
)
from pytest_blackwell.plugin.settings import (
    facts_of,
    settings_of,
)

if TYPE_CHECKING:
    from pytest_blackwell.engine.config import EngineConfig
    from pytest_blackwell.engine.perfcompare import BenchmarkResult, PerfResult
    from pytest_blackwell.engine.pool import EngineHandle, EnginePool
    from pytest_blackwell.failures.model import Failure

PERF_MARK = "perf_compare"


class PerfNoiseWarning(UserWarning):
    """A comparison's interval is too wide to resolve its tolerance (``same`` means little)."""


_SPEC_KEY = pytest.StashKey[PerfSpec]()
_PERF_RESULT_KEY = pytest.StashKey["PerfResult"]()
#: Why a comparison could not be made (an engine failed): the test fails with this text.
_PERF_ERROR_KEY = pytest.StashKey[str]()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", PERF_MARKER)
    if not config.pluginmanager.has_plugin("blackwell-perf-terminal"):
        config.pluginmanager.register(PerfTerminal(), "blackwell-perf-terminal")


def spec_of(item: pytest.Item | pytest.Function) -> PerfSpec | None:
    """The test's parsed ``perf_compare`` marker (``None`` when it has none)."""
    mark = item.get_closest_marker(PERF_MARK)
    if mark is None:
        return None
    cached = item.stash.get(_SPEC_KEY, None)
    if cached is None:
        cached = item.stash[_SPEC_KEY] = parse_perf_compare(
            MarkInput(mark.name, tuple(mark.args), mark.kwargs)
        )
    return cached


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A bad ``perf_compare`` marker is a collection error naming the test."""
    definition = metafunc.definition
    if COMPARISON_FIXTURE not in metafunc.fixturenames:  # no perf_compare marker reaches it
        return
    mark = definition.get_closest_marker(PERF_MARK)
    if mark is None:
        return
    config = metafunc.config
    try:
        spec = parse_perf_compare(MarkInput(mark.name, tuple(mark.args), mark.kwargs))
        # Adjusted here, at collection, so the engines' ids are known before any launch.
        raw = spec.configs(settings_of(config).base_config)
        configs = (adjusted(config, raw[0]), adjusted(config, raw[1]))
        _check_against_vllm(configs)
    except ConfigMarkerError as exc:
        raise pytest.Collector.CollectError(f"{definition.nodeid}: {exc}") from None


def _check_against_vllm(configs: tuple[EngineConfig, EngineConfig]) -> None:
    if importlib.util.find_spec("vllm") is None:
        return
    if not any(c.engine_args or c.kv_cache_dtype or c.attention_backend for c in configs):
        return
    from pytest_blackwell.engine.capabilities import problems, vllm_capabilities

    try:
        caps = vllm_capabilities()
    except (RuntimeError, OSError):  # checked again, with the full log, when the engine starts
        return
    for config in configs:
        found = problems(config, caps)
        if found:
            raise ConfigMarkerError(f"@pytest.mark.perf_compare [{config.id}]: " + "; ".join(found))


# --- fixtures ---------------------------------------------------------------------------------


@pytest.fixture
def _blackwell_perf_compare(request: pytest.FixtureRequest, _blackwell_variant: Any) -> None:
    """A test marked ``perf_compare`` is the comparison: run it even if no fixture asks."""
    if request.node.get_closest_marker(PERF_MARK) is not None:
        request.getfixturevalue("vllm_perf_comparison")


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makeitem(
    collector: pytest.Module | pytest.Class, name: str, obj: object
) -> None:
    """A test function marked ``perf_compare`` (or in a marked class or module) uses
    ``_blackwell_perf_compare`` as if it carried ``@pytest.mark.usefixtures`` with it.

    Only marked tests pay for the fixture (an autouse fixture costs every test of a suite a
    fixture resolution at collection). Through it the test also uses ``_blackwell_variant``,
    which its configuration markers parametrize. Marked here, before pytest computes the
    function's fixtures; a mark that only reaches the item later is caught at setup.
    """
    function = getattr(obj, "__func__", obj)
    if not isinstance(function, FunctionType):
        return
    own = getattr(function, "pytestmark", [])
    own = own if isinstance(own, list) else [own]  # Marks (or MarkDecorators): both have names
    if not (
        PERF_MARK in collector.keywords and collector.get_closest_marker(PERF_MARK) is not None
    ) and not any(getattr(m, "name", None) == PERF_MARK for m in own):
        return
    if any(getattr(m, "name", None) == "usefixtures" and COMPARISON_FIXTURE in m.args for m in own):
        return  # already marked (a function collected twice)
    if collector.istestfunction(function, name):
        pytest.mark.usefixtures(COMPARISON_FIXTURE)(function)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """A ``perf_compare`` mark added after collection (``item.add_marker``, a
    ``pytest.param`` mark) still makes the test the comparison."""
    if (
        isinstance(item, pytest.Function)
        and PERF_MARK in item.keywords
        and COMPARISON_FIXTURE not in item.fixturenames
        and item.get_closest_marker(PERF_MARK) is not None
    ):
        item.fixturenames.append(COMPARISON_FIXTURE)


@pytest.fixture
def vllm_perf_comparison(
    request: pytest.FixtureRequest, _blackwell_variant: Variant | None
) -> PerfResult | None:
    """The finished ``perf_compare`` measurement of this test (``PerfResult``).

    ``None`` only when an engine could not start (the test then fails with that engine's
    first error). A slowdown beyond the marker's tolerance fails the test before its body runs.
    """
    item: pytest.Item = request.node
    try:
        spec = spec_of(item)
    except ConfigMarkerError as exc:
        pytest.fail(f"{item.nodeid}: {exc}", pytrace=False)
    if spec is None:
        pytest.fail(
            f"{item.nodeid}: the vllm_perf_comparison fixture needs @pytest.mark.perf_compare("
            "VARIABLE=[A, B], ...) on the test",
            pytrace=False,
        )
    if _PERF_RESULT_KEY in item.stash:
        return item.stash[_PERF_RESULT_KEY]
    if _PERF_ERROR_KEY in item.stash:
        return None
    skip_unless_runnable(item, what="engines")
    return _measure(request, spec, _blackwell_variant)


def _measure(
    request: pytest.FixtureRequest, spec: PerfSpec, variant: Variant | None
) -> PerfResult | None:
    from pytest_blackwell.engine.launcher import EngineError
    from pytest_blackwell.engine.perfcompare import can_coexist, run_comparison

    item = request.node
    # The comparison's two sides start from the test's configuration as the markers give it.
    shared = variant.config if variant is not None else settings_of(request.config).base_config
    try:
        raw_a, raw_b = spec.configs(shared)
    except ConfigMarkerError as exc:
        pytest.fail(f"{item.nodeid}: {exc}", pytrace=False)
    configs = {"a": adjusted(request.config, raw_a), "b": adjusted(request.config, raw_b)}
    pool = engine_pool(request.config)
    gpu = any(d.is_gpu for d in engine_devices(request.config))
    coexist = can_coexist(configs["a"], configs["b"], gpu=gpu, max_alive=pool.max_alive)
    measure = _measurer(request.config, pool, configs, item.nodeid, spec.workload.to_dict())
    saved = pool.max_alive
    if coexist:
        pool.max_alive = max(saved, 2)  # both engines stay up: rounds alternate, not launches
    try:
        result = run_comparison(
            measure,
            variable=spec.variable,
            values=spec.labels,
            config_ids=(configs["a"].id, configs["b"].id),
            workload=spec.workload,
            metric=spec.metric,
            max_slowdown=spec.max_slowdown,
            coexist=coexist,
        )
    except EngineError as exc:
        _record_engine_failure(item, configs, exc.failure)
        item.stash[_PERF_ERROR_KEY] = f"perf_compare could not measure: {exc}"
        return None
    finally:
        pool.max_alive = saved
    item.stash[_PERF_RESULT_KEY] = result
    _record(request.config, item, result)
    if not result.comparison.resolved:
        import warnings

        warnings.warn(
            PerfNoiseWarning(
                f"{item.nodeid}: too noisy to tell a {spec.max_slowdown:.0%} slowdown from none: "
                f"{result.message()}; raise rounds= or quieten the machine"
            ),
            stacklevel=1,
        )
    return result


def _measurer(
    config: pytest.Config,
    pool: EnginePool,
    configs: dict[str, EngineConfig],
    nodeid: str,
    workload: dict[str, Any],
) -> Callable[[str, int], dict[str, Any]]:
    from pytest_blackwell.engine.launcher import EngineError

    noted: set[str] = set()

    def measure(label: str, round_no: int) -> dict[str, Any]:
        engine_config = configs[label]
        handle: EngineHandle = pool.get(engine_config)
        if label not in noted:
            noted.add(label)
            pool.note_test(engine_config, nodeid)
        result = handle.result
        if not result.ok:
            raise EngineError(
                f"the engine with {label.upper()} ({engine_config.id}) failed: "
                f"{result.summary} (log: {handle.log_path})",
                result.failure,
            )
        return handle.benchmark_round(workload, round_no)

    return measure


def _record_engine_failure(
    item: pytest.Item, configs: dict[str, EngineConfig], failure: Failure | None
) -> None:
    facts = facts_of(item)
    facts.config = configs["b"].id
    facts.perf["verdict"] = "not_measured"
    if failure is not None:
        facts.category, facts.stage = failure.category, failure.stage
        facts.first_error = failure.first_error


def _record(config: pytest.Config, item: pytest.Item, result: PerfResult) -> None:
    """Report facts (JUnit, matrix) and the results.json entry of B's configuration."""
    comparison = result.comparison
    a, b = result.values
    facts = facts_of(item)
    facts.set_device(engine_devices(config))
    facts.config = result.config_ids[1]
    facts.perf.update(
        {
            "metric": comparison.metric,
            "ratio": round(comparison.ratio, 4),
            "ci_low": round(comparison.ci_low, 4),
            "confidence": round(comparison.confidence, 4),
            "ci_high": round(comparison.ci_high, 4),
            "verdict": comparison.verdict,
            "resolved": comparison.resolved,
            "max_slowdown": comparison.max_slowdown,
            "variable": result.variable,
            "a": a,
            "b": b,
            "a_rounds": ",".join(f"{v:.4g}" for v in comparison.a_values),
            "b_rounds": ",".join(f"{v:.4g}" for v in comparison.b_values),
        }
    )
    extras = config.stash.setdefault(RECORD_EXTRAS_KEY, {})
    entry = extras.setdefault(result.config_ids[1], {})
    entry.setdefault("perf", []).append({"test": item.nodeid, **result.to_dict()})


# --- the call phase ---------------------------------------------------------------------------


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> None:
    """The comparison is the test: a confident slowdown (or no measurement) fails it here."""
    error = item.stash.get(_PERF_ERROR_KEY, None)
    if error is not None:
        pytest.fail(error, pytrace=False)
    result = item.stash.get(_PERF_RESULT_KEY, None)
    if result is not None and result.comparison.failed:
        pytest.fail(f"performance regression: {result.message()}", pytrace=False)


# --- the terminal -----------------------------------------------------------------------------


class PerfTerminal:
    """Prints one line per measured test at the end (in the xdist controller: from the
    properties the workers' reports carry)."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "teardown":
            return
        from pytest_blackwell.report.xmltext import properties_to_facts

        facts = properties_to_facts((str(n), str(v)) for n, v in report.user_properties)
        if "perf.ratio" in facts or "perf.median" in facts:
            self.lines.append(perf_line(report.nodeid, facts))

    def pytest_terminal_summary(self, terminalreporter: Any, config: pytest.Config) -> None:
        if not self.lines or config.get_verbosity() < -1:
            return
        terminalreporter.write_sep("=", "blackwell performance")
        for line in self.lines:
            terminalreporter.write_line(line)


def perf_line(nodeid: str, facts: dict[str, str]) -> str:
    """One terminal line per measured test, from its report facts."""
    if "perf.ratio" in facts:
        from pytest_blackwell.engine.perfstats import CONFIDENCE, ci_label

        label = ci_label(float(facts.get("perf.confidence") or CONFIDENCE))
        return (
            f"{facts.get('perf.verdict', '?'):<7} {nodeid}: {facts.get('perf.metric')} "
            f"{facts.get('perf.variable')}={facts.get('perf.b')} vs {facts.get('perf.a')}: "
            f"ratio {facts['perf.ratio']} ({label} {facts.get('perf.ci_low')}-"
            f"{facts.get('perf.ci_high')})"
            + (
                " too noisy to resolve the tolerance"
                if facts.get("perf.resolved") == "false"
                else ""
            )
        )
    return (
        f"bench   {nodeid}: {facts.get('perf.metric')} median {facts['perf.median']} "
        f"(rounds {facts.get('perf.min')}-{facts.get('perf.max')})"
    )


# --- the vllm_benchmark fixture ---------------------------------------------------------------


@pytest.fixture
def vllm_benchmark(
    request: pytest.FixtureRequest, vllm_engine: EngineHandle
) -> Callable[..., BenchmarkResult]:
    """``vllm_benchmark(prompts=8, input_tokens=16, max_tokens=16, concurrency=None, rounds=6,
    warmup=1, seed=0)`` runs that workload against this test's engine and returns a
    ``BenchmarkResult`` (output tokens/s, requests/s, TTFT and TPOT p50/p90 per round, with
    medians and spreads). The last call's output tokens/s goes into the test's report facts."""
    from pytest_blackwell.engine.benchmark import Workload, WorkloadError
    from pytest_blackwell.engine.perfcompare import BenchmarkResult, benchmark_rounds

    def run(**settings: Any) -> BenchmarkResult:
        try:
            workload = Workload.from_dict(settings, source="vllm_benchmark()")
        except WorkloadError as exc:
            raise ValueError(f"{request.node.nodeid}: {exc}") from None
        payload = workload.to_dict()
        rounds = benchmark_rounds(lambda n: vllm_engine.benchmark_round(payload, n), workload)
        result = BenchmarkResult(vllm_engine.config.id, workload, rounds)
        summary = result.summary()["output_tokens_per_s"]
        facts_of(request.node).perf.update(
            {
                "metric": "output_tokens_per_s",
                "median": round(summary["median"], 4),
                "min": round(summary["min"], 4),
                "max": round(summary["max"], 4),
            }
        )
        return result

    return run
