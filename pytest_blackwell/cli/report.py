"""``python -m pytest_blackwell report RESULTS.json``: bug reports for failing configurations."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pytest_blackwell.cli._common import input_error, pick_config, read_json


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "report",
        help="write markdown bug reports for failing configurations of a results.json",
        description=(
            "Render a bug report (hardware, versions, FP8 meaning, backend, engine arguments with "
            "a vllm serve and a Python reproduction, first error, startup log) for every failing "
            "configuration of RESULTS.json, or for the one given with --config."
        ),
    )
    parser.add_argument("results", type=Path, metavar="RESULTS.json")
    parser.add_argument("--config", default=None, metavar="ID", help="only this configuration id")
    parser.add_argument(
        "--output-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="write DIR/reports/<config id>.md instead of printing",
    )
    parser.set_defaults(func=run)


def _error(message: str) -> int:
    return input_error("report", message)


def load_results(path: Path) -> dict[str, Any]:
    """``results.json`` as a dict; ``ValueError`` naming the file when it is not one."""
    data = read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("configs"), list):
        raise ValueError(
            f"{path} is not a pytest-blackwell results.json: expected an object with a "
            '"configs" list (written in the artifacts directory, default .pytest_blackwell/)'
        )
    return data


def run(args: argparse.Namespace) -> int:
    from pytest_blackwell.report.bugreport import (
        failing_entries,
        render_bug_report,
        report_file_name,
    )
    from pytest_blackwell.report.redact import Redactor

    try:
        results = load_results(args.results)
    except ValueError as exc:
        return _error(str(exc))
    log_root = args.results.parent
    if args.config is not None:
        try:
            chosen = [pick_config(results["configs"], args.config, args.results)]
        except ValueError as exc:
            return _error(str(exc))
    else:
        chosen = failing_entries(results)
        if not chosen:
            print(f"pytest-blackwell report: no failing configuration in {args.results}")
            return 0
    redactor = Redactor.from_environ()
    texts = [
        render_bug_report(
            entry,
            results.get("devices") or [],
            results.get("environment") or {},
            log_root=log_root,
            redactor=redactor,
        )
        for entry in chosen
    ]
    if args.output_dir is None:
        sys.stdout.write("\n---\n\n".join(texts))
        return 0
    reports = args.output_dir / "reports"
    reports.mkdir(parents=True, exist_ok=True)
    for entry, text in zip(chosen, texts, strict=True):
        path = reports / report_file_name(str(entry.get("config_id", "config")))
        path.write_text(text, encoding="utf-8")
        print(path)
    return 0
