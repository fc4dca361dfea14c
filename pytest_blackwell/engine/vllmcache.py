"""Keep vLLM's model-inspection cache between throw-away cache roots.

Each engine gets a private ``VLLM_CACHE_ROOT`` that is deleted with its pool. vLLM inspects a
model class in a subprocess (a full second vLLM import, ~7 s on a small CPU) unless
``<VLLM_CACHE_ROOT>/modelinfos`` has the answer, keyed by the hash of the model's source file.
Those small JSON files are copied from a store in the user cache dir before a launch and the
new ones copied back afterwards, so only the first engine ever pays for the inspection.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path

from pytest_blackwell.engine.cachedir import user_cache_dir

_SUBDIR = "modelinfos"


def store_dir() -> Path:
    return user_cache_dir() / "vllm-modelinfos"


def seed(cache_root: Path, store: Path | None = None) -> int:
    """Copy the stored model-info files into ``cache_root``; the number copied."""
    source = store or store_dir()
    if not source.is_dir():
        return 0
    target = cache_root / _SUBDIR
    target.mkdir(parents=True, exist_ok=True)
    copied = 0
    for item in source.glob("*.json"):
        with contextlib.suppress(OSError):
            shutil.copy2(item, target / item.name)
            copied += 1
    return copied


def harvest(cache_root: Path, store: Path | None = None) -> int:
    """Copy model-info files vLLM wrote under ``cache_root`` back to the store; the number."""
    source = cache_root / _SUBDIR
    if not source.is_dir():
        return 0
    target = store or store_dir()
    saved = 0
    for item in source.glob("*.json"):
        final = target / item.name
        if final.exists():
            continue
        with contextlib.suppress(OSError):
            target.mkdir(parents=True, exist_ok=True)
            partial = target / f".{item.name}.{os.getpid()}.tmp"
            shutil.copy2(item, partial)
            os.replace(partial, final)  # atomic: concurrent workers never see half a file
            saved += 1
    return saved
