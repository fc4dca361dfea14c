"""The example suite is documentation that runs: the README's first command, checked."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.engine
@pytest.mark.skipif(importlib.util.find_spec("vllm") is None, reason="vLLM not installed")
def test_example_suite_runs_green_with_a_simulated_rtx_pro_6000(tmp_path: Path) -> None:
    suite = tmp_path / "example_suite"
    shutil.copytree(ROOT / "example_suite", suite, ignore=shutil.ignore_patterns(".pytest_*"))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            str(suite),
            "-p",
            "no:cacheprovider",
            "--blackwell-device",
            "rtx-pro-6000",
            f"--junitxml={tmp_path / 'junit.xml'}",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-6000:]
    assert "blackwell matrix" in output
    assert (
        "(the device NVIDIA RTX PRO 6000 Blackwell Workstation Edition (sm_120) is simulated"
        in (output)
    )
    artifacts = suite / ".pytest_blackwell"
    results = json.loads((artifacts / "results.json").read_text())
    by_id = {entry["config_id"]: entry for entry in results["configs"]}
    too_small = next(entry for key, entry in by_id.items() if "kvmem=64KiB" in key)
    failure = too_small["failure"]
    assert (failure["category"], failure["stage"]) == ("kv_cache_oom", "kv_alloc")
    # Engine results name the device the engines really ran on, not the simulated one.
    assert [d["name"] for d in results["devices"]] == ["CPU"]
    reports = list((artifacts / "reports").glob("*.md"))
    assert any("kvmem=64KiB" in report.name for report in reports)
    # The downstream conftest's result hook saw every launch.
    dashboard = (artifacts / "dashboard.jsonl").read_text().splitlines()
    assert len(dashboard) == len(by_id)


def test_every_example_test_runs_on_some_card_of_the_documented_matrix() -> None:
    """The README's hardware table, checked by collection: no example test is unrunnable on the
    cards it documents, and the field-report engine tests run on the card of their report."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest_blackwell",
            "plan",
            "--devices",
            "rtx-pro-6000,rtx-pro-4000,gb10,b200,h100,cpu",
            "--format",
            "json",
            "--fail-on-unrunnable",
            "--",
            "example_suite",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    plan = json.loads(done.stdout)
    assert plan["unrunnable"] == []
    outcomes = {t["nodeid"].split("[")[0]: t["outcomes"] for t in plan["tests"]}
    gb10 = outcomes["test_field_reports.py::test_gb10_triton_backend_cures_it"]
    assert [d for d, o in gb10.items() if o == "run"] == ["gb10"]
    hybrid = outcomes["test_field_reports.py::test_hybrid_state_does_not_fit_whatever_the_kv_dtype"]
    assert [d for d, o in hybrid.items() if o == "run"] == ["rtx-pro-6000", "rtx-pro-4000"]
    # Without a GPU only the log tests and the engine tests that need none run.
    assert plan["launches"]["cpu"] == 4
