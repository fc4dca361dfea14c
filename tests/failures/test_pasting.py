"""Pasting damage: a log keeps its reading when it is wrapped, prefixed, fenced or coloured.

Two kinds of test. Lines of our own check each mechanism (fixed-width wrapping undone, what must
not be joined). Then the real dev corpus is damaged the ways people's pastes are (wrapped at a
terminal's width, prefixed by docker compose or kubectl, stamped by CI, quoted, fenced,
coloured): a log read right before the damage must, with few exceptions, be read the same after.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from classify_helpers import classify_both as _classify

from pytest_blackwell.failures import classify_log
from pytest_blackwell.failures.corpus import load_corpus
from pytest_blackwell.failures.unwrap import dedented, unwrapped, wrap_width


def _wrap(lines: list[str], width: int) -> list[str]:
    out: list[str] = []
    for line in lines:
        while len(line) > width:
            out.append(line[:width])
            line = line[width:]
        out.append(line)
    return out


_LOG = [
    "INFO 01-01 00:00:00 [gpu_model_runner.py:1] Starting to load model /models/tiny...",
    "(EngineCore_DP0 pid=7) ERROR 01-01 00:00:01 [core.py:700] EngineCore failed to start.",
    "(EngineCore_DP0 pid=7) ERROR 01-01 00:00:01 [core.py:700] Traceback (most recent call "
    "last):",
    '(EngineCore_DP0 pid=7) ERROR 01-01 00:00:01 [core.py:700]   File "/opt/venv/lib/python3.12/'
    'site-packages/vllm/v1/worker/gpu_worker.py", line 300, in determine_available_memory',
    "(EngineCore_DP0 pid=7) ERROR 01-01 00:00:01 [core.py:700]     self.model_runner.profile_run()",
    "(EngineCore_DP0 pid=7) ERROR 01-01 00:00:01 [core.py:700] torch.OutOfMemoryError: CUDA out of "
    "memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.55 GiB of which 1.10 GiB "
    "is free.",
]  # fmt: skip


@pytest.mark.parametrize("width", [80, 100, 132])
def test_a_wrapped_paste_reads_as_the_original(tmp_path: Path, width: int) -> None:
    original = _classify(tmp_path, _LOG)
    wrapped = _wrap(_LOG, width)
    assert wrap_width(wrapped) == width
    failure = _classify(tmp_path, wrapped)
    assert failure is not None
    assert original is not None
    assert (failure.category, failure.stage) == ("device_oom", "profile")
    assert failure.first_error == original.first_error
    # the line number is the paste's own: the first physical line of the joined message
    assert wrapped[failure.line - 1].startswith("(EngineCore_DP0 pid=7) ERROR")
    assert "torch.OutOfMemoryError" in wrapped[failure.line - 1]


def test_unwrapping_joins_pieces_and_counts_them() -> None:
    lines = ["a" * 70, "bbb", "c" * 70, "dd" + " " * 68, "e" * 70, "f"]
    assert list(unwrapped(lines, 70)) == [
        ("a" * 70 + "bbb", 2),
        ("c" * 70 + "dd" + " " * 68, 2),
        ("e" * 70 + "f", 2),
    ]


@pytest.mark.parametrize(
    "lines",
    [
        # one width by design: a table's rows, indented
        [f"  {n:>12}  {n * 4:>12}     float     sum      -1   {n % 97:6d}.5   1.00   2.00      0"
         for n in range(1000, 1008)],
        # padded lines end where they end
        [f"INFO step {n} done".ljust(90) for n in range(6)],
        # a Rich traceback box
        ["│ " + f"/opt/x/f{n}.py:{n} in go".ljust(76) + " │" for n in range(6)],
        # lines of one length, each a new record
        [f"[E{n:04d} 00:00:00 w.cc:1] worker {n} failed: connection reset by peer (errno 104)"
         for n in range(6)],
        # short lines
        ["x" * 40, "y" * 40, "z" * 40],
    ],
)  # fmt: skip
def test_logs_that_were_not_wrapped_stay_as_they_are(lines: list[str]) -> None:
    assert wrap_width(lines) is None


_DAMAGE: dict[str, Callable[[list[str]], list[str]]] = {
    "wrapped at 80": lambda ls: _wrap(ls, 80),
    "wrapped at 100": lambda ls: _wrap(ls, 100),
    "docker compose": lambda ls: [f"vllm-server-1  | {line}" for line in ls],
    "kubectl --prefix": lambda ls: [f"[pod/vllm-0/vllm] {line}" for line in ls],
    "CI timestamps": lambda ls: [f"2025-03-04T05:06:07.1234567Z {line}" for line in ls],
    "markdown quote": lambda ls: [f"> {line}" for line in ls],
    "markdown fence": lambda ls: ["```text", *ls, "```"],
    "indented code block": lambda ls: [f"    {line}" for line in ls],
    "Go timestamps": lambda ls: [f"2025/03/04 05:06:07 {line}" for line in ls],
    "journald": lambda ls: [f"Dec 03 10:11:12 gpu-host vllm[1234]: {line}" for line in ls],
    "ANSI colours": lambda ls: [
        re.sub(r"\b(ERROR|WARNING|INFO)\b", "\x1b[31m\\1\x1b[0m", line) for line in ls
    ],
}
#: Every third dev log: enough to show a mechanism broken, fast enough for every run.
_SAMPLE = [
    e
    for e in load_corpus(Path(__file__).parent / "corpus")
    if e.split == "dev" and e.category is not None
][::3]


def _changed_readings(damage: Callable[[list[str]], list[str]]) -> tuple[list[str], int]:
    """The sampled logs read right before ``damage`` and no longer after it, of how many."""
    changed, right = [], 0
    for entry in _SAMPLE:
        lines = entry.path.read_text(encoding="utf-8").splitlines()
        before = classify_log(lines)
        if before is None or (before.category, before.stage) != (entry.category, entry.stage):
            continue
        right += 1
        after = classify_log(damage(lines))
        if after is None or (after.category, after.stage) != (entry.category, entry.stage):
            changed.append(entry.name)
    return changed, right


@pytest.mark.parametrize("damage", sorted(_DAMAGE))
def test_pasting_damage_keeps_the_reading(damage: str) -> None:
    changed, right = _changed_readings(_DAMAGE[damage])
    assert right > 100
    assert len(changed) <= 0.05 * right, changed


def test_a_paste_indented_as_a_markdown_code_block_reads_as_the_original(tmp_path: Path) -> None:
    original = _classify(tmp_path, _LOG)
    for indent in ("    ", "\t"):
        failure = _classify(tmp_path, [f"{indent}{line}" for line in _LOG])
        assert failure == original


@pytest.mark.parametrize(
    "lines",
    [
        # bare frames share two spaces only: they stay frames
        ['  File "/opt/x/a.py", line 1, in go', "    go()", '  File "/opt/x/b.py", line 2, in f'],
        # one line not indented
        ["    a", "b", "    c"],
    ],
)
def test_only_a_common_indentation_of_a_code_block_is_taken_off(lines: list[str]) -> None:
    assert dedented(lines) is None


def test_dedenting_keeps_the_relative_indentation() -> None:
    assert dedented(["    Traceback:", "\tE"]) is None  # a tab is not four spaces
    assert dedented(["    Traceback:", "      File x", "", "    E"]) == [
        "Traceback:",
        "  File x",
        "",
        "E",
    ]


def test_a_frame_cut_by_a_paste_is_named_by_the_call_above_it(tmp_path: Path) -> None:
    lines = [
        "Traceback (most recent call last):",
        '  File "/opt/venv/lib/python3.12/site-packages/eng/engine.py", line 9, in start',
        "    self.model_runner.profile_run()",
        '  File "/opt/venv/lib/python3.12/site-packages/eng/worker/model_run',  # cut in the path
        "    self.model(x)",
        "RuntimeError: CUDA error: an illegal memory access was encountered",
    ]
    failure = _classify(tmp_path, lines)
    assert failure is not None
    assert (failure.category, failure.stage) == ("illegal_memory_access", "profile")
    assert failure.evidence["stage"] == "frame profile_run"


def test_a_frame_of_another_name_is_not_renamed_by_the_call_above_it(tmp_path: Path) -> None:
    lines = [
        "Traceback (most recent call last):",
        '  File "/opt/x/a.py", line 9, in start',
        "    self.profile_run()",
        '  File "/opt/x/b.py", line 3, in wrapper',  # a decorator's wrapper, not a cut name
        "    go()",
        "RuntimeError: boom",
    ]
    failure = _classify(tmp_path, lines)
    assert failure is not None
    assert failure.stage == "unknown"


def test_lines_cut_by_a_paste_lose_some_readings_but_not_most() -> None:
    changed, right = _changed_readings(lambda lines: [line[:120] for line in lines])
    assert len(changed) <= 0.25 * right, changed
