"""Lazy package exports: a name's submodule is imported on first use, not with the package.

Loading the pytest plugin imports a few light modules only; the heavier parts of a package
(detection, the engine launcher, report renderers) load when a name from them is first used.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_getattr(package: str, names: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` resolving ``names[name]`` (a submodule of ``package``)."""

    def __getattr__(name: str) -> Any:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{package}.{module}"), name)

    return __getattr__
