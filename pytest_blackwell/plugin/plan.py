"""pytest glue for ``python -m pytest_blackwell plan``: what one collection would run.

Loaded only by the ``plan`` command (``-p pytest_blackwell.plugin.plan`` next to
``--collect-only`` and ``--blackwell-device NAME``). After collection it writes, for every test,
whether it would run or skip on the session's device (and why), and the engine configuration it
would launch. It reads the skip marks collection left on each item, so every hardware marker
(built-in, declared as data, or added by another plugin) counts without being named here.
"""

from __future__ import annotations

import json
import os
import platform
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_blackwell.plugin.runtime import (
    devices_of,
    engine_group,
    item_engine_config,
)

OUTPUT_OPTION = "--blackwell-plan-output"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("blackwell").addoption(
        OUTPUT_OPTION,
        metavar="PATH",
        default=None,
        help="(used by 'python -m pytest_blackwell plan') write the collected plan as JSON here",
    )


def pytest_collection_finish(session: pytest.Session) -> None:
    target = session.config.getoption("blackwell_plan_output")
    if not target:
        return
    tests = [describe_item(item) for item in session.items]
    payload = {
        "devices": [d.to_dict() for d in devices_of(session.config)],
        "tests": tests,
    }
    Path(target).write_text(json.dumps(payload), encoding="utf-8")


def describe_item(item: pytest.Item) -> dict[str, Any]:
    """``nodeid``, ``skip`` (reason or ``None``), engine ``group`` and ``config`` of one test."""
    group = engine_group(item)
    config = item_engine_config(item) if group is not None else None
    config_id = None if config is None else config.id
    return {"nodeid": item.nodeid, "skip": skip_reason(item), "group": group, "config": config_id}


def skip_reason(item: pytest.Item) -> str | None:
    """The reason ``item`` would be skipped at setup by its ``skip``/``skipif`` marks, else None.

    Same order as pytest: ``skipif`` marks first (the first true condition wins), then ``skip``.
    """
    for mark in item.iter_markers(name="skipif"):
        conditions = mark.args
        if "condition" in mark.kwargs:
            conditions = (mark.kwargs["condition"],)
        if not conditions:
            return str(mark.kwargs.get("reason", ""))
        for condition in conditions:
            reason = _evaluate(item, mark, condition)
            if reason is not None:
                return reason
    for mark in item.iter_markers(name="skip"):
        if "reason" in mark.kwargs:
            return str(mark.kwargs["reason"])
        return str(mark.args[0]) if mark.args else "unconditional skip"
    return None


def _evaluate(item: pytest.Item, mark: pytest.Mark, condition: object) -> str | None:
    """The skip reason when ``condition`` holds (evaluated the way pytest does), else None."""
    if isinstance(condition, str):
        namespace: dict[str, Any] = {
            "os": os,
            "sys": sys,
            "platform": platform,
            "config": item.config,
        }
        module = getattr(item, "obj", None)
        namespace.update(getattr(module, "__globals__", {}))
        try:
            holds = bool(eval(condition, namespace))  # pytest evaluates string conditions too
        except Exception as exc:
            raise pytest.UsageError(
                f"{item.nodeid}: cannot evaluate skipif condition {condition!r}: "
                f"{type(exc).__name__}: {exc}"
            ) from None
        default = f"condition: {condition}"
    else:
        holds = bool(condition)
        default = ""
    if not holds:
        return None
    return str(mark.kwargs.get("reason", default))
