"""Throughput of the first-error classifier on a large log.

Builds a log of ``--size-mb`` megabytes (default 200) in a temporary directory: a vLLM start-up,
then a long serving phase (request, throughput and access lines with the odd warning), then the
first error near the end. Times ``classify_log`` against a bare Python line-by-line read of the
same file, alternating the two for several rounds and taking medians, and measures the peak
memory of classification with ``tracemalloc``. The first, untimed call is printed apart: past
64 MB it imports numpy (where installed) to count lines.

    python bench/classify_throughput.py [--size-mb 200] [--rounds 5]

Targets: time ratio <= 2.5, peak memory < 200 MB. Exit status 1 when a target is missed and
``--check`` is given.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
import tracemalloc

API = "(APIServer pid=4101)"
CORE = "(EngineCore_DP0 pid=4188)"
SITE = "/usr/lib/python3.12/site-packages/vllm"


def _records(level: str, stamp: str, entries: list[tuple[str, str, str]]) -> str:
    """vLLM log records: ``(process tag, source, message)`` at one level and time."""
    return "".join(f"{tag} {level} 03-10 {stamp} [{src}] {msg}\n" for tag, src, msg in entries)


HEADER = (
    _records(
        "INFO",
        "15:07:09",
        [
            (API, "api_server.py:1043", "vLLM API server version 0.10.1"),
            (CORE, "gpu_model_runner.py:1953", "Starting to load model Qwen/Qwen3-0.6B..."),
            (CORE, "default_loader.py:262", "Loading weights took 0.41 seconds"),
            (CORE, "gpu_model_runner.py:2007", "Model loading took 1.12 GiB and 2.51 seconds"),
            (CORE, "backends.py:548", "Dynamo bytecode transform time: 5.10 s"),
            (CORE, "monitor.py:34", "torch.compile takes 13.3 s in total"),
            (CORE, "gpu_worker.py:276", "Available KV cache memory: 60.12 GiB"),
            (CORE, "kv_cache_utils.py:849", "GPU KV cache size: 562,880 tokens"),
            (
                CORE,
                "gpu_model_runner.py:2708",
                "Graph capturing finished in 12 secs, took 0.58 GiB",
            ),
            (
                CORE,
                "core.py:214",
                "init engine (profile, create kv cache, warmup model) took 27.71 seconds",
            ),
        ],
    )
    + f"{API} INFO:     Application startup complete.\n"
)

FILLER = (
    "(APIServer pid=4101) INFO 03-10 {t} [loggers.py:123] Engine 000: Avg prompt throughput: "
    "{a}.3 tokens/s, Avg generation throughput: {b}.1 tokens/s, Running: {r} reqs, Waiting: 0 "
    "reqs, GPU KV cache usage: {u}.5%, Prefix cache hit rate: 41.2%\n",
    '(APIServer pid=4101) INFO:     10.0.{r}.{u}:{p} - "POST /v1/completions HTTP/1.1" 200 OK\n',
    "(APIServer pid=4101) INFO 03-10 {t} [logger.py:41] Received request cmpl-{p}{u}: prompt: "
    "'Summarise the following text in one sentence.', params: SamplingParams(n=1, "
    "temperature=0.7, top_p=0.95, max_tokens={a}), prompt_token_ids: None, lora_request: None.\n",
    "(APIServer pid=4101) INFO 03-10 {t} [async_llm.py:273] Added request cmpl-{p}{u}.\n",
    "(EngineCore_DP0 pid=4188) DEBUG 03-10 {t} [core.py:720] EngineCore loop active, "
    "{r} running, {u} scheduled tokens.\n",
)
RARE = (
    "(APIServer pid=4101) WARNING 03-10 {t} [protocol.py:81] The following fields were present "
    "in the request but ignored: {{'logprobs_mode'}}\n"
)
ERROR = _records(
    "ERROR",
    "23:59:58",
    [
        (CORE, "core.py:708", "EngineCore encountered a fatal error."),
        (CORE, "core.py:708", "Traceback (most recent call last):"),
        (CORE, "core.py:708", f'  File "{SITE}/v1/engine/core.py", line 699, in run_engine_core'),
        (CORE, "core.py:708", "    engine_core.run_busy_loop()"),
        (
            CORE,
            "core.py:708",
            f'  File "{SITE}/v1/worker/gpu_model_runner.py", line 1520, in execute_model',
        ),
        (CORE, "core.py:708", "    logits = self.model.compute_logits(hidden_states, None)"),
        (
            CORE,
            "core.py:708",
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.32 GiB. GPU 0 has a "
            "total capacity of 79.19 GiB of which 1.06 GiB is free.",
        ),
        (API, "async_llm.py:420", "AsyncLLM output_handler failed."),
        (
            API,
            "async_llm.py:420",
            "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack "
            "trace (above) for the root cause.",
        ),
    ],
)


def build_log(path: str, size_bytes: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as out:
        out.write(HEADER)
        written = len(HEADER)
        while written < size_bytes:
            parts = []
            for _ in range(2000):
                t = f"{rng.randrange(16, 24):02d}:{rng.randrange(60):02d}:{rng.randrange(60):02d}"
                template = RARE if rng.random() < 0.001 else rng.choice(FILLER)
                parts.append(
                    template.format(
                        t=t,
                        a=rng.randrange(1, 4000),
                        b=rng.randrange(1, 900),
                        r=rng.randrange(1, 64),
                        u=rng.randrange(100),
                        p=rng.randrange(1024, 65535),
                    )
                )
            chunk = "".join(parts)
            out.write(chunk)
            written += len(chunk)
        out.write(ERROR)
        out.write(FILLER[1].format(r=1, u=2, p=3) * 50)


def bare_read(path: str) -> int:
    count = 0
    with open(path, encoding="utf-8") as stream:
        for _line in stream:
            count += 1
    return count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=float, default=200.0, help="log size (default 200)")
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds of each (default 5)")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args(argv)
    if args.size_mb <= 0 or args.rounds < 1:
        parser.error("--size-mb must be > 0 and --rounds >= 1")

    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from pytest_blackwell.failures import classify_log

    with tempfile.TemporaryDirectory(prefix="classify-bench-") as tmp:
        path = os.path.join(tmp, "engine.log")
        build_log(path, int(args.size_mb * 1024 * 1024))
        size_mb = os.path.getsize(path) / (1024 * 1024)
        start = time.perf_counter()
        failure = classify_log(path)  # warm the page cache and check the answer
        first_s = time.perf_counter() - start
        if failure is None or failure.category != "device_oom":
            print(f"unexpected classification: {failure}", file=sys.stderr)
            return 1
        bare_times, classify_times = [], []
        for _ in range(args.rounds):
            start = time.perf_counter()
            bare_read(path)
            bare_times.append(time.perf_counter() - start)
            start = time.perf_counter()
            classify_log(path)
            classify_times.append(time.perf_counter() - start)
        tracemalloc.start()
        classify_log(path)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()

    bare_s = statistics.median(bare_times)
    classify_s = statistics.median(classify_times)
    ratio = classify_s / bare_s
    peak_mb = peak / (1024 * 1024)
    print(f"log size:        {size_mb:.1f} MB (first error at line {failure.line})")
    print(f"result:          {failure.summary}")
    rounds = args.rounds
    print(f"bare read:       {bare_s:.3f} s  ({size_mb / bare_s:.0f} MB/s, median of {rounds})")
    print(f"classify_log:    {classify_s:.3f} s  ({size_mb / classify_s:.0f} MB/s)")
    print(f"ratio:           {ratio:.2f}  (target <= 2.5)")
    print(f"first call:      {first_s:.3f} s  (imports numpy where installed, for logs over 64 MB)")
    print(f"peak memory:     {peak_mb:.1f} MB  (target < 200)")
    missed = ratio > 2.5 or peak_mb >= 200
    return 1 if (missed and args.check) else 0


if __name__ == "__main__":
    sys.exit(main())
