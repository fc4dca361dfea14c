"""The per-user cache directory (tiny models, capability answers)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

#: Overrides the cache location (useful in CI to keep the cache in a restorable folder).
CACHE_ENV = "PYTEST_BLACKWELL_CACHE_DIR"


def user_cache_dir() -> Path:
    """``$PYTEST_BLACKWELL_CACHE_DIR``, else ``pytest-blackwell`` in the user cache dir."""
    explicit = os.environ.get(CACHE_ENV)
    if explicit:
        return Path(explicit)
    if sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    elif os.name == "nt":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "pytest-blackwell"
