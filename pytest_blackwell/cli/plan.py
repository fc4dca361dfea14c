"""``plan``: what a test suite would run on each GPU of a CI matrix, decided without a GPU.

Collects the suite once per device profile, in a child ``pytest --collect-only`` per device
(``--blackwell-device NAME`` plus :mod:`pytest_blackwell.plugin.plan`), so the suite's own
conftest, ini options and hooks apply exactly as on the runner, and no engine starts.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from pytest_blackwell.cli._common import input_error

#: pytest's exit status when nothing was collected (a plan with no tests, not an error).
_NO_TESTS = 5
#: pytest's exit status for a usage error (an unknown device, a bad option).
_USAGE_ERROR = 4
#: Exit status of ``--fail-on-unrunnable`` when some test runs on no device of the matrix.
EXIT_UNRUNNABLE = 1


class PlanError(Exception):
    """A device's collection failed; the message says which device and why."""


def register(subparsers: Any) -> None:
    """Add the ``plan`` sub-command."""
    parser = subparsers.add_parser(
        "plan",
        help="show which tests would run or skip on each device of a CI matrix",
        description=(
            "Collect the tests once per simulated device (no GPU needed, no engine started) and "
            "show, per test, run or skip on each device with the reason, the engine "
            "configuration, and how many engines each device's run would launch. Arguments "
            "after the options (or after --) are passed to pytest: paths, -m, -k, ..."
        ),
    )
    parser.add_argument(
        "--devices",
        required=True,
        metavar="LIST",
        help=(
            "comma-separated devices: built-in profiles (see 'profiles'), NAME*N, JSON files, "
            "or names added by the pytest_blackwell_device_profiles hook"
        ),
    )
    parser.add_argument(
        "--format",
        choices=("markdown", "json", "github"),
        default="markdown",
        help="markdown (job summary), json, or github ({'include': [...]} for strategy.matrix)",
    )
    parser.add_argument(
        "--runner-label",
        action="append",
        default=[],
        metavar="DEVICE=LABEL",
        help="runner label of a device in --format github (default: the device's name)",
    )
    parser.add_argument(
        "--fail-on-unrunnable",
        action="store_true",
        help=f"exit {EXIT_UNRUNNABLE} when some test would skip on every device listed",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=600.0,
        metavar="SECONDS",
        help="time limit of one device's collection (default: %(default)s)",
    )
    parser.add_argument("pytest_args", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    parser.set_defaults(func=run_plan)


def parse_devices(text: str) -> list[str]:
    """``"a,b*2,./c.json"`` -> ``["a", "b*2", "./c.json"]``; ``ValueError`` on empty or repeats."""
    devices = [part.strip() for part in text.split(",")]
    if not all(devices):
        raise ValueError(f"--devices: expected a comma-separated list of devices, got {text!r}")
    repeated = sorted({d for d in devices if devices.count(d) > 1})
    if repeated:
        raise ValueError(f"--devices: {', '.join(repeated)} listed more than once")
    return devices


def parse_labels(pairs: Sequence[str], devices: Sequence[str]) -> dict[str, str]:
    """``["rtx-pro-6000=gpu-sm120"]`` -> a mapping; ``ValueError`` names the bad pair."""
    labels: dict[str, str] = {}
    for pair in pairs:
        device, sep, label = pair.partition("=")
        device, label = device.strip(), label.strip()
        if not sep or not device or not label:
            raise ValueError(f"--runner-label: expected DEVICE=LABEL, got {pair!r}")
        if device not in devices:
            raise ValueError(
                f"--runner-label {pair!r}: {device!r} is not in --devices ({', '.join(devices)})"
            )
        labels[device] = label
    return labels


def check_pytest_args(pytest_args: Sequence[str]) -> None:
    """``ValueError`` for pytest arguments that would override the device of every collection."""
    for arg in pytest_args:
        if arg == "--blackwell-device" or arg.startswith("--blackwell-device="):
            raise ValueError(
                f"pytest argument {arg!r}: plan sets the device of each collection itself; "
                "list the devices in --devices instead"
            )


def collect(device: str, pytest_args: Sequence[str], timeout: float) -> Any:
    """Run one device's collection in a child pytest; the plan plugin's JSON, or PlanError."""
    with tempfile.TemporaryDirectory(prefix="blackwell-plan-") as tmp:
        out = Path(tmp, "plan.json")
        command = [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-p",
            "pytest_blackwell.plugin.plan",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:randomly",  # the same order on every device
            f"--blackwell-plan-output={out}",
            f"--blackwell-device={device}",
            f"--blackwell-artifacts={Path(tmp, 'artifacts')}",  # leave the real ones alone
            *pytest_args,
        ]
        try:
            done = subprocess.run(
                command,
                capture_output=True,
                text=True,
                timeout=timeout,
                env=dict(os.environ),
                stdin=subprocess.DEVNULL,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise PlanError(f"{device}: collection took longer than {timeout:g} s") from None
        if done.returncode not in (0, _NO_TESTS) or not out.is_file():
            if done.returncode == _NO_TESTS:
                return {"devices": [], "tests": []}
            raise PlanError(_child_error(device, done))
        return json.loads(out.read_text(encoding="utf-8"))


def _child_error(device: str, done: subprocess.CompletedProcess[str]) -> str:
    """What went wrong in a child pytest, from its own words (usage or collection errors)."""
    lines = [ln.rstrip() for ln in (done.stderr + "\n" + done.stdout).splitlines() if ln.strip()]
    # Usage errors ("ERROR: ...") and the short summary of collection errors ("ERROR path - ...").
    if done.returncode == _USAGE_ERROR:
        errors = [ln for ln in done.stderr.splitlines() if ln.strip()]
    else:
        errors = _errors_section(lines)
    shown = errors[:10] if errors else lines[-25:]
    detail = "\n  ".join(shown) if shown else "no output"
    return (
        f"device {device!r}: collecting the tests failed (pytest exit status "
        f"{done.returncode}):\n  {detail}"
    )


def _errors_section(lines: list[str]) -> list[str]:
    """The body of pytest's ERRORS section (what each collection error says), if any."""
    body: list[str] = []
    inside = False
    for line in lines:
        if line.startswith("=") and " ERRORS " in line:
            inside = True
        elif line.startswith("=") and inside:
            break
        elif inside and not line.startswith("___"):
            body.append(line)
    return body[-20:]


def run_plan(args: argparse.Namespace) -> int:
    from pytest_blackwell.report.plan import (
        Collection,
        build_plan,
        github_matrix,
        render_json,
        render_markdown,
    )

    pytest_args = list(args.pytest_args)
    if pytest_args[:1] == ["--"]:
        pytest_args = pytest_args[1:]
    try:
        devices = parse_devices(args.devices)
        labels = parse_labels(args.runner_label, devices)
        check_pytest_args(pytest_args)
    except ValueError as exc:
        return input_error("plan", str(exc))
    if args.timeout <= 0:
        return input_error("plan", f"--timeout: expected a positive number, got {args.timeout}")
    workers = max(1, min(len(devices), os.cpu_count() or 1, 4))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(collect, d, pytest_args, args.timeout) for d in devices]
        try:
            payloads = [future.result() for future in futures]
        except PlanError as exc:
            return input_error("plan", str(exc))
    plan = build_plan(
        [Collection(d, list(p["tests"])) for d, p in zip(devices, payloads, strict=True)]
    )
    if args.format == "json":
        print(render_json(plan))
    elif args.format == "github":
        print(json.dumps(github_matrix(plan, labels, pytest_args)))
    else:
        print(render_markdown(plan))
    unrunnable = plan.unrunnable
    if args.fail_on_unrunnable and unrunnable:
        print(
            f"pytest-blackwell plan: {len(unrunnable)} test(s) run on none of "
            f"{', '.join(devices)}:",
            file=sys.stderr,
        )
        for nodeid in unrunnable:
            print(f"  {nodeid}", file=sys.stderr)
        return EXIT_UNRUNNABLE
    return 0
