"""Cost of the stream classifier (what engine runs feed line by line) on error-word-dense logs.

``classify_log`` scans a file and skips keyword-free stretches; an engine run instead feeds every
line its engine prints to a ``StreamClassifier``. Lines that carry an error word (``ERROR``,
``error``, ``failed`` ...) are read in full, and after a first error each such line is weighed
as a candidate. This bench builds three logs of the same number of lines:

- ``quiet``: a serving phase with no error word;
- ``noisy``: the same, with one line in ten carrying a harmless error word (a retried request,
  an ``error_rate`` metric, a ``failed_requests`` count);
- ``dense``: nothing but error lines without a known cause (an API server failing every request
  on a reset connection). No known cause means the classifier can never stop early, so every
  line is weighed as a candidate against the first.

It feeds each to a fresh ``StreamClassifier`` (stopping once it is ``done``, as its callers do),
alternating the three for several rounds and
taking medians, and prints the time per line and each log's ratio to ``quiet``.

    python bench/stream_throughput.py [--lines 20000] [--rounds 3]

Target: ``dense`` costs at most 15 times ``quiet`` per line (before the per-line activity cache it
cost about 90 times). Exit status 1 when missed and ``--check`` is given.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable

PREFIX = "(EngineCore_DP0 pid=7) ERROR 03-10 15:08:00 [core.py:718] "
QUIET = (
    "(APIServer pid=1) INFO 03-10 15:{m:02d}:{s:02d} [loggers.py:123] Engine 000: Avg prompt "
    "throughput: {i}.3 tokens/s, Running: 4 reqs, Waiting: 0 reqs, GPU KV cache usage: 41.5%",
    '(APIServer pid=1) INFO:     10.0.0.{s}:{i} - "POST /v1/completions HTTP/1.1" 200 OK',
    "(APIServer pid=1) INFO 03-10 15:{m:02d}:{s:02d} [async_llm.py:273] Added request cmpl-{i}.",
)
HARMLESS = (
    "(APIServer pid=1) WARNING 03-10 15:{m:02d}:{s:02d} [client.py:88] Retrying request {i} "
    "after a transient error (attempt 1 of 3)",
    "(APIServer pid=1) INFO 03-10 15:{m:02d}:{s:02d} [metrics.py:40] error_rate=0.00 requests={i}",
    "(APIServer pid=1) INFO 03-10 15:{m:02d}:{s:02d} [loggers.py:130] Engine 000: "
    "failed_requests=0, aborted_requests={s}",
)


AFTERMATH = (
    "(APIServer pid=1) ERROR 03-10 15:{m:02d}:{s:02d} [serving_completion.py:140] Error in "
    "completion request cmpl-{i}: the chat template could not be rendered",
    '(APIServer pid=1) INFO:     10.0.0.{s}:{i} - "POST /v1/completions HTTP/1.1" 500 Internal '
    "Server Error",
)


def _line(templates: tuple[str, ...], i: int) -> str:
    return templates[i % len(templates)].format(i=i, m=(i // 60) % 60, s=i % 60)


def quiet_log(count: int) -> list[str]:
    return [_line(QUIET, i) for i in range(count)]


def noisy_log(count: int) -> list[str]:
    return [_line(HARMLESS if i % 10 == 9 else QUIET, i) for i in range(count)]


def dense_log(count: int) -> list[str]:
    return [_line(AFTERMATH, i) for i in range(count)]


def feed_all(lines: list[str]) -> str:
    from pytest_blackwell.failures import StreamClassifier

    classifier = StreamClassifier()
    for line in lines:
        classifier.feed(line)
        if classifier.done:  # as classify_log and an engine run's watcher do
            break
    failure = classifier.result()
    return "None" if failure is None else f"{failure.category}/{failure.stage}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=20000, help="lines per log (default 20000)")
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds of each (default 3)")
    parser.add_argument("--check", action="store_true", help="exit 1 when the target is missed")
    args = parser.parse_args(argv)
    if args.lines < 2000 or args.rounds < 1:
        parser.error("--lines must be >= 2000 and --rounds >= 1")

    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    builders: dict[str, Callable[[int], list[str]]] = {
        "quiet": quiet_log,
        "noisy": noisy_log,
        "dense": dense_log,
    }
    logs = {name: build(args.lines) for name, build in builders.items()}
    answers = {name: feed_all(lines) for name, lines in logs.items()}  # warm-up, and the answer
    expected = {"quiet": "None", "noisy": "None", "dense": "unknown/execute"}
    if answers != expected:
        print(f"unexpected classification: {answers} (expected {expected})", file=sys.stderr)
        return 1
    times: dict[str, list[float]] = {name: [] for name in logs}
    for _ in range(args.rounds):
        for name, lines in logs.items():
            start = time.perf_counter()
            feed_all(lines)
            times[name].append(time.perf_counter() - start)
    per_line = {name: statistics.median(t) / args.lines * 1e6 for name, t in times.items()}
    print(f"lines per log:   {args.lines} (median of {args.rounds} rounds)")
    for name in logs:
        ratio = per_line[name] / per_line["quiet"]
        print(f"{name + ':':<16} {per_line[name]:8.1f} us/line  ratio to quiet {ratio:5.2f}")
    dense_ratio = per_line["dense"] / per_line["quiet"]
    print(f"target:          dense ratio <= 15 ({'met' if dense_ratio <= 15 else 'MISSED'})")
    return 1 if (dense_ratio > 15 and args.check) else 0


if __name__ == "__main__":
    sys.exit(main())
