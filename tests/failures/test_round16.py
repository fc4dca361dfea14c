"""Mechanisms of the sixteenth round (tuned on the whole corpus, before fresh32-fresh35 were
read): engine processes that never came up or stopped, NCCL's debug lines and status checks, a
gloo timeout, the allocation a KV cache needed, a CUDA graph API call, CUTLASS's device-side
refusal, a package to install, a model not served, a missing CUDA runtime library and a call
through a null pointer. The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        (
            [
                'time=2026-01-02T03:04:05.000Z level=ERROR source=server.go:1 msg="llama runner '
                'terminated" error="exit status 2"'
            ],
            "engine_died",
            "unknown",
        ),
        (["Error: failed to start a llama runner"], "engine_died", "loading"),
        (
            [
                '{"timestamp":"2024-01-02T03:04:05Z","level":"ERROR","fields":{"message":"Shard 1 '
                'failed to start"},"target":"foo_launcher"}'
            ],
            "engine_died",
            "unknown",
        ),
        (
            [
                'INFO:     10.0.0.1:5000 - "POST /v1/completions HTTP/1.1" 200 OK',
                "ERROR 01-02 03:04:05 async_foo_engine.py:1] Engine background task failed",
            ],
            "engine_died",
            "execute",
        ),
        (["ray.exceptions.OutOfMe"], "engine_died", "unknown"),
    ],
)
def test_a_serving_process_that_stopped_or_never_came_up(
    tmp_path: Path, lines: list[str], category: str, stage: str
) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    "line",
    [
        "node7:123:456 [3] transport/shm.cc:99 WARN unable to map the buffer : 22 invalid argument",
        "F0102 03:04:05.000 1 nccl_comm.cpp:12] Check failed: status == ncclSuccess (5 vs. 0)",
    ],
)
def test_nccls_debug_line_and_status_check(tmp_path: Path, line: str) -> None:
    classify_as(tmp_path, [line], "nccl_error", "unknown")


def test_gloo_saying_it_timed_out_is_a_timeout(tmp_path: Path) -> None:
    line = (
        "[/srv/gloo/gloo/transport/tcp/pair.cc:42] Timed out waiting 60000ms for recv operation "
        "to complete"
    )
    classify_as(tmp_path, [line], "timeout", "unknown")


def test_gloo_losing_its_connection_stays_a_collective_failure(tmp_path: Path) -> None:
    line = "RuntimeError: [/srv/gloo/gloo/transport/tcp/pair.cc:42] Connection closed by peer"
    classify_as(tmp_path, [line], "nccl_error", "unknown")


def test_the_allocation_the_kv_cache_needed_is_kv_cache_oom(tmp_path: Path) -> None:
    lines = [
        "foo_cuda_buffer_alloc_buffer: allocating 9000.00 MiB on device 0: cudaMalloc failed: "
        "out of memory",
        "llama_kv_cache_init: failed to allocate buffer for kv cache",
    ]
    classify_as(tmp_path, lines, "kv_cache_oom", "kv_alloc")


def test_the_compute_buffers_of_a_cache_update_are_device_memory(tmp_path: Path) -> None:
    lines = [
        "foo_cuda_buffer_alloc_buffer: allocating 9000.00 MiB on device 1: cudaMalloc failed: "
        "out of memory",
        "llama_kv_cache_update_impl: failed to allocate compute buffers",
    ]
    classify_as(tmp_path, lines, "device_oom", "unknown")


def test_an_allocation_failure_far_from_the_cache_message_stays_device_oom(
    tmp_path: Path,
) -> None:
    lines = [
        "foo_alloc_buffer: allocating 10.00 MiB on device 0: cudaMalloc failed: out of memory",
        *[f"INFO step {n}" for n in range(6)],
        "llama_kv_cache_init: failed to allocate buffer for kv cache",
    ]
    classify_as(tmp_path, lines, "device_oom", "unknown")


def test_cutlass_not_implemented_in_device_code_is_a_dispatch_failure(tmp_path: Path) -> None:
    lines = [
        "void cutlass::arch::Mma<cutlass::gemm::GemmShape<16, 8, 32>, 32, cutlass::foo_t>::"
        "operator()(cutlass::Array<float, 4, true> &) const [with Operator_ = "
        "cutlass::arch::OpFoo] not implemented",
        "RuntimeError: CUDA error: unspecified launch failure",
    ]
    classify_as(tmp_path, lines, "dispatch_failure", "unknown")


@pytest.mark.parametrize(
    ("line", "category"),
    [
        (
            "ValueError: fp8 quantization requires operators from foo. Please install foo by "
            "`pip install foo==1.2`",
            "env_mismatch",
        ),
        ("ValueError: quantization method 'bar' is not supported", "unsupported_config"),
        (
            "ERROR 01-02 03:04:05 serving_chat.py:1] Error with model object='error' message='The "
            "model `foo-7b` does not exist.' type='NotFoundError' param=None code=404",
            "unsupported_config",
        ),
        (
            "Search for `cudaErrorAssert' in https://docs.nvidia.com/cuda/cuda-runtime-api/"
            "group__CUDART__TYPES.html for more information.",
            "illegal_memory_access",
        ),
        ("#0  0x0000000000000000 in ?? ()", "engine_died"),
    ],
)
def test_words_of_round_16(tmp_path: Path, line: str, category: str) -> None:
    classify_as(tmp_path, [line], category, "unknown")


def test_the_extension_missing_the_cuda_runtime_is_the_environment(tmp_path: Path) -> None:
    line = (
        "WARNING 01-02 03:04:05 _custom_ops.py:14] Failed to import from foo._C with "
        "ImportError('libcudart.so.12: cannot open shared object file: No such file or directory')"
    )
    classify_as(tmp_path, [line], "env_mismatch", "startup")


def test_a_failing_graph_api_call_is_a_broken_capture(tmp_path: Path) -> None:
    lines = [
        "CUDA error: invalid argument",
        "  current device: 0, in function foo_graph_update at foo.cu:12",
        "  cudaGraphExecUpdate(graph->instance, graph->graph, &info)",
    ]
    classify_as(tmp_path, lines, "stream_capture", "graph_capture")


@pytest.mark.parametrize(
    ("line", "category", "stage"),
    [
        (
            "Processing Prompt [BLAS] (512 / 900 tokens)CUDA error: out of memory",
            "device_oom",
            "execute",
        ),
        (
            "Epoch 2:  40%|####      | 400/1000 [01:00<01:30, loss=1.2][E ProcessGroupNCCL.cpp:1] "
            "[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, "
            "OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600100 milliseconds before timing out.",
            "nccl_error",
            "execute",
        ),
        (
            "Loading checkpoint shards:  50%|#####     | 1/2 [00:01<00:01]RuntimeError: CUDA "
            "error: out of memory",
            "device_oom",
            "loading",
        ),
    ],
)
def test_what_the_error_line_showed_first_tells_the_stage(
    tmp_path: Path, line: str, category: str, stage: str
) -> None:
    classify_as(tmp_path, [line], category, stage)


def test_an_error_line_without_a_shown_activity_keeps_an_unknown_stage(tmp_path: Path) -> None:
    classify_as(tmp_path, ["Epoch of the run: CUDA error: out of memory"], "device_oom", "unknown")


@pytest.mark.parametrize(
    "lines",
    [
        # NCCL's debug format at INFO
        ["node7:123:456 [3] NCCL INFO Channel 00/02 : 0 1", "node7:123:456 [3] NCCL INFO ok"],
        # a debugger's backtrace of a process stopped in a real function
        ["(gdb) bt", "#0  0x00007f0000001234 in poll () from /lib/libc.so.6", "#1  main ()"],
        # vLLM's extension missing the driver's library on a host without a GPU (CPU run)
        [
            "WARNING 01-02 03:04:05 _custom_ops.py:14] Failed to import from foo._C with "
            "ImportError('libcuda.so.1: cannot open shared object file: No such file or "
            "directory')",
            "INFO 01-02 03:04:06 api_server.py:1] Foo API server version 0.1",
        ],
    ],
    ids=["nccl-info", "gdb-backtrace", "no-driver-on-cpu-host"],
)
def test_lines_of_round_16_that_are_no_failure(tmp_path: Path, lines: list[str]) -> None:
    assert classify_both(tmp_path, lines) is None
