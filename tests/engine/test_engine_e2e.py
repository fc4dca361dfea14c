"""End to end with real engines: a healthy engine shared by several tests, reuse, and the
failures reproducible on a CPU runner. Tests run in file order and share one pool."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_blackwell.engine import (
    EngineConfig,
    EngineError,
    EngineHandle,
    EnginePool,
    EngineResult,
    vllmcache,
)
from pytest_blackwell.engine.tinymodel import make_malformed_model
from pytest_blackwell.units import parse_size

pytestmark = pytest.mark.engine

#: The smallest healthy configuration on the CPU backend (tiny model, short context).
BASE = EngineConfig(max_model_len=512)
KV_TOO_SMALL = EngineConfig(max_model_len=4096, kv_cache_memory_bytes=parse_size("1MiB"))


@pytest.fixture(scope="module")
def pool(
    tmp_path_factory: pytest.TempPathFactory, engine_env: dict[str, str]
) -> Iterator[EnginePool]:
    artifacts = tmp_path_factory.mktemp("artifacts")
    with EnginePool(artifacts, max_alive=1, base_env=engine_env) as engines:
        yield engines


@pytest.fixture
def healthy(pool: EnginePool) -> EngineHandle:
    return pool.get(BASE)


def test_healthy_engine_serves_several_generate_calls(healthy: EngineHandle) -> None:
    assert healthy.result.ok, healthy.result.summary
    first = healthy.generate(["hello world", "the quick brown fox"], max_tokens=8)
    second = healthy.generate(["hello world"], max_tokens=8)
    assert len(first) == 2
    assert all(isinstance(text, str) and text for text in first)
    assert second[0] == first[0]  # greedy decoding is deterministic
    ids = healthy.generate([[1, 5, 9, 42]], max_tokens=6, ignore_eos=True)
    assert len(ids) == 1
    assert len(ids[0]) == 6
    assert all(isinstance(t, int) and 0 <= t < 512 for t in ids[0])
    with pytest.raises(ValueError, match="all strings or all lists of token ids"):
        healthy.generate(["text", [1, 2]])  # type: ignore[arg-type]


def test_healthy_result_has_stage_timings_throughput_and_backend(healthy: EngineHandle) -> None:
    result = healthy.result
    assert result.ok
    assert result.failure is None
    assert {"startup", "loading", "kv_alloc", "warmup", "execute", "total"} <= set(result.timings)
    assert result.timings["total"] >= result.timings["startup"] > 0
    assert result.tokens_per_s is not None
    assert result.tokens_per_s > 0
    assert result.actual_backend == "CPU_ATTN"  # the tiny model on the CPU backend
    assert result.requested_backend is None
    assert not result.backend_mismatch
    assert result.versions["vllm"]
    log = Path(healthy.log_path).read_text()
    assert "Resolved architecture: LlamaForCausalLM" in log
    # vLLM's model inspection was kept for the next engine, outside the throw-away cache root
    assert list(vllmcache.store_dir().glob("*.json"))


def test_n_gets_over_k_configs_launch_k_engines(pool: EnginePool) -> None:
    handles = [pool.get(c) for c in (BASE, BASE, BASE, KV_TOO_SMALL, KV_TOO_SMALL)]
    assert handles[0] is handles[1] is handles[2]
    assert handles[3] is handles[4]
    launches = {r["config_id"]: r["launches"] for r in pool.records()}
    assert launches == {BASE.id: 1, KV_TOO_SMALL.id: 1}


def test_kv_cache_too_small_for_max_model_len_is_kv_cache_oom_at_kv_alloc(
    pool: EnginePool,
) -> None:
    handle = pool.get(KV_TOO_SMALL)
    result = handle.result
    assert result.failure is not None
    assert not result.ok
    assert (result.failure.category, result.failure.stage) == ("kv_cache_oom", "kv_alloc")
    assert "max seq len (4096)" in result.failure.first_error
    assert handle.pids() == {}, "the failed engine left processes behind"
    with pytest.raises(EngineError) as info:
        handle.generate(["hello"])
    assert str(info.value).splitlines()[0] == result.failure.summary
    record = next(r for r in pool.records() if r["config_id"] == KV_TOO_SMALL.id)
    assert record["outcome"] == "failed"
    assert record["failure"]["category"] == "kv_cache_oom"
    assert record["log_path"] == f"logs/{KV_TOO_SMALL.id}.log"


def test_malformed_model_config_is_unsupported_config_at_loading(
    pool: EnginePool, tmp_path: Path
) -> None:
    bad = make_malformed_model(tmp_path / "bad-model", "config")
    handle = pool.get(EngineConfig(model=str(bad), max_model_len=512))
    failure = handle.result.failure
    assert failure is not None
    assert (failure.category, failure.stage) == ("unsupported_config", "loading")
    assert "attention heads" in failure.first_error
    assert handle.pids() == {}


def test_unknown_engine_argument_is_unsupported_config_at_startup(pool: EnginePool) -> None:
    handle = pool.get(BASE.merged(blok_size=16))
    failure = handle.result.failure
    assert failure is not None
    assert (failure.category, failure.stage) == ("unsupported_config", "startup")
    assert "unknown engine argument(s) blok_size" in failure.first_error


def test_fp8_kv_cache_on_a_cpu_without_avx512_is_dispatch_failure(
    pool: EnginePool, cpu_flags: set[str]
) -> None:
    if cpu_flags & {"avx512f", "amx_tile"}:
        pytest.skip("this CPU has AVX-512/AMX: vLLM supports an fp8 KV cache here")
    handle = pool.get(BASE.merged(kv_cache_dtype="fp8"))
    failure = handle.result.failure
    assert failure is not None
    assert failure.category == "dispatch_failure"
    assert "AVX-512" in failure.first_error
    assert handle.pids() == {}


def test_requested_backend_that_vllm_replaced_is_visible(pool: EnginePool) -> None:
    handle = pool.get(BASE.merged(attention_backend="FLASHINFER"))
    result = handle.result
    assert result.ok, result.summary
    assert (result.requested_backend, result.actual_backend) == ("FLASHINFER", "CPU_ATTN")
    assert result.backend_mismatch
    assert result.summary == "ok, but attention backend FLASHINFER was requested and CPU_ATTN ran"
    record = next(r for r in pool.records() if r["config_id"] == handle.config.id)
    assert EngineResult.from_dict(record).backend_mismatch
    assert record["actual_backend"] == "CPU_ATTN"


def test_close_stops_every_process_and_removes_the_work_dir(pool: EnginePool) -> None:
    # xdist may run this test on a worker that ran none of the others: make sure one is up.
    assert pool.get(BASE).result.ok
    alive = [h for h in pool.handles if h.alive]
    assert alive, "expected the last healthy engine to be alive"
    pids = {pid for handle in alive for pid in handle.pids()}
    assert pids
    pool.close()
    assert all(handle.pids() == {} for handle in pool.handles)
    assert not any(Path(f"/proc/{pid}").exists() and _not_zombie(pid) for pid in pids)
    assert not pool.work_dir.exists()
    assert all(Path(h.log_path).is_file() for h in pool.handles)
    # records outlive close
    assert all(r["launches"] >= 1 and r["log_path"] for r in pool.records())


def _not_zombie(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"
