"""A tiny random-weight Llama in the Hugging Face layout, built locally (no downloads).

Two layers, a 512-token byte-level BPE tokenizer trained here with ``tokenizers``, head_dim 32
(CPU attention rejects 16), 4096 positions. Weights are float32 in ``model.safetensors``, written
directly in the safetensors format so building needs no torch. The result is cached under the
user cache dir in a folder named by the hash of everything that goes into it.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import struct
import sys
import tempfile
from array import array
from pathlib import Path
from typing import Any

from pytest_blackwell.engine.cachedir import user_cache_dir

#: Bump when the builder's output changes for the same spec.
BUILDER_VERSION = 1

SPEC: dict[str, Any] = {
    "vocab_size": 512,
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 2,
    "num_key_value_heads": 2,
    "head_dim": 32,
    "max_position_embeddings": 4096,
    "seed": 1234,
    "init_std": 0.02,
}

_TEXT = (
    "the a an engine kernel cache block token model layer head memory device test run fails "
    "passes quick brown fox jumps over lazy dog hello world one two three four five six seven "
    "eight nine ten red green blue small large fast slow first last error stage value number "
    "is are was were be been has have had do does did can will would should could may might"
)

#: Kinds of deliberate breakage :func:`make_malformed_model` can produce.
MALFORMED_KINDS = ("config", "architecture", "weights", "tokenizer")


def _corpus() -> list[str]:
    rng = random.Random(7)
    words = _TEXT.split()
    lines = [" ".join(rng.choice(words) for _ in range(12)) for _ in range(400)]
    lines.append("".join(chr(c) for c in range(32, 127)))
    return lines


def content_hash() -> str:
    """Hash of everything the model is built from: the cache key."""
    blob = json.dumps(
        {"builder": BUILDER_VERSION, "spec": SPEC, "corpus": _corpus()}, sort_keys=True
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def _tensors(spec: dict[str, Any]) -> dict[str, tuple[list[int], array[float]]]:
    rng = random.Random(spec["seed"])
    std = float(spec["init_std"])
    hidden, inter = spec["hidden_size"], spec["intermediate_size"]
    q_out = spec["num_attention_heads"] * spec["head_dim"]
    kv_out = spec["num_key_value_heads"] * spec["head_dim"]
    vocab = spec["vocab_size"]

    def normal(*shape: int) -> tuple[list[int], array[float]]:
        count = 1
        for dim in shape:
            count *= dim
        return list(shape), array("f", (rng.gauss(0.0, std) for _ in range(count)))

    def ones(size: int) -> tuple[list[int], array[float]]:
        return [size], array("f", [1.0] * size)

    tensors = {"model.embed_tokens.weight": normal(vocab, hidden)}
    for i in range(spec["num_hidden_layers"]):
        prefix = f"model.layers.{i}"
        tensors[f"{prefix}.input_layernorm.weight"] = ones(hidden)
        tensors[f"{prefix}.post_attention_layernorm.weight"] = ones(hidden)
        tensors[f"{prefix}.self_attn.q_proj.weight"] = normal(q_out, hidden)
        tensors[f"{prefix}.self_attn.k_proj.weight"] = normal(kv_out, hidden)
        tensors[f"{prefix}.self_attn.v_proj.weight"] = normal(kv_out, hidden)
        tensors[f"{prefix}.self_attn.o_proj.weight"] = normal(hidden, q_out)
        tensors[f"{prefix}.mlp.gate_proj.weight"] = normal(inter, hidden)
        tensors[f"{prefix}.mlp.up_proj.weight"] = normal(inter, hidden)
        tensors[f"{prefix}.mlp.down_proj.weight"] = normal(hidden, inter)
    tensors["model.norm.weight"] = ones(hidden)
    tensors["lm_head.weight"] = normal(vocab, hidden)
    return tensors


def write_safetensors(path: Path, tensors: dict[str, tuple[list[int], array[float]]]) -> None:
    """Write float32 tensors in the safetensors layout (u64 header size, JSON header, data)."""
    header: dict[str, Any] = {"__metadata__": {"format": "pt"}}
    chunks: list[bytes] = []
    offset = 0
    for name in sorted(tensors):
        shape, values = tensors[name]
        if sys.byteorder != "little":
            values = array("f", values)
            values.byteswap()
        data = values.tobytes()
        end = offset + len(data)
        header[name] = {"dtype": "F32", "shape": shape, "data_offsets": [offset, end]}
        chunks.append(data)
        offset += len(data)
    raw = json.dumps(header, separators=(",", ":")).encode()
    raw += b" " * (-len(raw) % 8)
    with open(path, "wb") as fh:
        fh.write(struct.pack("<Q", len(raw)))
        fh.write(raw)
        for chunk in chunks:
            fh.write(chunk)


def _write_tokenizer(folder: Path, vocab_size: int) -> int:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=["<unk>", "<s>", "</s>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(_corpus(), trainer=trainer)
    tokenizer.save(str(folder / "tokenizer.json"))
    config = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "bos_token": "<s>",
        "eos_token": "</s>",
        "unk_token": "<unk>",
        "model_max_length": SPEC["max_position_embeddings"],
        "clean_up_tokenization_spaces": False,
    }
    (folder / "tokenizer_config.json").write_text(json.dumps(config, indent=2))
    specials = {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"}
    (folder / "special_tokens_map.json").write_text(json.dumps(specials, indent=2))
    return int(tokenizer.get_vocab_size())


def _model_config(bos: int, eos: int) -> dict[str, Any]:
    return {
        "architectures": ["LlamaForCausalLM"],
        "model_type": "llama",
        "vocab_size": SPEC["vocab_size"],
        "hidden_size": SPEC["hidden_size"],
        "intermediate_size": SPEC["intermediate_size"],
        "num_hidden_layers": SPEC["num_hidden_layers"],
        "num_attention_heads": SPEC["num_attention_heads"],
        "num_key_value_heads": SPEC["num_key_value_heads"],
        "head_dim": SPEC["head_dim"],
        "max_position_embeddings": SPEC["max_position_embeddings"],
        "hidden_act": "silu",
        "rms_norm_eps": 1e-5,
        "rope_theta": 10000.0,
        "tie_word_embeddings": False,
        "torch_dtype": "float32",
        "bos_token_id": bos,
        "eos_token_id": eos,
    }


def build_tiny_model(dest: Path) -> Path:
    """Build the tiny model into ``dest`` (created; must not exist) and return it."""
    dest.mkdir(parents=True)
    tokenizer_vocab = _write_tokenizer(dest, SPEC["vocab_size"])
    if tokenizer_vocab > SPEC["vocab_size"]:
        raise RuntimeError(
            f"tiny model: the tokenizer has {tokenizer_vocab} tokens, more than the model's "
            f"vocab_size {SPEC['vocab_size']}"
        )
    config = _model_config(bos=1, eos=2)
    (dest / "config.json").write_text(json.dumps(config, indent=2))
    generation = {"bos_token_id": 1, "eos_token_id": 2, "do_sample": False}
    (dest / "generation_config.json").write_text(json.dumps(generation, indent=2))
    write_safetensors(dest / "model.safetensors", _tensors(SPEC))
    (dest / "BUILD_HASH").write_text(content_hash() + "\n")
    return dest


def tiny_model_path(cache_dir: Path | None = None) -> Path:
    """The cached tiny model folder, built on first use (safe under concurrent builders)."""
    root = (cache_dir or user_cache_dir()) / "models"
    final = root / f"tiny-llama-{content_hash()}"
    if (final / "BUILD_HASH").is_file():
        return final
    root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".building-", dir=root))
    try:
        build_tiny_model(staging / "model")
        try:
            os.rename(staging / "model", final)
        except OSError:
            if not (final / "BUILD_HASH").is_file():  # not a concurrent builder winning
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return final


def make_malformed_model(dest: Path, kind: str = "config", source: Path | None = None) -> Path:
    """Copy the tiny model to ``dest`` and break it on purpose.

    ``config``: config.json declares 3 attention heads for hidden size 64 (not divisible);
    ``architecture``: an architecture no engine knows; ``weights``: model.safetensors truncated;
    ``tokenizer``: tokenizer files removed.
    """
    if kind not in MALFORMED_KINDS:
        raise ValueError(f"malformed model kind {kind!r}; expected one of {MALFORMED_KINDS}")
    shutil.copytree(source or tiny_model_path(), dest)
    (dest / "BUILD_HASH").unlink(missing_ok=True)
    config_path = dest / "config.json"
    config = json.loads(config_path.read_text())
    if kind == "config":
        config["num_attention_heads"] = 3
        config["num_key_value_heads"] = 3
        config.pop("head_dim", None)
    elif kind == "architecture":
        config["architectures"] = ["NoSuchModelForCausalLM"]
        config["model_type"] = "no_such_model"
    elif kind == "weights":
        weights = dest / "model.safetensors"
        data = weights.read_bytes()
        weights.write_bytes(data[: len(data) // 3])
    else:
        for name in ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
            (dest / name).unlink(missing_ok=True)
    config_path.write_text(json.dumps(config, indent=2))
    return dest
