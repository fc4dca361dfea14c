"""One persistent compile cache per vLLM version, shared by every engine of every session.

torch.compile and Inductor results (``VLLM_CACHE_ROOT`` and ``TORCHINDUCTOR_CACHE_DIR``) land in
``<user cache dir>/compile/vllm-<version>`` (see :func:`compile_cache_dir`), so a second run
compiles warm. vLLM keys its own entries by model, configuration and compiler hashes, so engines
of different configurations share the folder safely; the version in the folder name keeps old
releases' artifacts apart and easy to delete.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import re
from pathlib import Path

from pytest_blackwell.engine.cachedir import user_cache_dir

_VERSION_RE = re.compile(r"""__version__\s*=\s*(?:version\s*=\s*)?['"]([^'"]+)['"]""")


def installed_vllm_version() -> str | None:
    """The installed vLLM's version, read without importing it (``None``: not installed)."""
    spec = importlib.util.find_spec("vllm")
    if spec is None:
        return None
    for location in spec.submodule_search_locations or ():
        version_file = Path(location) / "_version.py"
        if version_file.is_file():
            match = _VERSION_RE.search(version_file.read_text(errors="replace"))
            if match:
                return match.group(1)
    for dist in importlib.metadata.packages_distributions().get("vllm", []):
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


def compile_cache_dir(root: Path | None = None, version: str | None = None) -> Path | None:
    """``<root>/vllm-<version>`` (``root`` default: ``<user cache dir>/compile``).

    ``None`` when vLLM is not installed (nothing to key the cache by).
    """
    version = version if version is not None else installed_vllm_version()
    if version is None:
        return None
    safe = re.sub(r"[^A-Za-z0-9._+-]", "_", version)
    return (root if root is not None else user_cache_dir() / "compile") / f"vllm-{safe}"
