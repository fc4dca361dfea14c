"""Real vLLM engines per configuration, each in its own process tree (no pytest here).

Importing this package never imports torch or vLLM: the engine runs in a child process
(:mod:`pytest_blackwell.engine.probe`) started by :mod:`pytest_blackwell.engine.launcher`.
Submodules load on first use of a name, so that loading the pytest plugin (which only needs
:class:`EngineConfig` at collection time) stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_blackwell._lazy import lazy_getattr

if TYPE_CHECKING:
    from pytest_blackwell.engine.config import EngineConfig
    from pytest_blackwell.engine.launcher import DEFAULT_STAGE_LIMITS, EngineError, Limits
    from pytest_blackwell.engine.pool import EngineHandle, EnginePool
    from pytest_blackwell.engine.result import EngineResult

_LAZY = {
    "EngineConfig": "config",
    "DEFAULT_STAGE_LIMITS": "launcher",
    "EngineError": "launcher",
    "Limits": "launcher",
    "EngineHandle": "pool",
    "EnginePool": "pool",
    "EngineResult": "result",
}


__getattr__ = lazy_getattr(__name__, _LAZY)


__all__ = [
    "DEFAULT_STAGE_LIMITS",
    "EngineConfig",
    "EngineError",
    "EngineHandle",
    "EnginePool",
    "EngineResult",
    "Limits",
]
