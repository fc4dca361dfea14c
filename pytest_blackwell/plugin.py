"""pytest entry point (``-p blackwell``): options, device detection, hardware markers."""

from __future__ import annotations
