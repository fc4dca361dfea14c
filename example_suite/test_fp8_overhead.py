"""FP8 KV-cache dequantisation overhead at low batch (an RTX PRO 4000 class card).

A slowdown is a finding, not a feeling: tokens/s of fp8 against auto, same everything else.
"""

from __future__ import annotations

import pytest

MODEL = "Qwen/Qwen3-4B"


@pytest.mark.sm120
@pytest.mark.requires_gpu_memory(gb=20)
@pytest.mark.vllm_config(model=MODEL, max_num_seqs=1)
@pytest.mark.kv_dtype("fp8", "auto")
def test_tokens_per_second_recorded(vllm_engine_result, record_property):
    result = vllm_engine_result
    assert result.ok, result.summary
    assert result.tokens_per_s
    assert result.tokens_per_s > 0
    record_property("tokens_per_s", f"{result.tokens_per_s:.1f}")
