"""Asking the installed vLLM what it accepts: once, in a subprocess, then from the disk cache."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_blackwell.engine import EngineConfig
from pytest_blackwell.engine.cachedir import CACHE_ENV
from pytest_blackwell.engine.capabilities import problems, vllm_capabilities


@pytest.mark.engine
def test_capabilities_come_from_the_installed_vllm_and_are_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    vllm_capabilities.cache_clear()
    caps = vllm_capabilities()
    assert {"auto", "fp8"} <= set(caps.kv_cache_dtypes)
    assert {"FLASHINFER", "FLASH_ATTN", "CPU_ATTN"} <= set(caps.attention_backends)
    assert {"kv_cache_memory_bytes", "max_num_seqs", "block_size"} <= set(caps.engine_args)
    assert caps.backend_is_engine_arg
    assert "vllm" not in sys.modules, "the query must not import vLLM into this process"
    assert list(tmp_path.glob("capabilities/*.json"))

    def no_subprocess(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the cached answer should have been used")

    monkeypatch.setattr(subprocess, "run", no_subprocess)
    vllm_capabilities.cache_clear()
    assert vllm_capabilities() == caps
    vllm_capabilities.cache_clear()
    bad = EngineConfig(kv_cache_dtype="fp9", engine_args={"no_such_arg": 1})
    assert len(problems(bad, caps)) == 2
