"""The tiny local model: HF layout, shapes vLLM's CPU backend accepts, caching, breakage."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from pytest_blackwell.engine.tinymodel import (
    MALFORMED_KINDS,
    SPEC,
    content_hash,
    make_malformed_model,
    tiny_model_path,
)

pytest.importorskip("tokenizers")


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_model_path(tmp_path_factory.mktemp("cache"))


def _read_safetensors_header(path: Path) -> dict[str, dict[str, object]]:
    raw = path.read_bytes()
    (size,) = struct.unpack("<Q", raw[:8])
    header: dict[str, dict[str, object]] = json.loads(raw[8 : 8 + size])
    header.pop("__metadata__", None)
    return header


def test_model_has_the_hf_layout_and_shapes_the_cpu_backend_needs(model_dir: Path) -> None:
    names = {p.name for p in model_dir.iterdir()}
    assert {"config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json"} <= names
    config = json.loads((model_dir / "config.json").read_text())
    assert config["architectures"] == ["LlamaForCausalLM"]
    assert config["num_hidden_layers"] == 2
    assert config["head_dim"] >= 32
    assert config["hidden_size"] == config["head_dim"] * config["num_attention_heads"]
    assert config["max_position_embeddings"] >= 2048
    header = _read_safetensors_header(model_dir / "model.safetensors")
    assert header["model.embed_tokens.weight"]["shape"] == [config["vocab_size"], 64]
    assert header["model.layers.1.mlp.down_proj.weight"]["shape"] == [64, 128]
    assert len(header) == 3 + 9 * config["num_hidden_layers"]


def test_weights_load_with_the_safetensors_library(model_dir: Path) -> None:
    safetensors_numpy = pytest.importorskip("safetensors.numpy")
    tensors = safetensors_numpy.load_file(str(model_dir / "model.safetensors"))
    lm_head = tensors["lm_head.weight"]
    assert lm_head.shape == (SPEC["vocab_size"], SPEC["hidden_size"])
    assert 0.01 < float(lm_head.std()) < 0.03  # random init, std 0.02
    assert float(tensors["model.norm.weight"].min()) == 1.0


def test_tokenizer_round_trips_text_within_the_vocab(model_dir: Path) -> None:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    ids = tokenizer.encode("hello world, the quick brown fox!").ids
    assert ids
    assert max(ids) < SPEC["vocab_size"]
    assert tokenizer.decode(ids) == "hello world, the quick brown fox!"


def test_cache_is_keyed_by_content_and_reused(model_dir: Path) -> None:
    assert model_dir.name == f"tiny-llama-{content_hash()}"
    stamp = (model_dir / "model.safetensors").stat().st_mtime_ns
    assert tiny_model_path(model_dir.parent.parent) == model_dir
    assert (model_dir / "model.safetensors").stat().st_mtime_ns == stamp


@pytest.mark.parametrize("kind", MALFORMED_KINDS)
def test_malformed_copies_break_only_the_copy(model_dir: Path, tmp_path: Path, kind: str) -> None:
    bad = make_malformed_model(tmp_path / "bad", kind, source=model_dir)
    config = json.loads((bad / "config.json").read_text())
    if kind == "config":
        assert config["hidden_size"] % config["num_attention_heads"] != 0
    elif kind == "architecture":
        assert config["architectures"] == ["NoSuchModelForCausalLM"]
    elif kind == "weights":
        original = (model_dir / "model.safetensors").stat().st_size
        assert (bad / "model.safetensors").stat().st_size < original
    else:
        assert not (bad / "tokenizer.json").exists()
    assert json.loads((model_dir / "config.json").read_text())["num_attention_heads"] == 2


def test_unknown_malformed_kind_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="expected one of"):
        make_malformed_model(tmp_path / "x", "everything")
