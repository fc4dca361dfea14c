"""Memory-budget sweeps, separate from dtype and backend questions.

A KV cache budget too small for max_model_len must fail as kv_cache_oom while sizing the cache,
and a budget that fits must serve: the failure tracks the budget, nothing else.
"""

from __future__ import annotations

import pytest


@pytest.mark.memory_budget(kv_cache_memory_bytes=["64KiB", "32MiB"])
def test_kv_budget_sweep(vllm_engine_result):
    result = vllm_engine_result
    budget = result.config_id
    if "64KiB" in budget:
        assert result.failure is not None, "a 64 KiB KV cache cannot hold 256 tokens"
        assert (result.failure.category, result.failure.stage) == ("kv_cache_oom", "kv_alloc")
    else:
        assert result.ok, result.summary


@pytest.mark.memory_budget(kv_cache_memory_bytes="64KiB")
@pytest.mark.expect_failure(category="kv_cache_oom", stage="kv_alloc")
def test_too_small_budget_is_kv_cache_oom(vllm_engine):
    pass


@pytest.mark.sm120
@pytest.mark.requires_gpu_memory(gb=24)
@pytest.mark.memory_budget(gpu_memory_utilization=[0.5, 0.9])
def test_gpu_budget_sweep_on_consumer_blackwell(vllm_engine_result):
    assert vllm_engine_result.ok, vllm_engine_result.summary
