"""Failure.evidence and the honest stage: frames, markers, events, or ``unknown``."""

from __future__ import annotations

from pytest_blackwell.failures import Failure, StreamClassifier, classify_log
from pytest_blackwell.failures.frame_words import frame_category
from pytest_blackwell.failures.frames import frame_stage

SITE = "/usr/lib/python3.12/site-packages"


def _frame(path: str, func: str) -> str:
    return f'  File "{SITE}/{path}", line 10, in {func}'


def test_no_stage_without_evidence() -> None:
    failure = classify_log(["RuntimeError: CUDA error: an illegal memory access was encountered"])
    assert failure is not None
    assert (failure.category, failure.stage) == ("illegal_memory_access", "unknown")
    assert failure.evidence == {"category": "rule illegal_address", "stage": "none"}


def test_innermost_decisive_frame_names_the_stage() -> None:
    lines = [
        "Traceback (most recent call last):",
        _frame("vllm/v1/engine/core.py", "_initialize_kv_caches"),
        _frame("vllm/v1/worker/gpu_worker.py", "determine_available_memory"),
        _frame("vllm/v1/worker/gpu_model_runner.py", "profile_run"),
        _frame("vllm/v1/worker/gpu_model_runner.py", "_dummy_sampler_run"),
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
    ]
    failure = classify_log(lines)
    assert failure is not None
    assert (failure.category, failure.stage) == ("device_oom", "profile")
    assert failure.evidence == {"category": "rule torch_oom", "stage": "frame profile_run"}


def test_contextual_frame_counts_only_alone() -> None:
    lines = [
        "Traceback (most recent call last):",
        _frame("vllm/v1/engine/core.py", "step"),
        _frame("vllm/v1/worker/gpu_model_runner.py", "execute_model"),
        _frame("vllm/model_executor/models/llama.py", "forward"),
        "RuntimeError: CUDA error: an illegal memory access was encountered",
    ]
    assert frame_stage(lines) == ("execute", "frame execute_model")
    assert frame_stage([*lines[:2], _frame("vllm/worker.py", "capture_model"), *lines[2:]]) == (
        "graph_capture",
        "frame capture_model",
    )


def test_frame_decides_the_category_of_a_cut_message() -> None:
    lines = [
        "Traceback (most recent call last):",
        _frame("vllm/v1/core/kv_cache_utils.py", "check_enough_kv_cache_memory"),
        "    raise ValueError(",
        "ValueError: To serve at least one requ",
    ]
    assert frame_category(lines) == ("kv_cache_oom", "frame check_enough_kv_cache_memory")
    failure = classify_log(lines)
    assert failure is not None
    assert (failure.category, failure.stage) == ("kv_cache_oom", "kv_alloc")
    assert failure.evidence["category"] == "frame check_enough_kv_cache_memory"


def test_stage_events_keep_engine_runs_exact() -> None:
    sc = StreamClassifier()
    sc.note_stage("warmup")
    for line in [
        "Traceback (most recent call last):",
        _frame("vllm/v1/worker/gpu_model_runner.py", "profile_run"),
        "RuntimeError: CUDA error: an illegal memory access was encountered",
    ]:
        sc.feed(line)
    failure = sc.result()
    assert failure is not None
    assert failure.stage == "warmup"
    assert failure.evidence["stage"] == "stage event warmup"


def test_marker_is_evidence() -> None:
    failure = classify_log(
        [
            "INFO 03-10 15:07:17 [gpu_model_runner.py:1953] Starting to load model m...",
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB.",
        ]
    )
    assert failure is not None
    assert failure.stage == "loading"
    assert failure.evidence["stage"] == "marker 'Starting to load model'"


def test_error_lines_without_a_rule_are_never_missed() -> None:
    for line in [
        "[TRT] [E] 3: [builder.cpp::build::12] Error Code 3: API Usage Error (bad thing)",
        "something FATAL happened in the frobnicator",
        "thread 'main' panicked at src/main.rs:10:5:",
        "host:1:2 [0] misc/socket.cc:50 NCCL WARN socketProgress: Connection closed",
        "[ 12.3] NVRM: Xid (PCI:0000:41:00): 79, pid=1, GPU has fallen off the bus.",
    ]:
        failure = classify_log(["INFO starting", line, "INFO done"])
        assert failure is not None, line
        assert failure.line == 2, line


def test_harmless_warnings_are_not_failures() -> None:
    lines = [
        "WARNING 03-10 15:07:09 [config.py:1] Possibly too large swap space.",
        "INFO 03-10 15:07:10 [core.py:1] Error handling is set to strict.",
        "(APIServer pid=1) INFO 03-10 15:07:10 [api_server.py:1] Route: /v1/errors",
    ]
    assert classify_log(lines) is None


def test_pasting_damage_is_removed() -> None:
    for line in [
        "E       RuntimeError: CUDA error: an illegal memory access was encountered",
        "vllm-1  | RuntimeError: CUDA error: an illegal memory access was encountered",
        "(RayWorkerWrapper pid=812, ip=10.0.0.2) RuntimeError: CUDA error: an illegal memory "
        "access was encountered",
        "> RuntimeError: CUDA error: an illegal memory access was encountered<br>",
        "Feb 15 17:37:45 host kernel: [8.1] NVRM: Xid (PCI:0000:41:00): 13, Graphics Exception",
        "[05/08/2024-20:47:56] RuntimeError: CUDA error: an illegal memory access was encountered",
        "RuntimeError: CUDA error: an illegal memory access was encountered ⚠️ 出错",
    ]:
        failure = classify_log([line])
        assert failure is not None, line
        assert failure.category == "illegal_memory_access", line


def test_mamba_state_blocks_are_kv_cache_oom() -> None:
    failure = classify_log(
        ["ValueError: max_num_seqs (512) exceeds available Mamba cache blocks (7)."]
    )
    assert failure is not None
    assert (failure.category, failure.stage) == ("kv_cache_oom", "kv_alloc")


def test_evidence_round_trips_through_dict() -> None:
    failure = Failure("device_oom", "loading", "x", evidence={"category": "rule a", "stage": "b"})
    assert Failure.from_dict(failure.to_dict()) == failure
