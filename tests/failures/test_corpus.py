"""Every log of the real-world corpus is a test case: its labelled category and stage.

The corpus lives under ``corpus/<shard>/`` (``manifest.json`` plus the logs); see
``pytest_blackwell.failures.corpus`` for the format. ``holdout`` entries are measured here too,
but rules are never tuned on them: a wrong holdout entry is a finding, not a rule to add.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_blackwell.failures import classify_log
from pytest_blackwell.failures.corpus import CorpusError, Entry, load_corpus, score

CORPUS = Path(__file__).parent / "corpus"
ENTRIES = load_corpus(CORPUS)


def test_the_corpus_is_there() -> None:
    assert len(ENTRIES) >= 20
    assert any(e.category is None for e in ENTRIES), "healthy logs are part of the corpus"


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e.split == "dev"], ids=lambda e: e.name)
def test_dev_log_never_missed_and_healthy_logs_stay_quiet(entry: Entry) -> None:
    failure = classify_log(entry.path)
    if entry.category is None:
        assert failure is None, f"false alarm on a healthy log ({entry.source}): {failure}"
    else:
        assert failure is not None, f"missed failure ({entry.source}): {entry.reason}"
        assert failure.first_error
        assert set(failure.evidence) == {"category", "stage"}


def test_dev_accuracy_meets_the_targets() -> None:
    result = score(ENTRIES, ("dev",))["dev"]
    assert not result.missed
    assert not result.false_alarms
    assert result.category_accuracy >= 0.97, result.wrong
    assert result.stage_accuracy >= 0.90, result.wrong


def test_bad_manifest_says_what_and_where(tmp_path: Path) -> None:
    shard = tmp_path / "x"
    shard.mkdir()
    (shard / "a.log").write_text("ERROR boom\n")
    entry = {
        "file": "a.log",
        "source": "o/r#1",
        "engine": "vllm",
        "gpu": None,
        "category": "device_oom",
        "stage": "booting",
        "reason": "",
        "split": "dev",
    }
    (shard / "manifest.json").write_text(json.dumps([entry]))
    with pytest.raises(CorpusError, match=r"manifest.json: entry 0: stage 'booting' is not one of"):
        load_corpus(tmp_path)


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_quick_scan_gives_the_thorough_answer(entry: Entry) -> None:
    """A file is scanned quickly first; reading every line in full must say the same."""
    lines = entry.path.read_text(encoding="utf-8").splitlines()
    assert classify_log(entry.path) == classify_log(lines)
