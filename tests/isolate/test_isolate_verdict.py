"""Verdict rules on synthetic result tables: ``compare`` with a plain function as the runner.

Each test asserts on the structured verdict (variable, effect, threshold, values tried), never
on sentences; one golden test at the end holds the wording.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from pytest_blackwell.engine.config import EngineConfig
from pytest_blackwell.engine.isolate import IsolationRequest, compare
from pytest_blackwell.engine.result import EngineResult
from pytest_blackwell.engine.variables import MEMORY
from pytest_blackwell.engine.verdict import Comparison, table_lines
from pytest_blackwell.failures.model import Failure

KiB, MiB, GiB = 2**10, 2**20, 2**30


def failed(category: str, stage: str, error: str = "boom", **detail: Any) -> EngineResult:
    return EngineResult("x", ok=False, failure=Failure(category, stage, error, detail=detail))


def passed(tokens_per_s: float = 100.0, backend: str | None = None) -> EngineResult:
    return EngineResult("x", ok=True, tokens_per_s=tokens_per_s, actual_backend=backend)


class Runner:
    """A plain ``run(config, again=False)``: answers from a function, records every launch."""

    def __init__(
        self, answer: Callable[[EngineConfig], EngineResult], again: EngineResult | None = None
    ) -> None:
        self.answer, self.again_result = answer, again
        self.launched: list[str] = []

    def __call__(self, config: EngineConfig, *, again: bool = False) -> EngineResult:
        self.launched.append(config.id + (" (again)" if again else ""))
        if again and self.again_result is not None:
            return self.again_result
        return self.answer(config)


def kv_threshold(needed: int, **detail: Any) -> Callable[[EngineConfig], EngineResult]:
    """kv_cache_oom at kv_alloc below ``needed`` bytes of KV cache, passes from there."""

    def answer(config: EngineConfig) -> EngineResult:
        budget = config.kv_cache_memory_bytes or 64 * MiB
        if budget < needed:
            return failed("kv_cache_oom", "kv_alloc", "No available memory", **detail)
        return passed()

    return answer


def request(config: EngineConfig, *variables: str, **kwargs: Any) -> IsolationRequest:
    kwargs.setdefault("kv_dtypes", ("auto", "fp8", "fp8_e5m2"))
    kwargs.setdefault("backends", ("CPU_ATTN",))
    kwargs.setdefault(
        "defaults",
        {"enforce_eager": True, "kv_cache_memory_bytes": 64 * MiB, "actual_backend": "CPU_ATTN"},
    )
    kwargs.setdefault("memory_ceiling_bytes", 1 * GiB)
    kwargs.setdefault("ceiling_source", "host free memory 1.0GiB")
    return IsolationRequest(config, tuple(variables), **kwargs)


def verdict(comparison: Comparison, variable: str) -> dict[str, Any]:
    return comparison.verdict(variable)


def test_memory_threshold_is_searched_and_bracketed_within_the_precision() -> None:
    run = Runner(kv_threshold(320 * KiB))
    base = EngineConfig(max_model_len=512, kv_cache_memory_bytes=16 * KiB)
    result = compare(run, request(base, MEMORY))
    found = verdict(result, MEMORY)
    assert found["effect"] == "outcome"
    assert result.follows == (MEMORY,)
    threshold = found["threshold"]
    assert threshold["setting"] == "kv_cache_memory_bytes"
    assert threshold["fails_at_or_below"] < 320 * KiB <= threshold["passes_from"]
    assert threshold["passes_from"] <= threshold["fails_at_or_below"] * 1.1
    assert threshold["precision"] == 0.1
    data = result.to_dict()
    assert data["launches"] == len(run.launched) <= data["launch_bound"] <= 12
    assert run.launched[:2] == ["len=512-kvmem=16KiB", "len=512-kvmem=16KiB (again)"]


def test_the_search_starts_from_what_the_failure_says_it_needed() -> None:
    needed = {"needed_bytes": 300 * KiB, "available_bytes": 15 * KiB}
    run = Runner(kv_threshold(300 * KiB, **needed))
    result = compare(run, request(EngineConfig(kv_cache_memory_bytes=15 * KiB), MEMORY))
    tried = [t["value"] for t in verdict(result, MEMORY)["tried"]]
    assert 300 * KiB <= tried[0] <= 310 * KiB  # the first budget tried is the one needed
    assert len(tried) <= 3
    assert verdict(result, MEMORY)["threshold"]["passes_from"] == tried[0]


def test_a_searched_budget_that_never_passes_stops_at_the_ceiling() -> None:
    run = Runner(kv_threshold(10 * GiB))
    result = compare(run, request(EngineConfig(kv_cache_memory_bytes=1 * MiB), MEMORY))
    found = verdict(result, MEMORY)
    assert found["effect"] == "nothing"  # tried up to the ceiling: the budget does not matter
    assert max(t["value"] for t in found["tried"]) == 1 * GiB
    assert found["threshold"] is None
    assert result.follows == ()
    memory = result.to_dict()["memory"]
    assert (memory["ceiling"], memory["ceiling_source"]) == (1 * GiB, "host free memory 1.0GiB")
    assert isinstance(memory["ceiling"], int)  # a size, written as one


def test_gpu_memory_utilization_is_searched_when_the_configuration_uses_it() -> None:
    def answer(config: EngineConfig) -> EngineResult:
        gmu = config.gpu_memory_utilization or 0.9
        return passed() if gmu >= 0.62 else failed("kv_cache_oom", "profile")

    run = Runner(answer)
    req = request(
        EngineConfig(gpu_memory_utilization=0.1),
        MEMORY,
        device_memory_bytes=80 * GiB,
        memory_ceiling_bytes=80 * GiB,
    )
    found = verdict(compare(run, req), MEMORY)
    threshold = found["threshold"]
    assert found["effect"] == "outcome"
    assert threshold["setting"] == "gpu_memory_utilization"
    assert threshold["fails_at_or_below"] < 0.62 <= threshold["passes_from"] <= 0.7
    assert threshold["passes_from_bytes"] == int(threshold["passes_from"] * 80 * GiB)


def test_memory_values_below_the_ceiling_do_not_show_that_it_does_not_matter() -> None:
    run = Runner(kv_threshold(10 * GiB))
    req = request(EngineConfig(kv_cache_memory_bytes=1 * MiB), values={MEMORY: ("2MiB", "4MiB")})
    found = verdict(compare(run, req), MEMORY)
    assert found["effect"] == "not_shown"
    assert [t["value"] for t in found["tried"]] == [2 * MiB, 4 * MiB]


def test_a_failure_not_about_memory_tries_the_ceiling_once() -> None:
    run = Runner(lambda config: failed("unsupported_config", "loading"))
    result = compare(run, request(EngineConfig(max_model_len=8192), MEMORY, "enforce_eager"))
    assert [v["effect"] for v in result.verdicts] == ["nothing", "nothing"]
    assert verdict(result, MEMORY)["tried"][0]["value"] == 1 * GiB
    assert result.follows == ()
    assert len(run.launched) == 4  # base, again, the ceiling, eager off


def test_a_discrete_variable_matters_not_only_when_its_values_are_covered() -> None:
    run = Runner(lambda config: failed("unsupported_config", "loading"))
    result = compare(run, request(EngineConfig(), "kv_cache_dtype", "enforce_eager"))
    assert verdict(result, "kv_cache_dtype")["effect"] == "not_shown"  # fp8_e5m2 never tried
    assert verdict(result, "enforce_eager")["effect"] == "nothing"  # True and False both ran


def test_the_outcome_follows_a_kv_cache_dtype() -> None:
    def answer(config: EngineConfig) -> EngineResult:
        if config.kv_cache_dtype in ("fp8", "fp8_e5m2"):
            return failed("dispatch_failure", "kv_alloc", "NotImplementedError: FP8 KV cache")
        return passed()

    result = compare(Runner(answer), request(EngineConfig(kv_cache_dtype="fp8"), "kv_cache_dtype"))
    found = verdict(result, "kv_cache_dtype")
    assert (found["effect"], found["base_value"]) == ("outcome", "fp8")
    assert [(t["value"], t["effect"]) for t in found["tried"]] == [
        ("auto", "outcome"),
        ("fp8_e5m2", "none"),
    ]
    assert result.follows == ("kv_cache_dtype",)


def test_another_failure_past_the_base_stage_is_a_category_change() -> None:
    def answer(config: EngineConfig) -> EngineResult:
        if config.enforce_eager is False:
            return failed("stream_capture", "graph_capture", "operation not permitted")
        return failed("kv_cache_oom", "kv_alloc")

    result = compare(Runner(answer), request(EngineConfig(), "enforce_eager"))
    assert verdict(result, "enforce_eager")["effect"] == "category"
    assert result.follows == ("enforce_eager",)


@pytest.mark.parametrize(
    "variant",
    [
        failed("dispatch_failure", "loading", "NotImplementedError: FP8 KV cache on CPU"),
        failed("env_mismatch", "execute", "undefined symbol: foo"),
        failed("dispatch_failure", "kv_alloc", "same stage, another category"),
        EngineResult("x", ok=False),  # never ran to a result
    ],
)
def test_a_variant_failing_for_another_reason_is_inconclusive(variant: EngineResult) -> None:
    def answer(config: EngineConfig) -> EngineResult:
        return variant if config.kv_cache_dtype == "fp8" else failed("kv_cache_oom", "kv_alloc")

    result = compare(Runner(answer), request(EngineConfig(), "kv_cache_dtype"))
    found = verdict(result, "kv_cache_dtype")
    assert found["effect"] == "inconclusive"
    assert found["error"] == (None if variant.failure is None else variant.failure.first_error)
    assert result.follows == ()


def test_a_backend_vllm_did_not_run_is_inconclusive() -> None:
    def answer(config: EngineConfig) -> EngineResult:
        if config.attention_backend == "FLASHINFER":
            return EngineResult(
                "x", ok=True, requested_backend="FLASHINFER", actual_backend="FLASH_ATTN"
            )
        return failed("illegal_memory_access", "execute")

    req = request(
        EngineConfig(),
        values={"attention_backend": ("FLASHINFER",)},
        backends=("FLASH_ATTN", "FLASHINFER"),
    )
    assert verdict(compare(Runner(answer), req), "attention_backend")["effect"] == "inconclusive"


def test_only_the_stage_moving_is_not_what_the_failure_follows() -> None:
    def answer(config: EngineConfig) -> EngineResult:
        return failed("kv_cache_oom", "warmup" if config.enforce_eager is False else "kv_alloc")

    result = compare(Runner(answer), request(EngineConfig(), "enforce_eager"))
    found = verdict(result, "enforce_eager")
    assert found["effect"] == "stage"
    assert found["tried"] == [
        {
            "value": False,
            "label": "enforce_eager=False",
            "outcome": "kv_cache_oom at warmup",
            "effect": "stage",
        }
    ]
    assert result.follows == ()


def test_only_performance_changing_is_said_as_such() -> None:
    def answer(config: EngineConfig) -> EngineResult:
        return passed(50.0 if config.enforce_eager is False else 100.0)

    result = compare(Runner(answer), request(EngineConfig(), "enforce_eager"))
    assert verdict(result, "enforce_eager")["effect"] == "performance"
    assert result.runs[-1]["relative"] == 0.5
    assert result.follows == ()


def test_a_passing_configuration_that_passes_at_every_budget() -> None:
    run = Runner(lambda config: passed())
    result = compare(run, request(EngineConfig(kv_cache_memory_bytes=4 * MiB), MEMORY))
    found = verdict(result, MEMORY)
    assert found["effect"] == "nothing"
    assert [t["value"] for t in found["tried"]] == [2 * MiB, 1 * GiB]
    assert run.launched[0] == "kvmem=4MiB"  # a passing base is not launched twice
    assert len(run.launched) == 3


def test_two_variables_that_each_change_the_outcome_are_both_named() -> None:
    def answer(config: EngineConfig) -> EngineResult:
        if config.kv_cache_dtype == "auto" or config.enforce_eager is False:
            return passed()
        return failed("dispatch_failure", "kv_alloc")

    result = compare(
        Runner(answer),
        request(EngineConfig(kv_cache_dtype="fp8"), "kv_cache_dtype", "enforce_eager"),
    )
    assert result.follows == ("kv_cache_dtype", "enforce_eager")
    assert result.follows_text == "kv_cache_dtype,enforce_eager"
    assert all(verdict(result, v)["text"] in result.summary for v in result.follows)


def test_a_failure_that_does_not_reproduce_is_flaky_and_nothing_is_compared() -> None:
    run = Runner(lambda config: failed("illegal_memory_access", "execute"), again=passed())
    result = compare(run, request(EngineConfig(), "kv_cache_dtype", MEMORY))
    assert (result.status, result.verdicts, result.follows) == ("flaky", (), ())
    assert run.launched == ["default", "default (again)"]
    assert [r["effect"] for r in result.runs] == ["base", "repeat"]


def test_nothing_to_vary_is_said() -> None:
    run = Runner(lambda config: failed("kv_cache_oom", "kv_alloc"))
    result = compare(run, request(EngineConfig(), "attention_backend"))
    assert verdict(result, "attention_backend")["effect"] == "not_varied"


def test_bad_values_are_reported_before_any_engine_runs() -> None:
    run = Runner(lambda config: passed())
    with pytest.raises(ValueError, match="enforce_eager values must be True or False"):
        compare(run, request(EngineConfig(), values={"enforce_eager": ("yes",)}))
    with pytest.raises(ValueError, match="no values to try for max_num_seqs"):
        request(EngineConfig(), "max_num_seqs")
    assert run.launched == []


def test_the_result_is_plain_json() -> None:
    result = compare(Runner(kv_threshold(320 * KiB)), request(EngineConfig(), MEMORY))
    assert json.loads(json.dumps(result.to_dict())) == result.to_dict()


GOLDEN_TABLE = """\
  variable        value                         outcome                      effect     tok/s
  base            base                          kv_cache_oom at kv_alloc     base       -
  base            base                          kv_cache_oom at kv_alloc     repeat     -
  kv_cache_dtype  kv_cache_dtype=fp8            dispatch_failure at loading  unrelated  -
  enforce_eager   enforce_eager=False           kv_cache_oom at warmup       stage      -
  memory_budget   kv_cache_memory_bytes=64KiB   kv_cache_oom at kv_alloc     none       -
  memory_budget   kv_cache_memory_bytes=256KiB  kv_cache_oom at kv_alloc     none       -
  memory_budget   kv_cache_memory_bytes=1MiB    passed                       outcome    80.0
  memory_budget   kv_cache_memory_bytes=512KiB  passed                       outcome    80.0
  memory_budget   kv_cache_memory_bytes=368KiB  passed                       outcome    80.0
  memory_budget   kv_cache_memory_bytes=312KiB  kv_cache_oom at kv_alloc     none       -
  memory_budget   kv_cache_memory_bytes=344KiB  passed                       outcome    80.0
  memory_budget   kv_cache_memory_bytes=328KiB  passed                       outcome    80.0
  launches: 12 (at most 14)
"""


def test_golden_wording() -> None:
    """The issue's case on synthetic results: the only test that pins sentences."""

    def answer(config: EngineConfig) -> EngineResult:
        if config.kv_cache_dtype == "fp8":
            return failed("dispatch_failure", "loading", "NotImplementedError: FP8 KV cache")
        stage = "warmup" if config.enforce_eager is False else "kv_alloc"
        budget = config.kv_cache_memory_bytes or 0
        return passed(80.0) if budget >= 320 * KiB else failed("kv_cache_oom", stage)

    base = EngineConfig(max_model_len=512, kv_cache_memory_bytes=16 * KiB)
    result = compare(Runner(answer), request(base, "kv_cache_dtype", "enforce_eager", MEMORY))
    lines = table_lines(result.to_dict())
    assert lines[0] == (
        "len=512-kvmem=16KiB: memory_budget: fails at or below 312KiB, passes from 328KiB"
        " (kv_cache_memory_bytes, within 10%); kv_cache_dtype: inconclusive: fp8 failed "
        "for another reason (dispatch_failure at loading: NotImplementedError: FP8 KV "
        "cache); enforce_eager: only the stage moves (kv_cache_oom at warmup with False)"
    )
    assert lines[1:] == GOLDEN_TABLE.splitlines()
