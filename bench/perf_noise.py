"""How often perf_compare cries wolf on this machine, and how small a slowdown it catches.

Two engines that differ only in something that cannot matter for speed (``seed``: decoding is
greedy) stay up side by side; the default ``perf_compare`` measurement (interleaved rounds,
paired 95% interval, 10% tolerance) runs ``--repetitions`` times between them.

1. False-alarm rate: the share of repetitions whose verdict is not ``same`` (``slower`` fails a
   test; ``faster`` would be a wrong claim too).
2. Smallest slowdown detected reliably: every repetition's real rounds are replayed with B's
   values scaled by ``1 - s``, for s in 1% steps; the smallest s that is called ``slower`` in at
   least ``--reliable`` of the repetitions (default 95%) is printed, with the detection rate per
   step. The noise is this machine's, measured in this run; only the slowdown is synthetic.

3. Side by side, in the same run, the same figures for v0.1: its measurement (rounds as short
   as one pass of the prompts, no extra rounds) on a second pair of engines left as vLLM sets
   them up (``BLACKWELL_ENGINE_CPU_SETUP=off``: spinning OpenMP threads), alternating with the
   default one repetition by repetition, and the ratio of their median interval widths.

``--load N`` keeps N busy processes running during the measurement, the way other jobs of a
shared runner do (default 0: the machine as it is).

The synthetic slowdowns are replayed on all measured rounds of a repetition (the extra rounds
a real comparison would have stopped at are not re-decided).

    python bench/perf_noise.py [--repetitions 20] [--rounds 6] [--warmup 1] [--prompts 8]
                               [--max-tokens 16] [--max-slowdown 0.10] [--no-legacy] [--load N]
                               [--json OUT]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from pytest_blackwell.engine import EngineConfig, EnginePool
from pytest_blackwell.engine.benchmark import Workload
from pytest_blackwell.engine.cpuaffinity import SWITCH_ENV
from pytest_blackwell.engine.perfcompare import MeasureRound, run_comparison
from pytest_blackwell.engine.perfstats import compare

BASE = EngineConfig(max_model_len=256)
METRIC = "output_tokens_per_s"


def _args(argv: list[str]) -> argparse.Namespace:
    defaults = Workload()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repetitions", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=defaults.rounds)
    parser.add_argument("--warmup", type=int, default=defaults.warmup)
    parser.add_argument("--prompts", type=int, default=defaults.prompts)
    parser.add_argument("--max-tokens", type=int, default=defaults.max_tokens)
    parser.add_argument("--max-slowdown", type=float, default=0.10)
    parser.add_argument("--reliable", type=float, default=0.95)
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    parser.add_argument(
        "--no-legacy", action="store_true", help="skip the side-by-side v0.1 measurement"
    )
    parser.add_argument(
        "--load", type=int, default=0, help="busy processes kept running while measuring"
    )
    args = parser.parse_args(argv)
    if args.repetitions < 1:
        parser.error("--repetitions must be at least 1")
    return args


def main(argv: list[str]) -> int:
    args = _args(argv)
    workload = Workload(
        prompts=args.prompts, max_tokens=args.max_tokens, rounds=args.rounds, warmup=args.warmup
    )
    settings = {"default": workload}
    if not args.no_legacy:
        settings["v0.1"] = replace(workload, min_round_s=0.0, extra_rounds=0)
    engines = {"default": {"a": BASE.merged(seed=0), "b": BASE.merged(seed=1)}}
    if not args.no_legacy:
        off = {"env": {SWITCH_ENV: "off"}}
        engines["v0.1"] = {"a": BASE.merged(seed=0, **off), "b": BASE.merged(seed=1, **off)}
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    repetitions: dict[str, list[dict[str, Any]]] = {name: [] for name in settings}
    started = time.monotonic()
    with (
        tempfile.TemporaryDirectory(prefix="pbw-noise-") as tmp,
        EnginePool(tmp, max_alive=2 * len(engines), base_env=env) as pool,
        _busy(args.load),
    ):
        for name, pair in engines.items():
            for label, config in pair.items():
                handle = pool.get(config)
                if not handle.result.ok:
                    print(f"engine {name} {label} ({config.id}) failed: {handle.result.summary}")
                    return 1

        def measurer(name: str) -> MeasureRound:
            setting, pair = settings[name], engines[name]

            def measure(label: str, round_no: int) -> dict[str, Any]:
                return pool.get(pair[label]).benchmark_round(setting.to_dict(), round_no)

            return measure

        for n in range(args.repetitions):
            names = list(settings) if n % 2 == 0 else list(reversed(settings))
            for name in names:
                result = run_comparison(
                    measurer(name),
                    variable="seed",
                    values=("0", "1"),
                    config_ids=(engines[name]["a"].id, engines[name]["b"].id),
                    workload=settings[name],
                    metric=METRIC,
                    max_slowdown=args.max_slowdown,
                )
                c = result.comparison
                repetitions[name].append(c.to_dict())
                print(
                    f"repetition {n + 1:>3}/{args.repetitions} {name:>7}: ratio {c.ratio:.3f} "
                    f"(95% CI {c.ci_low:.3f}-{c.ci_high:.3f}, {c.rounds} pairs) {c.verdict}",
                    flush=True,
                )
    elapsed = time.monotonic() - started
    print()
    print(
        f"workload: {workload.prompts} prompts x {workload.input_tokens} in / "
        f"{workload.max_tokens} out tokens, {workload.warmup} warm-up + {workload.rounds} rounds "
        f"per value (default: rounds of >= {workload.min_round_s:g} s, up to "
        f"{workload.extra_rounds} extra pairs); tolerance {args.max_slowdown:.0%}; "
        f"{args.load} busy process(es); {elapsed:.0f} s"
    )
    all_figures = {}
    for name, reps in repetitions.items():
        figures = _figures(reps, args.max_slowdown, args.reliable)
        all_figures[name] = {"repetitions": reps, **figures}
        print(f"== {name}")
        print(
            f"false alarms on equal configurations: {figures['false_alarms']}/{len(reps)} "
            f"= {figures['false_alarm_rate']:.1%} (slower: {figures['slower']}, faster: "
            f"{figures['faster']})"
        )
        print(
            f"median CI width (high/low): {figures['median_ci_width']:.3f}; "
            f"median |log ratio| of equal configurations: {figures['median_abs_log_ratio']:.3f}; "
            f"median pairs: {figures['median_pairs']:g}"
        )
        for step in figures["detection"]:
            print(f"  slowdown {step['slowdown']:.0%}: detected {step['rate']:.0%}")
        smallest = figures["smallest_reliable_slowdown"]
        text = "none up to 60%" if smallest is None else f"{smallest:.0%}"
        print(f"smallest slowdown detected in >= {args.reliable:.0%} of repetitions: {text}")
    if "v0.1" in all_figures:
        import math

        legacy = [
            _t_verdict(r["a_values"], r["b_values"], args.max_slowdown) for r in repetitions["v0.1"]
        ]
        print(
            "v0.1's statistics (mean log ratio, paired t interval) on the short rounds: false "
            f"alarms {sum(v != 'same' for v in legacy)}/{len(legacy)}"
        )

        widths = {n: math.log(f["median_ci_width"]) for n, f in all_figures.items()}
        print(
            "interval width ratio default/v0.1 (log-scale half-widths, side by side): "
            f"{widths['default'] / widths['v0.1']:.2f}"
        )
    if args.json is not None:
        args.json.write_text(json.dumps(all_figures, indent=2))
    return 0


@contextlib.contextmanager
def _busy(count: int) -> Iterator[None]:
    """``count`` processes spinning on the CPU for as long as the block runs."""
    procs = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(max(count, 0))
    ]
    try:
        yield
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()


#: Two-sided 95% quantiles of Student's t for 1..10 degrees of freedom (v0.1's interval).
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228)


def _t_verdict(a: list[float], b: list[float], max_slowdown: float) -> str:
    """The verdict v0.1 gave: geometric mean ratio with a paired t interval over log ratios."""
    import math
    import statistics

    logs = [math.log(y / x) for x, y in zip(a, b, strict=True)]
    half = _T975[min(len(logs) - 1, len(_T975)) - 1] * statistics.stdev(logs) / len(logs) ** 0.5
    low, high = math.exp(statistics.fmean(logs) - half), math.exp(statistics.fmean(logs) + half)
    if high < 1 - max_slowdown:
        return "slower"
    return "faster" if low > 1 + max_slowdown else "same"


def _figures(reps: list[dict[str, Any]], max_slowdown: float, reliable: float) -> dict[str, Any]:
    import math
    import statistics

    verdicts = [r["verdict"] for r in reps]
    detection: list[dict[str, float]] = []
    smallest: float | None = None
    for percent in range(1, 61):
        s = percent / 100
        hits = sum(
            compare(
                METRIC,
                r["a_values"],
                [v * (1 - s) for v in r["b_values"]],
                max_slowdown=max_slowdown,
            ).verdict
            == "slower"
            for r in reps
        )
        rate = hits / len(reps)
        if percent % 5 == 0 or (smallest is None and rate >= reliable):
            detection.append({"slowdown": s, "rate": rate})
        if smallest is None and rate >= reliable:
            smallest = s
    return {
        "false_alarms": sum(v != "same" for v in verdicts),
        "false_alarm_rate": sum(v != "same" for v in verdicts) / len(reps),
        "slower": verdicts.count("slower"),
        "faster": verdicts.count("faster"),
        "median_ci_width": statistics.median(r["ci_high"] / r["ci_low"] for r in reps),
        "median_abs_log_ratio": statistics.median(abs(math.log(r["ratio"])) for r in reps),
        "median_pairs": statistics.median(r["rounds"] for r in reps),
        "detection": detection,
        "smallest_reliable_slowdown": smallest,
    }


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
