"""Mechanisms of the twenty-eighth round (tuned on fresh80-fresh83, the big engines' threads): a
traceback whose paste ends in a line cut short, vLLM V0's profile run, CUDA's number for a missing
kernel image, an architecture compared with a number, a Windows DLL that fails to initialise, a
server backend built for another API, a helper process found unhealthy, torchelastic's launcher
and its summary as wrappers of the death they report, a warning that says it is one, and the
stack an Inductor notice was found from. The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # a paste that ends inside a traceback, on the start of a line cut short
        (
            [
                "(Worker pid=7) Traceback (most recent call last):",
                '(Worker pid=7)   File "/srv/runner.py", line 9, in load_model',
                "(Worker pid=7)     self.model = get_model(config)",
                "(",
            ],
            "unknown",
            "loading",
        ),
        (
            [
                "INFO 01-01 00:00:00 runner.py:1] Starting profile run for multi-modal models.",
                "[rank0]: Traceback (most recent call last):",
                '[rank0]:   File "/srv/main.py", line 3, in <module>',
                "[rank0]:     main()",
                "[rank0]:   Fil",
            ],
            "unknown",
            "profile",
        ),
        # CUDA's number for a missing kernel image, its message cut
        (["CUDA error 209 at /go/src/ggml-cuda.cu:101"], "dispatch_failure", "unknown"),
        # a dtype refused below an architecture compared with a number
        (
            ["AssertionError: fp8e4nv data type is not supported on CUDA arch < 89"],
            "dispatch_failure",
            "unknown",
        ),
        # Windows: a DLL that fails to initialise as it is loaded (round 46: the start-up prior
        # of a library that cannot load, like a shared object that cannot be opened)
        (
            ["OSError: [WinError 1114] A dynamic link library (DLL) initialization routine failed"],
            "env_mismatch",
            "startup",
        ),
        # a server's backend built for another version of its API
        (
            [
                "E0101 00:00:00.000 1 model_lifecycle.cc:1] failed to load 'nms' version 1: "
                "Unsupported: Triton backend API version does not support this backend"
            ],
            "env_mismatch",
            "loading",
        ),
        # a helper process its parent found dead
        (
            [
                "E0101 00:00:00.000 1 model_lifecycle.cc:1] failed to load 'm' version 1: "
                "Internal: Stub process 'm_0' is not healthy."
            ],
            "engine_died",
            "loading",
        ),
        # torchelastic's launcher and its summary: the death they report is the answer
        (
            [
                "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
                "============================================================",
                "train.py FAILED",
                "Root Cause (first observed failure):",
                "[0]:",
                "  exitcode  : -9 (pid: 14750)",
                "  traceback : Signal 9 (SIGKILL) received by PID 14750",
            ],
            "engine_died",
            "unknown",
        ),
    ],
)
def test_round28_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_a_warning_that_says_it_is_one_is_no_failure(tmp_path: Path) -> None:
    lines = [
        "/env/lib/onnxruntime/capi/onnxruntime_validation.py:114: UserWarning: WARNING: failed "
        "to get cudart_version from onnxruntime build info.",
        "INFO 01-01 00:00:00 llm_engine.py:1] Initializing an LLM engine with config: ...",
    ]
    assert classify_both(tmp_path, lines) is None


def test_the_stack_a_notice_was_found_from_is_no_traceback(tmp_path: Path) -> None:
    lines = [
        "skipping cudagraphs due to cpu device (arg7_1). Found from :",
        '   File "models/flux.py", in forward',
        "    out = self.forward_orig(img)",
        '  File "models/layers.py", in forward',
        "    return self.out_layer(x)",
    ]
    assert classify_both(tmp_path, lines) is None


def test_a_traceback_ending_in_an_exception_name_is_still_that_exception(tmp_path: Path) -> None:
    """Only the start of a line cut short (an indented piece, a lone bracket) reads as cut."""
    lines = [
        "Traceback (most recent call last):",
        '  File "a.py", line 1, in load_model',
        "    x()",
        "KeyError",
    ]
    failure = classify_as(tmp_path, lines, "unknown", "loading")
    assert failure.first_error == "KeyError"
