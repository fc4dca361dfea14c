"""``requires_feature(*names)``: run only where the GPU has every named hardware feature."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pytest_blackwell.device import features as table
from pytest_blackwell.device.model import DeviceInfo
from pytest_blackwell.markers.base import MarkerError, OnFirstGpu, Requirement

HELP = {
    "requires_feature": "requires_feature(*names): run only where the GPU has every named "
    "hardware feature (" + ", ".join(table.FEATURES) + "); see "
    "`python -m pytest_blackwell profiles --features`.",
}


@dataclass(frozen=True)
class FeatureRequirement(OnFirstGpu):
    names: tuple[str, ...]

    def wanted(self) -> str:
        return " and ".join(self.names)

    def shortfall(self, device: DeviceInfo) -> str | None:
        lacking = table.missing(device, self.names)
        if not lacking:
            return None
        parts = []
        for name in lacking:
            feature = table.FEATURES.get(name)
            where = f" ({feature.requirement_text()})" if feature else ""
            parts.append(f"{name}{where}")
        verb = "has no" if len(parts) == 1 else "has none of"
        subject = f"{device.name} (compute capability {device.cc_string})"
        return f"{subject} {verb} {', '.join(parts)}"


def parse_feature(
    marker: str,
    args: tuple[Any, ...],
    kwargs: Mapping[str, Any],
    known: Iterable[str] = (),
) -> Requirement:
    """``known`` adds feature names declared by the session's devices to the table's."""
    if kwargs:
        raise MarkerError(
            f"@pytest.mark.{marker}: takes feature names as positional arguments, got "
            f"{', '.join(f'{k}=' for k in kwargs)}"
        )
    given = _given(args)
    for item in given:
        if not isinstance(item, str) or not item.strip():
            raise MarkerError(
                f"@pytest.mark.{marker}: expected feature names (strings), got {item!r}"
            )
    if not given:
        raise MarkerError(
            f"@pytest.mark.{marker}: expected at least one feature name; known: "
            f"{', '.join(table.FEATURES)}"
        )
    names = [table.canonical(item) for item in given]
    accepted = [*table.FEATURES, *known]
    for name, item in zip(names, given, strict=True):
        if name not in accepted:
            aliases = ", ".join(f"{a} (= {t})" for a, t in table.ALIASES.items())
            raise MarkerError(
                f"@pytest.mark.{marker}: unknown feature {item!r}; known features: "
                f"{', '.join(accepted)}; aliases: {aliases}"
            )
    return FeatureRequirement(tuple(dict.fromkeys(names)))


def _given(args: tuple[Any, ...]) -> list[Any]:
    """Positional arguments with lists and tuples spread out."""
    out: list[Any] = []
    for arg in args:
        out.extend(arg if isinstance(arg, (list, tuple)) else [arg])
    return out
