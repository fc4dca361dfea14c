"""Names of the variables a one-variable comparison changes (a light module: no imports)."""

from __future__ import annotations

#: The memory budget: ``gpu_memory_utilization`` and/or ``kv_cache_memory_bytes``.
MEMORY = "memory_budget"

#: What ``--blackwell-isolate`` changes by default, one at a time.
DEFAULT_VARIABLES = ("kv_cache_dtype", "attention_backend", "enforce_eager", MEMORY)
