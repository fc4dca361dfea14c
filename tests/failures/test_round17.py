"""Mechanisms of the seventeenth round (tuned on fresh32-fresh35): NVSHMEM and other collective
transports, NCCL's INFO lines, HIP's missing code object, FlashAttention 1's launch, CUDA errors
naming their source, exits with a status code, transformers' model-type check, a hub out of
reach, TGI's device count, CUDA without a GPU, vLLM's weight check, LMDeploy's engine loop,
requests received, ComfyUI's nodes, torchrun's summary, nvcc's error count, and a traceback cut
at both ends. The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


@pytest.mark.parametrize(
    "line",
    [
        "cupy_backends.cuda.libs.nccl.NcclError: NCCL_ERROR_UNHANDLED_CUDA_ERROR: unhandled cuda "
        "error",
        "[TensorRT-LLM][ERROR] Assertion failed: Failed: MPI error /srv/mpiUtils.cpp:1 '6'",
        "[PG ID 0 PG GUID 0 Rank 3]  failure detected by watchdog at work sequence id: 12 PG "
        "status: last enqueued work: 14, last completed work: 11",
    ],
)
def test_collective_transports_fail_as_nccl_errors(tmp_path: Path, line: str) -> None:
    classify_as(tmp_path, [line], "nccl_error", "unknown")


@pytest.mark.parametrize(
    "line",
    [
        "/opt/nvshmem/src/host/init/init.cu:998: non-zero status: 7 building transport map failed",
        "/opt/nvshmem/src/host/init/init.cu:foo:1080: nvshmem initialization failed, exiting",
    ],
)
def test_nvshmem_failing_to_start_is_nccl_error_at_startup(tmp_path: Path, line: str) -> None:
    classify_as(tmp_path, [line], "nccl_error", "startup")  # (the stage since round 18)


def test_nccl_info_about_a_plugin_version_is_no_failure(tmp_path: Path) -> None:
    lines = [
        "node1:12:12 [0] NCCL INFO NET/Plugin: Failed to find ncclNetPlugin_v8 symbol.",
        "node1:12:12 [0] NCCL INFO NET/Plugin: Loaded net plugin foo (v7)",
    ]
    assert classify_both(tmp_path, lines) is None


@pytest.mark.parametrize(
    ("line", "category"),
    [
        (
            "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!",
            "dispatch_failure",
        ),
        (
            "/srv/foo/mmq.cuh:12: ERROR: CUDA kernel mul_mat_q has no device code compatible with",
            "dispatch_failure",
        ),
        (
            "CUDA error (csrc/flash_attn/src/fmha_fprop_fp16_kernel.sm80.cu:74): invalid argument",
            "smem_limit",
        ),
        (
            "2025-01-02T03:04:05Z  WARN foo::supervisor: foo-server exited with status code "
            "-1073740791, args: `Command {}`",
            "engine_died",
        ),
        (
            "OSError: We couldn't connect to 'https://huggingface.co' to load this file, couldn't "
            "find it in the cached files and it looks like foo/bar is not the path to a directory",
            "unsupported_config",
        ),
    ],
)
def test_words_of_round_17(tmp_path: Path, line: str, category: str) -> None:
    classify_as(tmp_path, [line], category, "unknown")


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        (["CUDA error at /srv/foo/gpu.cpp:42: a PTX JIT compilation failed"], "unknown", "compile"),
        (
            ['Error: NotEnoughCUDADevices("`sharded` is true but only found 1 CUDA devices")'],
            "unsupported_config",
            "startup",
        ),
        (
            [
                "ValueError: The checkpoint you are trying to load has model type `foo_vl` but "
                "Transformers does not recognize this architecture."
            ],
            "unsupported_config",
            "startup",
        ),
        (
            ["ValueError: Following weights were not initialized from checkpoint: {'lm.w'}"],
            "unsupported_config",
            "loading",
        ),
        (
            [
                "2024-05-01 10:00:00,000 - foo - ERROR - Engine loop failed with error: CUDA out "
                "of memory. Tried to allocate 20.00 MiB."
            ],
            "device_oom",
            "execute",
        ),
        (
            [
                "2025-01-01 INFO Received completion request from 10.0.0.2",
                "RuntimeError: CUDA error: an illegal memory access was encountered",
            ],
            "illegal_memory_access",
            "execute",
        ),
        (
            [
                "[Stream] New request 7 (model foo) received!",
                'panicked at src/core.rs:1:2: DriverError(CUDA_ERROR_ILLEGAL_ADDRESS, "an illegal '
                'memory access was encountered")',
            ],
            "illegal_memory_access",
            "execute",
        ),
        (
            [
                "[I] Build TRT-LLM engine",
                "Process finished with exit code -1073740791 (0xC0000409)",
            ],
            "engine_died",
            "compile",
        ),
        (
            ['foo - INFO - #3 41.2 4 errors detected in the compilation of "/src/foo.cu".'],
            "unknown",
            "compile",
        ),
    ],
)
def test_stages_of_round_17(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    ("node", "stage"),
    [("KSampler", "execute"), ("FooModelLoader", "loading"), ("LoadFooControlNet", "loading")],
)
def test_a_comfyui_node_tells_its_stage(tmp_path: Path, node: str, stage: str) -> None:
    lines = [f"Error occurred when executing {node}:", "", "CUDA error: out of memory"]
    classify_as(tmp_path, lines, "device_oom", stage)


def test_comfyui_reporting_a_node_failure_is_execute(tmp_path: Path) -> None:
    line = (
        "!!! Exception during processing !!! CUDA error: an illegal memory access was encountered"
    )
    classify_as(tmp_path, [line], "illegal_memory_access", "execute")


def test_torchruns_summary_alone_is_an_unknown_failure(tmp_path: Path) -> None:
    lines = [
        "Root Cause (first observed failure):",
        "[0]:",
        "  time      : 2024-01-02_03:04:05",
        "  rank      : 0 (local_rank: 0)",
        "  exitcode  : 1 (pid: 123)",
    ]
    classify_as(tmp_path, lines, "unknown", "unknown")


def test_a_traceback_cut_at_both_ends_names_its_check(tmp_path: Path) -> None:
    prefix = "2025-01-02 03:04:05 ERROR 01-02 03:04:05 [core.py:1]"
    lines = [
        f"{prefix}     engine_core = EngineCoreProc(*args, **kwargs)",
        f'{prefix}   File "/srv/foo/core.py", line 82, in __init__',
        f"{prefix}     self._initialize_kv_caches(vllm_config)",
        f'{prefix}   File "/srv/foo/kv_cache_utils.py", line 943, in get_kv_cache_config',
        f"{prefix}     check_enough_kv_cache_memory(vllm_config, spec, available_memory)",
    ]
    classify_as(tmp_path, lines, "kv_cache_oom", "kv_alloc")


def test_an_older_negative_kv_budget_is_kv_cache_oom(tmp_path: Path) -> None:
    line = (
        "INFO 02-26 09:54:05 worker.py:1] model weights take 5.20GiB; the rest of the memory "
        "reserved for KV Cache is -1.05GiB."
    )
    classify_as(tmp_path, [line], "kv_cache_oom", "kv_alloc")


def test_the_v0_api_server_waiting_for_its_engine_is_startup(tmp_path: Path) -> None:
    lines = [
        "Traceback (most recent call last):",
        '  File "/srv/foo/api_server.py", line 223, in build_async_engine_client_from_engine_args',
        "    raise RuntimeError(",
        "RuntimeError: Engine process failed to start. See stack trace for the root cause.",
    ]
    classify_as(tmp_path, lines, "engine_died", "startup")
