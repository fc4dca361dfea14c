"""pytest glue for pytest-xdist: each engine configuration runs on one worker.

Every engine test gets an ``xdist_group`` mark named after its configuration (before xdist's
own collection hook reads the marks), and under ``-n`` the default ``load`` distribution becomes
``loadgroup``: N tests over K configurations launch K engines, whatever the order of the tests
(pytest-randomly included). Explicit other modes (``--dist loadscope``, ``worksteal``, ...)
are respected. GPU pinning per worker is unchanged (:mod:`pytest_blackwell.gpu_assign`).
"""

from __future__ import annotations

import pytest

#: Prefix of the ``xdist_group`` names given to engine tests.
GROUP_PREFIX = "blackwell:"

_SWITCHED_KEY = pytest.StashKey[bool]()


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    """In the controller: ``load`` (what ``-n`` means by default) becomes ``loadgroup``."""
    if hasattr(config, "workerinput") or not config.pluginmanager.hasplugin("xdist"):
        return
    if getattr(config.option, "dist", None) == "load":
        config.option.dist = "loadgroup"
        config.stash[_SWITCHED_KEY] = True


def pytest_report_header(config: pytest.Config) -> list[str]:
    if not config.stash.get(_SWITCHED_KEY, False):
        return []
    return ["blackwell: xdist --dist load -> loadgroup (each engine configuration on one worker)"]


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Group marks go on first: xdist's worker turns them into node id suffixes."""
    from pytest_blackwell.engine_collection import engine_group

    for item in items:
        group = engine_group(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(name=f"{GROUP_PREFIX}{group}"))


def plain_nodeid(nodeid: str) -> str:
    """A node id without the ``@<group>`` suffix xdist's loadgroup appends."""
    base, at, group = nodeid.rpartition("@")
    if at and "::" in base and "/" not in group and "[" not in group and "]" not in group:
        return base
    return nodeid
