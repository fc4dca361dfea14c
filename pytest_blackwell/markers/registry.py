"""Every marker this package knows: their help lines, parsers, and parsing a test's marks."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from pytest_blackwell.device.model import DeviceInfo
from pytest_blackwell.markers import features, hardware, software
from pytest_blackwell.markers.base import MarkerError, MarkInput, Requirement, show
from pytest_blackwell.markers.hardware import ARCH_LIKE, ARCH_MARKERS, FAMILY_MARKERS

Parser = Callable[[str, tuple[Any, ...], Mapping[str, Any]], Requirement]

#: Marker name -> the line ``pytest --markers`` shows.
MARKER_HELP: dict[str, str] = {**hardware.HELP, **features.HELP, **software.HELP}

HARDWARE_MARKERS = frozenset(MARKER_HELP)

#: Markers whose arguments are a list of names; declared as data, a JSON list spreads into them.
_VARIADIC = ("requires_feature", "requires_package")


def _parsers(known_features: Sequence[str]) -> dict[str, Parser]:
    return {
        **hardware.PARSERS,
        **software.PARSERS,
        "requires_feature": functools.partial(features.parse_feature, known=known_features),
    }


def parse_requirements(
    marks: Iterable[MarkInput],
    custom: Mapping[str, Sequence[Requirement]] | None = None,
    *,
    known_features: Sequence[str] = (),
) -> list[Requirement]:
    """Turn the hardware markers among ``marks`` into requirements.

    Architecture markers on one test combine into one "any of" requirement. ``custom`` maps
    downstream marker names to the requirements they stand for. ``known_features`` adds feature
    names that the session's devices declare to the built-in table's. Other marks are ignored.
    """
    parsers = _parsers(known_features)
    requirements: list[Requirement] = []
    archs: list[str] = []
    for mark in marks:
        name = mark.name
        if name in ARCH_MARKERS or name in FAMILY_MARKERS:
            if mark.args or mark.kwargs:
                raise MarkerError(f"@pytest.mark.{name} takes no arguments, got {show(mark)}")
            if name not in archs:
                archs.append(name)
        elif name in parsers:
            requirements.append(parsers[name](name, tuple(mark.args), mark.kwargs))
        elif custom and name in custom:
            requirements.extend(custom[name])
        elif ARCH_LIKE.match(name):
            known = ", ".join([*ARCH_MARKERS, *FAMILY_MARKERS])
            raise MarkerError(f"@pytest.mark.{name}: unknown architecture; expected one of {known}")
    if archs:
        requirements.insert(0, hardware.ArchRequirement(tuple(archs)))
    return requirements


def is_hardware_marker(name: str, custom: Mapping[str, object] | None = None) -> bool:
    """Whether a marker name is (or looks like, e.g. a misspelt ``sm_120``) a hardware marker."""
    return (
        name in HARDWARE_MARKERS or bool(custom and name in custom) or bool(ARCH_LIKE.match(name))
    )


def unmet(requirements: Iterable[Requirement], devices: Sequence[DeviceInfo]) -> str | None:
    """The reason of the first requirement the devices do not meet, or None."""
    for requirement in requirements:
        reason = requirement.unmet(devices)
        if reason is not None:
            return reason
    return None


def parse_marker_definition(
    name: str,
    spec: Mapping[str, Any],
    origin: str,
    *,
    known_features: Sequence[str] = (),
) -> list[Requirement]:
    """Requirements of a downstream hardware marker declared as data.

    ``spec`` maps built-in marker names to their arguments, e.g.
    ``{"compute_capability": ">=10.0,<11", "requires_smem": {"kb": 200},
    "requires_feature": ["fp8", "tma"]}``. Architecture markers take ``true``. ``origin`` says
    where the definition came from, for errors.
    """
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise MarkerError(f"{origin}: marker name {name!r} is not a valid identifier")
    marks: list[MarkInput] = []
    for key, value in spec.items():
        if key in ARCH_MARKERS or key in FAMILY_MARKERS:
            if value is not True:
                raise MarkerError(f"{origin}: marker {name!r}: {key} takes true, got {value!r}")
            marks.append(MarkInput(key, (), {}))
        elif key in MARKER_HELP:
            if isinstance(value, Mapping):
                marks.append(MarkInput(key, (), dict(value)))
            elif key in _VARIADIC and isinstance(value, list):
                marks.append(MarkInput(key, tuple(value), {}))
            else:
                marks.append(MarkInput(key, (value,), {}))
        else:
            known = ", ".join(sorted(HARDWARE_MARKERS))
            raise MarkerError(
                f"{origin}: marker {name!r}: unknown requirement {key!r}; expected one of {known}"
            )
    if not marks:
        raise MarkerError(f"{origin}: marker {name!r} declares no requirement")
    try:
        return parse_requirements(marks, known_features=known_features)
    except MarkerError as exc:
        raise MarkerError(f"{origin}: marker {name!r}: {exc}") from None
