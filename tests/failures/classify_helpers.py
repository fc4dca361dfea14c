"""Shared by the mechanism tests: classify lines both as a file and as lines, which must agree."""

from __future__ import annotations

from pathlib import Path

from pytest_blackwell.failures import Failure, classify_log


def classify_both(tmp_path: Path, lines: list[str]) -> Failure | None:
    """The failure of ``lines`` written to a file (the quick scan first) and read line by line
    (the thorough pass), asserted to be the same."""
    log = tmp_path / "x.log"
    log.write_text("\n".join(lines) + "\n")
    failure = classify_log(log)
    assert failure == classify_log(lines)
    return failure


def classify_as(tmp_path: Path, lines: list[str], category: str, stage: str) -> Failure:
    """The failure of ``lines`` (read both ways), asserted to be ``category`` at ``stage``."""
    failure = classify_both(tmp_path, lines)
    assert failure is not None, f"no failure found in {lines!r}"
    assert (failure.category, failure.stage) == (category, stage), failure
    return failure
