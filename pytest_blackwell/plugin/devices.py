"""Devices: detection, its handoff to xdist workers, hardware-marker skips, the header line.

Parsing lives in :mod:`pytest_blackwell.markers`, detection in :mod:`pytest_blackwell.device`.
"""

from __future__ import annotations

import json
from collections.abc import Generator
from typing import Any

import pytest

from pytest_blackwell.device.features import known_names
from pytest_blackwell.device.model import DeviceInfo, describe_devices
from pytest_blackwell.markers import (
    HARDWARE_MARKERS,
    MARKER_HELP,
    MarkerError,
    MarkInput,
    Requirement,
    is_hardware_marker,
    parse_marker_definition,
    parse_requirements,
    unmet,
)
from pytest_blackwell.plugin.runtime import (
    DEVICES_KEY,
    HOST_DEVICES_KEY,
    REQUIREMENTS_KEY,
    devices_of,
    engine_devices,
    requirements_of,
)
from pytest_blackwell.plugin.settings import (
    facts_of,
    settings_of,
    worker_input,
)

WORKERINPUT_DEVICES = "blackwell_devices"
WORKERINPUT_HOST_DEVICES = "blackwell_host_devices"

_CUSTOM_MARKERS_KEY = pytest.StashKey[dict[str, list[Requirement]]]()
_SKIPPED_PROVIDERS_KEY = pytest.StashKey[list[tuple[str, str]]]()
_STATE_KEY = pytest.StashKey["_CollectState"]()
_CHAIN_MARKS_KEY = pytest.StashKey[list[pytest.Mark]]()


@pytest.hookimpl(trylast=True)
def pytest_blackwell_detect_devices(
    config: pytest.Config, request: str | None, origin: str
) -> list[DeviceInfo] | None:
    """Built-in detection: simulated profile, NVML, torch subprocess, architecture table."""
    from pytest_blackwell.device.detect import DeviceProfileError, detect_devices

    extra: dict[str, DeviceInfo] = {}
    for profiles in config.hook.pytest_blackwell_device_profiles(config=config):
        extra.update(profiles or {})
    try:
        report = detect_devices(request, origin=origin, extra_profiles=extra)
    except DeviceProfileError as exc:
        raise pytest.UsageError(str(exc)) from None
    config.stash[_SKIPPED_PROVIDERS_KEY] = list(report.skipped)
    devices: list[DeviceInfo] = list(report.devices)
    return devices


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    for line in MARKER_HELP.values():
        config.addinivalue_line("markers", line)

    workerinput = worker_input(config)
    if WORKERINPUT_DEVICES in workerinput:
        raw = json.loads(workerinput[WORKERINPUT_DEVICES])
        config.stash[DEVICES_KEY] = [DeviceInfo.from_dict(d) for d in raw]
        if WORKERINPUT_HOST_DEVICES in workerinput:
            raw = json.loads(workerinput[WORKERINPUT_HOST_DEVICES])
            config.stash[HOST_DEVICES_KEY] = [DeviceInfo.from_dict(d) for d in raw]
    else:
        settings = settings_of(config)
        devices = config.hook.pytest_blackwell_detect_devices(
            config=config, request=settings.device, origin=settings.origin("device")
        )
        config.stash[DEVICES_KEY] = list(devices or [])
    # After the devices: a device may declare features that custom markers then name.
    custom = _custom_markers(config)
    config.stash[_CUSTOM_MARKERS_KEY] = custom
    for name in custom:
        config.addinivalue_line("markers", f"{name}: hardware marker declared by this project")
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_XdistHandoff(config), "blackwell-xdist")


class _XdistHandoff:
    """Ships the controller's devices to every xdist worker instead of detecting again."""

    def __init__(self, config: pytest.Config) -> None:
        self._config = config

    def pytest_configure_node(self, node: Any) -> None:
        devices = devices_of(self._config)
        node.workerinput[WORKERINPUT_DEVICES] = json.dumps([d.to_dict() for d in devices])
        host = engine_devices(self._config)  # this host's, when the devices are simulated
        node.workerinput[WORKERINPUT_HOST_DEVICES] = json.dumps([d.to_dict() for d in host])


def _custom_markers(config: pytest.Config) -> dict[str, list[Requirement]]:
    custom: dict[str, list[Requirement]] = {}
    known = known_names(devices_of(config))
    try:
        for number, line in enumerate(settings_of(config).hardware_markers, 1):
            origin = f"ini option blackwell_hardware_markers, line {number}"
            name, sep, raw = str(line).partition(":")
            try:
                spec = json.loads(raw) if sep else None
            except json.JSONDecodeError as exc:
                raise MarkerError(f"{origin}: {raw.strip()!r} is not JSON ({exc.msg})") from None
            if not isinstance(spec, dict):
                raise MarkerError(f"{origin}: expected 'NAME: {{JSON object}}', got {line!r}")
            if name.strip() in HARDWARE_MARKERS:
                raise MarkerError(f"{origin}: {name.strip()!r} is a built-in marker")
            custom[name.strip()] = parse_marker_definition(
                name.strip(), spec, origin, known_features=known
            )
        for result in config.hook.pytest_blackwell_hardware_markers(config=config):
            for name, spec in (result or {}).items():
                origin = "hook pytest_blackwell_hardware_markers"
                if name in HARDWARE_MARKERS:
                    raise MarkerError(f"{origin}: {name!r} is a built-in marker")
                custom[name] = parse_marker_definition(name, spec, origin, known_features=known)
    except MarkerError as exc:
        raise pytest.UsageError(str(exc)) from None
    return custom


@pytest.hookimpl(wrapper=True)
def pytest_pycollect_makeitem(
    collector: pytest.Module | pytest.Class, name: str, obj: object
) -> Generator[None, Any, Any]:
    result = yield
    if not result:  # not a test: nothing was made
        return result
    items = result if isinstance(result, list) else [result]
    config = collector.config
    state = config.stash.get(_STATE_KEY, None)
    if state is None:
        state = config.stash[_STATE_KEY] = _CollectState(config.stash.get(_CUSTOM_MARKERS_KEY, {}))
    inherited = _chain_marks(collector, state)
    hardware = state.is_hardware
    for item in items:
        if not isinstance(item, pytest.Function):
            continue
        marks = [m for m in item.own_markers if hardware(m.name)]
        marks += inherited
        if not marks:
            continue
        try:
            requirements, skip = _evaluate(config, marks, state)
        except MarkerError as exc:
            raise collector.CollectError(f"{item.nodeid}: {exc}") from None
        item.stash[REQUIREMENTS_KEY] = requirements
        if skip is not None:
            # A skip mark (not a skip raised later) so the report points at the test itself,
            # and collection stays identical on every machine.
            item.add_marker(skip)
    return result


class _CollectState:
    """What collection asks once per marker name and per distinct set of marks."""

    def __init__(self, custom: dict[str, list[Requirement]]) -> None:
        self.custom = custom
        self.names: dict[str, bool] = {}
        self.verdicts: dict[Any, tuple[list[Requirement], pytest.MarkDecorator | None]] = {}

    def is_hardware(self, name: str) -> bool:
        found = self.names.get(name)
        if found is None:
            found = self.names[name] = is_hardware_marker(name, self.custom)
        return found


def _chain_marks(node: pytest.Collector, state: _CollectState) -> list[pytest.Mark]:
    """Hardware marks of a collector and its parents, computed once per collector."""
    cached = node.stash.get(_CHAIN_MARKS_KEY, None)
    if cached is None:
        parent = node.parent
        above = _chain_marks(parent, state) if isinstance(parent, pytest.Collector) else []
        cached = [m for m in node.own_markers if state.is_hardware(m.name)] + above
        node.stash[_CHAIN_MARKS_KEY] = cached
    return cached


def _mark_key(mark: pytest.Mark) -> Any:
    """A hashable key of a mark, typed: True == 1 and hash(True) == hash(1), but only one of
    them is valid. A mark without arguments is its name."""
    args, kwargs = mark.args, mark.kwargs
    if not kwargs:
        return (mark.name, args, *map(type, args)) if args else mark.name
    values = kwargs.values()
    return (mark.name, args, *map(type, args), tuple(kwargs), *values, *map(type, values))


def _evaluate(
    config: pytest.Config, marks: list[pytest.Mark], state: _CollectState
) -> tuple[list[Requirement], pytest.MarkDecorator | None]:
    """Requirements and skip mark of a set of marks. Suites repeat the same few sets, so each
    distinct set is parsed and checked against the devices once per session."""
    key: Any = tuple(map(_mark_key, marks))
    try:
        hash(key)
    except TypeError:  # unhashable marker arguments: no caching, same answer
        key = None
    cache = state.verdicts
    if key is not None:
        found = cache.get(key)
        if found is not None:
            return found
    devices = devices_of(config)
    requirements = parse_requirements(
        [MarkInput(m.name, tuple(m.args), m.kwargs) for m in marks],
        state.custom,
        known_features=known_names(devices),
    )
    reason = unmet(requirements, devices)
    verdict = (requirements, None if reason is None else pytest.mark.skip(reason=reason))
    if key is not None:
        cache[key] = verdict
    return verdict


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    devices = devices_of(item.config)
    if devices and requirements_of(item):
        facts_of(item).set_device(devices)


def pytest_report_header(config: pytest.Config) -> list[str]:
    lines = [f"blackwell: {describe_devices(devices_of(config))}"]
    if config.get_verbosity() > 0:
        for provider, reason in config.stash.get(_SKIPPED_PROVIDERS_KEY, []):
            lines.append(f"blackwell:   {provider} passed over: {reason}")
    return lines


@pytest.fixture(scope="session")
def blackwell_devices(pytestconfig: pytest.Config) -> list[DeviceInfo]:
    """The devices of this session (simulated, detected, or one CPU entry without a GPU)."""
    return list(devices_of(pytestconfig))


@pytest.fixture(scope="session")
def blackwell_device(blackwell_devices: list[DeviceInfo]) -> DeviceInfo:
    """The first device of this session: the one an engine uses by default."""
    if not blackwell_devices:
        pytest.fail(
            "blackwell_device: the session has no device at all (a pytest_blackwell_detect_devices"
            " hook returned an empty list; return None to fall through to built-in detection)",
            pytrace=False,
        )
    return blackwell_devices[0]
