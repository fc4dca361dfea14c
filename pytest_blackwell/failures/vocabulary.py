"""The public failure vocabulary: categories and stages (stable lower_snake strings)."""

from __future__ import annotations

from typing import Final

#: Failure categories, in documentation order. See docs/failures.md for their meaning.
CATEGORIES: Final[tuple[str, ...]] = (
    "kv_cache_oom",
    "device_oom",
    "smem_limit",
    "illegal_memory_access",
    "dispatch_failure",
    "stream_capture",
    "unsupported_config",
    "nccl_error",
    "env_mismatch",
    "engine_died",
    "timeout",
    "unknown",
)

#: Engine life-cycle stages, in the order an engine passes through them.
LIFECYCLE_STAGES: Final[tuple[str, ...]] = (
    "startup",
    "loading",
    "compile",
    "profile",
    "kv_alloc",
    "graph_capture",
    "warmup",
    "execute",
    "shutdown",
)

#: Every stage a failure may report: the life-cycle stages, then ``unknown`` for an error whose
#: log says nothing about where it happened (no stage marker, no telling frame, no event).
STAGES: Final[tuple[str, ...]] = (*LIFECYCLE_STAGES, "unknown")
