"""`EngineResult`: how one engine launch went, as plain data."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pytest_blackwell.failures.model import Failure


@dataclass(frozen=True)
class EngineResult:
    """The outcome of one engine launch.

    ``ok`` is True when the engine reached ``ready`` and nothing failed since. ``timings`` maps a
    stage to the seconds spent in it (plus ``total`` to ready). ``exit_status`` is the probe
    process's return code once it is gone (negative: killed by that signal), ``None`` while alive.
    ``requested_backend`` is the attention backend the config asked for (``None``: default);
    ``actual_backend`` the one vLLM really used (several layers may differ: joined with ``+``).
    """

    config_id: str
    ok: bool
    failure: Failure | None = None
    timings: dict[str, float] = field(default_factory=dict)
    tokens_per_s: float | None = None
    log_path: str | None = None
    exit_status: int | None = None
    requested_backend: str | None = None
    actual_backend: str | None = None
    versions: dict[str, str] = field(default_factory=dict)

    @property
    def backend_mismatch(self) -> bool:
        """True when a backend was requested and vLLM ran another one."""
        return (
            self.requested_backend is not None
            and self.actual_backend is not None
            and self.actual_backend != self.requested_backend
        )

    @property
    def summary(self) -> str:
        """``ok`` (with a backend note when it differs) or the failure's one-line summary."""
        if self.failure is not None:
            return self.failure.summary
        if self.backend_mismatch:
            return (
                f"ok, but attention backend {self.requested_backend} was requested and "
                f"{self.actual_backend} ran"
            )
        return "ok"

    def to_dict(self) -> dict[str, Any]:
        return {
            "config_id": self.config_id,
            "ok": self.ok,
            "failure": None if self.failure is None else self.failure.to_dict(),
            "timings": dict(self.timings),
            "tokens_per_s": self.tokens_per_s,
            "log_path": self.log_path,
            "exit_status": self.exit_status,
            "requested_backend": self.requested_backend,
            "actual_backend": self.actual_backend,
            "versions": dict(self.versions),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EngineResult:
        failure = data.get("failure")
        tps = data.get("tokens_per_s")
        status = data.get("exit_status")
        return cls(
            config_id=str(data["config_id"]),
            ok=bool(data["ok"]),
            failure=None if failure is None else Failure.from_dict(failure),
            timings={str(k): float(v) for k, v in (data.get("timings") or {}).items()},
            tokens_per_s=None if tps is None else float(tps),
            log_path=data.get("log_path"),
            exit_status=None if status is None else int(status),
            requested_backend=data.get("requested_backend"),
            actual_backend=data.get("actual_backend"),
            versions={str(k): str(v) for k, v in (data.get("versions") or {}).items()},
        )
