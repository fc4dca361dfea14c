"""pytest glue for pytest-xdist: each engine configuration runs on one worker.

Under ``-n`` with the ``load`` (default) or ``loadgroup`` distribution, the controller schedules
with :class:`pytest_blackwell.plugin.xdist.scheduler.EngineGroupScheduling`: the tests of one engine
configuration form one unit of work, so N tests over K configurations launch K engines whatever
their order (pytest-randomly included). The units come from the workers: each writes its
``node id -> group`` map (engine configuration, and the ``xdist_group`` marks of ``loadgroup``)
to a directory the controller names in ``workerinput``, before it reports its collection. (xdist's
own ``loadgroup`` renames node ids, which pytest 9.2 no longer allows.) Other ``--dist`` modes
are respected; GPU pinning per worker is unchanged (:mod:`pytest_blackwell.engine.gpu_assign`).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest

from pytest_blackwell.plugin.runtime import (
    engine_group,
)
from pytest_blackwell.plugin.settings import (
    worker_input,
)

#: Prefix of the group names given to engine tests.
GROUP_PREFIX = "blackwell:"
#: ``workerinput`` key: the directory where workers put their group maps.
GROUPS_DIR_INPUT = "blackwell_groups_dir"
#: ``--dist`` modes whose scheduling is replaced by configuration groups.
GROUPED_DISTS = ("load", "loadgroup")

_GROUPS_DIR_KEY = pytest.StashKey[str]()


def item_group(item: pytest.Item) -> str | None:
    """The unit of work an item belongs to: its ``xdist_group`` names and engine group."""
    names = {
        str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
        for mark in item.iter_markers("xdist_group")
    }
    engine = engine_group(item)
    if engine is not None:
        names.add(GROUP_PREFIX + engine)
    return "_".join(sorted(names)) if names else None


def _groups_dir(config: pytest.Config) -> str:
    path = config.stash.get(_GROUPS_DIR_KEY, None)
    if path is None:
        path = config.stash[_GROUPS_DIR_KEY] = tempfile.mkdtemp(prefix="pbw-xdist-")
    return path


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """Controller: tell each worker where its group map goes."""
    node.workerinput[GROUPS_DIR_INPUT] = _groups_dir(node.config)


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    if config.getvalue("dist") not in GROUPED_DISTS:
        return None
    from pytest_blackwell.plugin.xdist.scheduler import EngineGroupScheduling

    return EngineGroupScheduling(config, Path(_groups_dir(config)), log)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """Worker: write the group map before xdist reports the collection to the controller."""
    workerinput = worker_input(session.config)
    if GROUPS_DIR_INPUT not in workerinput:
        return
    groups = {}
    for item in session.items:
        group = item_group(item)
        if group is not None:
            groups[item.nodeid] = group
    worker = str(workerinput.get("workerid", os.getpid()))
    target = Path(workerinput[GROUPS_DIR_INPUT]) / f"{worker}.json"
    tmp = target.with_suffix(".tmp")
    tmp.write_text(json.dumps(groups), encoding="utf-8")
    os.replace(tmp, target)


def pytest_unconfigure(config: pytest.Config) -> None:
    path = config.stash.get(_GROUPS_DIR_KEY, None)
    if path is not None:
        shutil.rmtree(path, ignore_errors=True)
