"""`EngineConfig`: one engine configuration as plain data, with a stable readable id.

Nothing here imports vLLM: checking names against the installed vLLM goes through
:mod:`pytest_blackwell.engine.capabilities`, which asks a subprocess once and caches the answer.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from pytest_blackwell.units import format_size, parse_size

_ID_UNSAFE = re.compile(r"[^A-Za-z0-9._=+,-]+")

#: Fields that have their own place in the id, in id order, with their short id key.
_ID_KEYS: tuple[tuple[str, str], ...] = (
    ("model", "model"),
    ("dtype", "dtype"),
    ("max_model_len", "len"),
    ("kv_cache_dtype", "kv"),
    ("attention_backend", "attn"),
    ("gpu_memory_utilization", "gmu"),
    ("kv_cache_memory_bytes", "kvmem"),
    ("max_num_seqs", "seqs"),
)


#: Ids name log and report files: keep them well under file-name limits.
_ID_MAX = 120
#: Values that may stand in an id as they are; others (long, odd, or under a name that looks
#: like a credential) appear as a short digest, so ids never carry a secret into file names.
_ID_PLAIN = re.compile(r"^[A-Za-z0-9._:+,=-]{1,24}$")
_SECRETISH = re.compile(r"TOKEN|KEY|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH", re.IGNORECASE)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:8]


def _id_short(name: str, value: str) -> str:
    if _SECRETISH.search(name) or not _ID_PLAIN.match(value):
        return f"~{_digest(value)}"
    return value


def _id_value(value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True, separators=(",", ":"))
    return str(value)


@dataclass(frozen=True)
class EngineConfig:
    """One engine configuration. ``None`` means "the engine's (or platform's) default".

    ``model`` ``None`` means the built-in tiny model. ``engine_args`` holds any other
    ``vllm.LLM``/``EngineArgs`` keyword argument (JSON-able values); ``env`` extra environment
    variables for the engine process. Instances are hashable by value through :meth:`key`.
    """

    model: str | None = None
    dtype: str | None = None
    max_model_len: int | None = None
    kv_cache_dtype: str | None = None
    attention_backend: str | None = None
    gpu_memory_utilization: float | None = None
    kv_cache_memory_bytes: int | None = None
    enforce_eager: bool | None = None
    max_num_seqs: int | None = None
    engine_args: dict[str, Any] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kv_cache_memory_bytes is not None:
            size = parse_size(self.kv_cache_memory_bytes, what="kv_cache_memory_bytes")
            object.__setattr__(self, "kv_cache_memory_bytes", size)
        if self.gpu_memory_utilization is not None and not (
            0.0 < float(self.gpu_memory_utilization) <= 1.0
        ):
            raise ValueError(
                "gpu_memory_utilization: expected a fraction in (0, 1]; got "
                f"{self.gpu_memory_utilization!r}"
            )
        if self.enforce_eager is not None and not isinstance(self.enforce_eager, bool):
            raise ValueError(f"enforce_eager: expected true or false; got {self.enforce_eager!r}")
        if self.kv_cache_memory_bytes is not None and self.kv_cache_memory_bytes <= 0:
            size = self.kv_cache_memory_bytes
            raise ValueError(f"kv_cache_memory_bytes: expected more than 0 bytes; got {size}")
        for name in ("max_model_len", "max_num_seqs"):
            value = getattr(self, name)
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int) or value <= 0
            ):
                raise ValueError(f"{name}: expected a positive int; got {value!r}")
        for key, value in self.env.items():
            if not isinstance(key, str) or not isinstance(value, str):
                raise ValueError(f"env: expected str -> str; got {key!r}: {value!r}")
        clash = sorted(set(self.engine_args) & {f.name for f in fields(self)})
        if clash:
            raise ValueError(
                f"engine_args: {', '.join(clash)} must be given as EngineConfig fields, "
                "not inside engine_args"
            )
        try:
            json.dumps(self.engine_args)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"engine_args: values must be plain JSON data ({exc})") from None

    @property
    def id(self) -> str:
        """Stable readable id such as ``kv=fp8-attn=FLASHINFER-gmu=0.5-eager``.

        Only values that differ from the defaults appear; a config with none is ``default``.
        The id is safe as a file name.
        """
        parts: list[str] = []
        for name, key in _ID_KEYS:
            value = getattr(self, name)
            if value is None:
                continue
            if name == "model":
                value = str(value).rstrip("/").rsplit("/", 1)[-1]
            elif name == "kv_cache_memory_bytes":
                value = format_size(int(value))
            parts.append(f"{key}={_id_value(value)}")
        if self.enforce_eager is not None:
            parts.append("eager" if self.enforce_eager else "graphs")
        parts.extend(
            f"{k}={_id_short(k, _id_value(v))}" for k, v in sorted(self.engine_args.items())
        )
        parts.extend(f"env.{k}={_id_short(k, v)}" for k, v in sorted(self.env.items()))
        text = "-".join(_ID_UNSAFE.sub("_", part) for part in parts)
        if len(text) > _ID_MAX:
            text = f"{text[: _ID_MAX - 9]}~{_digest(self.key())}"
        return text or "default"

    def replace(self, **changes: Any) -> EngineConfig:
        """A copy with ``changes`` applied (validated like a new configuration)."""
        return replace(self, **changes)

    def key(self) -> str:
        """Canonical JSON of the whole config: equal keys mean the same engine."""
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, source: str = "config") -> EngineConfig:
        """Inverse of :meth:`to_dict`; unknown keys are an error naming ``source``."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(
                f"{source}: unknown EngineConfig field(s) {', '.join(unknown)}; expected some "
                f"of {', '.join(sorted(known))} (other vLLM arguments go in engine_args)"
            )
        kwargs = dict(data)
        kwargs["engine_args"] = dict(kwargs.get("engine_args") or {})
        kwargs["env"] = {str(k): str(v) for k, v in (kwargs.get("env") or {}).items()}
        try:
            return cls(**kwargs)
        except ValueError as exc:
            raise ValueError(f"{source}: {exc}") from None

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_json(cls, text: str, *, source: str = "config JSON") -> EngineConfig:
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError(f"{source}: expected a JSON object; got {type(data).__name__}")
        return cls.from_dict(data, source=source)

    def merged(self, **changes: Any) -> EngineConfig:
        """A copy with fields replaced; ``engine_args``/``env`` are merged, not replaced.

        Keys of ``changes`` that are not fields go into ``engine_args``; ``env`` values become
        strings. Raises ``ValueError`` for a value the configuration cannot hold.
        """
        known = {f.name for f in fields(self)}
        engine_args = dict(self.engine_args)
        env = dict(self.env)
        plain: dict[str, Any] = {}
        for name, value in changes.items():
            if name in ("engine_args", "env") and not isinstance(value, Mapping):
                raise ValueError(f"{name} must be a dict, got {value!r}")
            if name == "engine_args":
                engine_args.update(value)
            elif name == "env":
                env.update({str(k): str(v) for k, v in value.items()})
            elif name in known:
                plain[name] = value
            else:
                engine_args[name] = value
        return replace(self, engine_args=engine_args, env=env, **plain)

    def engine_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``vllm.LLM`` (set fields only; ``model`` excluded)."""
        kwargs: dict[str, Any] = {}
        for f in fields(self):
            if f.name in ("model", "engine_args", "env"):
                continue
            value = getattr(self, f.name)
            if value is not None:
                kwargs[f.name] = value
        kwargs.update(self.engine_args)
        return kwargs
