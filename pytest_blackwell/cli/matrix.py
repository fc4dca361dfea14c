"""``python -m pytest_blackwell matrix SHARD.xml...``: merge JUnit shards into one matrix."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pytest_blackwell.cli._common import EXIT_INPUT_ERROR

#: Exit status when ``--fail-on-regression`` finds one (distinct from usage errors, 2).
EXIT_REGRESSION = 1


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "matrix",
        help="merge JUnit shards into a config x device matrix (markdown, HTML or JSON)",
        description=(
            "Read JUnit XML files written by pytest with pytest-blackwell (one per CI shard) and "
            "print one row per test configuration and one column per device: pass, skip or "
            "<category>@<stage>."
        ),
    )
    parser.add_argument("shards", nargs="+", type=Path, metavar="SHARD.xml")
    parser.add_argument(
        "--format", choices=("markdown", "html", "json"), default="markdown", dest="fmt"
    )
    parser.add_argument(
        "--output",
        "-o",
        type=Path,
        default=None,
        metavar="FILE",
        help="write here instead of standard output",
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        default=None,
        metavar="OLD.json",
        help="a JSON matrix of an earlier run: mark regressions and fixes",
    )
    parser.add_argument(
        "--fail-on-regression",
        action="store_true",
        help=f"exit with status {EXIT_REGRESSION} when there is a regression",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pytest_blackwell.report.matrix import (
        MatrixError,
        apply_baseline,
        load_baseline,
        read_shards,
    )
    from pytest_blackwell.report.render import render

    try:
        matrix = read_shards(list(args.shards))
        if args.baseline is not None:
            apply_baseline(matrix, load_baseline(args.baseline), str(args.baseline))
    except MatrixError as exc:
        print(f"pytest-blackwell matrix: error: {exc}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    text = render(matrix, args.fmt)
    if args.output is None:
        sys.stdout.write(text)
    else:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(text, encoding="utf-8")
    if args.baseline is not None:
        print(
            f"pytest-blackwell matrix: {len(matrix.regressions)} regression(s), "
            f"{len(matrix.fixes)} fix(es) against {args.baseline}",
            file=sys.stderr,
        )
    if args.fail_on_regression and matrix.regressions:
        return EXIT_REGRESSION
    return 0
