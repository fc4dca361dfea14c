"""Benchmark workloads: what to send, and how one round runs inside the engine process.

A :class:`Workload` is plain data (it crosses into the probe as JSON). :func:`run_round` runs in
the engine child, next to ``vllm.LLM``: it feeds the requests through the engine's own step loop,
at most ``concurrency`` in flight, and timestamps every step, so time to first token and time per
output token are measured where the tokens are made, not across a process boundary per token.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

#: Token ids below this are skipped when prompts are drawn (special tokens live there).
_FIRST_ID = 3


class WorkloadError(ValueError):
    """A workload value is out of range; the message names the value and its origin."""


@dataclass(frozen=True)
class Workload:
    """``prompts`` requests of ``input_tokens`` random token ids (drawn with ``seed``), each
    generating exactly ``max_tokens`` tokens (``ignore_eos``), ``concurrency`` in flight at once
    (default: all). ``warmup`` rounds are run and dropped before ``rounds`` measured ones.

    A round sends the prompts again (a new *pass*) until it has lasted ``min_round_s``: a round
    of a few milliseconds measures the scheduler's jitter more than the engine. A comparison
    whose interval cannot yet tell ``max_slowdown`` from none adds up to ``extra_rounds`` more
    pairs of rounds, stopping as soon as it can.
    """

    prompts: int = 8
    input_tokens: int = 16
    max_tokens: int = 16
    concurrency: int | None = None
    seed: int = 0
    warmup: int = 1
    rounds: int = 6
    min_round_s: float = 0.5
    extra_rounds: int = 12

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None and f.name == "concurrency":
                continue
            if f.name == "min_round_s":
                if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                    raise WorkloadError(f"min_round_s: expected seconds >= 0; got {value!r}")
                continue
            minimum = 0 if f.name in ("seed", "warmup", "extra_rounds") else 1
            if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
                raise WorkloadError(
                    f"{f.name}: expected an int >= {minimum}; got {value!r}"
                    + (" (a comparison needs at least 2 rounds)" if f.name == "rounds" else "")
                )

    @property
    def in_flight(self) -> int:
        return min(self.concurrency or self.prompts, self.prompts)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, source: str = "workload") -> Workload:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise WorkloadError(
                f"{source}: unknown workload setting(s) {', '.join(unknown)}; expected some of "
                f"{', '.join(sorted(known))}"
            )
        try:
            return cls(**dict(data))
        except WorkloadError as exc:
            raise WorkloadError(f"{source}: {exc}") from None


def make_prompts(workload: Workload, vocab_size: int) -> list[list[int]]:
    """The workload's prompts as token ids: the same ids for the same seed and vocabulary."""
    rng = random.Random(workload.seed)
    high = max(vocab_size - 1, _FIRST_ID + 1)
    return [
        [rng.randrange(_FIRST_ID, high) for _ in range(workload.input_tokens)]
        for _ in range(workload.prompts)
    ]


def run_round(llm: Any, vllm: Any, workload: Workload, round_no: int) -> dict[str, Any]:
    """One round in the engine process: ``{"wall_s", "passes", "requests": [...]}``.

    Each request entry holds ``ttft_s`` (submission to first token), ``tpot_s`` (mean time per
    output token after the first), ``latency_s`` and ``output_tokens``. Requests are submitted
    when a slot frees up, like a client with ``concurrency`` connections. The prompts are sent
    again (the next pass) until the round has lasted ``workload.min_round_s``.
    """
    engine = llm.llm_engine
    prompts = make_prompts(workload, int(engine.model_config.get_vocab_size()))
    params = vllm.SamplingParams(
        temperature=0.0, max_tokens=workload.max_tokens, ignore_eos=True, seed=workload.seed
    )
    requests: list[dict[str, Any]] = []
    passes = 0
    started = time.perf_counter()
    while True:
        requests += _run_pass(engine, prompts, params, workload.in_flight, f"{round_no}-{passes}")
        passes += 1
        if time.perf_counter() - started >= workload.min_round_s:
            break
    return {"wall_s": time.perf_counter() - started, "passes": passes, "requests": requests}


def _run_pass(
    engine: Any, prompts: list[list[int]], params: Any, in_flight: int, tag: str
) -> list[dict[str, Any]]:
    """Every prompt once through the engine's step loop, at most ``in_flight`` at a time."""
    pending = list(enumerate(prompts))
    submitted: dict[str, float] = {}
    first: dict[str, float] = {}
    done: dict[str, dict[str, Any]] = {}
    while pending or len(done) < len(prompts):
        while pending and len(submitted) - len(done) < in_flight:
            index, ids = pending.pop(0)
            request_id = f"pbw-bench-{tag}-{index}"
            submitted[request_id] = time.perf_counter()
            engine.add_request(request_id, {"prompt_token_ids": ids}, params)
        outputs = engine.step()
        now = time.perf_counter()
        for out in outputs:
            rid = str(out.request_id)
            produced = len(out.outputs[0].token_ids) if out.outputs else 0
            if produced and rid not in first:
                first[rid] = now
            if out.finished and rid not in done:
                ttft = first.get(rid, now) - submitted[rid]
                latency = now - submitted[rid]
                tpot = (latency - ttft) / (produced - 1) if produced > 1 else 0.0
                done[rid] = {
                    "ttft_s": ttft,
                    "tpot_s": tpot,
                    "latency_s": latency,
                    "output_tokens": produced,
                }
        if not outputs and not engine.has_unfinished_requests() and not pending:
            break  # nothing in flight and nothing left: a request vanished; report what we have
    return list(done.values())


__all__ = ["Workload", "WorkloadError", "make_prompts", "run_round"]
