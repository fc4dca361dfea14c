"""vLLM's model-inspection cache survives throw-away cache roots."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_blackwell.engine import vllmcache


def test_new_model_infos_are_harvested_and_seed_the_next_root(tmp_path: Path) -> None:
    store = tmp_path / "store"
    first = tmp_path / "engine1" / "vllm-cache"
    assert vllmcache.seed(first, store) == 0
    (first / "modelinfos").mkdir(parents=True, exist_ok=True)
    (first / "modelinfos" / "abc.json").write_text('{"architecture": "LlamaForCausalLM"}')
    assert vllmcache.harvest(first, store) == 1
    assert vllmcache.harvest(first, store) == 0  # already stored
    second = tmp_path / "engine2" / "vllm-cache"
    assert vllmcache.seed(second, store) == 1
    assert (second / "modelinfos" / "abc.json").read_text() == (
        '{"architecture": "LlamaForCausalLM"}'
    )
    assert not list(store.glob(".*.tmp"))


def test_pool_refuses_a_work_dir_too_long_for_vllm_sockets(tmp_path: Path) -> None:
    from pytest_blackwell.engine import EnginePool

    deep = tmp_path / ("d" * 60)
    deep.mkdir()
    with pytest.raises(ValueError, match="socket paths are limited to 107 characters"):
        EnginePool(tmp_path / "artifacts", work_root=deep)
    assert list(deep.iterdir()) == []
