"""How to reproduce one engine configuration, and what its settings mean.

Turns an ``EngineConfig.to_dict()`` into engine arguments, the equivalent ``vllm serve`` command
line and ``LLM(...)`` call, and explains the FP8 and memory-budget settings in words.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from typing import Any

#: Config keys that are not engine arguments.
_NOT_ARGS = ("model", "engine_args", "env")

#: Placeholder when the config uses the built-in tiny model (its path is machine-specific).
TINY_MODEL = "TINY_MODEL_DIR"

_FP8_QUANTIZATIONS = ("fp8", "ptpc_fp8", "fbgemm_fp8", "fp8_e4m3", "fp8_e5m2")


def engine_arguments(config: Mapping[str, Any]) -> dict[str, Any]:
    """Every engine argument that is set (fields, then ``engine_args``), ``model`` excluded."""
    args = {k: v for k, v in config.items() if k not in _NOT_ARGS and v is not None}
    args.update(config.get("engine_args") or {})
    return args


def model_name(config: Mapping[str, Any]) -> str:
    model = config.get("model")
    return str(model) if model else TINY_MODEL


def _cli_value(value: Any) -> str:
    if isinstance(value, (dict, list)):
        return shlex.quote(json.dumps(value, separators=(",", ":")))
    return shlex.quote(str(value))


def serve_command(config: Mapping[str, Any], *, env: Mapping[str, str] | None = None) -> str:
    """``VAR=x vllm serve MODEL --kv-cache-dtype fp8 --enforce-eager ...`` (continued lines)."""
    head = [f"{k}={shlex.quote(v)}" for k, v in sorted((env or {}).items())]
    lines = [" ".join([*head, "vllm", "serve", shlex.quote(model_name(config))])]
    for key, value in engine_arguments(config).items():
        flag = "--" + key.replace("_", "-")
        if value is True:
            lines.append(flag)
        elif value is False:
            lines.append("--no-" + key.replace("_", "-"))
        else:
            lines.append(f"{flag} {_cli_value(value)}")
    return " \\\n    ".join(lines)


def python_reproduction(
    config: Mapping[str, Any], *, env: Mapping[str, str] | None = None, max_tokens: int = 16
) -> str:
    """A runnable script: environment, ``LLM(...)`` with every argument, one generate call."""
    lines = ["import os", ""]
    lines += [f"os.environ[{k!r}] = {v!r}" for k, v in sorted((env or {}).items())]
    if env:
        lines.append("")
    lines += [
        "from vllm import LLM, SamplingParams  # after the environment is set",
        "",
        "llm = LLM(",
        f"    model={model_name(config)!r},",
    ]
    lines += [f"    {key}={value!r}," for key, value in engine_arguments(config).items()]
    lines += [
        ")",
        f"out = llm.generate(['Hello, my name is'], SamplingParams(max_tokens={max_tokens}))",
        "print(out[0].outputs[0].text)",
    ]
    return "\n".join(lines)


def fp8_meaning(config: Mapping[str, Any], compute_capability: str | None) -> list[str]:
    """What "FP8" means in this configuration, one bullet per place it is (or is not) used."""
    args = engine_arguments(config)
    kv = str(args.get("kv_cache_dtype") or "auto")
    quant = args.get("quantization")
    dtype = str(args.get("dtype") or "auto")
    notes: list[str] = []
    if kv.startswith("fp8"):
        fmt = {"fp8": "FP8 (E4M3 on NVIDIA GPUs)", "fp8_e4m3": "FP8 E4M3", "fp8_e5m2": "FP8 E5M2"}
        notes.append(
            f"KV-cache storage: {fmt.get(kv, kv)} via `kv_cache_dtype={kv}`; attention reads "
            "and writes the cache in FP8 (scales from the checkpoint or 1.0)."
        )
    else:
        notes.append(f"KV-cache storage: not FP8 (`kv_cache_dtype={kv}`).")
    if quant is not None and str(quant).lower() in _FP8_QUANTIZATIONS:
        notes.append(f"Weights: FP8 via `quantization={quant}`.")
        notes.append(_fp8_activations(compute_capability))
    elif quant is not None:
        notes.append(
            f"Weights: quantized with `quantization={quant}`; whether weights and activations are "
            "FP8 is decided by the checkpoint's quantization config."
        )
    else:
        notes.append(
            f"Weights and activations: not FP8 (no `quantization`; `dtype={dtype}`), unless the "
            "checkpoint itself is FP8-quantized."
        )
    if not kv.startswith("fp8") and quant is None:
        notes.insert(0, "This configuration does not ask for FP8 anywhere.")
    elif kv.startswith("fp8") and quant is not None and str(quant).lower() in _FP8_QUANTIZATIONS:
        notes.insert(0, "FP8 is used in several places: KV cache and weights.")
    return notes


def _fp8_activations(compute_capability: str | None) -> str:
    if not compute_capability or compute_capability == "none":
        return "Activations: unknown here (no GPU compute capability recorded)."
    try:
        major, minor = (int(x) for x in compute_capability.split("."))
    except ValueError:
        return f"Activations: unknown (compute capability {compute_capability!r})."
    if (major, minor) >= (8, 9):
        return (
            f"Activations: FP8 with dynamic scales (W8A8) on compute capability "
            f"{compute_capability}."
        )
    return (
        f"Activations: stay in 16-bit; compute capability {compute_capability} has no FP8 "
        "tensor cores, so vLLM runs FP8 weights weight-only (W8A16, Marlin kernels)."
    )


def _gib(nbytes: float) -> str:
    return f"{nbytes / 1024**3:.2f} GiB"


def memory_budget(config: Mapping[str, Any], total_memory_bytes: int | None) -> list[str]:
    """The memory-budget settings in words, translated to bytes where the device size is known."""
    args = engine_arguments(config)
    gmu = args.get("gpu_memory_utilization")
    kvmem = args.get("kv_cache_memory_bytes")
    notes: list[str] = []
    if gmu is not None:
        text = f"`gpu_memory_utilization={gmu}`: vLLM may use {float(gmu):.0%} of device memory"
        if total_memory_bytes:
            text += (
                f" = {_gib(float(gmu) * total_memory_bytes)} of {_gib(total_memory_bytes)} "
                "(weights, activations, CUDA graphs and KV cache together, per GPU)"
            )
        notes.append(text + ".")
    if kvmem is not None:
        notes.append(
            f"`kv_cache_memory_bytes={kvmem}` ({_gib(int(kvmem))}): the KV cache is sized "
            "explicitly; `gpu_memory_utilization` does not size it."
        )
    if gmu is None and kvmem is None:
        text = "vLLM's default budget (`gpu_memory_utilization=0.9`"
        if total_memory_bytes:
            text += f" = {_gib(0.9 * total_memory_bytes)} of {_gib(total_memory_bytes)}"
        notes.append(text + ").")
    for key in ("max_model_len", "max_num_seqs", "max_num_batched_tokens", "block_size"):
        if key in args:
            notes.append(f"`{key}={args[key]}` (bounds what the KV cache must hold).")
    env = config.get("env") or {}
    if "VLLM_CPU_KVCACHE_SPACE" in env:
        notes.append(f"`VLLM_CPU_KVCACHE_SPACE={env['VLLM_CPU_KVCACHE_SPACE']}` GiB (CPU backend).")
    return notes
