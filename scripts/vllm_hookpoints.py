"""Print the stage hook points and log markers each vLLM release has, read statically.

Usage: python scripts/vllm_hookpoints.py WHEEL_OR_SOURCE [WHEEL_OR_SOURCE ...] [--check]

Each argument is a vLLM wheel (``pip download vllm==X --no-deps``), a source checkout (the
folder holding ``vllm/``) or an installed ``vllm`` package folder. Nothing is imported or
installed: modules are parsed with ``ast``. The output is the Markdown kept in
``docs/vllm-hookpoints.md``. With ``--check`` the exit status is 1 when a point is missing from a
release inside its supported range (a hook that would silently never fire).
"""

from __future__ import annotations

import argparse
import sys

from pytest_blackwell.engine.hookscan import SourceError, render_markdown, scan


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sources", nargs="+", help="vLLM wheels, source trees or package folders")
    parser.add_argument(
        "--check", action="store_true", help="exit 1 when an expected point is gone"
    )
    args = parser.parse_args(argv)
    results = []
    for source in args.sources:
        try:
            results.append(scan(source))
        except (SourceError, OSError) as exc:
            print(f"vllm_hookpoints: {exc}", file=sys.stderr)
            return 2
    print(render_markdown(results), end="")
    missing = [(r.version, s.point.name, s.how) for r in results for s in r.missing()]
    for version, name, how in missing:
        print(f"vllm_hookpoints: vLLM {version} lacks {name} ({how})", file=sys.stderr)
    return 1 if args.check and missing else 0


if __name__ == "__main__":
    sys.exit(main())
