"""EngineConfig ids, JSON round trips, and checks against vLLM's accepted names."""

from __future__ import annotations

import json

import pytest

from pytest_blackwell.engine.capabilities import Capabilities, problems
from pytest_blackwell.engine.config import EngineConfig
from pytest_blackwell.engine.result import EngineResult
from pytest_blackwell.failures.model import Failure


def test_id_lists_only_what_differs_from_defaults_in_a_stable_order() -> None:
    config = EngineConfig(
        enforce_eager=True,
        gpu_memory_utilization=0.5,
        attention_backend="FLASHINFER",
        kv_cache_dtype="fp8",
    )
    assert config.id == "kv=fp8-attn=FLASHINFER-gmu=0.5-eager"
    assert EngineConfig().id == "default"


def test_id_covers_sizes_engine_args_env_and_is_file_name_safe() -> None:
    config = EngineConfig(
        model="/models/org/Tiny Llama",
        kv_cache_memory_bytes=32 * 1024**2,
        enforce_eager=False,
        engine_args={"block_size": 32, "enable_prefix_caching": False},
        env={"VLLM_ENABLE_V1_MULTIPROCESSING": "1"},
    )
    assert config.id == (
        "model=Tiny_Llama-kvmem=32MiB-graphs-block_size=32-enable_prefix_caching=0"
        "-env.VLLM_ENABLE_V1_MULTIPROCESSING=1"
    )
    assert "/" not in config.id
    assert " " not in config.id


def test_json_round_trip_keeps_every_field_and_equality() -> None:
    config = EngineConfig(
        model="m",
        dtype="bfloat16",
        max_model_len=2048,
        kv_cache_dtype="fp8_e4m3",
        attention_backend="CPU_ATTN",
        kv_cache_memory_bytes="64MiB",  # type: ignore[arg-type]  # sizes are normalised
        enforce_eager=True,
        max_num_seqs=4,
        engine_args={"block_size": 16, "compilation_config": {"level": 0}},
        env={"A": "1"},
    )
    again = EngineConfig.from_json(config.to_json())
    assert again == config
    assert again.key() == config.key()
    assert again.kv_cache_memory_bytes == 64 * 1024**2
    assert json.loads(config.to_json())["engine_args"]["compilation_config"] == {"level": 0}


def test_from_dict_names_unknown_fields_and_where_they_came_from() -> None:
    with pytest.raises(ValueError, match=r"ini blackwell_engine: unknown EngineConfig field"):
        EngineConfig.from_dict({"kv_dtype": "fp8"}, source="ini blackwell_engine")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"gpu_memory_utilization": 1.5}, "fraction in"),
        ({"max_model_len": 0}, "positive int"),
        ({"engine_args": {"max_model_len": 5}}, "must be given as EngineConfig fields"),
        ({"engine_args": {"x": object()}}, "plain JSON"),
        ({"env": {"A": 1}}, "str -> str"),
    ],
)
def test_malformed_values_are_rejected_clearly(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        EngineConfig(**kwargs)  # type: ignore[arg-type]


def test_merged_merges_engine_args_and_env_and_routes_unknown_names() -> None:
    base = EngineConfig(max_model_len=512, engine_args={"a": 1}, env={"X": "1"})
    merged = base.merged(kv_cache_dtype="fp8", b=2, env={"Y": "2"})
    assert merged.engine_args == {"a": 1, "b": 2}
    assert merged.env == {"X": "1", "Y": "2"}
    assert merged.kv_cache_dtype == "fp8"
    assert merged.max_model_len == 512
    assert base.engine_args == {"a": 1}


def test_engine_kwargs_pass_set_fields_and_engine_args_only() -> None:
    config = EngineConfig(model="m", kv_cache_dtype="fp8", engine_args={"block_size": 32})
    assert config.engine_kwargs() == {"kv_cache_dtype": "fp8", "block_size": 32}


CAPS = Capabilities(
    vllm_version="0.32.0",
    torch_version="2.13.0",
    engine_args=("block_size", "kv_cache_dtype", "attention_backend"),
    kv_cache_dtypes=("auto", "fp8"),
    attention_backends=("FLASH_ATTN", "FLASHINFER", "CPU_ATTN"),
    backend_is_engine_arg=True,
)


def test_problems_name_unknown_args_dtypes_and_backends_with_the_vllm_version() -> None:
    config = EngineConfig(
        kv_cache_dtype="fp4", attention_backend="MAGIC", engine_args={"blok_size": 16}
    )
    found = problems(config, CAPS)
    assert len(found) == 3
    assert "unknown engine argument(s) blok_size for vLLM 0.32.0" in found[0]
    assert "kv_cache_dtype 'fp4' does not exist in vLLM 0.32.0; it accepts auto, fp8" in found[1]
    assert "'MAGIC' does not exist" in found[2]
    assert "CPU_ATTN" in found[2]
    assert problems(EngineConfig(kv_cache_dtype="fp8", engine_args={"block_size": 8}), CAPS) == []


def test_capabilities_round_trip() -> None:
    assert Capabilities.from_dict(json.loads(json.dumps(CAPS.to_dict()))) == CAPS


def test_engine_result_round_trip_and_backend_mismatch_is_visible() -> None:
    failure = Failure("kv_cache_oom", "kv_alloc", "ValueError: too small", 12, {"a": 1}, ("x",))
    failed = EngineResult(
        config_id="len=4096",
        ok=False,
        failure=failure,
        timings={"startup": 1.5},
        log_path="logs/len=4096.log",
        exit_status=-9,
    )
    assert EngineResult.from_dict(json.loads(json.dumps(failed.to_dict()))) == failed
    assert failed.summary == "kv_cache_oom at kv_alloc: ValueError: too small"

    fallback = EngineResult(
        config_id="attn=FLASHINFER",
        ok=True,
        tokens_per_s=40.0,
        requested_backend="FLASHINFER",
        actual_backend="CPU_ATTN",
    )
    assert fallback.backend_mismatch
    assert "FLASHINFER was requested and CPU_ATTN ran" in fallback.summary
    assert not EngineResult(config_id="d", ok=True, actual_backend="CPU_ATTN").backend_mismatch


def test_ids_carry_no_secret_and_stay_short() -> None:
    config = EngineConfig(
        env={"HF_TOKEN": "hf_abcdefghijklmnopqrstuvwx", "VLLM_LOGGING_LEVEL": "INFO"},
        engine_args={"hf_overrides": {"text_config": {"x": "y" * 400}}},
    )
    assert "hf_abcdef" not in config.id
    assert "env.VLLM_LOGGING_LEVEL=INFO" in config.id
    assert "env.HF_TOKEN=_" in config.id
    assert len(config.id) <= 120
    other = config.replace(engine_args={"hf_overrides": {"text_config": {"x": "z" * 400}}})
    assert other.id != config.id


def test_merged_reads_env_values_as_text_and_refuses_a_non_dict() -> None:
    assert EngineConfig().merged(env={"N": 1}).env == {"N": "1"}
    with pytest.raises(ValueError, match="env must be a dict"):
        EngineConfig().merged(env="A=1")
    with pytest.raises(ValueError, match="engine_args: max_model_len must be given as"):
        EngineConfig().merged(engine_args={"max_model_len": 5})
