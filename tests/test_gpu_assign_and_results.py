"""Per-worker GPU assignment and the merge of worker results."""

from __future__ import annotations

from pytest_blackwell.engine.gpu_assign import visible_for_worker, worker_index
from pytest_blackwell.report.results import merge_records


def test_worker_index() -> None:
    assert worker_index("gw3") == 3
    assert worker_index(None) is None
    assert worker_index("master") is None


def test_one_gpu_per_worker_respects_outer_visible_devices() -> None:
    assert visible_for_worker(4, "gw0", 1, None) == "0"
    assert visible_for_worker(4, "gw3", 1, None) == "3"
    assert visible_for_worker(4, "gw1", 2, None) == "2,3"
    # The outer restriction is what gets handed out, in its order and notation.
    assert visible_for_worker(2, "gw1", 1, "GPU-aaa,GPU-bbb") == "GPU-bbb"
    assert visible_for_worker(2, "gw0", 1, "5,3") == "5"
    # More workers than GPUs wrap around.
    assert visible_for_worker(2, "gw2", 1, None) == "0"
    # Read as CUDA reads it: up to the first entry that is not a device; hidden stays hidden.
    assert visible_for_worker(4, "gw1", 1, "2,3,-1,5") == "3"
    assert visible_for_worker(4, "gw0", 1, "") is None
    assert visible_for_worker(4, "gw0", 1, "-1") is None
    # Not a worker, or no GPU: leave the environment alone.
    assert visible_for_worker(4, None, 1, None) is None
    assert visible_for_worker(0, "gw0", 1, None) is None


def test_merge_adds_launches_joins_tests_and_keeps_a_failure() -> None:
    ok = {"config_id": "kv=fp8", "outcome": "passed", "launches": 1, "tests": ["a"]}
    failed = {
        "config_id": "kv=fp8",
        "outcome": "failed",
        "failure": {"category": "kv_cache_oom"},
        "launches": 1,
        "tests": ["b"],
    }
    other = {"config_id": "kv=auto", "outcome": "passed", "launches": 1, "tests": ["c"]}
    merged = merge_records([[ok, other], [failed]])
    by_id = {m["config_id"]: m for m in merged}
    assert by_id["kv=fp8"]["outcome"] == "failed"
    assert by_id["kv=fp8"]["failure"] == {"category": "kv_cache_oom"}
    assert by_id["kv=fp8"]["launches"] == 2
    assert by_id["kv=fp8"]["tests"] == ["a", "b"]
    assert by_id["kv=auto"]["launches"] == 1
