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


# Attention backend names as vLLM 0.10.x (platforms/interface.py _Backend) and 0.34 spell them.
V010_BACKENDS = ("FLASH_ATTN", "FLASH_ATTN_VLLM_V1", "TRITON_ATTN_VLLM_V1", "FLASHINFER")
V034_BACKENDS = ("FLASH_ATTN", "TRITON_ATTN", "FLASHINFER", "CPU_ATTN")


def test_backend_names_are_translated_between_vllm_releases() -> None:
    from pytest_blackwell.engine.capabilities import backend_alias

    assert backend_alias("TRITON_ATTN", V010_BACKENDS) == "TRITON_ATTN_VLLM_V1"
    assert backend_alias("FLASH_ATTN", V010_BACKENDS) == "FLASH_ATTN"
    assert backend_alias("FLASH_ATTN_VLLM_V1", V034_BACKENDS) == "FLASH_ATTN"
    assert backend_alias("TRITON_ATTN_VLLM_V1", V034_BACKENDS) == "TRITON_ATTN"
    assert backend_alias("CPU_ATTN", V010_BACKENDS) is None


def test_problems_accept_the_other_releases_spelling_only() -> None:
    from pytest_blackwell.engine.capabilities import Capabilities

    old = Capabilities("0.10.0", "2.7.1", ("model",), ("auto", "fp8"), V010_BACKENDS, False)
    assert problems(EngineConfig(attention_backend="TRITON_ATTN"), old) == []
    found = problems(EngineConfig(attention_backend="CPU_ATTN"), old)
    assert len(found) == 1
    assert "attention backend 'CPU_ATTN' does not exist in vLLM 0.10.0" in found[0]
