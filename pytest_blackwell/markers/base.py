"""What every marker parser shares: the error type, the mark input, requirement shapes.

This package never looks at the device by itself: a requirement's ``unmet`` is given the
device list. Every parse error is a :class:`MarkerError` whose message names the marker and
says what was expected; the plugin adds the test's node id and makes it a collection error.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from pytest_blackwell.device.model import DeviceInfo

if TYPE_CHECKING:
    from packaging.specifiers import SpecifierSet


class MarkerError(ValueError):
    """A marker with bad arguments."""


class Requirement(Protocol):
    """Something a device list either satisfies or not."""

    def unmet(self, devices: Sequence[DeviceInfo]) -> str | None:
        """A precise reason when the devices do not satisfy the requirement, else None."""


@dataclass(frozen=True)
class MarkInput:
    """The parts of a ``pytest.Mark`` this package reads (so it stays independent of pytest)."""

    name: str
    args: tuple[Any, ...]
    kwargs: Mapping[str, Any]


def no_gpu(wanted: str, devices: Sequence[DeviceInfo]) -> str:
    found = devices[0].name if devices else "nothing"
    return f"requires {wanted}; no GPU detected ({found})"


def gpus(devices: Sequence[DeviceInfo]) -> list[DeviceInfo]:
    return [d for d in devices if d.is_gpu]


class OnFirstGpu(ABC):
    """A requirement checked against the first GPU (the one an engine uses by default)."""

    @abstractmethod
    def wanted(self) -> str:
        """What is required, as the skip reason says it."""

    @abstractmethod
    def shortfall(self, device: DeviceInfo) -> str | None:
        """What ``device`` has instead, when it falls short; ``None`` when it is enough."""

    def unmet(self, devices: Sequence[DeviceInfo]) -> str | None:
        found = gpus(devices)
        if not found:
            return no_gpu(self.wanted(), devices)
        short = self.shortfall(found[0])
        return None if short is None else f"requires {self.wanted()}; {short}"


def num(value: float) -> str:
    return f"{value:g}"


def show(mark: MarkInput) -> str:
    parts = [repr(a) for a in mark.args] + [f"{k}={v!r}" for k, v in mark.kwargs.items()]
    return f"({', '.join(parts)})"


def check_kwargs(
    marker: str,
    kwargs: Mapping[str, Any],
    allowed: Sequence[str],
    args: tuple[Any, ...] = (),
) -> None:
    """Reject extra positional arguments, names given twice and unknown keyword arguments."""
    if len(args) > len(allowed):
        raise MarkerError(
            f"@pytest.mark.{marker}: takes at most {len(allowed)} argument(s) "
            f"({', '.join(allowed)}), got {len(args)}: {args!r}"
        )
    twice = sorted(set(allowed[: len(args)]) & set(kwargs))
    if twice:
        raise MarkerError(
            f"@pytest.mark.{marker}: {', '.join(twice)} given twice (positionally and by name)"
        )
    unknown = sorted(set(kwargs) - set(allowed))
    if unknown:
        raise MarkerError(
            f"@pytest.mark.{marker}: unknown argument(s) {', '.join(unknown)}; "
            f"expected {', '.join(allowed)}"
        )


def version_spec(marker: str, text: Any, example: str) -> SpecifierSet:
    """A PEP 440 specifier set such as ``'>=12.8'``; a bare version means ``==``."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    if not isinstance(text, str) or not text.strip():
        raise MarkerError(
            f"@pytest.mark.{marker}: expected a version specifier such as {example!r}, got {text!r}"
        )
    cleaned = text.replace(" ", "")
    if cleaned[:1].isdigit():
        cleaned = f"=={cleaned}"
    try:
        return SpecifierSet(cleaned)
    except InvalidSpecifier:
        raise MarkerError(
            f"@pytest.mark.{marker}: cannot parse {text!r}; expected a version specifier "
            f"such as {example!r} (comparisons joined by commas: '>=12.8,<13')"
        ) from None
