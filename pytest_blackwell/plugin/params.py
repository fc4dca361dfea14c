"""Collection of engine tests: configuration markers -> parametrized instances.

Expands ``kv_dtype`` / ``attention_backend`` / ``memory_budget`` / ``vllm_config`` into one test
instance per configuration (with keyword marks for ``-m`` selection), each adjusted once by
``pytest_blackwell_adjust_engine_config`` (so ids, groups, logs and results name the adjusted
configuration), checks them against the installed vLLM, validates ``expect_failure``, and orders
engine tests by configuration so each engine starts once.
"""

from __future__ import annotations

import pytest

from pytest_blackwell.engine.config import EngineConfig
from pytest_blackwell.markers import MarkInput
from pytest_blackwell.markers.config import (
    ConfigMarkerError,
    Expectation,
    Variant,
    expand,
    has_config_marks,
    parse_expect_failure,
    variant_id,
)
from pytest_blackwell.plugin.runtime import (
    COMPARISON_FIXTURE,
    ENGINE_FIXTURES,
    VARIANT_FIXTURE,
    adjusted,
    engine_group,
    uses_engine,
)
from pytest_blackwell.plugin.settings import (
    settings_of,
)


@pytest.hookimpl(trylast=True)
def pytest_blackwell_adjust_engine_config(
    config: pytest.Config, engine_config: EngineConfig
) -> EngineConfig:
    """Built-in behaviour: the configuration as the markers and the ini give it."""
    return engine_config


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    definition = metafunc.definition
    # A perf_compare test is an engine test without asking for a fixture (it runs two).
    perf = (
        COMPARISON_FIXTURE in metafunc.fixturenames  # every perf_compare test uses it
        and definition.get_closest_marker("perf_compare") is not None
    )
    if not perf and ENGINE_FIXTURES.isdisjoint(metafunc.fixturenames):
        own = [m.name for m in definition.own_markers]
        if has_config_marks(own) or "expect_failure" in own:
            raise pytest.Collector.CollectError(
                f"{definition.nodeid}: configuration markers need the vllm_engine or "
                "vllm_engine_result fixture (or a perf_compare marker); this test has neither"
            )
        return
    marks = [MarkInput(m.name, tuple(m.args), m.kwargs) for m in definition.iter_markers()]
    try:
        for mark in marks:
            if mark.name == "expect_failure":
                _validate_expectation(metafunc.config, parse_expect_failure(mark))
                break
        if not has_config_marks(m.name for m in marks):
            return
        variants = _adjusted(
            metafunc.config, expand(settings_of(metafunc.config).base_config, marks)
        )
        _check_against_vllm(variants)
    except ConfigMarkerError as exc:
        raise pytest.Collector.CollectError(f"{definition.nodeid}: {exc}") from None
    metafunc.parametrize(
        VARIANT_FIXTURE,
        [
            pytest.param(v, id=v.id, marks=[getattr(pytest.mark, n)(**kw) for n, kw in v.marks])
            for v in variants
        ],
        indirect=True,
    )


def _adjusted(config: pytest.Config, variants: list[Variant]) -> list[Variant]:
    """The variants after ``pytest_blackwell_adjust_engine_config``; an id says what the
    adjusted configuration changes relative to the adjusted base configuration."""
    base = adjusted(config, settings_of(config).base_config)
    out = []
    for variant in variants:
        engine_config = adjusted(config, variant.config)
        out.append(Variant(engine_config, variant_id(base, engine_config), variant.marks))
    return out


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Run the tests of one configuration together, so each engine starts once.

    Each group takes the place of its first test; other tests keep their order. Under xdist
    a configuration also stays on one worker (:mod:`pytest_blackwell.plugin.xdist`).
    """
    keys: dict[int, str] = {}
    groups: dict[str, list[pytest.Item]] = {}
    for item in items:
        group = engine_group(item) if uses_engine(item) else None
        if group is not None:
            keys[id(item)] = group
            groups.setdefault(group, []).append(item)
    if len(groups) < 2:
        return
    ordered: list[pytest.Item] = []
    for item in items:
        group = keys.get(id(item))
        if group is None:
            ordered.append(item)
        elif group in groups:
            ordered.extend(groups.pop(group))
    items[:] = ordered


def _validate_expectation(config: pytest.Config, expectation: Expectation) -> None:
    from pytest_blackwell.failures.vocabulary import CATEGORIES, STAGES

    categories = set(CATEGORIES)
    for rules in config.hook.pytest_blackwell_failure_rules(config=config):
        categories.update(rule.category for rule in rules or [])
    if expectation.category not in categories:
        raise ConfigMarkerError(
            f"@pytest.mark.expect_failure: unknown category {expectation.category!r}; "
            f"expected one of {', '.join(sorted(categories))}"
        )
    if expectation.stage is not None and expectation.stage not in STAGES:
        raise ConfigMarkerError(
            f"@pytest.mark.expect_failure: unknown stage {expectation.stage!r}; "
            f"expected one of {', '.join(STAGES)}"
        )


def _check_against_vllm(variants: list[Variant]) -> None:
    """Unknown engine arguments, kv dtypes and backends are collection errors (when vLLM is
    installed; the installed vLLM is asked once, in a subprocess, and the answer cached)."""
    import importlib.util

    if (
        not any(
            v.config.engine_args or v.config.kv_cache_dtype or v.config.attention_backend
            for v in variants
        )
        or importlib.util.find_spec("vllm") is None
    ):
        return
    from pytest_blackwell.engine.capabilities import problems, vllm_capabilities

    try:
        caps = vllm_capabilities()
    except (RuntimeError, OSError) as exc:  # checked again, with the full log, at launch
        import warnings

        warnings.warn(f"pytest-blackwell: cannot check engine arguments: {exc}", stacklevel=1)
        return
    for variant in variants:
        found = problems(variant.config, caps)
        if found:
            raise ConfigMarkerError(f"[{variant.id}]: " + "; ".join(found))
