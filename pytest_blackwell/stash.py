"""Stash keys of the plugin that conftests may use (they live in
:mod:`pytest_blackwell.plugin.settings`).

``item.stash[TEST_FACTS_KEY]``: a dict of extra report facts (plain values keyed by property name
without the ``blackwell.`` prefix), merged over the plugin's own typed facts into the test's
``blackwell.*`` JUnit properties.
"""

from __future__ import annotations

from pytest_blackwell.plugin.runtime import DEVICES_KEY, HOST_DEVICES_KEY, RECORD_EXTRAS_KEY
from pytest_blackwell.plugin.settings import FACTS_KEY, TEST_FACTS_KEY

__all__ = ["DEVICES_KEY", "FACTS_KEY", "HOST_DEVICES_KEY", "RECORD_EXTRAS_KEY", "TEST_FACTS_KEY"]
