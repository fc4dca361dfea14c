"""Variant generation: each variant changes exactly one variable of the base configuration."""

from __future__ import annotations

import re
from typing import Any

import pytest

from pytest_blackwell.engine.config import EngineConfig
from pytest_blackwell.engine.variables import (
    DEFAULT_VARIABLES,
    MEMORY,
    base_value,
    canonical,
    explicit_values,
    generated_values,
    parse_memory_value,
    parse_vary,
)

KV = ("auto", "bfloat16", "fp8", "fp8_e4m3", "fp8_e5m2", "fp8_inc", "nvfp4")
BACKENDS = ("FLASH_ATTN", "FLASHINFER", "TRITON_ATTN", "ROCM_ATTN", "CUTLASS_MLA", "CPU_ATTN")


def labels(config: EngineConfig, name: str, **defaults: Any) -> list[str]:
    pairs = generated_values(name, config, KV, BACKENDS, defaults)
    return [f"{setting}={value}" for setting, value in pairs]


def test_fp8_kv_cache_tries_auto_first_then_the_other_fp8_format() -> None:
    kv = "kv_cache_dtype"
    assert labels(EngineConfig(kv_cache_dtype="fp8"), kv) == [f"{kv}=auto", f"{kv}=fp8_e5m2"]
    assert labels(EngineConfig(), kv) == [f"{kv}=fp8"]
    found = generated_values(kv, EngineConfig(kv_cache_dtype="fp8"), ("auto", "fp8"), (), {})
    assert found == [(kv, "auto")]  # dtypes the installed vLLM lacks are not tried


def test_backends_are_other_general_purpose_ones_bounded() -> None:
    found = labels(EngineConfig(attention_backend="FLASHINFER"), "attention_backend")
    assert [x.split("=")[1] for x in found] == ["FLASH_ATTN", "TRITON_ATTN", "CPU_ATTN"]
    # the backend that ran by default is not tried again
    found = labels(EngineConfig(), "attention_backend", actual_backend="CPU_ATTN")
    assert "attention_backend=CPU_ATTN" not in found


def test_enforce_eager_is_toggled_against_the_effective_default() -> None:
    assert labels(EngineConfig(enforce_eager=False), "enforce_eager") == ["enforce_eager=True"]
    on_cpu = labels(EngineConfig(), "enforce_eager", enforce_eager=True)
    assert on_cpu == ["enforce_eager=False"]
    assert labels(EngineConfig(), "enforce_eager") == ["enforce_eager=True", "enforce_eager=False"]


def test_the_memory_setting_is_the_one_the_configuration_uses() -> None:
    assert base_value(EngineConfig(kv_cache_memory_bytes=2**20), MEMORY) == (
        "kv_cache_memory_bytes",
        2**20,
    )
    assert base_value(EngineConfig(gpu_memory_utilization=0.5), MEMORY) == (
        "gpu_memory_utilization",
        0.5,
    )
    cpu = base_value(EngineConfig(), MEMORY, {"kv_cache_memory_bytes": 64 * 2**20})
    assert cpu == ("kv_cache_memory_bytes", 64 * 2**20)
    assert base_value(EngineConfig(), MEMORY) == ("gpu_memory_utilization", 0.9)


def test_explicit_memory_values_mix_sizes_and_fractions() -> None:
    found = explicit_values(MEMORY, ["4MiB", 64 * 2**20, 0.3], KV, BACKENDS)
    assert found == [
        ("kv_cache_memory_bytes", 4 * 2**20),
        ("kv_cache_memory_bytes", 64 * 2**20),
        ("gpu_memory_utilization", 0.3),
    ]


def test_memory_is_short_for_memory_budget_everywhere() -> None:
    assert canonical("memory") == canonical(" memory_budget ") == MEMORY
    assert parse_vary("memory=4MiB") == (MEMORY, ["4MiB"])
    assert MEMORY in DEFAULT_VARIABLES


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"kv_cache_dtype": ["fp9"]}, "kv_cache_dtype 'fp9' is not accepted here; expected one of"),
        ({"attention_backend": ["NOPE"]}, "attention backend 'NOPE' is not known here"),
        ({"enforce_eager": ["yes"]}, "enforce_eager values must be True or False"),
        ({MEMORY: [1.5]}, "a float is a gpu_memory_utilization and must be in (0, 1]"),
        ({MEMORY: ["lots"]}, "cannot read 'lots' as a size"),
        (
            {"max_model_len": [-1]},
            "one_variable: max_model_len=-1: max_model_len: expected a positive int",
        ),
    ],
)
def test_bad_explicit_values_are_named(extra: dict[str, list[Any]], message: str) -> None:
    from pytest_blackwell.engine.isolate import IsolationRequest, compare

    def run(config: EngineConfig, *, again: bool = False) -> Any:
        raise AssertionError("no engine may run before the values are checked")

    req = IsolationRequest(EngineConfig(), (), extra, kv_dtypes=KV, backends=BACKENDS)
    with pytest.raises(ValueError, match=re.escape(message)):
        compare(run, req)


def test_a_variable_without_values_is_an_error_saying_what_to_do() -> None:
    with pytest.raises(ValueError, match="no values to try for 'max_num_seqs'; name explicit"):
        generated_values("max_num_seqs", EngineConfig(), KV, BACKENDS, {})


def test_parse_memory_value() -> None:
    assert parse_memory_value("0.5") == ("gpu_memory_utilization", 0.5)
    assert parse_memory_value("64MiB") == ("kv_cache_memory_bytes", 64 * 2**20)
    assert parse_memory_value("1048576") == ("kv_cache_memory_bytes", 2**20)
    assert parse_memory_value(2**20) == ("kv_cache_memory_bytes", 2**20)


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("kv_cache_dtype", ("kv_cache_dtype", None)),
        ("memory", (MEMORY, None)),
        ("memory_budget=16MiB, 0.5", (MEMORY, ["16MiB", 0.5])),
        ("enforce_eager: true", ("enforce_eager", [True])),
        ("max_num_seqs=1,8", ("max_num_seqs", [1, 8])),
        ("kv_cache_dtype=auto,fp8", ("kv_cache_dtype", ["auto", "fp8"])),
    ],
)
def test_parse_vary(spec: str, expected: tuple[str, Any]) -> None:
    assert parse_vary(spec) == expected


def test_parse_vary_names_the_bad_spec() -> None:
    with pytest.raises(ValueError, match=r"--vary: expected NAME or NAME=V1,V2 .* got '2x'"):
        parse_vary("2x")
    with pytest.raises(ValueError, match="memory_budget= names no values"):
        parse_vary("memory_budget=")
