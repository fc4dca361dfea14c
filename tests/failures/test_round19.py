"""Mechanisms of the nineteenth round. The lines are of our own, in the shapes the tools print."""

from __future__ import annotations

from pathlib import Path

from classify_helpers import classify_as


def test_vllm_v0_block_counts_end_kv_cache_sizing(tmp_path: Path) -> None:
    # V0's executor logs the block counts it sized, then allocates the cache: a death right after
    # is in the KV-cache stage, not in the loading announced before.
    lines = [
        "INFO 01-02 03:04:05 model_runner.py:1 Loading model weights took 4.1 GiB",
        "INFO 01-02 03:04:09 gpu_executor.py:2 # GPU blocks: 2048, # CPU blocks: 512",
        "Killed",
    ]
    failure = classify_as(tmp_path, lines, "engine_died", "kv_alloc")
    assert failure.evidence["stage"] == "marker '# GPU blocks:'"
