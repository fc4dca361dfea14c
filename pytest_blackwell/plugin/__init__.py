"""The pytest plugin (entry point ``blackwell``): sibling modules, one concern each.

Siblings never import each other; what they share is :mod:`.settings` (options, the frozen
``Settings``, stash keys, typed facts) and the hook-free :mod:`.runtime` (the session's engines).
``plan`` is not listed: only ``python -m pytest_blackwell plan`` loads it, in its children.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pytest

#: Registered in this order, each under its module name, when this plugin is registered.
SIBLINGS = (
    "pytest_blackwell.plugin.settings",
    "pytest_blackwell.plugin.devices",
    "pytest_blackwell.plugin.engines",
    "pytest_blackwell.plugin.params",
    "pytest_blackwell.plugin.isolation",
    "pytest_blackwell.plugin.perf",
    "pytest_blackwell.plugin.gpu",
    "pytest_blackwell.plugin.lifecycle",
    "pytest_blackwell.plugin.xdist",
    "pytest_blackwell.plugin.html",
    "pytest_blackwell.plugin.reporting",
)


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """Register the siblings as ``pytest_plugins`` would, without its entry-point lookups.

    A ``pytest_plugins`` list makes pytest scan every installed distribution's entry points once
    per name; ``import_plugin`` without entry points imports, marks for assertion rewriting and
    registers the same modules in the same order (a blocked name, ``-p no:NAME``, is skipped).
    ``pytest_addhooks`` is historic: it runs as soon as this module is registered.
    """
    for name in SIBLINGS:
        pluginmanager.import_plugin(name)
