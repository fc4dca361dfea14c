"""``results.json``: what every engine configuration did in a session, for reports and tools.

xdist workers hand their records to the controller (``workeroutput``); the controller (or a run
without xdist) merges them with its own into ``results.json`` and writes the bug reports. The
shape is documented in docs/architecture.md.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_blackwell.device.model import DeviceInfo

SCHEMA = 2
RESULTS_FILE = "results.json"


def merge_records(groups: Iterable[Iterable[Mapping[str, Any]]]) -> list[dict[str, Any]]:
    """One entry per configuration id; launches add up and test lists join.

    Two workers may run the same configuration: the first failure recorded wins, so a flaky
    configuration shows as failed rather than hiding behind a later success.
    """
    merged: dict[str, dict[str, Any]] = {}
    for group in groups:
        for record in group:
            key = str(record["config_id"])
            if key not in merged:
                merged[key] = {**record, "tests": list(record.get("tests") or [])}
                continue
            entry = merged[key]
            entry["launches"] = int(entry.get("launches") or 0) + int(record.get("launches") or 0)
            entry["tests"] = sorted({*entry["tests"], *(record.get("tests") or [])})
            if entry.get("outcome") == "passed" and record.get("outcome") != "passed":
                keep = {"launches": entry["launches"], "tests": entry["tests"]}
                merged[key] = {**record, **keep}
    return list(merged.values())


def _write_json(path: Path, data: Mapping[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def write_results(
    out_dir: Path, configs: list[dict[str, Any]], devices: Sequence[DeviceInfo]
) -> list[Path]:
    """Write ``results.json`` and the bug reports of the session's (merged) configurations.

    Returns the files written for people to read (none when no engine ran).
    """
    if not configs:
        return []
    from pytest_blackwell.report.bugreport import write_bug_reports
    from pytest_blackwell.report.envinfo import collect_environment
    from pytest_blackwell.report.redact import Redactor

    environment = collect_environment(devices)
    for entry in configs:  # the engine child knows the versions it really ran with
        for name, version in (entry.get("versions") or {}).items():
            environment.setdefault(name, None)
            environment[name] = environment[name] or version
    redactor = Redactor.from_environ()
    results = redactor.redact_data(
        {
            "schema": SCHEMA,
            "devices": [d.to_dict() for d in devices],
            "environment": environment,
            "configs": configs,
        }
    )
    path = out_dir / RESULTS_FILE
    _write_json(path, results)
    # Reports of an earlier run would read as this run's failures: start the set afresh.
    for old in (out_dir / "reports").glob("*.md") if (out_dir / "reports").is_dir() else []:
        old.unlink()
    return [path, *write_bug_reports(results, out_dir, redactor=redactor)]
