"""One benchmark round against an object with vLLM's engine step interface (no engine needed:
the end-to-end tests drive real ones)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

from pytest_blackwell.engine.benchmark import Workload, run_round


@dataclass
class StepEngine:
    """Generates one token per request per step, ``batch`` requests at a time, each step
    taking ``step_s``: the behaviour of vLLM's ``LLMEngine.add_request``/``step``."""

    batch: int = 8
    step_s: float = 0.002
    waiting: list[tuple[str, int]] = field(default_factory=list)
    running: dict[str, list[int]] = field(default_factory=dict)
    added: list[str] = field(default_factory=list)
    model_config: Any = field(default_factory=lambda: SimpleNamespace(get_vocab_size=lambda: 512))

    def add_request(self, request_id: str, prompt: dict[str, Any], params: Any) -> None:
        assert request_id not in self.added, f"request id {request_id} reused"
        self.added.append(request_id)
        self.waiting.append((request_id, params.max_tokens))

    def has_unfinished_requests(self) -> bool:
        return bool(self.waiting or self.running)

    def step(self) -> list[Any]:
        while self.waiting and len(self.running) < self.batch:
            rid, max_tokens = self.waiting.pop(0)
            self.running[rid] = [max_tokens, 0]
        time.sleep(self.step_s)
        outputs = []
        for rid, state in list(self.running.items()):
            state[1] += 1
            finished = state[1] >= state[0]
            outputs.append(
                SimpleNamespace(
                    request_id=rid,
                    finished=finished,
                    outputs=[SimpleNamespace(token_ids=list(range(state[1])))],
                )
            )
            if finished:
                del self.running[rid]
        return outputs


def _vllm() -> Any:
    return SimpleNamespace(SamplingParams=lambda **kw: SimpleNamespace(**kw))


def test_a_round_repeats_the_prompts_until_it_lasted_long_enough() -> None:
    engine = StepEngine()
    workload = Workload(prompts=4, max_tokens=4, min_round_s=0.1)
    data = run_round(SimpleNamespace(llm_engine=engine), _vllm(), workload, round_no=3)
    assert data["wall_s"] >= 0.1
    assert data["passes"] >= 2
    assert len(data["requests"]) == 4 * data["passes"]
    assert all(r["output_tokens"] == 4 for r in data["requests"])
    assert len(set(engine.added)) == len(engine.added) == len(data["requests"])


def test_without_a_minimum_a_round_is_one_pass_with_timings() -> None:
    engine = StepEngine(batch=1)
    workload = Workload(prompts=3, max_tokens=5, concurrency=1, min_round_s=0)
    data = run_round(SimpleNamespace(llm_engine=engine), _vllm(), workload, round_no=0)
    assert data["passes"] == 1
    assert len(data["requests"]) == 3
    for request in data["requests"]:
        assert request["latency_s"] >= request["ttft_s"] > 0
        assert request["tpot_s"] > 0
