"""Configuration markers -> engine configuration matrix (no engines needed)."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_blackwell.engine.config import EngineConfig
from pytest_blackwell.markers import MarkInput
from pytest_blackwell.markers.config import (
    ConfigMarkerError,
    expand,
    parse_expect_failure,
)


def mark(name: str, *args: Any, **kwargs: Any) -> MarkInput:
    return MarkInput(name, args, kwargs)


def test_cartesian_product_with_readable_ids_and_keyword_marks() -> None:
    variants = expand(
        EngineConfig(max_model_len=256),
        [mark("kv_dtype", "fp8", "auto"), mark("attention_backend", "FLASHINFER", "TRITON_ATTN")],
    )
    assert [v.id for v in variants] == [
        "kv=fp8-attn=FLASHINFER",
        "kv=fp8-attn=TRITON_ATTN",
        "kv=auto-attn=FLASHINFER",
        "kv=auto-attn=TRITON_ATTN",
    ]
    first = variants[0]
    assert first.config.max_model_len == 256
    assert first.config.kv_cache_dtype == "fp8"
    assert first.marks == (
        ("kv_dtype", {"dtype": "fp8"}),
        ("attention_backend", {"name": "FLASHINFER"}),
    )


def test_memory_budget_lists_and_sizes() -> None:
    variants = expand(
        EngineConfig(),
        [mark("memory_budget", kv_cache_memory_bytes=["16MiB", 1 << 30])],
    )
    assert [v.config.kv_cache_memory_bytes for v in variants] == [16 * 1024**2, 1024**3]
    assert [v.id for v in variants] == ["kvmem=16MiB", "kvmem=1GiB"]
    both = expand(EngineConfig(), [mark("memory_budget", gpu_memory_utilization=[0.5, 0.9])])
    assert [v.config.gpu_memory_utilization for v in both] == [0.5, 0.9]


def test_vllm_config_fields_engine_args_and_env_closest_wins() -> None:
    variants = expand(
        EngineConfig(),
        [
            mark("vllm_config", enforce_eager=False, block_size=32, env={"A": 1}),
            mark("vllm_config", enforce_eager=True, max_model_len=128),
        ],
    )
    (variant,) = variants
    assert variant.id == "len=128-graphs-block_size=32-env.A=1"
    assert variant.config.enforce_eager is False  # the first (closest) mark wins
    assert variant.config.max_model_len == 128
    assert variant.config.engine_args == {"block_size": 32}
    assert variant.config.env == {"A": "1"}


def test_closest_kv_dtype_mark_wins() -> None:
    variants = expand(EngineConfig(), [mark("kv_dtype", "fp8"), mark("kv_dtype", "auto", "fp8")])
    assert [v.config.kv_cache_dtype for v in variants] == ["fp8"]


@pytest.mark.parametrize(
    ("marks", "message"),
    [
        ([mark("kv_dtype")], "kv_dtype: expected one or more non-empty strings"),
        ([mark("kv_dtype", 8)], "kv_dtype: expected one or more non-empty strings, got [8]"),
        ([mark("attention_backend", "X", backend="Y")], "unknown argument(s) backend"),
        ([mark("memory_budget", kv_cache_memory_bytes="lots")], "cannot read 'lots' as a size"),
        ([mark("memory_budget", gpu_memory_utilization=1.5)], "fraction in (0, 1], got 1.5"),
        ([mark("memory_budget")], "expected gpu_memory_utilization"),
        ([mark("vllm_config", max_model_len=-1)], "max_model_len: expected a positive int"),
        ([mark("vllm_config", "x")], "takes keyword engine arguments only"),
    ],
)
def test_bad_config_marks_name_the_marker(marks: list[MarkInput], message: str) -> None:
    with pytest.raises(ConfigMarkerError) as info:
        expand(EngineConfig(), marks)
    assert message in str(info.value)
    assert "@pytest.mark." in str(info.value)


def test_expect_failure_forms() -> None:
    assert parse_expect_failure(mark("expect_failure", "kv_cache_oom")).describe() == "kv_cache_oom"
    both = parse_expect_failure(mark("expect_failure", category="timeout", stage="loading"))
    assert both.describe() == "timeout at loading"
    with pytest.raises(ConfigMarkerError, match="expected expect_failure"):
        parse_expect_failure(mark("expect_failure"))
    with pytest.raises(ConfigMarkerError, match="expected expect_failure"):
        parse_expect_failure(mark("expect_failure", "a", "b", "c"))


@pytest.mark.parametrize(
    ("marks", "message"),
    [
        ([mark("memory_budget", kv_cache_memory_bytes=0)], "must be more than 0 bytes"),
        ([mark("vllm_config", enforce_eager="no")], "enforce_eager: expected true or false"),
    ],
)
def test_values_that_would_silently_change_meaning_are_errors(
    marks: list[MarkInput], message: str
) -> None:
    with pytest.raises(ConfigMarkerError, match=message):
        expand(EngineConfig(), marks)


def test_vllm_config_changes_show_in_the_id_relative_to_the_base() -> None:
    base = EngineConfig(max_model_len=256, max_num_seqs=4)
    (variant,) = expand(base, [mark("vllm_config", max_model_len=512, block_size=16)])
    assert variant.id == "len=512-block_size=16"
    (same,) = expand(base, [mark("vllm_config", max_model_len=256)])
    assert same.id == "default"
