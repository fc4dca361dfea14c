"""Mechanisms of the fifty-eighth round, tuned on the whole corpus.

An exception's type alone followed by its message that names the type again (ComfyUI's report:
``Exception Type: RuntimeError``, then ``Exception Message: RuntimeError: ...``) is one message,
and a package older than its caller needs (``is not new enough``) is ``env_mismatch``. The same
error reported again right after it (ComfyUI's error report after the console's line) lends the
activity shown before the report (its ``Node Type``) when nothing before the first report
tells, but never the report's own words.
The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        (
            [
                "somelib is not new enough version, cannot apply the attention patch.",
                "",
                "# ComfyUI Error Report",
                "## Error Details",
                "- **Node ID:** 12",
                "- **Node Type:** SomeSampler",
                "- **Exception Type:** RuntimeError",
                "- **Exception Message:** RuntimeError: somelib is not new enough version, "
                "cannot apply the attention patch.",
            ],
            "env_mismatch",
            "execute",
        ),
        (
            [
                "CUDA error: no kernel image is available for execution on the device",
                "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
                "",
                "# ComfyUI Error Report",
                "## Error Details",
                "- **Node ID:** 7",
                "- **Node Type:** CLIPTextEncode",
                "- **Exception Type:** RuntimeError",
                "- **Exception Message:** CUDA error: no kernel image is available for execution "
                "on the device",
            ],
            "dispatch_failure",
            "execute",
        ),
        (
            [
                "CUDA error: no kernel image is available for execution on the device",
                "",
                "# ComfyUI Error Report",
                "## Error Details",
                "- **Node ID:** 3",
                "- **Node Type:** CheckpointLoaderSimple",
                "- **Exception Type:** RuntimeError",
                "- **Exception Message:** CUDA error: no kernel image is available for execution "
                "on the device",
            ],
            "dispatch_failure",
            "loading",
        ),
    ],
)
def test_round58_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_a_repeated_report_does_not_lend_its_own_words(tmp_path: Path) -> None:
    """The report's activity must come from a line before it, not from its own message (an
    ONNX Runtime error saying ``when trying to load`` twice is still read by its prior)."""
    lines = [
        'EP Error provider_bridge_ort.cc:1131 LoadLibrary failed with error 126 "" when trying '
        'to load "C:\\x\\onnxruntime_providers_cuda.dll"',
        " when using ['CUDAExecutionProvider']",
        "Falling back to ['CPUExecutionProvider'] and retrying.",
        'provider_bridge_ort.cc:1131 LoadLibrary failed with error 126 "" when trying to load '
        '"C:\\x\\onnxruntime_providers_cuda.dll"',
    ]
    classify_as(tmp_path, lines, "env_mismatch", "startup")
