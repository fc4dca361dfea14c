"""The parent-death signal: children die with their parent, not with the thread that made them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import psutil
import pytest

from pytest_blackwell.engine import pdeathsig

pytestmark = pytest.mark.skipif(not pdeathsig.supported(), reason="Linux only (PR_SET_PDEATHSIG)")

ARMED_CHILD = (
    "from pytest_blackwell.engine.pdeathsig import arm; import time; arm(); "
    "print('armed', flush=True); time.sleep(120)"
)

# A parent that starts the armed child from a short-lived thread, lets the thread end, then
# reports the child's pid and waits to be killed.
PARENT = textwrap.dedent(
    f"""
    import os, subprocess, sys, threading
    from pytest_blackwell.engine.pdeathsig import PARENT_ENV, spawn_from_stable_thread

    box = []
    def start():
        env = {{**os.environ, PARENT_ENV: str(os.getpid())}}
        box.append(spawn_from_stable_thread(lambda: subprocess.Popen(
            [sys.executable, "-c", {ARMED_CHILD!r}], env=env, stdout=subprocess.PIPE, text=True)))
    worker = threading.Thread(target=start)
    worker.start()
    worker.join()
    child = box[0]
    assert child.stdout.readline().strip() == "armed"
    print(child.pid, flush=True)
    sys.stdin.read()
    """
)


def _gone_within(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.05)
    return False


def test_child_outlives_its_creating_thread_and_dies_with_its_parent() -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    time.sleep(0.5)  # the thread that asked for the child has ended by now
    assert psutil.Process(child).is_running()
    assert not _gone_within(child, 0.5), "the child died with the thread that started it"
    parent.send_signal(signal.SIGKILL)
    parent.wait(timeout=10)
    assert _gone_within(child, 2.0), "the armed child outlived its SIGKILLed parent by 2 s"


def test_child_whose_parent_is_already_gone_exits_at_once() -> None:
    # The recorded parent is not the real one: the parent "died" before the child armed.
    env = {**os.environ, pdeathsig.PARENT_ENV: str(os.getpid() + 10_000_000)}
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", ARMED_CHILD], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1
    assert "armed" not in done.stdout
    assert time.monotonic() - started < 30


def test_forked_children_are_armed_again() -> None:
    script = textwrap.dedent(
        """
        import os, time
        from pytest_blackwell.engine.pdeathsig import arm
        arm()
        middle = os.fork()
        if middle == 0:  # the middle process forks the grandchild, reports it, then waits
            grandchild = os.fork()
            if grandchild == 0:
                time.sleep(120)
                os._exit(0)
            print(grandchild, flush=True)
            time.sleep(120)
            os._exit(0)
        print(middle, flush=True)
        time.sleep(120)
        """
    )
    top = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert top.stdout is not None
    first, second = int(top.stdout.readline()), int(top.stdout.readline())
    middle, grandchild = (
        (first, second)
        if psutil.Process(second).ppid() == first
        else (
            second,
            first,
        )
    )
    os.kill(middle, signal.SIGKILL)
    try:
        assert _gone_within(grandchild, 2.0), "a forked grandchild outlived its parent"
    finally:
        top.kill()
        top.wait(timeout=10)
    assert _gone_within(grandchild, 2.0)
