"""Variant generation: each variant changes exactly one variable of the base configuration."""

from __future__ import annotations

import re
from typing import Any

import pytest

from pytest_blackwell.engine.config import EngineConfig
from pytest_blackwell.engine.isolate import (
    DEFAULT_VARIABLES,
    MEMORY,
    Variant,
    one_variable_variants,
    parse_memory_value,
    parse_vary,
)

KV = ("auto", "bfloat16", "fp8", "fp8_e4m3", "fp8_e5m2", "fp8_inc", "nvfp4")
BACKENDS = ("FLASH_ATTN", "FLASHINFER", "TRITON_ATTN", "ROCM_ATTN", "CUTLASS_MLA", "CPU_ATTN")


def variants(config: EngineConfig, *names: str, **kwargs: Any) -> list[Variant]:
    return one_variable_variants(
        config, names or DEFAULT_VARIABLES, kv_dtypes=KV, backends=BACKENDS, **kwargs
    )


def changed_fields(base: EngineConfig, other: EngineConfig) -> set[str]:
    a, b = base.to_dict(), other.to_dict()
    diff = {k for k in a if a[k] != b[k] and k != "engine_args"}
    args_a, args_b = a["engine_args"], b["engine_args"]
    return diff | {k for k in {*args_a, *args_b} if args_a.get(k) != args_b.get(k)}


def test_every_variant_changes_exactly_one_setting() -> None:
    base = EngineConfig(
        kv_cache_dtype="fp8",
        attention_backend="FLASHINFER",
        gpu_memory_utilization=0.5,
        enforce_eager=False,
        max_model_len=512,
    )
    found = variants(base, extra={"max_num_seqs": [1, 4]})
    assert {v.variable for v in found} == {*DEFAULT_VARIABLES, "max_num_seqs"}
    for variant in found:
        assert changed_fields(base, variant.config) == {variant.setting}, variant.label
    assert len({v.config.key() for v in found}) == len(found)


def test_fp8_kv_cache_tries_auto_first_then_the_other_fp8_format() -> None:
    found = variants(EngineConfig(kv_cache_dtype="fp8"), "kv_cache_dtype")
    assert [v.label for v in found] == ["kv_cache_dtype=auto", "kv_cache_dtype=fp8_e5m2"]
    found = variants(EngineConfig(), "kv_cache_dtype")
    assert [v.label for v in found] == ["kv_cache_dtype=fp8"]


def test_kv_dtypes_the_installed_vllm_lacks_are_not_tried() -> None:
    found = one_variable_variants(
        EngineConfig(kv_cache_dtype="fp8"),
        ["kv_cache_dtype"],
        kv_dtypes=("auto", "fp8"),
        backends=(),
    )
    assert [v.value for v in found] == ["auto"]


def test_backends_are_other_general_purpose_ones_bounded() -> None:
    found = variants(EngineConfig(attention_backend="FLASHINFER"), "attention_backend")
    assert [v.value for v in found] == ["FLASH_ATTN", "TRITON_ATTN", "CPU_ATTN"]
    # the backend that ran by default is not tried again
    found = variants(EngineConfig(), "attention_backend", defaults={"actual_backend": "CPU_ATTN"})
    assert "CPU_ATTN" not in [v.value for v in found]
    unknown_default = variants(EngineConfig(), "attention_backend")
    assert [v.value for v in unknown_default] == ["FLASH_ATTN", "FLASHINFER", "TRITON_ATTN"]


def test_enforce_eager_is_toggled_against_the_effective_default() -> None:
    assert [v.value for v in variants(EngineConfig(enforce_eager=False), "enforce_eager")] == [True]
    on_cpu = variants(EngineConfig(), "enforce_eager", defaults={"enforce_eager": True})
    assert [v.label for v in on_cpu] == ["enforce_eager=False"]
    assert [v.value for v in variants(EngineConfig(), "enforce_eager")] == [True, False]


def test_memory_budget_halves_and_quadruples_an_explicit_kv_cache() -> None:
    found = variants(EngineConfig(kv_cache_memory_bytes=32 * 2**20), MEMORY)
    assert [v.label for v in found] == [
        "kv_cache_memory_bytes=16MiB",
        "kv_cache_memory_bytes=128MiB",
    ]


def test_memory_budget_moves_gpu_memory_utilization_down_and_up() -> None:
    found = variants(EngineConfig(gpu_memory_utilization=0.5), MEMORY)
    assert [(v.setting, v.value) for v in found] == [
        ("gpu_memory_utilization", 0.25),
        ("gpu_memory_utilization", 0.75),
    ]
    # unset: the platform default decides which setting is varied
    cpu = variants(EngineConfig(), MEMORY, defaults={"kv_cache_memory_bytes": 64 * 2**20})
    assert [v.label for v in cpu] == ["kv_cache_memory_bytes=32MiB", "kv_cache_memory_bytes=256MiB"]
    gpu = variants(EngineConfig(), MEMORY)
    assert [v.value for v in gpu] == [0.45, 0.95]


def test_explicit_memory_sweep_mixes_sizes_and_fractions() -> None:
    base = EngineConfig(kv_cache_memory_bytes=16 * 2**20)
    found = variants(base, MEMORY, extra={MEMORY: ["4MiB", 64 * 2**20, 0.3, "16MiB"]})
    assert [v.variable for v in found] == [MEMORY] * 3
    assert [v.label for v in found] == [
        "kv_cache_memory_bytes=4MiB",
        "kv_cache_memory_bytes=64MiB",
        "gpu_memory_utilization=0.3",
    ]


def test_explicit_values_replace_generated_ones_and_skip_the_base_value() -> None:
    base = EngineConfig(kv_cache_dtype="fp8", max_model_len=8192)
    found = one_variable_variants(
        base,
        ["kv_cache_dtype"],
        kv_dtypes=KV,
        backends=BACKENDS,
        extra={"kv_cache_dtype": ["bfloat16", "fp8"], "max_model_len": [2048], "block_size": [32]},
    )
    assert [v.label for v in found] == [
        "kv_cache_dtype=bfloat16",
        "max_model_len=2048",
        "block_size=32",
    ]
    assert found[-1].config.engine_args == {"block_size": 32}


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
    with pytest.raises(ValueError, match=re.escape(message)):
        variants(EngineConfig(), "kv_cache_dtype", extra=extra)


def test_a_variable_without_values_is_an_error_saying_what_to_do() -> None:
    with pytest.raises(ValueError, match="no values to try for 'max_num_seqs'; name explicit"):
        variants(EngineConfig(), "max_num_seqs")


def test_parse_memory_value() -> None:
    assert parse_memory_value("0.5") == ("gpu_memory_utilization", 0.5)
    assert parse_memory_value("64MiB") == ("kv_cache_memory_bytes", 64 * 2**20)
    assert parse_memory_value("1048576") == ("kv_cache_memory_bytes", 2**20)
    assert parse_memory_value(2**20) == ("kv_cache_memory_bytes", 2**20)


def test_variant_to_dict_is_plain_json() -> None:
    import json

    (variant,) = variants(
        EngineConfig(kv_cache_dtype="fp8"), "kv_cache_dtype", extra={"kv_cache_dtype": ["auto"]}
    )
    data = json.loads(json.dumps(variant.to_dict()))
    assert data["label"] == "kv_cache_dtype=auto"
    assert data["config_id"] == "kv=auto"
    assert EngineConfig.from_dict(data["config"]) == variant.config


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
