"""Collection overhead of the plugin: ``pytest --collect-only`` on 5,000 marked tests.

Runs the same collection with the plugin (simulating an sm_120 device) and with
``-p no:blackwell``, alternating, and prints the ratio of the medians. Target: <= 1.05.

    python bench/collect_overhead.py [--tests 5000] [--rounds 7]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MARKS = (
    "@pytest.mark.sm120",
    "@pytest.mark.sm100",
    "@pytest.mark.requires_smem(kb=120)",
    '@pytest.mark.compute_capability(">=9.0")',
    "@pytest.mark.requires_gpu_memory(gb=24)",
)
# Registered in the ini for both runs, so the run without the plugin pays no unknown-mark warnings.
INI = """[pytest]
markers =
    sm120
    sm100
    requires_smem
    compute_capability
    requires_gpu_memory
"""


def write_suite(root: Path, n_tests: int, per_file: int = 250) -> None:
    (root / "pytest.ini").write_text(INI)
    for start in range(0, n_tests, per_file):
        lines = ["import pytest", ""]
        for i in range(start, min(start + per_file, n_tests)):
            lines += [MARKS[i % len(MARKS)], f"def test_{i}():", "    pass", ""]
        (root / f"test_gen_{start // per_file:03d}.py").write_text("\n".join(lines))


def collect(root: Path, *extra: str) -> float:
    command = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]
    # Bytecode caching as users have it: with PYTHONDONTWRITEBYTECODE every run would compile
    # (and assertion-rewrite) the plugin's modules again, which no installed plugin pays.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    start = time.perf_counter()
    done = subprocess.run(
        [*command, *extra], cwd=root, capture_output=True, text=True, check=False, env=env
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"collection failed ({' '.join(extra)}):\n{done.stdout}\n{done.stderr}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="blackwell-bench-") as tmp:
        root = Path(tmp)
        write_suite(root, args.tests)
        with_plugin = ["--blackwell-device=rtx-pro-6000"]
        without = ["-p", "no:blackwell"]
        collect(root, *with_plugin)  # warm the file cache and bytecode for both sides
        collect(root, *without)
        on: list[float] = []
        off: list[float] = []
        for round_ in range(args.rounds):
            # Alternate which side goes first, so drift on a noisy machine hits both equally.
            order = [(on, with_plugin), (off, without)]
            for times, extra in order if round_ % 2 == 0 else reversed(order):
                times.append(collect(root, *extra))
    ratio = statistics.median(on) / statistics.median(off)
    print(f"tests collected:        {args.tests}")
    print(f"with plugin (median):   {statistics.median(on):.3f} s over {args.rounds} runs")
    print(f"-p no:blackwell:        {statistics.median(off):.3f} s over {args.rounds} runs")
    print(f"ratio:                  {ratio:.3f} (target <= 1.05)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
