"""Lazy package exports: a name's module is imported on first use, not with the package.

Loading the pytest plugin imports a few light modules only; the heavier parts of a package
(detection, the engine launcher, report renderers) load when a name from them is first used.

A lazy package lists its public names once, in its stub ``__init__.pyi`` (``from .module import
Name as Name`` lines, which type checkers and editors read), and its ``__init__.py`` reads that
same list at import: ``__getattr__, __dir__, __all__ = exports(__name__, __file__)``.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any


def exports(
    package: str, init_file: str
) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """``(__getattr__, __dir__, __all__)`` for ``package`` from the imports of its stub."""
    stub = Path(init_file).with_suffix(".pyi")
    table: dict[str, tuple[str, str]] = {}
    for node in ast.parse(stub.read_text(encoding="utf-8"), str(stub)).body:
        if not isinstance(node, ast.ImportFrom):
            continue  # e.g. ``__version__: str``, defined by the package itself
        module = node.module or ""
        if node.level:
            module = importlib.util.resolve_name("." * node.level + module, package)
        for alias in node.names:
            table[alias.asname or alias.name] = (module, alias.name)

    def __getattr__(name: str) -> Any:
        target = table.get(name)
        if target is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(target[0]), target[1])
        setattr(sys.modules[package], name, value)  # the next look-up is a plain attribute
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *table})

    return __getattr__, __dir__, sorted(table)
