"""The results matrix: one row per test configuration, one column per device.

Input is JUnit XML written by pytest with this plugin's ``blackwell.*`` properties (one shard per
CI job), read with junitparser; output is a :class:`Matrix` of plain data that the renderers in
:mod:`pytest_blackwell.report.render` turn into markdown, HTML or JSON. A JSON matrix from an
earlier run serves as ``--baseline`` for :func:`apply_baseline`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pytest_blackwell.report.xmltext import properties_to_facts

#: ``kind`` of the JSON matrix document (also what a baseline must be).
MATRIX_KIND = "pytest-blackwell-matrix"
SCHEMA = 1

#: Cell statuses; a duplicate observation keeps the one earliest in this tuple.
STATUSES = ("fail", "expected", "pass", "skip")
PASSING = ("pass", "expected")

#: A test's ``blackwell.outcome`` -> its cell status: the one translation of outcome words.
OUTCOME_STATUS = {
    "passed": "pass",
    "failed": "fail",
    "expected_failure": "expected",
    "skipped": "skip",
}
_DESCRIBED_RE = re.compile(r"\((?:sm_\d+|no GPU)\)\s*$")


class MatrixError(Exception):
    """A shard or baseline cannot be used; the message names the file and what was expected."""


@dataclass
class Cell:
    status: str
    category: str | None = None
    stage: str | None = None
    first_error: str | None = None
    change: str | None = None  # "regression" | "fix" | "new" after apply_baseline
    before: str | None = None  # the baseline's cell text when it differs
    #: A performance measurement: see :mod:`pytest_blackwell.report.perfcell`.
    perf: dict[str, Any] | None = None

    @property
    def text(self) -> str:
        """``pass`` | ``skip`` | ``<category>@<stage>`` | ``fail`` (+ `` (expected)``); a
        performance comparison adds its ratio (``pass 0.98x``, ``slower 0.31x``)."""
        if self.perf is not None and self.status != "skip" and not self.category:
            from pytest_blackwell.report.perfcell import perf_text

            return perf_text(self.status, self.perf)
        if self.status in ("pass", "skip"):
            return self.status
        if self.category:
            label = f"{self.category}@{self.stage or '?'}"
        else:
            label = "fail" if self.status == "fail" else "expected"
        return f"{label} (expected)" if self.status == "expected" and self.category else label

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "text": self.text}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Cell:
        status = str(data.get("status", ""))
        if status not in STATUSES:
            raise ValueError(f"cell status must be one of {STATUSES}, got {status!r}")
        return cls(
            status=status,
            category=data.get("category"),
            stage=data.get("stage"),
            first_error=data.get("first_error"),
            perf=dict(data["perf"]) if isinstance(data.get("perf"), Mapping) else None,
        )


@dataclass
class Observation:
    """One test configuration seen on one device (one testcase of one shard)."""

    test: str
    config: str
    column: str
    cell: Cell
    device: str = ""
    compute_capability: str | None = None


@dataclass
class Column:
    label: str
    name: str
    compute_capability: str | None = None


@dataclass
class Row:
    test: str
    config: str
    cells: dict[str, Cell] = field(default_factory=dict)


@dataclass
class Change:
    test: str
    config: str
    column: str
    before: str
    after: str

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


@dataclass
class Matrix:
    columns: list[Column] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    regressions: list[Change] = field(default_factory=list)
    fixes: list[Change] = field(default_factory=list)
    baseline: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "kind": MATRIX_KIND,
            "sources": list(self.sources),
            "baseline": self.baseline,
            "columns": [
                {"label": c.label, "name": c.name, "compute_capability": c.compute_capability}
                for c in self.columns
            ],
            "rows": [
                {
                    "test": r.test,
                    "config": r.config,
                    "cells": {label: cell.to_dict() for label, cell in r.cells.items()},
                }
                for r in self.rows
            ],
            "regressions": [c.to_dict() for c in self.regressions],
            "fixes": [c.to_dict() for c in self.fixes],
        }


def column_label(device: str, compute_capability: str | None) -> str:
    """``NVIDIA H200`` + ``9.0`` -> ``NVIDIA H200 (sm_90)``; already described names stay."""
    device = device.strip() or "unknown device"
    if _DESCRIBED_RE.search(device):
        return device
    digits = "".join(ch for ch in (compute_capability or "") if ch.isdigit())
    if not digits:  # "none": a host without a GPU; None: not recorded
        return f"{device} (no GPU)" if compute_capability == "none" else device
    return f"{device} (sm_{digits})"


def row_test_name(classname: str, name: str, config: str, device_words: Sequence[str]) -> str:
    """Test name without the configuration id or device in its parameter brackets.

    The ``@<group>`` suffix pytest-xdist's ``loadgroup`` adds to test names is dropped, so
    shards run with and without xdist line up.
    """
    head, at, group = name.rpartition("@")
    if at and head and not any(ch in group for ch in "[]/"):
        name = head
    base, bracket, params = name.partition("[")
    if bracket:
        params = params[:-1] if params.endswith("]") else params
        for word in (config, *device_words):
            if word:
                params = params.replace(word, "")
        params = re.sub(r"-{2,}", "-", params).strip("-")
        base = f"{base}[{params}]" if params else base
    return f"{classname}::{base}" if classname else base


def cell_from_facts(facts: Mapping[str, str], junit_status: str, message: str | None) -> Cell:
    """A cell from ``blackwell.*`` facts; the JUnit result decides when no outcome was recorded."""
    from pytest_blackwell.report.perfcell import perf_from_facts

    status = OUTCOME_STATUS.get(facts.get("outcome", ""), junit_status)
    first_error = facts.get("first_error") or (message.splitlines()[0] if message else None)
    perf = perf_from_facts(facts)
    if status in PASSING and status != "expected":
        return Cell(status, perf=perf)
    if status == "skip":
        return Cell(status, first_error=first_error)
    return Cell(status, facts.get("category"), facts.get("stage"), first_error, perf=perf)


def read_shard(path: Path) -> list[Observation]:
    """Observations from one JUnit file (testcases carrying ``blackwell.*`` properties)."""
    from junitparser import JUnitXmlError
    from junitparser.xunit2 import JUnitXml

    try:
        xml: Any = JUnitXml.fromfile(str(path))
    except OSError as exc:
        raise MatrixError(f"cannot read JUnit shard {path}: {exc.strerror or exc}") from exc
    except JUnitXmlError as exc:
        raise MatrixError(
            f"{path} is not JUnit XML: expected a <testsuites> or <testsuite> root element"
        ) from exc
    except Exception as exc:  # xml.etree / lxml parse errors have no common public base
        raise MatrixError(f"{path} is not well-formed XML (expected JUnit XML): {exc}") from exc

    observations: list[Observation] = []
    for suite in xml:
        suite_facts = properties_to_facts((p.name, p.value) for p in suite.properties())
        suite_device = suite_facts.get("device.0.name", "")
        suite_cc = suite_facts.get("device.0.compute_capability")
        for case in suite:
            facts = properties_to_facts((p.name, p.value) for p in case.properties())
            if not facts:
                continue
            device = facts.get("device") or suite_device or f"unknown device ({path.stem})"
            cc = facts.get("compute_capability") or suite_cc
            junit_status, message = _junit_status(case)
            config = facts.get("config", "")
            test = row_test_name(case.classname or "", case.name or "", config, [device])
            observations.append(
                Observation(
                    test=test,
                    config=config,
                    column=column_label(device, cc),
                    cell=cell_from_facts(facts, junit_status, message),
                    device=device,
                    compute_capability=cc,
                )
            )
    return observations


def _junit_status(case: Any) -> tuple[str, str | None]:
    from junitparser import Error, Failure, Skipped

    for result in case.result:
        if isinstance(result, (Failure, Error)):
            return "fail", result.message or result.text
        if isinstance(result, Skipped):
            return "skip", result.message
    return "pass", None


def build_matrix(observations: Iterable[Observation], sources: Sequence[str] = ()) -> Matrix:
    """Merge observations: rows in first-seen order, columns sorted by label."""
    rows: dict[tuple[str, str], Row] = {}
    columns: dict[str, Column] = {}
    for obs in observations:
        columns.setdefault(
            obs.column, Column(obs.column, obs.device or obs.column, obs.compute_capability)
        )
        row = rows.setdefault((obs.test, obs.config), Row(obs.test, obs.config))
        previous = row.cells.get(obs.column)
        if previous is None or STATUSES.index(obs.cell.status) < STATUSES.index(previous.status):
            row.cells[obs.column] = obs.cell
    return Matrix(
        columns=sorted(columns.values(), key=lambda c: c.label),
        rows=list(rows.values()),
        sources=list(sources),
    )


def read_shards(paths: Sequence[Path]) -> Matrix:
    """Read every shard and merge them into one matrix."""
    observations: list[Observation] = []
    for path in paths:
        observations.extend(read_shard(path))
    return build_matrix(observations, [str(p) for p in paths])


def load_baseline(path: Path) -> dict[tuple[str, str, str], Cell]:
    """Cells of a JSON matrix written earlier by ``matrix --format json``."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise MatrixError(f"cannot read baseline {path}: {exc.strerror or exc}") from exc
    except ValueError as exc:
        raise MatrixError(
            f"baseline {path} is not JSON (expected `matrix --format json` output): {exc}"
        ) from None
    if not isinstance(data, dict) or data.get("kind") != MATRIX_KIND:
        raise MatrixError(
            f"baseline {path} is not a pytest-blackwell matrix: expected a JSON object with "
            f'"kind": "{MATRIX_KIND}" as written by `matrix --format json`'
        )
    cells: dict[tuple[str, str, str], Cell] = {}
    try:
        for row in data["rows"]:
            for label, cell in row["cells"].items():
                cells[(row["test"], row["config"], label)] = Cell.from_dict(cell)
    except (KeyError, TypeError, ValueError) as exc:
        raise MatrixError(f"baseline {path} has a malformed row or cell: {exc!r}") from exc
    return cells


def apply_baseline(
    matrix: Matrix, baseline: Mapping[tuple[str, str, str], Cell], name: str = ""
) -> None:
    """Mark cells as regressions, fixes or new, and fill ``matrix.regressions`` / ``.fixes``.

    A regression: passed before and fails now, failed before with another category or stage,
    or a performance metric that fell beyond the noise recorded in both runs. A fix: failed
    before, passes now. Skips are neither.
    """
    matrix.baseline = name or None
    matrix.regressions.clear()
    matrix.fixes.clear()
    for row in matrix.rows:
        for label, cell in row.cells.items():
            old = baseline.get((row.test, row.config, label))
            if old is None:
                cell.change = "new"
                continue
            change = _compare(old, cell) or _compare_perf(old, cell)
            if change is None:
                continue
            cell.change, cell.before = change, old.text
            record = Change(row.test, row.config, label, old.text, cell.text)
            (matrix.regressions if change == "regression" else matrix.fixes).append(record)


def _compare_perf(old: Cell, new: Cell) -> str | None:
    """A measured metric that fell beyond the noise recorded in both runs is a regression."""
    from pytest_blackwell.report.perfcell import perf_regressed

    if old.perf is None or new.perf is None or new.status == "skip":
        return None
    return "regression" if perf_regressed(old.perf, new.perf) else None


def _compare(old: Cell, new: Cell) -> str | None:
    if new.status == "fail":
        if old.status in PASSING:
            return "regression"
        if old.status == "fail" and (old.category, old.stage) != (new.category, new.stage):
            return "regression"
    elif new.status in PASSING and old.status == "fail":
        return "fix"
    return None
