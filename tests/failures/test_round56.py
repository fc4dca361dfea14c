"""Mechanisms of the fifty-sixth round, tuned on ``fresh194/`` to ``fresh197/``.

No failure: NCCL's banner (``NCCL version 2.21.5+cuda12.4``) among a healthy run's last lines;
NCCL's name is not a failure word. Formats: a line a paste opened in Markdown bold and cut before
the bold closed (``**ImportError: ...``). Categories: Android's crash reports (``Fatal signal 4
(SIGILL)``, the tombstone's ``F DEBUG : #00 pc ...``: ``engine_died``); a SYCL runtime without
the kernel for the device (``No kernel named ... was found``: ``dispatch_failure``). Stages: an
engine checking its environment before it starts (``Checking environment for PyTorch Engine``).
The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


def test_round56_nccl_banner_is_no_failure(tmp_path: Path) -> None:
    lines = [
        "Training Epoch: 1:   0%|          | 0/79 [00:00<?, ?it/s]",
        "NCCL version 2.21.5+cuda12.4",
        "Training Epoch: 1/3, step 0/79 completed (loss: 1.41):   1%|1         | 1/79",
    ]
    assert classify_both(tmp_path, lines) is None


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        (
            [
                ">>> from sgl_kernel import flash_ops",
                "Traceback (most recent call last):",
                '  File "<stdin>", line 1, in <module>',
                "**ImportError: /opt/python/lib/python3.10/site-packages/sgl_kernel/flash_ops.so:"
                " undefined sy",
            ],
            "env_mismatch",
            "startup",
        ),
        (
            [
                "I  Loading model from /storage/emulated/0/Android/data/app/files/phi-2.gguf",
                "A  Fatal signal 4 (SIGILL), code 2 (ILL_ILLOPN), fault addr 0x74348e92e1f5 in "
                "tid 28727 (Llm-RunLoop), pid 28604 (m.example)",
            ],
            "engine_died",
            "loading",
        ),
        (
            [
                "09-26 23:40:56.685 22955 23001 I RNLLAMA_ANDROID_JNI: [RNLlama] is_model_loaded",
                "09-26 23:40:57.089 23062 23062 F DEBUG   :       #00 pc 000000000019000c  "
                "/data/app/split_config.arm64_v8a.apk!librnllama.so",
            ],
            "engine_died",
            "unknown",
        ),
        (
            [
                "common_init_from_params: warming up the model with an empty run - please wait",
                "No kernel named _ZTSZN14bin_bcast_syclIXadL_ZL6op_mulffEEE was foundException "
                "caught at file:/llama.cpp/ggml/src/ggml-sycl/ggml-sycl.cpp, line:4011",
            ],
            "dispatch_failure",
            "warmup",
        ),
        (
            [
                "2024-04-24 19:19:00,509 - lmdeploy - INFO - Checking environment for PyTorch "
                "Engine.",
                "2024-04-24 19:19:03,669 - lmdeploy - ERROR - RuntimeError: Triton Error [CUDA]: "
                "device kernel image is invalid",
            ],
            "unknown",
            "startup",
        ),
    ],
)
def test_round56_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)
