"""Mechanisms of the eleventh round (general evidence, for logs of libraries no rule knows).

A frame named for running the model on work tells the stage when nothing else does; lines
that only mention an error (advice, a fall-back) are no failure; a C program's abort naming its
source line and a plain "An error occurred" are errors. The lines are of our own, in the shapes
the libraries print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


@pytest.mark.parametrize(
    "func", ["stream_generate_chat_completion", "_random_sample", "training_step", "run_decode"]
)
def test_a_frame_running_the_model_on_work_is_execute(tmp_path: Path, func: str) -> None:
    lines = [
        "Traceback (most recent call last):",
        '  File "/srv/app/main.py", line 10, in handle',
        "    out = self.run(x)",
        f'  File "/srv/app/worker.py", line 20, in {func}',
        "    y = z.cpu()",
        "RuntimeError: CUDA error: an illegal memory access was encountered",
    ]
    failure = classify_as(tmp_path, lines, "illegal_memory_access", "execute")
    assert failure.evidence["stage"] == f"frame {func}"


def test_the_words_of_a_frame_are_weaker_than_the_message(tmp_path: Path) -> None:
    lines = [
        "Traceback (most recent call last):",
        '  File "/srv/app/worker.py", line 20, in generate_all',
        "    y = build(x)",
        "RuntimeError: error while capturing CUDA graph for batch 8: foo failed",
    ]
    classify_as(tmp_path, lines, "unknown", "graph_capture")


@pytest.mark.parametrize(
    "line",
    [
        "If you get `CUDA error: no kernel image is available` errors, reinstall the wheel.",
        "fused foo not available (No module named 'foo_ext'), falling back to a Python version",
        "WARNING: CUDA out of memory for the optional fast path, falling back to the CPU path",
    ],
)
def test_a_line_only_mentioning_an_error_is_none(tmp_path: Path, line: str) -> None:
    assert classify_both(tmp_path, ["starting", line, "serving on :8000"]) is None


def test_a_c_program_abort_naming_its_source_line_ends_an_excerpt(tmp_path: Path) -> None:
    lines = ["$ fooctl fit -c 9000000", "src/foo-sched.cpp:812: tensor (k_0) placed in a buffer"]
    failure = classify_as(tmp_path, lines, "unknown", "unknown")
    assert failure.first_error == lines[1]


def test_a_compiler_warning_naming_a_source_line_is_no_abort(tmp_path: Path) -> None:
    assert classify_both(tmp_path, ["build ok", "src/foo.cpp:12: warning unused x"]) is None


def test_an_error_occurred_is_an_error(tmp_path: Path) -> None:
    lines = ["got prompt", "Error occurred when executing FooLoader:", "", "the loader gave up"]
    # round 20: the node it names says what ran (a loader node loads weights), before the
    # queued prompt above it
    failure = classify_as(tmp_path, lines, "unknown", "loading")
    assert failure.first_error == lines[1]


@pytest.mark.parametrize(
    ("before", "stage"),
    [
        ("Processing Prompt (512 / 2048 tokens)", "execute"),
        ("got prompt", "execute"),
        ("Serving on http://0.0.0.0:9000.", "execute"),
        (
            'time=01:00 level=INFO source=server.go:1 msg="llama runner started in 3.1 seconds"',
            "execute",
        ),
        ("Loading model using mmap strategy", "loading"),
        ("INFO 01-01 00:00:00 model_runner.py:1 Loading model weights took 3.2 GB", "profile"),
    ],
)
def test_what_a_program_was_doing_before_its_error(tmp_path: Path, before: str, stage: str) -> None:
    lines = [before, "CUDA error: an illegal memory access was encountered"]
    failure = classify_as(tmp_path, lines, "illegal_memory_access", stage)
    assert failure.evidence["stage"].startswith("activity "), failure.evidence
