"""Accuracy of the first-error classifier on the labelled corpus of real-world logs.

Classifies every log listed in the corpus manifests (``tests/failures/corpus/**/manifest.json``)
and prints, separately for the ``dev`` split (rules may be tuned on it) and the ``holdout`` split
(kept aside): category and stage accuracy, failures missed, false alarms on healthy logs, accuracy
per category and per stage, and the category confusion matrix.

    python bench/classify_accuracy.py [--corpus DIR] [--split dev|holdout] [--wrong] [--check]

Targets: dev >= 97% categories, >= 90% stages, 0 missed, 0 false alarms; holdout >= 90%
categories, >= 75% stages, 0 missed. ``--check`` exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pytest_blackwell.failures.corpus import SPLITS, CorpusError, Score, load_corpus, score  # noqa: E402

TARGETS = {"dev": (0.97, 0.90), "holdout": (0.90, 0.75)}


def _pct(right: int, total: int) -> str:
    return f"{100 * right / total:5.1f}% ({right}/{total})" if total else "    - (0/0)"


def _report(split: str, result: Score, show_wrong: bool) -> bool:
    cat_target, stage_target = TARGETS[split]
    print(f"== {split}: {result.total} logs, {result.failures} failures")
    print(
        f"category accuracy: {_pct(result.category_right, result.failures)}"
        f"  (target >= {cat_target:.0%})"
    )
    print(
        f"stage accuracy:    {_pct(result.stage_right, result.failures)}"
        f"  (target >= {stage_target:.0%})"
    )
    print(f"missed failures:   {len(result.missed)}  (target 0)")
    print(
        f"false alarms:      {len(result.false_alarms)}  (healthy logs: "
        f"{result.total - result.failures})"
    )
    print("per category:")
    for category in sorted(result.category_totals):
        right, total = result.by_category[category], result.category_totals[category]
        print(f"  {category:24s} {_pct(right, total)}")
    print("per stage:")
    for stage in sorted(result.stage_totals):
        print(f"  {stage:24s} {_pct(result.by_stage[stage], result.stage_totals[stage])}")
    got = sorted({g for _, g in result.confusion})
    if got:
        print("confusion (rows: expected category, columns: reported):")
        width = max(len(g) for g in got)
        print(" " * 24 + " ".join(f"{g[:width]:>{width}}" for g in got))
        for expected in sorted({e for e, _ in result.confusion}):
            cells = " ".join(f"{result.confusion[(expected, g)] or '.':>{width}}" for g in got)
            print(f"  {expected:22s}{cells}")
    for name in result.missed:
        print(f"  MISSED {name}")
    for text in result.false_alarms:
        print(f"  FALSE ALARM {text}")
    if show_wrong:
        for text in result.wrong:
            print(f"  WRONG {text}")
    ok = (
        result.category_accuracy >= cat_target
        and result.stage_accuracy >= stage_target
        and not result.missed
        and (split != "dev" or not result.false_alarms)
    )
    print()
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=ROOT / "tests" / "failures" / "corpus")
    parser.add_argument("--split", choices=SPLITS, action="append", help="default: both")
    parser.add_argument("--wrong", action="store_true", help="list every wrong classification")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args(argv)
    try:
        entries = load_corpus(args.corpus)
    except CorpusError as exc:
        print(f"classify_accuracy: {exc}", file=sys.stderr)
        return 2
    if not entries:
        print(
            f"classify_accuracy: no manifest.json with entries under {args.corpus}", file=sys.stderr
        )
        return 2
    splits = tuple(args.split or SPLITS)
    results = score(entries, splits)
    ok = True
    for split in splits:  # every split is reported, also after a miss
        ok = _report(split, results[split], args.wrong) and ok
    return 1 if args.check and not ok else 0


if __name__ == "__main__":
    sys.exit(main())
