"""Field reports this product exists for, each pinned to its first error's category and stage.

Every report has two tests: the classification of the log people posted (runs everywhere), and
an engine test on the hardware it happened on (skips elsewhere with the reason). The engine
tests name real Hugging Face checkpoints sized for the card they are marked for. Where a report
is about a failure, the engine test accepts exactly two outcomes: the failure as reported
(category and stage), on a stack that still has the bug, or an engine that serves, on one where
it is fixed; anything else (a fault, another stage) fails it.
"""

from __future__ import annotations

import pytest

#: Qwen3-8B with FP8 weights, fine-grained block-scaled (128x128 blocks): 8.2B parameters, about
#: 9 GB of weights.
QWEN3_8B_BLOCK_FP8 = "Qwen/Qwen3-8B-FP8"
#: Qwen3-4B in BF16: 4.0B parameters, about 8 GB of weights.
QWEN3_4B = "Qwen/Qwen3-4B"
#: IBM Granite 4.0 H Tiny: a hybrid Mamba-2/attention mixture of experts, 7B parameters
#: (1B active), BF16, about 14 GB of weights.
HYBRID_MAMBA = "ibm-granite/granite-4.0-h-tiny"


def assert_reported_failure_or_served(result, category, stage):
    """The report's failure exactly, or (fixed stack) an engine that served."""
    if result.ok:
        return
    assert result.failure is not None, result.summary
    assert (result.failure.category, result.failure.stage) == (category, stage), result.summary


# -- GB10 (DGX Spark, sm_121): FlashInfer + CUDA graphs break in stream capture -----------------


def test_gb10_flashinfer_report_is_a_capture_failure(blackwell_classify, field_log):
    failure = blackwell_classify(field_log("gb10_flashinfer_graph_capture.log"))
    assert (failure.category, failure.stage) == ("stream_capture", "graph_capture")
    # The last line blames the engine core; the first error is the capture.
    assert "operation not permitted when stream is capturing" in failure.first_error
    # The same model with the Triton backend captures and serves.
    assert blackwell_classify(field_log("gb10_triton_after_fix.log")) is None


@pytest.mark.sm121
@pytest.mark.requires_gpu_memory(gb=16)
@pytest.mark.kv_dtype("fp8")
@pytest.mark.attention_backend("FLASHINFER")
@pytest.mark.vllm_config(model=QWEN3_8B_BLOCK_FP8, enforce_eager=False)
def test_gb10_flashinfer_graphs_fail_in_capture_or_serve(vllm_engine_result):
    assert_reported_failure_or_served(vllm_engine_result, "stream_capture", "graph_capture")


@pytest.mark.sm121
@pytest.mark.requires_gpu_memory(gb=16)
@pytest.mark.kv_dtype("fp8")
@pytest.mark.attention_backend("TRITON_ATTN")
@pytest.mark.vllm_config(model=QWEN3_8B_BLOCK_FP8, enforce_eager=False)
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
@pytest.mark.requires_gpu_memory(gb=16)
@pytest.mark.kv_dtype("fp8_e4m3")
@pytest.mark.attention_backend("TRITON_ATTN")
@pytest.mark.vllm_config(model=QWEN3_4B)
def test_fp8_attention_serves_with_triton(vllm_engine):
    assert vllm_engine.generate(["Hello"], max_tokens=4)


# -- a hybrid Mamba model: the state does not fit, whatever the KV-cache dtype -----------------


@pytest.mark.parametrize("log", ["hybrid_mamba_state_fp8.log", "hybrid_mamba_state_auto.log"])
def test_hybrid_state_is_a_memory_budget_problem_not_fp8(blackwell_classify, field_log, log):
    failure = blackwell_classify(field_log(log))
    assert (failure.category, failure.stage) == ("kv_cache_oom", "kv_alloc")
    assert failure.detail["needed_bytes"] > failure.detail["available_bytes"]


@pytest.mark.sm120
@pytest.mark.requires_gpu_memory(gb=24)
@pytest.mark.kv_dtype("fp8", "auto")
@pytest.mark.memory_budget(kv_cache_memory_bytes="1MiB")
@pytest.mark.vllm_config(model=HYBRID_MAMBA)
@pytest.mark.expect_failure(category="kv_cache_oom", stage="kv_alloc")
def test_hybrid_state_does_not_fit_whatever_the_kv_dtype(vllm_engine):
    pass


# -- FP8 block-scaled weights on sm_120: no CUTLASS kernel (a weights problem) -----------------


def test_block_fp8_weights_have_no_sm120_kernel(blackwell_classify, field_log):
    failure = blackwell_classify(field_log("sm120_block_fp8_weights.log"))
    assert (failure.category, failure.stage) == ("dispatch_failure", "profile")
    assert failure.detail["compute_capability"] == "12.0"
    # Nothing about the KV cache: the request did not even set a kv_cache_dtype.
    assert "kv_cache" not in failure.first_error


@pytest.mark.sm120
@pytest.mark.requires_gpu_memory(gb=16)
@pytest.mark.vllm_config(model=QWEN3_8B_BLOCK_FP8, max_model_len=8192)
def test_block_fp8_weights_fail_dispatch_on_sm120_or_serve(vllm_engine_result):
    assert_reported_failure_or_served(vllm_engine_result, "dispatch_failure", "profile")


# -- a project rule through the hooks (see conftest.py) ----------------------------------------


def test_custom_rule_names_our_kernel_assert(blackwell_classify, field_log):
    failure = blackwell_classify(field_log("custom_kernel_assert.log"))
    assert failure.category == "kernel_assert"
    assert failure.detail["where"] == "gemm_fp8.cu:412"
