"""Mechanisms of the ninety-ninth round, tuned on the read half of the thirtieth batch
(TensorRT-LLM serving, Jetson, RL post-training rollouts, Windows and WSL2).

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_mid_log


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # HIP finding no device, as its samples' error check prints it
        (
            [
                'checkHipErrors() HIP API error = 0100 "no ROCm-capable device is detected" from '
                "file <C:\\builds\\hip\\hipInfo.cpp>, line 12"
            ],
            "env_mismatch",
            "startup",
        ),
        # a program the container lacks, as Go's exec says it
        (
            [
                "docker: Error response from daemon: OCI runtime create failed: "
                'container_linux.go:370: starting container process caused: exec: "nvidia-smi": '
                "executable file not found in $PATH: unknown."
            ],
            "env_mismatch",
            "startup",
        ),
        # a refusal in capitals, with "currently"
        (
            [
                "TritonModelException: Context model failed with error: Context-only requests are "
                "NOT currently supported in orchestrator mode. (/src/utils.cc:647)"
            ],
            "unsupported_config",
            "unknown",
        ),
        # (CUDA finding no device stays as it was)
        (
            ["RuntimeError: CUDA error: no CUDA-capable device is detected"],
            "env_mismatch",
            "startup",
        ),
    ],
)
def test_round99_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    ("line", "category"),
    [
        ('exec: "nvidia-smi": executable file not found in $PATH', "env_mismatch"),
        ('HIP API error = 0100 "no ROCm-capable device is detected"', "env_mismatch"),
    ],
)
def test_a_round99_line_is_found_mid_log(tmp_path: Path, line: str, category: str) -> None:
    classify_mid_log(tmp_path, line, category)
