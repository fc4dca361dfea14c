"""The classifier's benchmarks run end to end at a small size."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).parents[2] / "bench" / "classify_throughput.py"


def _run(script: Path, *args: str, timeout: int = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(script), *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
    )


def test_bench_reports_throughput_ratio_and_memory() -> None:
    proc = _run(BENCH, "--size-mb", "2", "--rounds", "1")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "device_oom at execute" in out
    for label in ("MB/s", "ratio:", "peak memory:"):
        assert label in out


STREAM = Path(__file__).parents[2] / "bench" / "stream_throughput.py"


def test_stream_bench_reports_each_log_against_the_quiet_one() -> None:
    proc = _run(STREAM, "--lines", "2000", "--rounds", "1")
    assert proc.returncode == 0, proc.stderr  # (it checks each log's answer first)
    for label in ("quiet:", "noisy:", "dense:", "us/line", "ratio to quiet", "target:"):
        assert label in proc.stdout, label


ACCURACY = Path(__file__).parents[2] / "bench" / "classify_accuracy.py"


def test_accuracy_bench_reports_both_splits_and_the_confusion_matrix() -> None:
    # (the whole corpus, about two minutes on one idle core; the limit only catches a hang, and
    # leaves room for a runner whose other core runs the rest of the suite)
    proc = _run(ACCURACY, timeout=900)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for label in (
        "== dev:",
        "== holdout:",
        "category accuracy:",
        "stage accuracy:",
        "missed failures:",
        "false alarms:",
        "per category:",
        "per stage:",
        "confusion (rows: expected category",
    ):
        assert label in out, label


def test_accuracy_bench_rejects_a_bad_manifest(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text("{}")
    proc = _run(ACCURACY, "--corpus", str(tmp_path), timeout=60)
    assert proc.returncode == 2
    assert "manifest.json: expected a JSON list of entries" in proc.stderr
