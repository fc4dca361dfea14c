"""Mechanisms of the hundred-and-twenty-seventh round, tuned on the read half of the fifty-third
batch (GPU jobs on HPC clusters, multi-LoRA serving, model export and ahead-of-time
compilation, vision-language models).

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # a program that could not start another, missing from the container
        (
            [
                "slurmstepd: error: pyxis:     enroot-switchroot: failed to execute: /bin/sh: No "
                "such file or directory"
            ],
            "env_mismatch",
            "unknown",
        ),
        (["couldn't execute 'python3': No such file or directory"], "env_mismatch", "unknown"),
        # a server's entry function sets the engine up and then serves: a traceback cut inside
        # it tells no stage
        (
            [
                "Traceback (most recent call last):",
                '  File "/usr/bin/mysrv", line 8, in <module>',
                "    sys.exit(run())",
                '  File "/opt/mysrv/server.py", line 88, in serve',
                "    app = make_app(",
            ],
            "unknown",
            "unknown",
        ),
        # (what it calls still tells)
        (
            [
                "Traceback (most recent call last):",
                '  File "/opt/mysrv/server.py", line 88, in serve_inner',
                "    model = load_model(path)",
                '  File "/opt/mysrv/models.py", line 12, in load_model',
                "    raise RuntimeError(f'cannot read {path}')",
                "RuntimeError: cannot read /models/x",
            ],
            "unknown",
            "loading",
        ),
        # the executor's report of a dead worker, its line cut by a paste
        (
            ["CRITICAL 04-08 17:09:58 [multiproc_executor.py:48] MulitprocExecutor got fatal sig"],
            "engine_died",
            "unknown",
        ),
    ],
)
def test_round127_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    "lines",
    [
        ["INFO got fatal signal handlers installed for workers"],
        ["INFO exec probe: /bin/sh found, execution ok"],
    ],
)
def test_round127_quiet_lines(tmp_path: Path, lines: list[str]) -> None:
    assert classify_both(tmp_path, lines) is None


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # (review) a death glued to a line padded with blanks after it
        (
            [
                "2024-05-01 12:00:00 INFO step 12 loss 0.31Segmentation fault (core dumped)"
                + " " * 40
            ],
            "engine_died",
            "execute",
        ),
        # (review) a query a CPU build has too is no build without CUDA
        (
            ["AttributeError: module 'paddle' has no attribute 'is_compiled_with_cuda'"],
            "unknown",
            "unknown",
        ),
        # (review) what a server's entry calls still tells
        (
            [
                "Traceback (most recent call last):",
                '  File "/opt/mysrv/server.py", line 88, in serve_inner',
                "    outputs = self.generate(batch)",
                '  File "/usr/lib/python3/site-packages/torch/utils/_contextlib.py", line 116, in '
                "decorate_context",
                "    return func(*args, **kwargs)",
                "RuntimeError: CUDA error: an illegal memory access was encountered",
            ],
            "illegal_memory_access",
            "execute",
        ),
        # (review) other programs' words for a program that is not there
        (["/usr/bin/env: 'python3': No such file or directory"], "env_mismatch", "unknown"),
        (
            ["slurmstepd: error: execve(): train.py: No such file or directory"],
            "env_mismatch",
            "unknown",
        ),
        (
            ["exec /usr/local/bin/docker-entrypoint.sh: no such file or directory"],
            "env_mismatch",
            "unknown",
        ),
        (['couldn\'t execute "python3": No such file or directory'], "env_mismatch", "unknown"),
    ],
)
def test_review_of_round127_readings(
    tmp_path: Path, lines: list[str], category: str, stage: str
) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.timeout(60)
def test_review_of_round127_pane_border_check_is_linear(tmp_path: Path) -> None:
    """(review) the check for a terminal pane's right border backtracked over a long run of
    blanks that ended in no border (170 s for 100,000)."""
    lines = ["step 1 done", "x step done" + " " * 100000 + "y", "step 2 done", "Killed"]
    assert classify_as(tmp_path, lines, "engine_died", "unknown").first_error == "Killed"
