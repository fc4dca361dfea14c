"""Mechanisms of the forty-fourth round (tuned on the whole corpus, no batch left unseen): what
tells a compilation. XLA handing its PTX to the driver, ptxas naming the PTX line it stopped
at, an MLIR diagnostic at a kernel's Python source, TensorRT's builder timing its kernels,
Megatron compiling its fused kernels, a package build (pip's setup.py, cargo's build script);
and warm-up and KV-cache activity: Triton server's warm-up samples, the autotuners of FlashInfer
and TensorRT-LLM, mistral.rs allocating its PagedAttention KV cache; vLLM repacking quantized
weights for Marlin and TensorRT creating the execution context of an engine it read back
(loading), vLLM V1 preparing a scheduled batch's inputs (execute).
The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        (
            [
                "E external/xla/xla/stream_executor/cuda/cuda_driver.cc:864] failed to load PTX "
                "text as a module: CUDA_ERROR_INVALID_IMAGE: device kernel image is invalid"
            ],
            "unknown",
            "compile",
        ),
        (
            [
                "ptxas /tmp/triton_k_abc, line 5; fatal   : Unsupported .version 7.3; current "
                "version is '7.2'",
            ],
            "env_mismatch",
            "compile",
        ),
        (
            [
                "fla/ops/chunk.py:208:39: error: operand #2 does not dominate this use",
                "        b_dk += tl.dot(tl.trans(b_dA), b_kb)",
            ],
            "unknown",
            "compile",
        ),
        (
            [
                "[TRT] --------------- Timing Runner: conv1 + relu1 (CaskConvolution)",
                "[TRT] Tactic: 6 time 0.039936",
                "[TRT] ERROR: Unsupported SM.",
            ],
            "dispatch_failure",
            "compile",
        ),
        (
            [
                "> compiling and loading fused kernels ...",
                "[rank1]:[E829 16:32:30.656 ProcessGroupNCCL.cpp:607] [Rank 1] Watchdog caught "
                "collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE)",
            ],
            "nccl_error",
            "compile",
        ),
        (
            [
                "error: failed to run custom build command for `quant-kernels v0.3.1`",
                "Caused by:",
                "  process didn't exit successfully (exit status: 101)",
            ],
            "env_mismatch",
            "compile",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "<string>", line 2, in <module>',
                '  File "<pip-setuptools-caller>", line 34, in <module>',
                '  File "/src/kernels/setup.py", line 42, in <module>',
                '    raise RuntimeError("kernels require sm75+")',
                "RuntimeError: kernels require sm75+",
            ],
            "dispatch_failure",
            "compile",
        ),
        (
            [
                "I0704 16:36:13.19 4416 backend_model_instance.cc:608] \"model 'm' instance m_0_0 "
                "is running warmup sample 'first-batch' for iteration 1\"",
                "TimeoutError: timed out",
            ],
            "timeout",
            "warmup",
        ),
        (
            [
                "[TRT-LLM] [RANK 0] [I] [Autotuner]: Autotuning process ends",
                "[TRT-LLM] [RANK 0] [E] Failed to initialize executor on rank 0: [TensorRT-LLM]"
                "[ERROR] Assertion failed: Error occurred when running GEMM!",
            ],
            "unknown",
            "warmup",
        ),
        (
            [
                "INFO mistralrs_core::paged_attention: Allocating 6855 MB for PagedAttention KV "
                "cache per GPU",
                "Error: internal error 'F8E4M3 not supported in CUDA backend'",
            ],
            "dispatch_failure",
            "kv_alloc",
        ),
        (
            [
                "(EngineCore pid=7) ERROR 05-05 07:35:19 [core.py:1] Traceback (most recent call "
                "last):",
                '(EngineCore pid=7) ERROR 05-05 07:35:19 [core.py:1]   File "/srv/vllm/_custom_ops'
                '.py", line 900, in transform',
                "(EngineCore pid=7) ERROR 05-05 07:35:19 [core.py:1]     return "
                "torch.ops._C.gptq_marlin_repack(",
                "(EngineCore pid=7) ERROR 05-05 07:35:19 [core.py:1] RuntimeError: CUDA driver "
                "error: out of memory",
            ],
            "device_oom",
            "loading",
        ),
        (
            [
                "[TensorRT-LLM][ERROR] ICudaEngine::createExecutionContextWithoutDeviceMemory: "
                "Error Code 1: Cuda Runtime (an illegal memory access was encountered)"
            ],
            "illegal_memory_access",
            "loading",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "/srv/vllm/v1/worker/gpu_model_runner.py", line 3777, in '
                "synchronize_input_prep",
                "    self.prepare_inputs_event.synchronize()",
                "torch.AcceleratorError: CUDA error: an illegal memory access was encountered",
            ],
            "illegal_memory_access",
            "execute",
        ),
    ],
)
def test_round44_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)
