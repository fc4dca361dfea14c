"""Killing an engine's process tree: nothing of it is left running when kill_tree returns."""

from __future__ import annotations

import subprocess
import sys
import time

import psutil

from pytest_blackwell.engine.proctree import kill_tree


def _running(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() not in (psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD)
    except psutil.NoSuchProcess:
        return False


def test_a_group_without_the_token_is_killed_and_waited_for() -> None:
    # a group leader and its child; neither carries the token (as a process that is exiting,
    # whose environment can no longer be read, does not)
    code = (
        "import subprocess, sys, time; "
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); time.sleep(60)"
    )
    leader = subprocess.Popen([sys.executable, "-c", code], start_new_session=True)
    try:
        child = None
        for _ in range(200):
            children = psutil.Process(leader.pid).children()
            if children:
                child = children[0].pid
                break
            time.sleep(0.05)
        assert child is not None
        left = kill_tree(leader.pid, "PYTEST_BLACKWELL_NO_SUCH_TOKEN", "x")
        assert left == []
        assert not _running(child)
    finally:
        leader.kill()
        leader.wait()
