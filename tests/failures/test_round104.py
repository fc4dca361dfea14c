"""Mechanisms of the hundred-and-fourth round, tuned on the read half of the thirty-fifth batch
(large MoE serving, vision-language models, RL frameworks, CUDA graphs in engines).

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both

_SITE = "/opt/venv/lib/python3.12/site-packages"


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # torch's allocator finding the capture it serves invalidated
        (
            [
                "RuntimeError: status != cudaStreamCaptureStatus::"
                "cudaStreamCaptureStatusInvalidated INTERNAL ASSERT FAILED at "
                '"c10/cuda/CUDACachingAllocator.cpp":978, please report a bug to PyTorch.'
            ],
            "stream_capture",
            "graph_capture",
        ),
        # a traceback whose exception line the paste mangled: an exception all the same
        (
            [
                "Traceback (most recent call last):",
                '  File "/srv/run.py", line 50, in <module>',
                "    main()",
                "out = normalize(f(args))",
                "",
                '  File "/srv/site-pa',
            ],
            "unknown",
            "unknown",
        ),
        # vLLM's CUDA-graph wrapper, among its compilation modules, captures
        (
            [
                "Traceback (most recent call last):",
                f'  File "{_SITE}/vllm/compilation/cuda_graph.py", line 210, in __call__',
                "    with torch.cuda.graph(cudagraph, pool=self.pool):",
                f'  File "{_SITE}/vllm/compilation/cuda_graph.py", line 230, in __call__',
                "    output = self.runnable(*args, **kwargs)",
            ],
            "unknown",
            "graph_capture",
        ),
        # (its other modules still compile)
        (
            [
                "Traceback (most recent call last):",
                f'  File "{_SITE}/vllm/compilation/backends.py", line 90, in compile',
                "    compiled = self.compiler(graph, example_inputs)",
                f'  File "{_SITE}/vllm/compilation/backends.py", line 120, in call',
                "    return fn(*args)",
            ],
            "unknown",
            "compile",
        ),
    ],
)
def test_round104_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_a_traceback_logged_at_a_quiet_level_stays_quiet(tmp_path: Path) -> None:
    """A handled exception's traceback in a warning record is no failure."""
    lines = [
        "WARNING 12-01 10:00:00 [utils.py:12] Traceback (most recent call last):",
        'WARNING 12-01 10:00:00 [utils.py:12]   File "/srv/probe.py", line 3, in probe',
        "WARNING 12-01 10:00:00 [utils.py:12] retrying with the fallback",
        "INFO 12-01 10:00:01 [server.py:1] server ready",
    ]
    assert classify_both(tmp_path, lines) is None


def test_the_file_names_a_frame_cut_before_its_function(tmp_path: Path) -> None:
    """A frame line cut before ``in f`` is named by its file in the stage's evidence."""
    failure = classify_as(
        tmp_path,
        [
            "Traceback (most recent call last):",
            f'  File "{_SITE}/torch/_dynamo/eval_frame.py", line 451',
            "    return fn(*args, **kwargs)",
            f'  File "{_SITE}/torch/_dynamo/convert_frame.py", line 30',
        ],
        "unknown",
        "compile",
    )
    assert failure.evidence["stage"] == "frame convert_frame.py"
