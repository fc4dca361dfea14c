"""What hardware the tests run on: ``DeviceInfo``, built-in profiles and detection.

Nothing here imports torch or NVML at import time; detection imports them lazily (torch only
in a child process). The submodules themselves load on first use of a name, so that loading the
plugin (which needs only :class:`DeviceInfo`) stays cheap.
"""

from __future__ import annotations

from pytest_blackwell._lazy import exports

# The names are listed once, in __init__.pyi.
__getattr__, __dir__, __all__ = exports(__name__, __file__)
