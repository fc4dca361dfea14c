"""Verdicts from hand-made engine results: what the failure follows, and the one-line summary."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from pytest_blackwell.engine.config import EngineConfig
from pytest_blackwell.engine.isolate import (
    MEMORY,
    Isolation,
    one_variable_variants,
    run_isolation,
)
from pytest_blackwell.engine.pool import EnginePool
from pytest_blackwell.engine.result import EngineResult
from pytest_blackwell.engine.verdict import table_lines
from pytest_blackwell.failures.model import Failure
from pytest_blackwell.report.bugreport import render_bug_report
from pytest_blackwell.report.redact import Redactor

KV = ("auto", "bfloat16", "fp8", "fp8_e4m3", "fp8_e5m2")
BACKENDS = ("FLASH_ATTN", "FLASHINFER", "TRITON_ATTN", "CPU_ATTN")
MiB = 2**20


def failed(category: str, stage: str, error: str = "boom") -> EngineResult:
    return EngineResult("x", ok=False, failure=Failure(category, stage, error))


def passed(
    tokens_per_s: float = 100.0, backend: str | None = None, requested: str | None = None
) -> EngineResult:
    return EngineResult(
        "x", ok=True, tokens_per_s=tokens_per_s, actual_backend=backend, requested_backend=requested
    )


class FakeHandle:
    def __init__(self, config: EngineConfig, result: EngineResult) -> None:
        self.config, self.result, self.launches = config, result, 1


class FakePool:
    """Answers ``get(config)`` from a table of results keyed by config id, counting launches."""

    def __init__(self, results: Mapping[str, EngineResult]) -> None:
        self.results = dict(results)
        self.asked: list[str] = []
        self.handles: list[FakeHandle] = []

    def get(self, config: EngineConfig) -> FakeHandle:
        self.asked.append(config.id)
        handle = FakeHandle(config, self.results[config.id])
        self.handles.append(handle)
        return handle


def isolate(
    config: EngineConfig,
    variables: list[str],
    results: Mapping[str, EngineResult],
    **kwargs: Any,
) -> Isolation:
    extra = kwargs.pop("extra", None)
    defaults = kwargs.pop("defaults", None)
    backends = kwargs.pop("backends", BACKENDS)
    variants = one_variable_variants(
        config, variables, kv_dtypes=KV, backends=backends, extra=extra, defaults=defaults
    )
    pool = FakePool(results)
    isolation = run_isolation(
        cast(EnginePool, pool), config, variants, variables=variables, defaults=defaults, **kwargs
    )
    assert pool.asked == [config.id, *(v.config.id for v in variants)]
    return isolation


def test_fp8_failure_follows_the_kv_cache_dtype() -> None:
    base = EngineConfig(kv_cache_dtype="fp8")
    iso = isolate(
        base,
        ["kv_cache_dtype"],
        {
            "kv=fp8": failed("dispatch_failure", "kv_alloc", "NotImplementedError: FP8 KV cache"),
            "kv=auto": passed(),
            "kv=fp8_e5m2": failed("dispatch_failure", "kv_alloc"),
        },
    )
    assert iso.follows == ["kv_cache_dtype"]
    assert iso.summary == "fails with kv_cache_dtype=fp8, fp8_e5m2 (passes with auto)"
    assert [r.effect for r in iso.runs] == ["base", "passes", "same"]
    assert [r["value"] for r in iso.to_dict()["runs"]] == [
        "kv_cache_dtype=fp8",
        "kv_cache_dtype=auto",
        "kv_cache_dtype=fp8_e5m2",
    ]


def test_engines_that_already_ran_are_not_launched_again() -> None:
    pool = FakePool({"kv=fp8": failed("dispatch_failure", "kv_alloc"), "kv=auto": passed()})
    pool.get(EngineConfig(kv_cache_dtype="auto"))  # ran earlier in the session
    base = EngineConfig(kv_cache_dtype="fp8")
    variants = one_variable_variants(
        base, [], kv_dtypes=KV, backends=BACKENDS, extra={"kv_cache_dtype": ["auto"]}
    )
    first = run_isolation(cast(EnginePool, pool), base, variants)
    again = run_isolation(cast(EnginePool, pool), base, variants)
    assert pool.asked == ["kv=auto", "kv=fp8"]
    assert first.summary == again.summary == "fails only with kv_cache_dtype=fp8 (passes with auto)"


def test_fails_only_with_one_backend_others_do_not_matter() -> None:
    base = EngineConfig(attention_backend="FLASHINFER", enforce_eager=False)
    sig = failed("illegal_memory_access", "execute", "an illegal memory access was encountered")
    iso = isolate(
        base,
        ["attention_backend", "kv_cache_dtype", "enforce_eager"],
        {
            "attn=FLASHINFER-graphs": sig,
            "attn=FLASH_ATTN-graphs": passed(backend="FLASH_ATTN", requested="FLASH_ATTN"),
            "attn=TRITON_ATTN-graphs": passed(backend="TRITON_ATTN", requested="TRITON_ATTN"),
            "attn=CPU_ATTN-graphs": passed(backend="CPU_ATTN", requested="CPU_ATTN"),
            "kv=fp8-attn=FLASHINFER-graphs": sig,
            "attn=FLASHINFER-eager": sig,
        },
    )
    assert iso.summary == (
        "fails only with attention_backend=FLASHINFER (passes with FLASH_ATTN, TRITON_ATTN, "
        "CPU_ATTN); kv_cache_dtype and enforce_eager do not matter"
    )
    assert iso.follows_text == "attention_backend"


def test_the_failure_tracks_the_memory_budget() -> None:
    base = EngineConfig(kv_cache_memory_bytes=32 * MiB, max_model_len=4096)
    oom = failed("kv_cache_oom", "kv_alloc", "ValueError: To serve at least one request")
    iso = isolate(
        base,
        [MEMORY],
        {
            "len=4096-kvmem=32MiB": oom,
            "len=4096-kvmem=16MiB": oom,
            "len=4096-kvmem=128MiB": passed(),
        },
    )
    assert iso.summary == (
        "the failure tracks the memory budget: kv_cache_oom at kv_alloc at or below 32MiB, "
        "passes from 128MiB"
    )
    assert iso.follows == [MEMORY]


def test_memory_budget_in_fractions_is_translated_with_the_device_memory() -> None:
    base = EngineConfig(gpu_memory_utilization=0.5)
    oom = failed("kv_cache_oom", "kv_alloc")
    iso = isolate(
        base,
        [MEMORY],
        {"gmu=0.5": oom, "gmu=0.25": oom, "gmu=0.75": passed()},
        device_memory_bytes=80 * 1024 * MiB,
    )
    assert iso.summary == (
        "the failure tracks the memory budget: kv_cache_oom at kv_alloc at or below 40GiB, "
        "passes from 60GiB"
    )
    data = iso.to_dict()
    assert [r["budget"] for r in data["runs"]] == ["40GiB", "20GiB", "60GiB"]
    assert "gpu_memory_utilization=0.5 of 80GiB is about 40GiB" in data["notes"]
    kv = isolate(
        EngineConfig(kv_cache_memory_bytes=8 * 1024 * MiB),
        [MEMORY],
        {"kvmem=8GiB": oom, "kvmem=4GiB": oom, "kvmem=32GiB": oom},
        device_memory_bytes=80 * 1024 * MiB,
    )
    assert "kv_cache_memory_bytes=8GiB is gpu_memory_utilization=0.1 of 80GiB" in kv.notes[0]


def test_a_failure_that_follows_nothing_says_so() -> None:
    base = EngineConfig(max_model_len=8192)
    bad = failed("unsupported_config", "loading", "ValidationError: max_model_len")
    iso = isolate(
        base,
        ["kv_cache_dtype", MEMORY],
        {
            "len=8192": bad,
            "len=8192-kv=bfloat16": bad,
            "len=8192-kvmem=4MiB": bad,
        },
        extra={"kv_cache_dtype": ["bfloat16"], MEMORY: ["4MiB"]},
    )
    assert iso.follows == []
    assert iso.follows_text == "none"
    assert iso.summary == (
        "the failure follows none of kv_cache_dtype and memory_budget: unsupported_config at "
        "loading whatever changes"
    )


def test_a_variant_that_changes_category_or_stage_is_followed() -> None:
    base = EngineConfig(enforce_eager=False)
    iso = isolate(
        base,
        ["enforce_eager"],
        {
            "graphs": failed("stream_capture", "graph_capture"),
            "eager": failed("illegal_memory_access", "execute"),
        },
    )
    assert iso.follows == ["enforce_eager"]
    assert iso.summary == "enforce_eager=True changes it to illegal_memory_access at execute"


def test_a_backend_vllm_did_not_run_is_not_evidence() -> None:
    base = EngineConfig(attention_backend="FLASHINFER", kv_cache_dtype="auto")
    sig = failed("kv_cache_oom", "kv_alloc")
    iso = isolate(
        base,
        ["attention_backend"],
        {
            "kv=auto-attn=FLASHINFER": sig,
            "kv=auto-attn=FLASH_ATTN": passed(backend="CPU_ATTN", requested="FLASH_ATTN"),
            "kv=auto-attn=TRITON_ATTN": passed(backend="CPU_ATTN", requested="TRITON_ATTN"),
            "kv=auto-attn=CPU_ATTN": sig,
        },
    )
    assert [r.effect for r in iso.runs] == ["base", "untested", "untested", "same"]
    assert iso.follows == []
    assert "FLASH_ATTN" in iso.to_dict()["runs"][1]["value"]
    assert iso.runs[1].to_dict()["backend"] == "CPU_ATTN"


def test_passing_base_reports_breakage_and_relative_cost() -> None:
    base = EngineConfig()
    iso = isolate(
        base,
        ["kv_cache_dtype", "enforce_eager"],
        {
            "default": passed(100.0),
            "kv=fp8": passed(87.0),
            "eager": failed("dispatch_failure", "execute"),
            "graphs": passed(101.0),
        },
    )
    assert iso.costs == (
        "kv_cache_dtype=fp8: 0.87x tokens/s of auto",
        "enforce_eager=False: 1.01x tokens/s of default",
    )
    assert iso.summary == (
        "passes as configured but fails with enforce_eager=True (dispatch_failure at execute); "
        "kv_cache_dtype does not matter; slower: kv_cache_dtype=fp8: 0.87x tokens/s of auto"
    )
    assert iso.to_dict()["relative_cost"].startswith("kv_cache_dtype=fp8: 0.87x")


def test_a_variable_with_nothing_to_try_is_reported_as_not_varied() -> None:
    # on a CPU build only CPU_ATTN is worth trying, and it is the one that ran
    iso = isolate(
        EngineConfig(),
        ["attention_backend", "kv_cache_dtype"],
        {"default": failed("engine_died", "execute"), "kv=fp8": passed()},
        defaults={"actual_backend": "CPU_ATTN"},
        backends=("CPU_ATTN",),
    )
    verdicts = {v.variable: v for v in iso.verdicts}
    assert verdicts["attention_backend"].text == "not varied (no other value to try)"
    assert not verdicts["attention_backend"].tested
    assert iso.summary == (
        "fails only with kv_cache_dtype=auto (passes with fp8); not tested: attention_backend"
    )


def test_isolation_data_is_json_with_one_table_for_the_bug_report(tmp_path: Path) -> None:
    base = EngineConfig(kv_cache_dtype="fp8")
    iso = isolate(
        base,
        ["kv_cache_dtype"],
        {
            "kv=fp8": failed("dispatch_failure", "kv_alloc", "NotImplementedError: FP8 KV cache"),
            "kv=auto": passed(58.0),
            "kv=fp8_e5m2": failed("dispatch_failure", "kv_alloc"),
        },
    )
    data = json.loads(json.dumps(iso.to_dict()))
    assert [k for k, v in data.items() if isinstance(v, list)] == ["runs"]
    assert data["follows"] == "kv_cache_dtype"
    entry: dict[str, Any] = {
        "id": "kv=fp8",
        "config": base.to_dict(),
        "outcome": "failed",
        "category": "dispatch_failure",
        "stage": "kv_alloc",
        "first_error": "NotImplementedError: FP8 KV cache",
        "follows": data["follows"],
        "isolation": data,
    }
    text = render_bug_report(entry, [], {}, log_root=tmp_path, redactor=Redactor([]))
    section = text.split("## One-variable comparison", 1)[1]
    assert f"**{iso.summary}**" in section
    row = "| kv_cache_dtype | kv_cache_dtype=auto | kv=auto | passed | passes | — | 58.0 |"
    assert row in section
    lines = table_lines(data)
    assert lines[0] == f"kv=fp8: {iso.summary}"
    assert lines[1].split() == ["variable", "value", "outcome", "effect", "tok/s"]
    assert lines[3].split() == ["kv_cache_dtype", "kv_cache_dtype=auto", "passed", "passes", "58.0"]
