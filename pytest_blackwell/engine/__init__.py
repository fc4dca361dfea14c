"""Real vLLM engines per configuration, each in its own process tree (no pytest here).

Importing this package never imports torch or vLLM: the engine runs in a child process
(:mod:`pytest_blackwell.engine.probe`) started by :mod:`pytest_blackwell.engine.launcher`.
Submodules load on first use of a name, so that loading the pytest plugin (which only needs
:class:`EngineConfig` at collection time) stays cheap.
"""

from __future__ import annotations

from pytest_blackwell._lazy import exports

# The names are listed once, in __init__.pyi.
__getattr__, __dir__, __all__ = exports(__name__, __file__)
