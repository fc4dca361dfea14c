"""Mechanisms of the thirty-third round (tuned on fresh98-fresh101): a launcher's summary of a
script that failed, an exception line indented in that summary, a quiet level after a kernel
driver's source location, a shape outside every TensorRT profile, a feature that needs another
attention backend, native libraries that ctypes or the loader cannot use, VRAM that ran out and
the work of one request. The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # torchelastic's summary: the script failed, the rank's traceback indented below
        (
            [
                "train.py FAILED",
                "Failures:",
                "  <NO_OTHER_FAILURES>",
                "  traceback : Traceback (most recent call last):",
                '    File "/srv/train.py", line 16, in main',
                "      dist.barrier()",
                "  RuntimeError: Detected mismatch between collectives on ranks.",
            ],
            "nccl_error",  # (since round 43: the ranks' collectives out of step)
            "unknown",
        ),
        # a shape outside the engine's profiles stays the cause of the fault after it
        (
            [
                "[TRT] [E] IExecutionContext::setInputShape: Error Code 3: API Usage Error "
                "(Set dimension [9000] for tensor ids does not satisfy any optimization profiles.)",
                "[TRT] [E] [defaultAllocator.cpp::deallocate::60] Error Code 1: Cuda Runtime (an "
                "illegal memory access was encountered)",
            ],
            "unsupported_config",
            "unknown",
        ),
        (
            [
                "[2026-01-01 00:00:00] INFO:     Application startup complete.",
                "[2026-01-01 00:00:01] Image tokens with bidirectional attention requires "
                "TritonAttnBackend.",
            ],
            "dispatch_failure",
            "execute",
        ),
        (
            ["FileNotFoundError: Shared library with base name 'llama' not found"],
            "env_mismatch",
            "startup",  # (a native library that cannot be loaded: the start-up prior, round 74)
        ),
        (
            [
                "OSError: /env/lib/libcublas.so.11: symbol cublasLtGetStatusString version "
                "libcublasLt.so.11 not defined in file libcublasLt.so.11 with link time reference"
            ],
            "env_mismatch",
            "startup",
        ),
        # (round 109: memory for the model together with its cache is the KV cache's budget)
        (["RuntimeError: Insufficient VRAM for model and cache"], "kv_cache_oom", "unknown"),
        (["RuntimeError: Insufficient VRAM for the model weights"], "device_oom", "unknown"),
        (
            ["Decode transfer failed for request rank=1 rid='7': KVTransferError(bootstrap)"],
            "unknown",
            "execute",
        ),
    ],
)
def test_round33_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_a_quiet_level_after_a_driver_source_location_is_quiet(tmp_path: Path) -> None:
    lines = [
        "kernel: nvgpu: 17000000.gpu   nvgpu_dma_print_err:101  [INFO]  DMA alloc FAILED: "
        "[sysmem] size=257490944",
        "kernel: nvgpu: 17000000.gpu   gk20a_probe:400  [INFO]  probe done",
    ]
    assert classify_both(tmp_path, lines) is None
