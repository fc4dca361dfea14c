"""A second run compiles warm: the persistent compile cache, cold against warm, side by side.

An engine with torch.compile on (``enforce_eager=False``) starts twice with the same fresh
compile cache folder (the first start fills it, as a first CI run would; the second reads it,
as the next run would), each in its own pool like two pytest sessions. Printed: the seconds each
start spent in the ``compile`` stage (announced by the stage hooks from vLLM's backend and
Dynamo's callbacks) and from launch to ready, and the warm/cold ratios.

    python bench/compile_cache.py
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from pytest_blackwell.engine import EngineConfig, EnginePool
from pytest_blackwell.engine.result import EngineResult

CONFIG = EngineConfig(max_model_len=512, enforce_eager=False)


def start(cache: Path, artifacts: Path) -> EngineResult:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    with EnginePool(artifacts, base_env=env, vllm_cache_dir=cache) as pool:
        handle = pool.get(CONFIG)
        result = handle.result
    if not result.ok:
        raise SystemExit(f"engine failed: {result.summary} (log: {result.log_path})")
    return result


def main() -> int:
    work = Path(tempfile.mkdtemp(prefix="pbw-bench-"))
    try:
        cache = work / "compile-cache"
        cold = start(cache, work / "cold")
        warm = start(cache, work / "warm")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{'':8} {'compile s':>10} {'to ready s':>11}")
    for name, result in (("cold", cold), ("warm", warm)):
        compile_s = result.timings.get("compile", 0.0)
        print(f"{name:8} {compile_s:10.1f} {result.timings['total']:11.1f}")
    if cold.timings.get("compile"):
        ratio = warm.timings.get("compile", 0.0) / cold.timings["compile"]
        print(f"warm/cold compile stage: {ratio:.2f}")
    print(f"warm/cold launch to ready: {warm.timings['total'] / cold.timings['total']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
