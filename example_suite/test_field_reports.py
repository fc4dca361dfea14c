"""Field reports this product exists for, each pinned to its first error's category and stage.

Every report has two tests: the classification of the log people posted (runs everywhere), and
an engine test on the hardware it happened on (skips elsewhere with the reason).
"""

from __future__ import annotations

import pytest

QWEN3_FP8 = "Qwen/Qwen3-8B-FP8"


# -- GB10 (DGX Spark, sm_121): FlashInfer + CUDA graphs break in stream capture -----------------


def test_gb10_flashinfer_report_is_a_capture_failure(blackwell_classify, field_log):
    failure = blackwell_classify(field_log("gb10_flashinfer_graph_capture.log"))
    assert (failure.category, failure.stage) == ("stream_capture", "graph_capture")
    # The last line blames the engine core; the first error is the capture.
    assert "operation not permitted when stream is capturing" in failure.first_error
    # The same model with the Triton backend captures and serves.
    assert blackwell_classify(field_log("gb10_triton_after_fix.log")) is None


@pytest.mark.sm121
@pytest.mark.kv_dtype("fp8")
@pytest.mark.attention_backend("FLASHINFER")
@pytest.mark.vllm_config(model=QWEN3_FP8, enforce_eager=False)
@pytest.mark.expect_failure(category="stream_capture", stage="graph_capture")
def test_gb10_flashinfer_graphs_fail_in_capture(vllm_engine):
    pass


@pytest.mark.sm121
@pytest.mark.kv_dtype("fp8")
@pytest.mark.attention_backend("TRITON_ATTN")
@pytest.mark.vllm_config(model=QWEN3_FP8, enforce_eager=False)
def test_gb10_triton_backend_cures_it(vllm_engine):
    assert vllm_engine.generate(["Hello"], max_tokens=4)


# -- a model whose FP8 attention needs the Triton backend on sm_120 ----------------------------


def test_fp8_attention_needs_triton_report(blackwell_classify, field_log):
    failure = blackwell_classify(field_log("fp8_attention_needs_triton.log"))
    # The backend has no kernel for an FP8 KV cache on this card: not a crash, not a config typo.
    assert (failure.category, failure.stage) == ("dispatch_failure", "loading")
    assert failure.detail["backend"] == "FLASH_ATTN"
    assert "kv_cache_dtype not supported" in failure.first_error


@pytest.mark.sm120
@pytest.mark.kv_dtype("fp8_e4m3")
@pytest.mark.attention_backend("TRITON_ATTN")
@pytest.mark.vllm_config(model="example/fp8-attn-model")
def test_fp8_attention_serves_with_triton(vllm_engine):
    assert vllm_engine.generate(["Hello"], max_tokens=4)


# -- a hybrid Mamba model: the state does not fit, whatever the KV-cache dtype -----------------


@pytest.mark.parametrize("log", ["hybrid_mamba_state_fp8.log", "hybrid_mamba_state_auto.log"])
def test_hybrid_state_is_a_memory_budget_problem_not_fp8(blackwell_classify, field_log, log):
    failure = blackwell_classify(field_log(log))
    assert (failure.category, failure.stage) == ("kv_cache_oom", "kv_alloc")
    assert failure.detail["needed_bytes"] > failure.detail["available_bytes"]


# -- FP8 block-scaled weights on sm_120: no CUTLASS kernel (a weights problem) -----------------


def test_block_fp8_weights_have_no_sm120_kernel(blackwell_classify, field_log):
    failure = blackwell_classify(field_log("sm120_block_fp8_weights.log"))
    assert (failure.category, failure.stage) == ("dispatch_failure", "profile")
    assert failure.detail["compute_capability"] == "12.0"
    # Nothing about the KV cache: the request did not even set a kv_cache_dtype.
    assert "kv_cache" not in failure.first_error


@pytest.mark.sm120
@pytest.mark.vllm_config(model="example/block-fp8-instruct", max_model_len=8192)
@pytest.mark.expect_failure(category="dispatch_failure", stage="profile")
def test_block_fp8_weights_fail_dispatch_on_sm120(vllm_engine):
    pass


# -- a project rule through the hooks (see conftest.py) ----------------------------------------


def test_custom_rule_names_our_kernel_assert(blackwell_classify, field_log):
    failure = blackwell_classify(field_log("custom_kernel_assert.log"))
    assert failure.category == "kernel_assert"
    assert failure.detail["where"] == "gemm_fp8.cu:412"
