"""Realistic engine logs in, first error out: category, stage, line and detail.

Each log under ``logs/`` is modelled on what vLLM, PyTorch, Triton, NCCL and CI systems print;
the table below is the specification of what the classifier must say about it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

import pytest

from pytest_blackwell.failures import CATEGORIES, STAGES, classify_log

LOGS = Path(__file__).parent / "logs"


class Expect(NamedTuple):
    category: str
    stage: str
    first_error: str  # a fragment of the line that carries the error
    detail: dict[str, Any] = {}  # noqa: RUF012 - NamedTuple defaults are never mutated
    line: int | None = None


GiB = 1024**3
MiB = 1024**2

EXPECTED: dict[str, Expect] = {
    # kv_cache_oom
    "kv_no_memory_v1.log": Expect(
        "kv_cache_oom",
        "kv_alloc",
        "ValueError: No available memory for the cache blocks",
        {"process": "EngineCore_DP0"},
        line=31,
    ),
    "kv_max_seq_len_compose.log": Expect(
        "kv_cache_oom",
        "kv_alloc",
        "KV cache is needed, which is larger than",
        {
            "max_model_len": 40960,
            "needed_bytes": 10 * GiB,
            "available_bytes": int(1.25 * GiB),
            "estimated_max_model_len": 5120,
        },
    ),
    "free_memory_startup.log": Expect(
        "kv_cache_oom",
        "startup",
        "Free memory on device cuda:0 (2.6/121.63 GiB)",
        {"device": "cuda:0", "free_bytes": int(2.6 * GiB), "utilization": 0.08},
    ),
    "cpu_node_memory_startup.log": Expect(
        "kv_cache_oom",
        "startup",
        "Available memory on node 0 (3.1/15.5 GiB) on startup",
        {"numa_node": 0, "available_bytes": int(3.1 * GiB), "utilization": 0.9},
    ),
    "cpu_node_memory_kv.log": Expect(
        "kv_cache_oom",
        "kv_alloc",
        "less than requested memory for kv",
        {"requested_bytes": 4 * GiB},
    ),
    "flattened_paste.log": Expect(
        "kv_cache_oom",
        "kv_alloc",
        "(2.62 GiB KV cache is needed",
        {"max_model_len": 8192, "estimated_max_model_len": 6528},
        line=1,
    ),
    # device_oom
    "device_oom_loading.log": Expect(
        "device_oom",
        "loading",
        "torch.OutOfMemoryError: CUDA out of memory",
        {"tried_bytes": 448 * MiB, "free_bytes": int(312.06 * MiB), "process": "rank0"},
    ),
    "capture_wraps_oom.log": Expect(
        "device_oom",
        "graph_capture",
        "Tried to allocate 1.02 GiB",
        {"tried_bytes": int(1.02 * GiB)},
    ),
    "cause_at_warning_nccl.log": Expect(
        "device_oom",
        "startup",
        "NCCL WARN Cuda failure 2 'out of memory'",
        {"process": "Worker_TP1"},
        line=4,
    ),
    # smem_limit
    "smem_triton.log": Expect(
        "smem_limit",
        "compile",
        "out of resource: shared memory",
        {"required_bytes": 232448, "limit_bytes": 101376},
    ),
    "flattened_json.log": Expect(
        "smem_limit",
        "compile",
        "out of resource: shared memory",
        {"required_bytes": 135168, "limit_bytes": 101376},
        line=1,
    ),
    "smem_too_many_resources.log": Expect(
        "smem_limit",
        "execute",
        "too many resources requested for launch",
    ),
    "interleaved_tp_workers.log": Expect(
        "device_oom",
        "profile",
        "Tried to allocate 3.91 GiB",
        {"process": "Worker_TP1"},
        line=17,
    ),
    # illegal_memory_access
    "illegal_memory_access.log": Expect(
        "illegal_memory_access",
        "execute",
        "an illegal memory access was encountered",
        line=10,
    ),
    "nccl_relays_cuda_fault.log": Expect(
        "illegal_memory_access",
        "execute",
        "watchdog thread terminated with exception: CUDA",
        {"process": "VllmWorker rank=1"},
        line=5,
    ),
    "nccl_multiline_relay.log": Expect(
        "illegal_memory_access",
        "profile",
        "Cuda failure 'an illegal memory access",
        {"process": "Worker_TP0"},
    ),
    "ansi_github_actions.log": Expect(
        "illegal_memory_access",
        "execute",
        "RuntimeError: CUDA error: misaligned address",
        line=10,
    ),
    "ci_brackets_gutter.log": Expect(
        "illegal_memory_access",
        "loading",
        "an illegal memory access was encountered",
        line=8,
    ),
    "truncated_headless_traceback.log": Expect(
        "illegal_memory_access",
        "unknown",
        "an illegal memory access was encountered",
        line=8,
    ),
    # dispatch_failure
    "dispatch_no_kernel_image.log": Expect(
        "dispatch_failure",
        "loading",
        "no kernel image is available for execution",
    ),
    "dispatch_cutlass_capability.log": Expect(
        "dispatch_failure",
        "profile",
        "No compiled cutlass_scaled_mm for CUDA device capability",
        {"compute_capability": "12.0"},
    ),
    "capture_wraps_ptxas.log": Expect(
        "dispatch_failure",
        "graph_capture",
        "ptxas fatal   : Value 'sm_120a' is not defined",
        {"compute_capability": "12.0"},
        line=7,
    ),
    "cpu_fp8_kv_no_avx512.log": Expect(
        "dispatch_failure",
        "kv_alloc",
        "FP8 KV cache on CPU requires x86 with AVX-512 or AMX",
    ),
    "no_valid_attention_backend.log": Expect(
        "dispatch_failure",
        "loading",
        "No valid attention backend found",
    ),
    # stream_capture
    "stream_capture.log": Expect(
        "stream_capture",
        "graph_capture",
        "operation not permitted when stream is capturing",
    ),
    # unsupported_config
    "unsupported_config_pydantic.log": Expect(
        "unsupported_config",
        "startup",
        "ValidationError: 1 validation error for ModelConfig",
        {"config": "ModelConfig"},
    ),
    "unsupported_config_argparse.log": Expect(
        "unsupported_config",
        "startup",
        "argument --kv-cache-dtype: invalid choice",
    ),
    "unsupported_config_truncated_checkpoint.log": Expect(
        "unsupported_config",
        "loading",
        "Error while deserializing header",
    ),
    # nccl_error
    "nccl_error.log": Expect(
        "nccl_error",
        "startup",
        "RuntimeError: NCCL error: unhandled system error",
        {"process": "Worker_TP0"},
    ),
    # env_mismatch
    "env_driver_too_old.log": Expect(
        "env_mismatch",
        "loading",
        "NVIDIA driver on your system is too old",
    ),
    "env_undefined_symbol.log": Expect(
        "env_mismatch",
        "loading",
        "'_OpNamespace' '_C' object has no attribute 'rms_norm'",
        {"op": "rms_norm"},
    ),
    "env_no_cxx_compiler.log": Expect(
        "env_mismatch",
        "compile",
        "InvalidCxxCompiler: No working C++ compiler found",
    ),
    # engine_died
    "engine_died_sigkill.log": Expect(
        "engine_died",
        "loading",
        "Worker proc VllmWorker-0 died unexpectedly (exit code: -9)",
        {"exit_code": -9, "signal": "SIGKILL", "process": "VllmWorker-0"},
    ),
    "engine_died_segfault.log": Expect(
        "engine_died",
        "execute",
        "Fatal Python error: Segmentation fault",
        {"signal": "SIGSEGV"},
    ),
    "engine_died_oom_killer.log": Expect(
        "engine_died",
        "loading",
        "Killed",
        {"signal": "SIGKILL"},
        line=6,
    ),
    "engine_core_exited_hang.log": Expect(
        "engine_died",
        "execute",
        "engine core exited unexpectedly",
    ),
    "wrapper_only.log": Expect(
        "engine_died",
        "startup",
        "Engine core initialization failed. See root cause above",
        {"failed_procs": "{'EngineCore_DP0': -9}"},
    ),
    # timeout
    "timeout_zero_tokens.log": Expect(
        "timeout",
        "execute",
        "Avg generation throughput: 0.0 tokens/s",
        line=8,
    ),
    "timeout_waiting.log": Expect(
        "timeout",
        "startup",
        "Waiting for 1 local, 0 remote core engine proc(s)",
        line=6,
    ),
    "timeout_shm_broadcast.log": Expect(
        "timeout",
        "compile",
        "No available shared memory broadcast block found",
    ),
    # unknown
    "unknown_error.log": Expect(
        "unknown",
        "execute",
        "RuntimeError: Expected all tensors to be on the same device",
        {"exception": "RuntimeError"},
    ),
    "truncated_no_exception.log": Expect(
        "unknown",
        "loading",
        "self.llm_engine = LLMEngine.from_engine_args(",
        {"truncated": True},
    ),
    "shutdown_error.log": Expect(
        "unknown",
        "shutdown",
        "zmq.error.ZMQError: Socket operation on non-socket",
    ),
}


def test_every_log_has_an_expectation() -> None:
    on_disk = {p.name for p in LOGS.glob("*.log")} - {"clean_run.log"}
    assert on_disk == set(EXPECTED)


def test_every_category_and_stage_is_covered() -> None:
    categories = {e.category for e in EXPECTED.values()}
    assert categories == set(CATEGORIES)
    stages = {e.stage for e in EXPECTED.values()}
    assert stages >= set(STAGES) - {"warmup"}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_log_is_classified(name: str) -> None:
    expected = EXPECTED[name]
    failure = classify_log(LOGS / name)
    assert failure is not None, f"{name}: no error found"
    assert (failure.category, failure.stage) == (expected.category, expected.stage), failure.summary
    assert expected.first_error in failure.first_error
    for key, value in expected.detail.items():
        assert failure.detail.get(key) == value, (key, failure.detail)
    if expected.line is not None:
        assert failure.line == expected.line
    lines = (LOGS / name).read_text(encoding="utf-8").splitlines()
    assert 1 <= failure.line <= len(lines)
    assert failure.traceback, "the traceback holds at least the error line"
    assert (
        failure.traceback[-1] == failure.first_error
        or failure.category == "unknown"
        or any(failure.first_error == t for t in failure.traceback)
    )


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_lines_and_path_agree(name: str) -> None:
    """The fast file scan and line-by-line feeding give the same answer."""
    path = LOGS / name
    by_path = classify_log(path)
    by_lines = classify_log(path.read_text(encoding="utf-8").splitlines(keepends=True))
    assert by_path == by_lines


def test_clean_run_has_no_error() -> None:
    assert classify_log(LOGS / "clean_run.log") is None


def test_traceback_is_kept_in_order() -> None:
    failure = classify_log(LOGS / "kv_no_memory_v1.log")
    assert failure is not None
    assert failure.traceback[0] == "Traceback (most recent call last):"
    assert failure.traceback[-1].startswith("ValueError: No available memory")
    assert any(t.startswith("  File ") for t in failure.traceback)
    assert not any("ERROR 03-10" in t or "pid=" in t for t in failure.traceback)


def test_wrapper_stays_out_of_first_error() -> None:
    failure = classify_log(LOGS / "kv_no_memory_v1.log")
    assert failure is not None
    assert "See root cause above" not in failure.first_error
    assert "EngineCore failed to start" not in failure.first_error


def test_failure_is_plain_data() -> None:
    failure = classify_log(LOGS / "kv_max_seq_len_compose.log")
    assert failure is not None
    data = failure.to_dict()
    for value in data["detail"].values():
        assert type(value) in (str, int, float, bool)
    assert type(data["detail"]["needed_bytes"]) is int
