"""The pytest plugin (entry point ``blackwell``): sibling modules, one concern each.

Siblings never import each other; what they share is :mod:`.settings` (options, the frozen
``Settings``, stash keys, typed facts) and the hook-free :mod:`.runtime` (the session's engines).
``plan`` is not listed: only ``python -m pytest_blackwell plan`` loads it, in its children.
"""

pytest_plugins = [
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
]
