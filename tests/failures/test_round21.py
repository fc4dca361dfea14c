"""Mechanisms of the twenty-first round: the traceback printed after an error lends it the words
of its frames, pastes that broke a frame line after its ``in`` or kept a terminal's right border,
and command-line entries whose names tell no stage. The lines are of our own, in the shapes the
tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as

from pytest_blackwell.failures.frames import worded_frame
from pytest_blackwell.failures.unwrap import unbordered

CUT_AFTER_ERROR = [
    "ERROR:    CUDA error: an illegal memory access was encountered",
    "ERROR:    Traceback (most recent call last):",
    '  File "/srv/app/loop.py", line 88, in <module>',
    "    run_epoch(loader, model)",
    '  File "/srv/app/loop.py", line 41, in train_one_epoch',
    "    loss.backward()",
]


def test_the_cut_traceback_after_an_error_lends_it_the_words_of_its_frames(
    tmp_path: Path,
) -> None:
    failure = classify_as(tmp_path, CUT_AFTER_ERROR, "illegal_memory_access", "execute")
    assert failure.evidence["stage"] == "frame train_one_epoch (traceback after the error)"
    # without a worded frame, nothing tells
    plain = [line.replace("train_one_epoch", "run_epoch") for line in CUT_AFTER_ERROR]
    classify_as(tmp_path, plain, "illegal_memory_access", "unknown")


def test_a_frame_line_broken_after_its_in_takes_the_name_on_the_next_line(
    tmp_path: Path,
) -> None:
    broken = [
        "2026-01-02 03:04:05.678 ERROR:    CUDA error: an illegal memory access was encountered",
        "2026-01-02 03:04:05.679 ERROR:    Traceback (most recent call last):",
        '2026-01-02 03:04:05.679 ERROR:      File "/srv/api/completion.py", line 572, in ',
        "stream_generate_chat_completion",
        "2026-01-02 03:04:05.679 ERROR:        raise generation",
    ]
    failure = classify_as(tmp_path, broken, "illegal_memory_access", "execute")
    assert "stream_generate_chat_completion" in failure.evidence["stage"]
    # a sentence on the next line is no function name
    sentence = [*broken[:3], "the request was cancelled", broken[4]]
    classify_as(tmp_path, sentence, "illegal_memory_access", "unknown")


def _bordered(lines: list[str], bar: str = "x", width: int = 100) -> list[str]:
    return [f"{line:<{width}}   {bar}" for line in lines]


def test_a_terminal_right_border_is_taken_off_before_the_frames_are_read(
    tmp_path: Path,
) -> None:
    lines = [
        "THCudaCheck FAIL file=/src/THC/alloc.cpp line=27 error=4 : unspecified launch failure",
        "Traceback (most recent call last):",
        '  File "main.py", line 464, in <module>',
        "    train(loader, model)",
        '  File "main.py", line 163, in train',
        "    loss.backward()",
    ]
    failure = classify_as(tmp_path, _bordered(lines), "illegal_memory_access", "execute")
    assert failure.first_error.endswith("unspecified launch failure")
    assert unbordered(_bordered(lines, "│")) == lines


@pytest.mark.parametrize(
    "lines",
    [
        # a table whose last column happens to be one letter on a few rows only
        ["name   size   x", "alpha  12     y", "beta   7      z", "gamma  3      x"],
        # a box drawn on both sides (Rich) is not a pane border
        ["│ a              │", "│ b              │", "│ c              │"],
        # two lines are not enough evidence
        ["first line       x", "second line      x"],
    ],
)
def test_no_border_is_taken_off_without_evidence(lines: list[str]) -> None:
    assert unbordered(lines) is None


@pytest.mark.parametrize(
    "path",
    [
        "/usr/lib/python3/site-packages/vllm/scripts.py",
        "/usr/lib/python3/site-packages/sglang/cli/serve.py",
        "/usr/lib/python3/site-packages/vllm/entrypoints/cli/serve.py",
        "/usr/lib/python3/site-packages/tool/__main__.py",
    ],
)
def test_a_command_line_entry_named_serve_tells_no_stage(path: str) -> None:
    lines = ["Traceback (most recent call last):", f'  File "{path}", line 42, in serve']
    assert worded_frame(lines) is None
    server = ["Traceback (most recent call last):", '  File "/srv/app/server.py", line 9, in serve']
    assert worded_frame(server) == ("execute", "frame serve")
