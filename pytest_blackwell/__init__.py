"""pytest-blackwell: hardware-aware regression testing of GPU inference engines.

The public API: device, engine and failure types, the failure vocabulary and the log
classifier, for tests, conftest hooks and tools. A name's module loads on first use.
"""

from __future__ import annotations

from pytest_blackwell._lazy import exports

__version__ = "0.1.0"

# The names are listed once, in __init__.pyi.
__getattr__, __dir__, __all__ = exports(__name__, __file__)
