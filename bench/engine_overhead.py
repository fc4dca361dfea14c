"""Engine overhead of the plugin, and how fast it stops an engine after its first fatal error.

1. Start-up + generate: a bare ``vllm.LLM(...)`` in a fresh interpreter followed by one
   ``generate`` of a few prompts, against ``EnginePool.get(config)`` + ``handle.generate`` of
   the same prompts for the same configuration (same resolved engine arguments and
   environment). The two alternate for ``--rounds`` rounds; medians are compared.
   Target: plugin overhead under 10%.
2. Fail-fast: a KV cache too small for ``max_model_len`` fails at ``kv_alloc``; measured from the
   moment the first fatal log line is read to the moment no process of the engine is left
   (target: under 2 s), for the in-process and the multiprocess engine layout, next to how long
   vLLM itself takes from that line to exiting.

    python bench/engine_overhead.py [--rounds 3] [--skip-fail-fast] [--no-warmup]

An untimed warm-up pair runs first (page cache, model-inspection cache), unless --no-warmup.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pytest_blackwell.engine import EngineConfig, EnginePool
from pytest_blackwell.engine.launcher import EngineProcess
from pytest_blackwell.engine.probe import resolve
from pytest_blackwell.failures import StreamClassifier
from pytest_blackwell.units import parse_size

PROMPTS = ["hello world", "the quick brown fox", "a small engine test", "one two three"]
CONFIG = EngineConfig(max_model_len=512)
FAILING = EngineConfig(max_model_len=4096, kv_cache_memory_bytes=parse_size("1MiB"))

BARE = """
import json, os, sys, time
def main():
    spec = json.loads(sys.argv[1])
    from vllm import LLM, SamplingParams
    llm = LLM(model=spec["model"], **spec["kwargs"])
    params = SamplingParams(temperature=0.0, max_tokens=16, ignore_eos=True)
    llm.generate(spec["prompts"], params, use_tqdm=False)
    print("BARE-DONE", flush=True)
    os._exit(0)
if __name__ == "__main__":
    main()
"""


def _cpu_build() -> bool:
    probe = "import torch; print(torch.version.cuda is None and torch.version.hip is None)"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    return out.stdout.strip() == "True"


def _env(cpu: bool, multiprocess: bool | None = None) -> dict[str, str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    if multiprocess is not None:
        env["VLLM_ENABLE_V1_MULTIPROCESSING"] = "1" if multiprocess else "0"
    elif cpu:
        env.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")  # the probe's CPU default
    return env


def bare_run(config: EngineConfig, cpu: bool, work: Path) -> float:
    """Seconds from a fresh interpreter to the end of one generate, bare vLLM."""
    model, kwargs = resolve(config, cpu=cpu)
    spec = json.dumps({"model": model, "kwargs": kwargs, "prompts": PROMPTS})
    env = {**_env(cpu), "TMPDIR": str(work)}
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", BARE, spec],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        start_new_session=True,
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("BARE-DONE"):
            took = time.perf_counter() - started
            proc.wait()
            return took
    raise RuntimeError(f"bare vLLM run failed (exit {proc.wait()})")


def plugin_run(config: EngineConfig, cpu: bool, artifacts: Path) -> float:
    """Seconds from ``EnginePool.get`` to the end of one generate through the plugin."""
    started = time.perf_counter()
    pool = EnginePool(artifacts, base_env=_env(cpu))
    try:
        handle = pool.get(config)
        if not handle.result.ok:
            raise RuntimeError(f"plugin engine failed: {handle.result.summary}")
        handle.generate(PROMPTS, max_tokens=16, ignore_eos=True)
        return time.perf_counter() - started
    finally:
        pool.close()


def fail_fast(cpu: bool, multiprocess: bool, work: Path) -> dict[str, Any]:
    """First fatal line read -> no engine process left, for the plugin and for vLLM alone."""
    engine = EngineProcess(
        FAILING,
        log_path=work / f"fail-{multiprocess}.log",
        work_dir=work / f"fail-{multiprocess}",
        env={**_env(cpu, multiprocess), "TMPDIR": str(work)},
    )
    engine.start()
    result = engine.wait_ready()
    engine.stop()
    failure = result.failure
    return {
        "multiprocess": multiprocess,
        "failure": None if failure is None else failure.summary[:100],
        "plugin_s": engine.fail_fast_s,
        "vllm_alone_s": _vllm_alone(cpu, multiprocess, work),
    }


def _vllm_alone(cpu: bool, multiprocess: bool, work: Path) -> float | None:
    model, kwargs = resolve(FAILING, cpu=cpu)
    spec = json.dumps({"model": model, "kwargs": kwargs, "prompts": PROMPTS})
    proc = subprocess.Popen(
        [sys.executable, "-c", BARE, spec],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**_env(cpu, multiprocess), "TMPDIR": str(work)},
    )
    assert proc.stdout is not None
    classifier = StreamClassifier()
    times: list[float] = []
    for line in proc.stdout:
        times.append(time.perf_counter())
        classifier.feed(line.rstrip("\n"))
    proc.wait()
    ended = time.perf_counter()
    found = classifier.result()
    if found is None or not 0 < found.line <= len(times):
        return None
    return ended - times[found.line - 1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--skip-fail-fast", action="store_true")
    parser.add_argument(
        "--no-warmup", dest="warmup", action="store_false", help="time the cold first pair too"
    )
    args = parser.parse_args()
    cpu = _cpu_build()
    bare: list[float] = []
    plugin: list[float] = []
    with tempfile.TemporaryDirectory(prefix="pbw-bench-") as tmp:
        work = Path(tmp)
        if args.warmup:
            # Untimed pair: fills the page cache, vLLM's and our model-inspection caches.
            bare_run(CONFIG, cpu, work)
            plugin_run(CONFIG, cpu, work / "artifacts-warmup")
        for n in range(args.rounds):
            bare.append(bare_run(CONFIG, cpu, work))
            plugin.append(plugin_run(CONFIG, cpu, work / f"artifacts-{n}"))
            print(f"round {n + 1}: bare {bare[-1]:.1f} s, plugin {plugin[-1]:.1f} s", flush=True)
        bare_med, plugin_med = statistics.median(bare), statistics.median(plugin)
        overhead = (plugin_med - bare_med) / bare_med * 100
        print(
            f"start-up + generate, median of {args.rounds}: bare {bare_med:.1f} s, "
            f"plugin {plugin_med:.1f} s, overhead {overhead:+.1f}% (target < 10%)"
        )
        if not args.skip_fail_fast:
            for multiprocess in (False, True):
                row = fail_fast(cpu, multiprocess, work)
                layout = "multiprocess" if multiprocess else "in-process"
                plugin_s = row["plugin_s"]
                alone = row["vllm_alone_s"]
                print(
                    f"fail-fast ({layout}): {row['failure']}\n"
                    f"  first fatal line -> engine gone: plugin "
                    f"{'n/a' if plugin_s is None else f'{plugin_s:.2f} s'} (target < 2 s), "
                    f"vLLM alone {'n/a' if alone is None else f'{alone:.2f} s'}",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
