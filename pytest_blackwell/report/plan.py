"""A CI plan: which tests run or skip on which device, and how many engines each would launch.

Built from one collection per device (see :mod:`pytest_blackwell.plugin.plan`, which writes
them, and ``python -m pytest_blackwell plan``, which runs them); rendered as Markdown for a job
summary, JSON, or a GitHub Actions ``strategy.matrix``.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

RUN = "run"
SKIP = "skip"

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class Collection:
    """One device's collection: ``tests`` are dicts with ``nodeid``, ``skip``, ``group``,
    ``config`` (as :func:`pytest_blackwell.plugin.plan.describe_item` writes them)."""

    device: str
    tests: list[dict[str, Any]]


@dataclass
class Plan:
    devices: list[str]
    tests: list[dict[str, Any]] = field(default_factory=list)
    launches: dict[str, int] = field(default_factory=dict)

    @property
    def unrunnable(self) -> list[str]:
        """Node ids that skip on every device of the plan."""
        return [t["nodeid"] for t in self.tests if all(o == SKIP for o in t["outcomes"].values())]

    def runs_on(self, device: str) -> int:
        return sum(1 for t in self.tests if t["outcomes"].get(device) == RUN)

    def to_dict(self) -> dict[str, Any]:
        return {
            "devices": list(self.devices),
            "tests": self.tests,
            "launches": dict(self.launches),
            "unrunnable": self.unrunnable,
        }


def build_plan(collections: Sequence[Collection]) -> Plan:
    """Merge per-device collections (tests in first-seen order; a test missing from a device's
    collection counts as a skip there, with the reason saying so)."""
    devices = [c.device for c in collections]
    plan = Plan(devices=devices)
    rows: dict[str, dict[str, Any]] = {}
    for collection in collections:
        groups: set[str] = set()
        for test in collection.tests:
            nodeid = str(test["nodeid"])
            row = rows.get(nodeid)
            if row is None:
                row = {"nodeid": nodeid, "config": None, "outcomes": {}, "reasons": {}}
                rows[nodeid] = row
            if row["config"] is None:
                row["config"] = test.get("config")
            reason = test.get("skip")
            if reason is None:
                row["outcomes"][collection.device] = RUN
                if test.get("group") is not None:
                    groups.add(str(test["group"]))
            else:
                row["outcomes"][collection.device] = SKIP
                row["reasons"][collection.device] = str(reason)
        plan.launches[collection.device] = len(groups)
    for row in rows.values():
        for device in devices:
            if device not in row["outcomes"]:
                row["outcomes"][device] = SKIP
                row["reasons"][device] = "not collected with this device"
        row["outcomes"] = {d: row["outcomes"][d] for d in devices}
        row["reasons"] = {d: row["reasons"][d] for d in devices if d in row["reasons"]}
    plan.tests = list(rows.values())
    return plan


def shard_name(device: str) -> str:
    """A file-safe name for a device request (``h100*4`` -> ``h100x4``, a JSON path -> stem)."""
    text = device.strip()
    if text.endswith(".json"):
        text = PurePath(text).stem
    text = text.replace("*", "x").replace(":", "x")
    return _UNSAFE.sub("_", text).strip("_") or "device"


def github_matrix(
    plan: Plan, labels: Mapping[str, str], pytest_args: Sequence[str]
) -> dict[str, Any]:
    """``{"include": [...]}`` for ``strategy.matrix``: one entry per device with a test to run."""
    include = []
    for device in plan.devices:
        count = plan.runs_on(device)
        if count == 0:
            continue
        include.append(
            {
                "device": device,
                "runner": labels.get(device, shard_name(device)),
                "shard": shard_name(device),
                "pytest_args": shlex.join(pytest_args),
                "tests": count,
                "engines": plan.launches.get(device, 0),
            }
        )
    return {"include": include}


def render_json(plan: Plan) -> str:
    return json.dumps(plan.to_dict(), indent=2)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(plan: Plan) -> str:
    """A table per test x device, engine launches per device, numbered skip reasons."""
    devices = plan.devices
    lines = [
        f"## pytest-blackwell plan: {len(plan.tests)} tests on {len(devices)} devices",
        "",
        "| test | configuration | " + " | ".join(_cell(d) for d in devices) + " |",
        "|---|---|" + "---|" * len(devices),
    ]
    notes: dict[str, int] = {}
    for test in plan.tests:
        cells = []
        for device in devices:
            if test["outcomes"][device] == RUN:
                cells.append(RUN)
                continue
            reason = test["reasons"].get(device, "")
            number = notes.setdefault(reason, len(notes) + 1)
            cells.append(f"{SKIP} ({number})")
        config = test["config"] if test["config"] is not None else "-"
        lines.append(f"| `{_cell(test['nodeid'])}` | {_cell(config)} | " + " | ".join(cells) + " |")
    lines.append("| **tests run** | | " + " | ".join(str(plan.runs_on(d)) for d in devices) + " |")
    lines.append(
        "| **engines launched** | | "
        + " | ".join(str(plan.launches.get(d, 0)) for d in devices)
        + " |"
    )
    if notes:
        lines += ["", "Skip reasons:", ""]
        lines += [f"{n}. {reason or '(no reason given)'}" for reason, n in notes.items()]
    unrunnable = plan.unrunnable
    if unrunnable:
        lines += ["", f"**Runs on none of these devices** ({len(unrunnable)}):", ""]
        lines += [f"- `{nodeid}`" for nodeid in unrunnable]
    return "\n".join(lines)
