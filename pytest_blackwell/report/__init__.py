"""Reports: environment fingerprint, redaction, JUnit-safe text, CI matrix and bug reports.

Nothing in this package launches an engine or imports torch/vLLM; junitparser is imported only
where shards are read.
"""

from __future__ import annotations

from pytest_blackwell._lazy import exports

# The names are listed once, in __init__.pyi.
__getattr__, __dir__, __all__ = exports(__name__, __file__)
