"""Mechanisms of the sixtieth round, tuned on ``fresh206/`` to ``fresh209/``.

Categories: Intel's oneCCL, NCCL's counterpart on XPUs (``|CCL_ERROR|`` records, ``oneCCL:``
exceptions: ``nccl_error``); a library's fatal check named in capitals (``TT_FATAL: Out of
Memory: ...`` wrapped onto the next line); a ggml backend asserting an operand's type (no kernel
for it); Vulkan's ``VK_ERROR_OUT_OF_DEVICE_MEMORY`` and MLX's buffer larger than Metal allows
(``device_oom``); Metal's ``Impacting Interactivity`` (its watchdog: ``timeout``); a package
newer than the caller supports (``maximum version 2.5.8 is supported``); tcc's missing header; a
head dimension outside the listed ones. No failure: ggml failing to pin host memory (it goes on
without), the source line Python's warnings module shows under a warning, a flattened paste of
TensorFlow's INFO records.
Stages: a server that did not become healthy (``startup``); vLLM's HPU and XPU runners' warm-up
frames; Megatron-Core building a layer (``loading``); a model that cannot be initialised
(``loading``); llama.cpp's embedding example decoding a batch (``execute``).
The lines are of our own, in the shapes the tools print.
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
                "2024:09:13-11:21:50:(31157) |CCL_ERROR| exchange_utils.cpp:202 sendmsg_fd: "
                'condition !check_msg_retval("sendmsg") failed',
                "errno: Broken pipe",
            ],
            "nccl_error",
            "unknown",
        ),
        (
            [
                "RuntimeError: oneCCL: ze_fd_manager.cpp:214 fill_device_fds: EXCEPTION: open "
                "failed: fd: -1, errno: No such file or directory",
            ],
            "nccl_error",
            "unknown",
        ),
        (
            [
                "KV cache: GPU KV cache size: 104,448 tokens",
                "critical | Always | TT_FATAL: Out of Memory: Not enough space to allocate",
                "3019898880 B DRAM buffer across 8 banks, where each bank needs to store",
                "377487360 B, but bank size is 4272341376 B",
                "",
                "TT_FATAL @ tt_metal/impl/allocator/bank_manager.cpp:462",
                "",
                "  tt::tt_metal::BankManager::allocate_buffer(...)",
                "  tt::tt_metal::Buffer::allocate_impl()",
                "  tt::tt_metal::create_device_tensor(...)",
            ],
            "device_oom",
            "kv_alloc",
        ),
        (
            [
                "llama_new_context_with_model: n_ctx = 512",
                "WARNING: failed to allocate 0.00 MB of pinned memory",
                "ggml_vulkan: Failed to allocate pinned memory.",
                "batch_decode: n_tokens = 94, n_seq = 2",
                "GGML_ASSERT: /src/ggml-vulkan.cpp:1913: src1_type == GGML_TYPE_F32",
            ],
            "dispatch_failure",
            "execute",
        ),
        (
            ["/src/ggml/src/ggml-cuda/mmv.cu:156: GGML_ASSERT(src1->type == GGML_TYPE_F32) failed"],
            "dispatch_failure",
            "unknown",
        ),
        (
            [
                "[12:31:23] /src/tvm/src/runtime/vulkan/vulkan_buffer.cc:61:",
                "---------------------------------------------------------------",
                "An error occurred during the execution of TVM.",
                "For more information, please see: https://tvm.apache.org/docs/errors.html",
                "---------------------------------------------------------------",
                "  Check failed: (__e == VK_SUCCESS) is false: Vulkan Error, code=-2: "
                "VK_ERROR_OUT_OF_DEVICE_MEMORY",
                "Stack trace not available when DMLC_LOG_STACK_TRACE is disabled at compile time.",
                "",
                "Process finished with exit code 0",
            ],
            "device_oom",
            "unknown",
        ),
        (
            [
                "libc++abi: terminating due to uncaught exception of type std::runtime_error: "
                "Attempting to allocate 35545823296 bytes which is greater than the maximum "
                "allowed buffer size of 8589934592 bytes.",
            ],
            "device_oom",
            "unknown",
        ),
        (
            [
                "libc++abi: terminating due to uncaught exception of type std::runtime_error: "
                "[METAL] Command buffer execution failed: Impacting Interactivity "
                "(0000000e:kIOGPUCommandBufferCallbackErrorImpactingInteractivity)",
            ],
            "timeout",
            "unknown",
        ),
        (
            [
                '  File "/x/megatron/core/transformer/spec_utils.py", line 99, in build_module',
                "    return module(",
                '  File "/x/transformer_engine/pytorch/attention.py", line 3099, in __init__',
                "    assert (",
                "AssertionError: FlashAttention maximum version 2.5.8 is supported.",
            ],
            "env_mismatch",
            "loading",
        ),
        (
            [
                "  0%|          | 0/25 [00:00<?, ?it/s]C:\\x\\triton\\windows_utils.py:315: "
                "UserWarning: Failed to find Python libs.",
                '  warnings.warn("Failed to find Python libs.")',
                "C:/Temp/tmp1/cuda_utils.c:13: error: include file 'Python.h' not found",
            ],
            "env_mismatch",
            "compile",
        ),
        (
            ["!!! Exception during processing !!! headdim should be in [64, 96, 128]."],
            "dispatch_failure",
            "execute",
        ),
        (
            [
                "2026-03-18 17:57:43,066 - utils.client - ERROR - Service did not become healthy "
                "within 1200.0s",
            ],
            "timeout",
            "startup",
        ),
        (
            [
                '[rank0]: File "/x/vllm/worker/hpu_model_runner.py", line 2904, in warmup_model',
                "[rank0]: self.warmup_scenario(batch_size)",
                '[rank0]: File "/x/vllm/worker/hpu_model_runner.py", line 2561, in warmup_scenario',
                "[rank0]: raise NotImplementedError",
                "[rank0]: NotImplementedError",
            ],
            "unknown",
            "warmup",
        ),
        (
            [
                "[INFO] Prompt template: Llama2Chat",
                "[2023-11-14 21:59:22.222] [error] [WASI-NN] GGML backend: Error: unable to init "
                "model.",
            ],
            "unknown",
            "loading",
        ),
    ],
)
def test_round60_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_tensorflow_info_records_flattened_into_one_line_are_no_failure(tmp_path: Path) -> None:
    """Each record of the paste keeps its own level: an INFO record that says "must be at least"
    is no configuration refused."""
    records = [
        "NUMA node, so returning NUMA node zero",  # (the paste starts inside a record)
        "2021-02-19 22:59:40.420862: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1767] "
        "Adding visible gpu devices: 0",
        "2021-02-19 22:59:40.422666: I tensorflow/stream_executor/cuda/cuda_gpu_executor.cc:983] "
        "successful NUMA node read from SysFS had negative value (-1), but there must be at "
        "least one NUMA node, so returning NUMA node zero",
        "2021-02-19 22:59:40.424508: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1325] "
        "Created TensorFlow device (/job:localhost/replica:0/task:0/device:GPU:0)",
    ]
    assert classify_both(tmp_path, [" ".join(records)]) is None
