"""The second, blind reading of a sample of the corpus: it loads, and the agreement script reports
it (and refuses a reading of a log the corpus does not hold, saying which)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]
SCRIPT = ROOT / "bench" / "label_agreement.py"
READINGS = ROOT / "tests" / "failures" / "second_reading" / "readings.json"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=120
    )


def test_every_reading_names_a_corpus_log_once() -> None:
    readings = json.loads(READINGS.read_text(encoding="utf-8"))
    logs = [r["log"] for r in readings]
    assert len(logs) == len(set(logs)) >= 100
    for log in logs:
        shard, name = log.split("/")
        assert (ROOT / "tests" / "failures" / "corpus" / shard / name).is_file(), log


def test_the_agreement_script_counts_what_the_readings_hold() -> None:
    readings = json.loads(READINGS.read_text(encoding="utf-8"))
    proc = _run("--list")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert f"readings: {len(readings)} logs read twice" in out
    for label in ("same category:", "same stage:", "same category and stage:"):
        assert label in out
    # every disagreement is listed with both readings
    differ = [line for line in out.splitlines() if line.strip().startswith("DIFFER ")]
    assert all(": first " in line and ", second " in line for line in differ)


def test_a_reading_of_a_log_the_corpus_lacks_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "readings.json"
    bad.write_text(
        json.dumps([{"log": "fresh8/no-such-log.log", "category": "timeout", "stage": "execute"}]),
        encoding="utf-8",
    )
    proc = _run("--readings", str(bad))
    assert proc.returncode == 2
    assert "'fresh8/no-such-log.log' is no log of the corpus" in proc.stderr
    assert "reading 0" in proc.stderr
