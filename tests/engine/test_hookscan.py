"""The static hook-point check, run against the installed vLLM: a point that disappears fails."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from pytest_blackwell.engine.hookscan import SourceError, render_markdown, scan
from pytest_blackwell.engine.stagepoints import STAGE_POINTS, StagePoint, expected_in

ROOT = Path(__file__).resolve().parents[2]


def _installed_vllm() -> Path:
    spec = importlib.util.find_spec("vllm")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("vLLM is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def test_every_stage_point_of_the_installed_vllm_is_still_there() -> None:
    result = scan(_installed_vllm())
    assert result.version != "unknown"
    gone = [f"{s.point.name}: {s.how}" for s in result.missing()]
    assert gone == [], f"vLLM {result.version} lost stage points the hooks wrap"
    # At least the CPU engine's own points are expected in every supported release.
    cpu_points = [s for s in result.points if s.point.platform == "cpu"]
    assert cpu_points
    assert all(s.present for s in cpu_points)


def test_the_stage_trackers_core_log_markers_exist_in_the_installed_vllm() -> None:
    result = scan(_installed_vllm())
    core = ("Model loading took", "Available KV cache memory", "Dynamo bytecode transform")
    assert {m: result.markers[m] for m in core} == dict.fromkeys(core, True)


def _fake_tree(root: Path, worker_body: str, version: str = "0.30.0") -> Path:
    (root / "vllm" / "v1" / "worker").mkdir(parents=True)
    (root / "vllm" / "__init__.py").write_text("")
    (root / "vllm" / "_version.py").write_text(f"__version__ = version = '{version}'\n")
    (root / "vllm" / "v1" / "worker" / "gpu_worker.py").write_text(worker_body)
    (root / "vllm" / "log.py").write_text('logger.info(("Model loading " "took %s"), x)\n')
    return root


def test_a_method_that_moved_away_is_reported_missing(tmp_path: Path) -> None:
    tree = _fake_tree(tmp_path, "class Worker:\n    def determine_available_memory(self): ...\n")
    result = scan(tree)
    by_name = {s.point.name: s for s in result.points}
    load = by_name["vllm.v1.worker.gpu_worker:Worker.load_model"]
    assert (load.present, load.how) == (False, "class Worker has no load_model")
    assert by_name["vllm.v1.worker.gpu_worker:Worker.determine_available_memory"].present
    assert load in result.missing()
    # Adjacent string literals are one message, as in vLLM's own log calls.
    assert result.markers["Model loading took"] is True
    assert result.markers["Available KV cache memory"] is False


def test_a_wheel_is_read_like_a_tree_and_the_script_prints_the_table(tmp_path: Path) -> None:
    tree = _fake_tree(tmp_path / "src", "class Worker:\n    def load_model(self): ...\n")
    wheel = tmp_path / "vllm-0.30.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        for file in tree.rglob("*.py"):
            zf.write(file, file.relative_to(tree).as_posix())
        zf.writestr("vllm-0.30.0.dist-info/METADATA", "Name: vllm\nVersion: 0.30.0\n")
    assert scan(wheel).version == "0.30.0"
    done = subprocess.run(
        [sys.executable, "scripts/vllm_hookpoints.py", str(wheel), "--check"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 1  # points missing inside their range
    assert "| `vllm.v1.worker.gpu_worker:Worker.load_model` -> loading | yes |" in done.stdout
    assert "vLLM 0.30.0 lacks vllm.v1.worker.gpu_worker:Worker.determine_available_memory" in (
        done.stderr
    )
    assert render_markdown([scan(wheel)]).startswith("### Stage points")


def test_not_a_vllm_source_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="expected a vLLM wheel"):
        scan(tmp_path)


def test_version_ranges_of_points() -> None:
    point = StagePoint("m", "", "f", "profile", since="0.22.1", until="0.33.0")
    assert not expected_in(point, "0.10.0")
    assert expected_in(point, "0.22.1")
    assert expected_in(point, "0.33.0+cpu")
    assert not expected_in(point, "0.34.0")
    assert all(p.before for p in STAGE_POINTS)
