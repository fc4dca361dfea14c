"""``python -m pytest_blackwell classify``: summaries, JSON lines and unreadable input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_blackwell.cli import main

LOGS = Path(__file__).parent / "logs"


def test_readable_summary(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["classify", str(LOGS / "smem_triton.log")])
    out = capsys.readouterr().out
    assert status == 0
    assert "smem_triton.log:11: smem_limit at compile" in out
    assert "out of resource: shared memory, Required: 232448" in out
    assert "limit_bytes=101376" in out
    assert "required_bytes=232448" in out


def test_json_lines_one_per_file(capsys: pytest.CaptureFixture[str]) -> None:
    files = [LOGS / "kv_no_memory_v1.log", LOGS / "clean_run.log"]
    status = main(["classify", "--json", *map(str, files)])
    assert status == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [set(r) for r in records] == [
        {"file", "category", "stage", "first_error", "line", "detail", "evidence"}
    ] * 2
    first, clean = records
    assert first["file"] == str(files[0])
    assert (first["category"], first["stage"], first["line"]) == ("kv_cache_oom", "kv_alloc", 31)
    assert first["detail"] == {"process": "EngineCore_DP0"}
    assert first["evidence"]["category"] == "rule kv_no_memory"
    assert clean["category"] is None
    assert clean["evidence"] == {}
    assert clean["stage"] is None


def test_readable_output_says_why(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["classify", str(LOGS / "kv_no_memory_v1.log")]) == 0
    out = capsys.readouterr().out
    assert "why: category from rule kv_no_memory; stage from " in out


def test_no_error_is_reported_in_words(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["classify", str(LOGS / "clean_run.log")]) == 0
    assert capsys.readouterr().out.strip().endswith("clean_run.log: no error found")


def test_unreadable_files_get_a_message_and_a_failing_status(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    binary = tmp_path / "core.bin"
    binary.write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\x00" * 50)
    latin = tmp_path / "latin1.log"
    latin.write_bytes(b"INFO ok\nERROR caf\xe9 au lait\n")
    missing = tmp_path / "missing.log"
    good = LOGS / "stream_capture.log"
    status = main(["classify", "--json", str(binary), str(latin), str(missing), str(good)])
    captured = capsys.readouterr()
    assert status == 1
    err = captured.err
    assert f"{binary}: not a text log: NUL byte at line 1" in err
    assert f"{latin}: invalid UTF-8 at line 2" in err
    assert f"{missing}: cannot read: No such file or directory" in err
    assert "Traceback" not in err
    # The readable file is still classified.
    (record,) = [json.loads(line) for line in captured.out.splitlines()]
    assert record["category"] == "stream_capture"


def test_directory_is_unreadable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["classify", str(tmp_path)]) == 1
    assert f"{tmp_path}: cannot read:" in capsys.readouterr().err


def test_stdin_via_module_entry_point() -> None:
    log = (LOGS / "engine_died_oom_killer.log").read_bytes()
    proc = subprocess.run(
        [sys.executable, "-m", "pytest_blackwell", "classify", "--json", "-"],
        input=log,
        capture_output=True,
        check=False,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    record = json.loads(proc.stdout)
    assert record["file"] == "-"
    assert (record["category"], record["stage"]) == ("engine_died", "loading")
    assert record["detail"]["signal"] == "SIGKILL"


def test_binary_stdin_fails_cleanly() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pytest_blackwell", "classify", "-"],
        input=b"\x00\x01\x02garbage",
        capture_output=True,
        check=False,
        timeout=60,
    )
    assert proc.returncode == 1
    assert b"<stdin>: not a text log" in proc.stderr
    assert b"Traceback" not in proc.stderr
