"""Fault soak: real engine sessions, faults injected at random moments, leftovers counted.

Runs small pytest sessions whose tests use real (CPU or GPU) vLLM engines, alternately with the
in-process engine and with vLLM's multiprocess engine (``VLLM_ENABLE_V1_MULTIPROCESSING``), and
injects one fault per session, in turn: SIGINT, SIGTERM and SIGKILL of pytest, SIGKILL and
SIGSTOP of an engine process. It prints the number of faults, the processes of each session
still alive 2 s after its pytest ended (found with psutil by a mark in their environment), and
how many sessions hit by an engine fault went on to finish with a classified failure.

    python bench/fault_soak.py --faults 50          # target: 0 processes left
    python bench/fault_soak.py --faults 10 --seed 3
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import psutil

MARK_ENV = "BLACKWELL_FAULT_SOAK"
KINDS = ("pytest:SIGINT", "pytest:SIGTERM", "pytest:SIGKILL", "engine:SIGKILL", "engine:SIGSTOP")

SUITE = """
import time

def _serve(engine, rounds):
    for _ in range(rounds):
        assert engine.generate(["hello world"], max_tokens=8)
        time.sleep(0.2)

def test_one(vllm_engine):
    _serve(vllm_engine, 15)

def test_two(vllm_engine):
    _serve(vllm_engine, 15)
"""
INI = '[pytest]\nblackwell_engine_config = {"max_model_len": 512}\n'


@dataclass
class Session:
    kind: str
    multiprocess: bool
    injected: bool
    exit_code: int | None
    left: list[str]
    categories: list[str]


def _marked(mark: str) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter():
        try:
            if proc.environ().get(MARK_ENV) == mark and proc.status() not in (
                psutil.STATUS_ZOMBIE,
                psutil.STATUS_DEAD,
            ):
                found.append(proc)
        except psutil.Error:
            continue
    return found


def _engine_processes(mark: str, pytest_pid: int) -> list[psutil.Process]:
    engines = []
    for proc in _marked(mark):
        if proc.pid == pytest_pid:
            continue
        try:
            line = " ".join(proc.cmdline())
        except psutil.Error:
            continue
        if "resource_tracker" not in line:
            engines.append(proc)
    return engines


def _title(proc: psutil.Process) -> str:
    try:
        return f"{proc.pid} {' '.join(proc.cmdline())[:80]}"
    except psutil.Error:
        return str(proc.pid)


def run_session(
    root: Path, kind: str | None, multiprocess: bool, at_s: float, timeout_s: float
) -> tuple[Session, float]:
    work = Path(tempfile.mkdtemp(prefix="soak-", dir=root))
    (work / "pytest.ini").write_text(INI)
    (work / "test_soak.py").write_text(SUITE)
    mark = uuid.uuid4().hex
    env = {
        **os.environ,
        MARK_ENV: mark,
        "HF_HUB_OFFLINE": "1",
        "VLLM_ENABLE_V1_MULTIPROCESSING": "1" if multiprocess else "0",
    }
    command = [
        sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
        f"--blackwell-artifacts={work / 'artifacts'}", "--blackwell-request-timeout=15",
        "--blackwell-stage-timeout=90",
    ]  # fmt: skip
    started = time.monotonic()
    proc = subprocess.Popen(
        command, cwd=work, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    injected = False
    if kind is not None:
        target, _, name = kind.partition(":")
        sig = getattr(signal, name)
        while proc.poll() is None and time.monotonic() - started < at_s:
            time.sleep(0.05)
        if target == "pytest" and proc.poll() is None:
            proc.send_signal(sig)
            injected = True
        elif target == "engine":
            while proc.poll() is None and not injected:
                victims = _engine_processes(mark, proc.pid)
                if victims:
                    try:
                        random.choice(victims).send_signal(sig)
                        injected = True
                    except psutil.Error:
                        pass
                else:
                    time.sleep(0.05)
    try:
        proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:  # a session that never ends is a finding too
        proc.kill()
        proc.wait()
    duration = time.monotonic() - started
    time.sleep(2.0)
    left = _marked(mark)
    titles = [_title(p) for p in left]
    for leftover in left:  # ours: clean up after counting
        with contextlib.suppress(psutil.Error):
            leftover.kill()
    categories = []
    results = work / "artifacts" / "results.json"
    if results.exists():
        for entry in json.loads(results.read_text())["configs"]:
            if entry.get("category"):
                categories.append(f"{entry['category']} at {entry['stage']}")
    session = Session(kind or "none", multiprocess, injected, proc.returncode, titles, categories)
    return session, duration


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--faults", type=int, default=50, help="faults to inject (default 50)")
    parser.add_argument("--seed", type=int, default=None, help="random seed (default: random)")
    parser.add_argument("--timeout", type=float, default=300.0, help="limit of one session (s)")
    args = parser.parse_args(argv)
    if args.faults < 1:
        parser.error(f"--faults: expected at least 1, got {args.faults}")
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    random.seed(seed)
    root = Path(tempfile.mkdtemp(prefix="pbw-soak-"))
    print(f"fault soak: {args.faults} faults, seed {seed}, sessions under {root}", flush=True)

    durations = {}
    for multiprocess in (False, True):  # a clean session per mode sets the window for faults
        clean, took = run_session(root, None, multiprocess, 0.0, args.timeout)
        durations[multiprocess] = took
        mode = "multiprocess" if multiprocess else "in-process"
        print(f"clean {mode} session: exit {clean.exit_code}, {took:.1f} s, "
              f"left {len(clean.left)}", flush=True)  # fmt: skip

    sessions: list[Session] = []
    attempts = 0
    while len([s for s in sessions if s.injected]) < args.faults and attempts < 3 * args.faults:
        index = len([s for s in sessions if s.injected])
        kind = KINDS[index % len(KINDS)]
        multiprocess = (index // len(KINDS)) % 2 == 1
        at_s = random.uniform(0.3, 0.9 * durations[multiprocess])
        attempts += 1
        session, took = run_session(root, kind, multiprocess, at_s, args.timeout)
        sessions.append(session)
        mode = "multiprocess" if multiprocess else "in-process"
        print(
            f"[{index + 1:>3}] {kind:<15} {mode:<12} at {at_s:5.1f} s: "
            f"{'injected' if session.injected else 'missed (session over)'}, exit "
            f"{session.exit_code}, {took:5.1f} s, left {len(session.left)}"
            + (f" {session.left}" if session.left else "")
            + (f", {', '.join(session.categories)}" if session.categories else ""),
            flush=True,
        )

    hit = [s for s in sessions if s.injected]
    by_kind = collections.Counter(s.kind for s in hit)
    engine_hit = [s for s in hit if s.kind.startswith("engine:")]
    survived = [s for s in engine_hit if s.exit_code in (0, 1) and s.categories]
    categories = collections.Counter(c for s in survived for c in s.categories)
    left = sum(len(s.left) for s in sessions)
    print()
    print(
        f"faults injected: {len(hit)} ("
        + ", ".join(f"{k} {by_kind[k]}" for k in KINDS)
        + f"); in-process {len([s for s in hit if not s.multiprocess])}, "
        f"multiprocess {len([s for s in hit if s.multiprocess])}"
    )
    print(f"processes left 2 s after pytest ended: {left}")
    print(
        f"engine faults: {len(engine_hit)}; sessions that survived them with a classified "
        f"failure: {len(survived)}"
        + (f" ({', '.join(f'{c} x{n}' for c, n in categories.most_common())})" if survived else "")
    )
    return 0 if left == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
