"""Live engine progress on the terminal: which configuration is at which stage, for how long.

On a terminal this is one line rewritten in place; otherwise (CI logs) one plain line per stage
change; nothing under ``-q`` or in xdist workers (they have no terminal of their own).
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest


class Progress:
    """Callback ``(config_id, stage, elapsed_s)`` the engine pool calls while an engine starts."""

    def __init__(self, reporter: Any, in_place: bool, capture: Any = None) -> None:
        self._reporter = reporter
        self._capture = capture
        self._in_place = in_place
        self._last: tuple[str, str] | None = None
        self._last_draw = 0.0
        self._lock = threading.Lock()

    @classmethod
    def for_config(cls, config: pytest.Config) -> Progress | None:
        """The progress line of a session with a terminal (``None`` under ``-q``; the caller
        passes none in xdist workers, which have no terminal of their own)."""
        if config.get_verbosity() < 0:
            return None
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        if reporter is None:
            return None
        capture = config.pluginmanager.get_plugin("capturemanager")
        return cls(reporter, in_place=bool(reporter.isatty), capture=capture)

    def __call__(self, config_id: str, stage: str, elapsed_s: float) -> None:
        # Engines start inside fixtures, while pytest captures output: step out of it, or the
        # progress would land in the test's captured stdout instead of on the terminal.
        if self._capture is not None:
            with self._capture.global_and_fixture_disabled():
                self._draw(config_id, stage, elapsed_s)
        else:
            self._draw(config_id, stage, elapsed_s)

    def _draw(self, config_id: str, stage: str, elapsed_s: float) -> None:
        with self._lock:
            text = f"[blackwell] {config_id}: {stage} ({elapsed_s:.1f}s)"
            if self._in_place:
                now = time.monotonic()
                if (config_id, stage) == self._last and now - self._last_draw < 0.5:
                    return
                self._last_draw = now
                self._reporter.rewrite(text, erase=True)
                if stage == "ready" or stage.startswith("failed"):
                    self._reporter.write_line("")
            elif (config_id, stage) != self._last:
                self._reporter.write_line(text)
            self._last = (config_id, stage)
