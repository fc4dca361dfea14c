"""An xdist scheduler whose units of work are engine configurations (imports xdist).

Loaded by :mod:`pytest_blackwell.plugin.xdist` only in an xdist controller.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from xdist.scheduler import LoadScopeScheduling  # type: ignore[import-untyped]


class EngineGroupScheduling(LoadScopeScheduling):  # type: ignore[misc]
    """``loadscope`` scheduling where a scope is a group read from the workers' group maps.

    A test in no group is a unit of its own (as with ``load``). When no worker wrote a map
    (remote workers on other hosts), xdist's ``@group`` node id suffix is used if present.
    """

    def __init__(self, config: pytest.Config, groups_dir: Path, log: Any = None) -> None:
        super().__init__(config, log)
        self._groups_dir = groups_dir
        self._groups: dict[str, str] | None = None

    def _read_groups(self) -> dict[str, str]:
        for path in sorted(self._groups_dir.glob("*.json")):
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if isinstance(data, dict):
                return {str(k): str(v) for k, v in data.items()}
        return {}

    def _split_scope(self, nodeid: str) -> str:
        if self._groups is None:
            self._groups = self._read_groups()
        group = self._groups.get(nodeid)
        if group is not None:
            return group
        if "@" in nodeid:
            return nodeid.rsplit("@", 1)[-1]
        return nodeid
