"""The throughput benchmark runs end to end at a small size."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).parents[2] / "bench" / "classify_throughput.py"


def test_bench_reports_throughput_ratio_and_memory() -> None:
    proc = subprocess.run(
        [sys.executable, str(BENCH), "--size-mb", "2", "--rounds", "1"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "device_oom at execute" in out
    for label in ("MB/s", "ratio:", "peak memory:"):
        assert label in out
