"""Entry point for ``python -m pytest_blackwell``."""

from __future__ import annotations

import sys

from pytest_blackwell.cli import main

if __name__ == "__main__":
    sys.exit(main())
