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


def classify_mid_log(tmp_path: Path, line: str, category: str) -> Failure:
    """``line`` amid 3,000 lines of noise on each side, asserted to be read as ``category``.

    The fast scan reads closely only lines with an error word or a rule's keyword: a rule's line
    without an error word needs its keyword, or it is found only as a log's last line.
    """
    noise = [f"[info] step {i} done" for i in range(3000)]
    log = tmp_path / "long.log"
    log.write_text("\n".join([*noise, line, *noise]) + "\n")
    failure = classify_log(log)
    assert failure is not None, f"{line!r} not found mid-log"
    assert failure.category == category, failure
    return failure
