"""Labelled log corpora: load them and score the classifier on them.

A corpus is a directory tree of shards. Each shard directory holds ``manifest.json``, a JSON list
of entries ``{"file", "source", "engine", "gpu", "category", "stage", "reason", "split"}``, and
the log files beside it. ``category``/``stage`` are ``null`` for a healthy log; ``split`` is
``dev`` (rules may be tuned on it) or ``holdout`` (kept aside, only measured).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_blackwell.failures.model import Failure
from pytest_blackwell.failures.scan import classify_log
from pytest_blackwell.failures.vocabulary import CATEGORIES, STAGES

SPLITS = ("dev", "holdout")
_REQUIRED = ("file", "source", "engine", "category", "stage", "split")


class CorpusError(ValueError):
    """A manifest that does not follow the corpus format."""


@dataclass(frozen=True)
class Entry:
    """One labelled log."""

    path: Path
    source: str
    engine: str
    gpu: str | None
    category: str | None
    stage: str | None
    reason: str
    split: str

    @property
    def name(self) -> str:
        return f"{self.path.parent.name}/{self.path.name}"


def _entry(manifest: Path, index: int, raw: Any) -> Entry:
    where = f"{manifest}: entry {index}"
    if not isinstance(raw, dict):
        raise CorpusError(f"{where}: expected a JSON object, got {type(raw).__name__}")
    missing = [key for key in _REQUIRED if key not in raw]
    if missing:
        raise CorpusError(f"{where}: missing {', '.join(missing)} (expected keys {_REQUIRED})")
    category, stage, split = raw["category"], raw["stage"], raw["split"]
    if category is not None and category not in CATEGORIES:
        raise CorpusError(f"{where}: category {category!r} is not one of {', '.join(CATEGORIES)}")
    if stage is not None and stage not in STAGES:
        raise CorpusError(f"{where}: stage {stage!r} is not one of {', '.join(STAGES)}")
    if (category is None) != (stage is None):
        raise CorpusError(f"{where}: category and stage must both be null (healthy) or both set")
    if split not in SPLITS:
        raise CorpusError(f"{where}: split {split!r} is not one of {', '.join(SPLITS)}")
    path = manifest.parent / str(raw["file"])
    if not path.is_file():
        raise CorpusError(f"{where}: log file {path.name!r} does not exist beside the manifest")
    return Entry(
        path=path,
        source=str(raw["source"]),
        engine=str(raw["engine"]),
        gpu=None if raw.get("gpu") is None else str(raw["gpu"]),
        category=category,
        stage=stage,
        reason=str(raw.get("reason", "")),
        split=split,
    )


def load_corpus(root: Path) -> list[Entry]:
    """Every entry of every ``manifest.json`` under ``root``, in path order."""
    entries: list[Entry] = []
    for manifest in sorted(Path(root).rglob("manifest.json")):
        try:
            data = json.loads(manifest.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise CorpusError(f"{manifest}: not valid JSON: {exc}") from None
        if not isinstance(data, list):
            raise CorpusError(f"{manifest}: expected a JSON list of entries")
        entries.extend(_entry(manifest, i, raw) for i, raw in enumerate(data))
    return entries


@dataclass
class Score:
    """How the classifier did on a set of entries."""

    total: int = 0
    failures: int = 0  # entries labelled with a failure
    category_right: int = 0
    stage_right: int = 0
    missed: list[str] = field(default_factory=list)  # failures reported as none
    false_alarms: list[str] = field(default_factory=list)  # healthy logs reported as failed
    wrong: list[str] = field(default_factory=list)  # "name: expected -> got"
    by_category: Counter[str] = field(default_factory=Counter)  # right, per expected category
    category_totals: Counter[str] = field(default_factory=Counter)
    by_stage: Counter[str] = field(default_factory=Counter)
    stage_totals: Counter[str] = field(default_factory=Counter)
    confusion: Counter[tuple[str, str]] = field(default_factory=Counter)  # (expected, got)

    def add(self, entry: Entry, failure: Failure | None) -> None:
        self.total += 1
        got_category = "none" if failure is None else failure.category
        got_stage = "none" if failure is None else failure.stage
        if entry.category is None:
            if failure is not None:
                self.false_alarms.append(f"{entry.name}: {failure.summary}")
            return
        self.failures += 1
        self.confusion[(entry.category, got_category)] += 1
        self.category_totals[entry.category] += 1
        self.stage_totals[str(entry.stage)] += 1
        if failure is None:
            self.missed.append(entry.name)
        if got_category == entry.category:
            self.category_right += 1
            self.by_category[entry.category] += 1
        if got_stage == entry.stage:
            self.stage_right += 1
            self.by_stage[str(entry.stage)] += 1
        if (got_category, got_stage) != (entry.category, entry.stage):
            self.wrong.append(
                f"{entry.name}: expected {entry.category}@{entry.stage}, "
                f"got {got_category}@{got_stage}"
            )

    @property
    def category_accuracy(self) -> float:
        return self.category_right / self.failures if self.failures else 1.0

    @property
    def stage_accuracy(self) -> float:
        return self.stage_right / self.failures if self.failures else 1.0


def score(entries: Iterable[Entry], splits: Sequence[str] = SPLITS) -> dict[str, Score]:
    """Classify every entry and score it, per split."""
    scores = {split: Score() for split in splits}
    for entry in entries:
        if entry.split in scores:
            scores[entry.split].add(entry, classify_log(entry.path))
    return scores
