"""Shared helpers for the plugin's own tests."""

from __future__ import annotations

pytest_plugins = ["pytester"]
