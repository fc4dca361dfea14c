"""The `Failure` record: the first error of a run, its category and stage."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Failure:
    """The first error of a run.

    ``evidence`` says what decided them: ``{"category": "rule triton_smem", "stage": "frame
    capture_model"}`` (a rule, a frame, the general words of the error itself (``cue``), a
    stage marker, a stage event, activity before the error, or ``none``; docs/failures.md lists
    them all).
    ``category`` and ``stage`` are names from :mod:`pytest_blackwell.failures.vocabulary`
    (downstream rules may add categories). ``line`` is 1-based in the log it came from.
    Everything is plain data so it crosses process boundaries and lands in reports as is.
    """

    category: str
    stage: str
    first_error: str
    line: int = 0
    detail: dict[str, Any] = field(default_factory=dict)
    traceback: tuple[str, ...] = ()
    evidence: dict[str, str] = field(default_factory=dict)

    @property
    def summary(self) -> str:
        """One line: ``<category> at <stage>: <first error line>``."""
        return f"{self.category} at {self.stage}: {self.first_error}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "category": self.category,
            "stage": self.stage,
            "first_error": self.first_error,
            "line": self.line,
            "detail": dict(self.detail),
            "traceback": list(self.traceback),
            "evidence": dict(self.evidence),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Failure:
        return cls(
            category=str(data["category"]),
            stage=str(data["stage"]),
            first_error=str(data["first_error"]),
            line=int(data.get("line", 0)),
            detail=dict(data.get("detail") or {}),
            traceback=tuple(str(x) for x in data.get("traceback") or ()),
            evidence={str(k): str(v) for k, v in (data.get("evidence") or {}).items()},
        )
