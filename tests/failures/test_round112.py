"""Mechanisms of the hundred-and-twelfth round, tuned on the read half of the forty-second batch
(request-time failures of LLM servers, PyTorch core, production deployments, diffusion).

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # nvcc's fatal error indented in a build's output, behind a compose service's prefix
        (
            [
                "app-gpu-1  |     /usr/local/cuda/bin/nvcc -c kernels/attn.cu -o build/attn.o",
                "app-gpu-1  |     nvcc fatal   : Unsupported gpu architecture 'compute_200'",
                "app-gpu-1  |",
            ],
            "dispatch_failure",
            "compile",
        ),
        (
            [
                "app-gpu-1  |     /usr/local/cuda/bin/nvcc -c kernels/attn.cu -o build/attn.o",
                "app-gpu-1  |     nvcc fatal   : A single input file is required for a non-link "
                "phase when an outputfile is specified",
            ],
            "unknown",
            "compile",
        ),
        # Flask's report of an exception raised while it handled a request
        (
            [
                "[2026-01-01 10:00:00,000] ERROR in app: Exception on /v1/chat [POST]",
                "Traceback (most recent call last):",
                '  File "/srv/app.py", line 9, in handle',
                "KeyError: 'prompt'",
            ],
            "unknown",
            "execute",
        ),
        # a structured-output grammar refusing the tokens a request generated
        (
            [
                "ERROR 01-01 10:00:00 [backend_xgrammar.py:160] Failed to advance FSM for request "
                "chatcmpl-x for tokens 42. Please file an issue."
            ],
            "unknown",
            "execute",
        ),
        # a configuration file named as not found
        (
            ["ERROR router: Server error: Can't find 'adapter_config.json' at '/data/adapters/a1'"],
            "unsupported_config",
            "unknown",
        ),
        # torch's broadcast check, as its expand check already was
        (
            [
                "RuntimeError: The size of tensor a (77) must match the size of tensor b (256) at "
                "non-singleton dimension 1"
            ],
            "unsupported_config",
            "unknown",
        ),
    ],
)
def test_round112_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_fatal_inside_a_word_is_no_error(tmp_path: Path) -> None:
    """Only ``fatal:`` as a word is an error's: a count of non-fatal issues is no failure."""
    lines = ["checked 40 files", "    non-fatal: 0 issues, 2 notes", "done"]
    assert classify_both(tmp_path, lines) is None
