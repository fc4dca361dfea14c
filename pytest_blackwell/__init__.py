"""pytest-blackwell: hardware-aware regression testing of GPU inference engines."""

from __future__ import annotations

__version__ = "0.1.0"
