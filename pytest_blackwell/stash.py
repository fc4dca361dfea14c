"""Stash keys shared by the plugin modules (state lives in stash, never on pytest objects)."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_blackwell.device.model import DeviceInfo

#: Devices detected (or simulated) once per session; workers receive the controller's.
DEVICES_KEY = pytest.StashKey[list[DeviceInfo]]()

#: Per-test facts for reports: plain str/int/float values keyed by property name without
#: the ``blackwell.`` prefix (``device``, ``config``, ``category``, ``stage`` ...).
TEST_FACTS_KEY = pytest.StashKey[dict[str, Any]]()

#: Extra fields for a configuration's entry in results.json, by configuration id (e.g. the
#: one-variable comparison under ``isolation`` and its verdict under ``follows``).
RECORD_EXTRAS_KEY = pytest.StashKey[dict[str, dict[str, Any]]]()

#: ``time.time()`` when the session was configured (to tell this run's files from older ones).
SESSION_START_KEY = pytest.StashKey[float]()

#: The devices engines really run on when the session's devices are simulated (this host's),
#: detected once in the controller like :data:`DEVICES_KEY`.
HOST_DEVICES_KEY = pytest.StashKey[list[DeviceInfo]]()
