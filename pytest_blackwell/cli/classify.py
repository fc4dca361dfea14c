"""``python -m pytest_blackwell classify [--json] FILE...``: the first error of engine logs.

``-`` reads standard input. Without ``--json`` each file gets a short readable summary; with it,
one JSON object per file per line: ``file``, ``category`` (``null`` when the log has no error),
``stage``, ``first_error``, ``line``, ``detail``, ``evidence`` (what decided the category and
the stage: a rule, a traceback frame, a stage marker or ``none``). A file that cannot be read
gets a message on standard error and the exit status is 1; the other files are still classified.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

HELP = "name the first error of engine logs: category, stage, line and detail"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "classify",
        help=HELP,
        description=HELP + ". Exit status: 0 when every file was read, 1 otherwise.",
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="log file; '-' for stdin")
    parser.add_argument("--json", action="store_true", help="one JSON object per file per line")
    parser.set_defaults(func=run)


def _record(name: str, failure: Any) -> dict[str, Any]:
    if failure is None:
        return {
            "file": name,
            "category": None,
            "stage": None,
            "first_error": None,
            "line": None,
            "detail": {},
            "evidence": {},
        }
    return {
        "file": name,
        "category": failure.category,
        "stage": failure.stage,
        "first_error": failure.first_error,
        "line": failure.line,
        "detail": failure.detail,
        "evidence": failure.evidence,
    }


def _readable(record: dict[str, Any]) -> str:
    if record["category"] is None:
        return f"{record['file']}: no error found"
    text = (
        f"{record['file']}:{record['line']}: {record['category']} at {record['stage']}\n"
        f"    {record['first_error']}"
    )
    evidence = record["evidence"]
    if evidence:
        text += (
            f"\n    why: category from {evidence.get('category', 'none')}; "
            f"stage from {evidence.get('stage', 'none')}"
        )
    if record["detail"]:
        pairs = ", ".join(f"{k}={v}" for k, v in sorted(record["detail"].items()))
        text += f"\n    detail: {pairs}"
    return text


def run(args: argparse.Namespace) -> int:
    from pytest_blackwell.failures import LogReadError, classify_log, classify_stream

    status = 0
    for name in args.files:
        try:
            if name == "-":
                failure = classify_stream(sys.stdin.buffer, name="<stdin>")
            else:
                failure = classify_log(name)
        except LogReadError as exc:
            print(f"classify: {exc}", file=sys.stderr)
            status = 1
            continue
        except OSError as exc:
            reason = exc.strerror or str(exc)
            print(f"classify: {name}: cannot read: {reason}", file=sys.stderr)
            status = 1
            continue
        record = _record("-" if name == "-" else name, failure)
        if args.json:
            print(json.dumps(record, sort_keys=False))
        else:
            print(_readable(record))
        sys.stdout.flush()
    return status
