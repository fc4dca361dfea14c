"""torch.compile on a real engine: its own `compile` stage, and a cache the next session shares."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pytest_blackwell.engine import EngineConfig, EnginePool

pytestmark = pytest.mark.engine

COMPILED = EngineConfig(max_model_len=512, enforce_eager=False)


def test_compile_is_its_own_stage_and_a_second_session_shares_the_cache(
    tmp_path: Path, engine_env: dict[str, str]
) -> None:
    cache = tmp_path / "compile-cache"
    with EnginePool(tmp_path / "first", base_env=engine_env, vllm_cache_dir=cache) as pool:
        first = pool.get(COMPILED).result
    assert first.ok, first.summary
    # Compiling interrupts memory profiling and hands back to it.
    assert first.timings["compile"] > 0
    assert "profile" in first.timings
    assert "saved AOT compiled function" in Path(str(first.log_path)).read_text()
    assert list(cache.rglob("torch_compile_cache"))
    with EnginePool(tmp_path / "second", base_env=engine_env, vllm_cache_dir=cache) as pool:
        second = pool.get(COMPILED).result
    assert second.ok, second.summary
    # The next session's engine compiles into the same kept folder (how much faster it gets
    # there is measured by bench/compile_cache.py, not asserted here).
    assert f"{cache}{os.sep}" in Path(str(second.log_path)).read_text()
