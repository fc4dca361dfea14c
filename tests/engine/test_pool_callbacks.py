"""The pool's callbacks and its one record shape, on launches a pre-launch check stands for
(no engine starts)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from pytest_blackwell.engine import EngineConfig, EnginePool, EngineResult
from pytest_blackwell.failures.model import Failure

CONFIG = EngineConfig(max_model_len=256)
REFUSED = Failure("env_mismatch", "startup", "GPU 0 is taken")
BETTER = Failure("dispatch_failure", "startup", "a downstream rule knows better")


def refuse(config: EngineConfig, env: dict[str, str], own: list[int]) -> Failure | None:
    return REFUSED


def test_each_launch_is_revised_then_published_once(tmp_path: Path) -> None:
    revised: list[EngineResult] = []
    published: list[tuple[EngineConfig, EngineResult]] = []

    def revise(result: EngineResult) -> EngineResult:
        revised.append(result)
        return replace(result, failure=BETTER)

    pool = EnginePool(
        tmp_path,
        base_env={},
        preflight=refuse,
        revise=revise,
        on_result=lambda config, result: published.append((config, result)),
    )
    with pool:
        handle = pool.get(CONFIG)
        assert pool.get(CONFIG) is handle  # a failed engine is not launched again
        handle = pool.get(CONFIG, relaunch_failed=lambda failure: True)
    assert [r.failure for r in revised] == [REFUSED, REFUSED]
    assert [(c, r.failure) for c, r in published] == [(CONFIG, BETTER), (CONFIG, BETTER)]
    assert handle.result.failure == BETTER
    assert pool.records()[0]["failure"]["category"] == "dispatch_failure"


def test_a_revision_keeping_the_failure_changes_nothing(tmp_path: Path) -> None:
    published: list[EngineResult] = []
    with EnginePool(
        tmp_path,
        base_env={},
        preflight=refuse,
        revise=lambda result: replace(result, failure=None),
        on_result=lambda config, result: published.append(result),
    ) as pool:
        pool.get(CONFIG)
    assert [r.failure for r in published] == [REFUSED]


def test_a_record_is_the_result_plus_the_pools_own_fields(tmp_path: Path) -> None:
    with EnginePool(tmp_path, base_env={}, preflight=refuse) as pool:
        handle = pool.get(CONFIG)
        pool.note_test(CONFIG, "t.py::test_a")
    (record,) = pool.records()
    result = handle.result
    assert record == {
        **replace(result, log_path=f"logs/{CONFIG.id}.log").to_dict(),
        "config": CONFIG.to_dict(),
        "launches": 1,
        "outcome": "failed",
        "tests": ["t.py::test_a"],
        "interrupted": None,
    }
    assert EngineResult.from_dict(record) == replace(result, log_path=f"logs/{CONFIG.id}.log")
