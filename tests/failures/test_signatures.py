"""One error line in, one category out: the rule table against real error wording.

The strings are what vLLM, PyTorch, Triton, NCCL, FlashInfer, SGLang and shells print (facts
about their sources); each line is classified on its own, as a pasted one-line log would be.
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_blackwell.failures import classify_log

SIGNATURES: list[tuple[str, str, dict[str, Any]]] = [
    # kv_cache_oom
    (
        "ValueError: The model's max seq len (32768) is larger than the maximum number of tokens "
        "that can be stored in KV cache (17456). Try increasing `gpu_memory_utilization`",
        "kv_cache_oom",
        {"max_model_len": 32768, "kv_cache_tokens": 17456},
    ),
    (
        "ValueError: Free memory on device (3.27/15.98 GiB) on startup is less than desired GPU "
        "memory utilization (0.9, 14.39 GiB).",
        "kv_cache_oom",
        {"utilization": 0.9},
    ),
    (
        "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.",
        "kv_cache_oom",
        {},
    ),
    # dispatch_failure: a backend refusing the kv-cache dtype / capability
    (
        "ValueError: Selected backend AttentionBackendEnum.FLASH_ATTN is not valid for this "
        "configuration. Reason: ['kv_cache_dtype not supported', 'compute capability not "
        "supported']",
        "dispatch_failure",
        {"backend": "FLASH_ATTN"},
    ),
    # env_mismatch: a socket directory too deep for vLLM's IPC paths
    (
        'zmq.error.ZMQError: ipc path "/tmp/very/deep/dir/abc-123" is longer than 107 '
        "characters (sizeof(sockaddr_un.sun_path)).",
        "env_mismatch",
        {"limit": 107},
    ),
    # device_oom
    (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 23.69 GiB "
        "total capacity; 22.80 GiB already allocated; 5.06 MiB free; 23.20 GiB reserved)",
        "device_oom",
        {"tried_bytes": 20 * 1024**2, "free_bytes": int(5.06 * 1024**2)},
    ),
    (
        "RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`",
        "device_oom",
        {},
    ),
    ("RuntimeError: CUDA driver error: out of memory", "device_oom", {}),
    (
        "RuntimeError: [enforce fail at alloc_cpu.cpp:117] data. DefaultCPUAllocator: not enough "
        "memory: you tried to allocate 8589934592 bytes.",
        "device_oom",
        {"tried_bytes": 8589934592},
    ),
    # smem_limit
    ("RuntimeError: CUDA error: too many resources requested for launch", "smem_limit", {}),
    (
        "RuntimeError: cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, "
        "smem_size) failed: invalid argument",
        "smem_limit",
        {},
    ),
    # illegal_memory_access
    (
        "torch.AcceleratorError: CUDA error: an illegal memory access was encountered",
        "illegal_memory_access",
        {},
    ),
    ("RuntimeError: Triton Error [CUDA]: misaligned address", "illegal_memory_access", {}),
    ("RuntimeError: CUDA error: unspecified launch failure", "illegal_memory_access", {}),
    ("RuntimeError: CUDA error: device-side assert triggered", "illegal_memory_access", {}),
    (
        # cuBLAS: "the GPU program failed to execute", for more than one reason: no category
        "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasGemmEx(...)`",
        "unknown",
        {},
    ),
    # dispatch_failure
    ("RuntimeError: CUDA error: invalid device function", "dispatch_failure", {}),
    (
        "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. "
        "Your Tesla T4 GPU has compute capability 7.5.",
        "dispatch_failure",
        {"min_capability": "8.0", "compute_capability": "7.5"},
    ),
    (
        "ValueError: The quantization method fp8 is not supported for the current GPU. Minimum "
        "capability: 89. Current capability: 80.",
        "dispatch_failure",
        {"min_capability": "8.9", "compute_capability": "8.0"},
    ),
    ("RuntimeError: FlashAttention only supports Ampere GPUs or newer.", "dispatch_failure", {}),
    (
        "ValueError: Unsupported head_dim for fused quant+cache: 256",
        "dispatch_failure",
        {"head_dim": 256},
    ),
    (
        "NotImplementedError: Could not run 'aten::_fused_moe' with arguments from the 'CUDA' "
        "backend.",
        "dispatch_failure",
        {"backend": "CUDA"},
    ),
    (
        "ptxas fatal   : Value 'sm_120' is not defined for option 'gpu-name'",
        "dispatch_failure",
        {"compute_capability": "12.0"},
    ),
    # stream_capture
    (
        "RuntimeError: CUDA error: operation failed due to a previous error during capture",
        "stream_capture",
        {},
    ),
    ("RuntimeError: CUDA error: CUDA_ERROR_STREAM_CAPTURE_INVALIDATED", "stream_capture", {}),
    # unsupported_config
    (
        "ValueError: Unknown quantization method: fp5. Must be one of ['awq', 'fp8'].",
        "unsupported_config",
        {},
    ),
    (
        "ValueError: User-specified max_model_len (200000) is greater than the derived "
        "max_model_len (max_position_embeddings=131072 in model's config.json).",
        "unsupported_config",
        {"max_model_len": 200000},
    ),
    (
        "OSError: /models/llama does not appear to have a file named config.json.",
        "unsupported_config",
        {"missing_file": "config.json"},
    ),
    (
        "ValueError: Model architectures ['FooForCausalLM'] are not supported for now.",
        "unsupported_config",
        {"architecture": "FooForCausalLM"},
    ),
    (
        "OSError: It looks like the config file at '/models/llama/config.json' is not a valid "
        "JSON file.",
        "unsupported_config",
        {},
    ),
    (
        "NotImplementedError: Speculative decoding with draft models is not supported yet.",
        "unsupported_config",
        {},
    ),
    # nccl_error
    ("RuntimeError: NCCL Error 2: unhandled system error", "nccl_error", {}),
    (
        "torch.distributed.DistBackendError: [1] is setting up NCCL communicator and retrieving "
        "ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: "
        "Connection reset by peer",
        "nccl_error",
        {},
    ),
    (
        "[rank0]:[E1010 12:34:56.789012345 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught "
        "collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE) ran for 600000 "
        "milliseconds before timing out.",
        "nccl_error",
        {"process": "rank0"},
    ),
    # env_mismatch
    (
        "RuntimeError: CUDA error: the provided PTX was compiled with an unsupported toolchain.",
        "env_mismatch",
        {},
    ),
    (
        "ImportError: libcudart.so.12: cannot open shared object file: No such file or directory",
        "env_mismatch",
        {},
    ),
    ("AssertionError: Torch not compiled with CUDA enabled", "env_mismatch", {}),
    ("RuntimeError: Failed to infer device type", "env_mismatch", {}),
    ("ModuleNotFoundError: No module named 'flashinfer'", "env_mismatch", {"module": "flashinfer"}),
    # engine_died
    (
        "ERROR 10-20 13:01:09 [multiproc_executor.py:146] Worker proc VllmWorker-3 died "
        "unexpectedly, shutting down executor.",
        "engine_died",
        {"process": "VllmWorker-3"},
    ),
    ("Segmentation fault (core dumped)", "engine_died", {"signal": "SIGSEGV"}),
    ("Aborted (core dumped)", "engine_died", {"signal": "SIGABRT"}),
    ("*** SIGSEGV received at time=1710083240 on cpu 3 ***", "engine_died", {"signal": "SIGSEGV"}),
    (
        "torch.distributed.elastic.multiprocessing.api: exitcode: -9 (pid: 2231)",
        "engine_died",
        {"exit_code": -9, "signal": "SIGKILL"},
    ),
    (
        "##[error]Process completed with exit code 137.",
        "engine_died",
        {"exit_code": 137, "signal": "SIGKILL"},
    ),
    (
        "terminate called after throwing an instance of 'std::system_error'",
        "engine_died",
        {"signal": "SIGABRT"},
    ),
    # an allocation that failed is the cause of that abort (docs: a host allocation is device_oom)
    ("terminate called after throwing an instance of 'std::bad_alloc'", "device_oom", {}),
    (
        "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack "
        "trace (above) for the root cause.",
        "engine_died",
        {},
    ),
    (
        "Received sigquit from a child process. It usually means the child failed.",
        "engine_died",
        {},
    ),
    # a parameter the checkpoint lacks: the checkpoint does not match its config
    ("KeyError: 'model.layers.0.self_attn.qkv_proj.weight'", "unsupported_config", {}),
    # unknown
    ("KeyError: 'max_position_embeddings'", "unknown", {"exception": "KeyError"}),
    (
        "ERROR 10-20 13:01:09 [serving_chat.py:219] Error in preprocessing prompt inputs",
        "unknown",
        {},
    ),
]


@pytest.mark.parametrize(("line", "category", "detail"), SIGNATURES, ids=lambda v: str(v)[:48])
def test_signature(line: str, category: str, detail: dict[str, Any]) -> None:
    failure = classify_log([line])
    assert failure is not None, line
    assert failure.category == category, failure.summary
    for key, value in detail.items():
        assert failure.detail.get(key) == value, (key, failure.detail)


@pytest.mark.parametrize(
    "line",
    [
        "INFO 10-20 13:01:09 [gpu_worker.py:276] Available KV cache memory: 60.12 GiB",
        "WARNING 10-20 13:01:09 [__init__.py:26] Failed to import from vllm._C with "
        "ModuleNotFoundError(\"No module named 'vllm._C'\")",
        "INFO 10-20 13:01:09 [loggers.py:123] Engine 000: Avg prompt throughput: 0.0 tokens/s, "
        "Avg generation throughput: 0.0 tokens/s, Running: 0 reqs, Waiting: 0 reqs",
        "DEBUG 10-20 13:01:09 [core.py:1] error_on_invalid_request=False",
        'INFO:     127.0.0.1:40122 - "GET /health HTTP/1.1" 200 OK',
    ],
)
def test_harmless_lines_are_not_errors(line: str) -> None:
    assert classify_log([line] * 3) is None
