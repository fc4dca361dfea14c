"""Shared helpers for the plugin's own tests."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]


@pytest.fixture(autouse=True)
def _inner_runs_keep_their_order(request: pytest.FixtureRequest) -> None:
    """pytest-randomly is installed for the companion-plugin tests; the pytester runs of every
    other test keep the order they were written in. A test that wants shuffling passes
    ``-p randomly``, which lifts this block."""
    if "pytester" in request.fixturenames:
        request.getfixturevalue("pytester")  # it clears PYTEST_ADDOPTS when it starts
        monkeypatch: pytest.MonkeyPatch = request.getfixturevalue("monkeypatch")
        monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:randomly")
