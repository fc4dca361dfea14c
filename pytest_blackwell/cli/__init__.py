"""``python -m pytest_blackwell <command>``: detect, profiles, classify, matrix, report, isolate,
plan, selfcheck.

Each sub-command lives in its own module exposing ``register(subparsers)``, which adds a parser
whose ``func`` default is a ``(argparse.Namespace) -> int`` callable. Commands import their heavy
dependencies inside ``func`` so that ``--help`` stays instant.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

#: Sub-command modules, in the order ``--help`` lists them.
COMMAND_MODULES = ("detect", "classify", "matrix", "report", "isolate", "plan", "selfcheck")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m pytest_blackwell",
        description="Hardware-aware regression testing of GPU inference engines.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f"pytest_blackwell.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"pytest_blackwell.cli.{name}":
                continue  # command not built into this version
            raise
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(func(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
