"""How far two careful readers of the same excerpts agree: the ceiling an expert reading sets.

The corpus labels (``tests/failures/corpus/**/manifest.json``) were written by the engineers who
collected each log. A second reader labelled a random sample of 120 logs of the unseen sets
again, blind: from the excerpt and ``docs/failures.md`` alone, without the first labels, the
classifier or the threads (``tests/failures/second_reading/readings.json``). This script prints
how often the two readings agree on the category and on the stage of the failures both saw as
failures, how often they disagree on whether a log holds a failure at all, and each disagreement.

    python bench/label_agreement.py [--readings FILE] [--corpus DIR] [--list]

It is the yardstick for the classifier's unseen figures: a target above what two readers agree on
could not be met by any classifier; one below it says the classifier, not the labels, falls short.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pytest_blackwell.failures.corpus import CorpusError, Entry, load_corpus  # noqa: E402
from pytest_blackwell.failures.vocabulary import CATEGORIES, STAGES  # noqa: E402

READINGS = ROOT / "tests" / "failures" / "second_reading" / "readings.json"
CORPUS = ROOT / "tests" / "failures" / "corpus"


def load_readings(
    path: Path, entries: dict[str, Entry]
) -> list[tuple[Entry, str | None, str | None]]:
    """``(entry, category, stage)`` for each second reading in ``path``; a reading of a log the
    corpus does not hold, or with words outside the vocabulary, is a :class:`CorpusError`."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(raw, list):
        raise CorpusError(f"{path}: expected a JSON list of readings, got {type(raw).__name__}")
    out = []
    for index, item in enumerate(raw):
        where = f"{path}: reading {index}"
        if not isinstance(item, dict) or not {"log", "category", "stage"} <= item.keys():
            raise CorpusError(f"{where}: expected an object with log, category and stage")
        entry = entries.get(str(item["log"]))
        if entry is None:
            raise CorpusError(f"{where}: {item['log']!r} is no log of the corpus (shard/file)")
        category, stage = item["category"], item["stage"]
        if category is not None and category not in CATEGORIES:
            raise CorpusError(
                f"{where}: category {category!r} is not one of {', '.join(CATEGORIES)}"
            )
        if stage is not None and stage not in STAGES:
            raise CorpusError(f"{where}: stage {stage!r} is not one of {', '.join(STAGES)}")
        if (category is None) != (stage is None):
            raise CorpusError(f"{where}: category and stage must both be null or both set")
        out.append((entry, category, stage))
    return out


def _pct(right: int, total: int) -> str:
    return f"{100 * right / total:5.1f}% ({right}/{total})" if total else "    - (0/0)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--readings", type=Path, default=READINGS)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--list", action="store_true", help="print every disagreement")
    args = parser.parse_args(argv)
    try:
        entries = {e.name: e for e in load_corpus(args.corpus)}
        readings = load_readings(args.readings, entries)
    except (CorpusError, OSError, json.JSONDecodeError) as exc:
        print(f"label_agreement: {exc}", file=sys.stderr)
        return 2
    both = [(e, c, s) for e, c, s in readings if e.category is not None and c is not None]
    healthy = sum(1 for e, c, _ in readings if e.category is None and c is None)
    split = [(e, c, s) for e, c, s in readings if (e.category is None) != (c is None)]
    same_category = sum(1 for e, c, _ in both if e.category == c)
    same_stage = sum(1 for e, _, s in both if e.stage == s)
    same_both = sum(1 for e, c, s in both if (e.category, e.stage) == (c, s))
    print(f"readings: {len(readings)} logs read twice ({args.readings.name})")
    print(f"both healthy:                 {healthy}")
    print(f"failure in one reading only:  {len(split)}")
    print(f"failures in both readings:    {len(both)}")
    print(f"  same category:              {_pct(same_category, len(both))}")
    print(f"  same stage:                 {_pct(same_stage, len(both))}")
    print(f"  same category and stage:    {_pct(same_both, len(both))}")
    if args.list:
        for e, c, s in [*split, *both]:
            if (e.category, e.stage) != (c, s):
                print(f"  DIFFER {e.name}: first {e.category}@{e.stage}, second {c}@{s}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
