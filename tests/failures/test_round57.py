"""Mechanisms of the fifty-seventh round, tuned on the whole corpus.

A ComfyUI node named by its display name (``Error occurred when executing [Comfy3D] Load
Diffusers Pipeline:``) is a loader when its name says ``Load``, any other node is work being
done; TVM's OpenCL runtime that cannot open ``libOpenCL`` and a torch built without a feature
asked for (``use_libuv was requested but PyTorch was build without libuv support``) are
``env_mismatch``; OpenCL's allocation statuses (``CL_OUT_OF_HOST_MEMORY``) are ``device_oom``;
torchelastic's agent stopped by a signal (``SignalException: ... got signal: 1``) is
``engine_died``.
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
                "!!! Exception during processing !!!",
                "Error occurred when executing [Comfy3D] Load Diffusers Pipeline:",
                "",
                "Something went wrong while reading the pipeline",
            ],
            "unknown",
            "loading",
        ),
        (
            [
                "Error occurred when executing [Comfy3D] Render Mesh Views:",
                "",
                "Something went wrong while rendering",
            ],
            "unknown",
            "execute",
        ),
        (
            [
                "MLCChat failed",
                "Stack trace:",
                "TVMError:",
                "  Check failed: (m_libHandler != nullptr) is false: Error! Cannot open libOpenCL!",
            ],
            "env_mismatch",
            "unknown",
        ),
        (
            [
                "torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The "
                "connection to the C10d store has failed.",
                "RuntimeError: use_libuv was requested but PyTorch was build without libuv support",
            ],
            "env_mismatch",
            "startup",  # (round 71: torchelastic's rendezvous errors are its start-up)
        ),
        (
            [
                "[21:54:05] mlc-llm/cpp/llm_chat.cc:161: Error: CL_OUT_OF_HOST_MEMORY",
            ],
            "device_oom",
            "unknown",
        ),
        (
            [
                "torch.distributed.elastic.multiprocessing.api.SignalException: Process 2890585 "
                "got signal: 1",
            ],
            "engine_died",
            "unknown",
        ),
    ],
)
def test_round57_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)
