"""Mechanisms of the hundredth round, tuned on the read half of the thirty-first batch (vLLM on
datacenter GPUs, diffusion training, PaddlePaddle and MindSpore, CUDA installs and containers).

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_mid_log

_PADDLE_CC = (
    "W0626 11:47:59.277873 31136 gpu_resources.cc:106] The GPU compute capability in your "
    "current machine is 120, which is not supported by Paddle, it is recommended to install the "
    "corresponding wheel package"
)


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # bitsandbytes' "no kernel image" cut before "on the device"
        (["Error no kernel image is available for execution"], "dispatch_failure", "unknown"),
        # the host's shared memory (/dev/shm) is no kernel's: a DataLoader worker's death
        (
            [
                "ERROR: Unexpected bus error encountered in worker. This might be caused by "
                "insufficient shared memory (shm).",
                "RuntimeError: DataLoader worker (pid 325) is killed by signal: Bus error.",
            ],
            "engine_died",
            "unknown",
        ),
        # (a kernel's shared memory stays smem_limit)
        (
            ["RuntimeError: insufficient shared memory for the kernel: 120 KB needed"],
            "smem_limit",
            "unknown",
        ),
        # the CUDA toolkit's check of the host compiler
        (
            [
                "/usr/include/crt/host_config.h:121:2: error: #error -- unsupported GNU version! "
                "gcc versions later than 6 are not supported!"
            ],
            "env_mismatch",
            "compile",
        ),
        # a container runtime's program that is not installed, in Go's words
        (
            [
                "docker: Error response from daemon: OCI runtime create failed: fork/exec "
                "/usr/bin/nvidia-container-runtime: no such file or directory: unknown."
            ],
            "env_mismatch",
            "startup",
        ),
        # a build without the backend asked for
        (
            [
                "[ERROR] fastdeploy/runtime/runtime_option.cc(168)::UseTrtBackend\tThe FastDeploy "
                "didn't compile with TrtBackend."
            ],
            "env_mismatch",
            "unknown",
        ),
        # PaddlePaddle's enforce inside a kernel
        (
            [
                "Error: /paddle/phi/kernels/gpu/bce_loss_kernel.cu:42 Assertion `(x >= 0)` "
                "failed. Input is expected to be within the interval [0, 1], but received nan."
            ],
            "illegal_memory_access",
            "unknown",
        ),
        # PaddlePaddle's capability check, a precursor at start-up like torch's
        ([_PADDLE_CC, "PaddlePaddle works well on 1 GPU."], "env_mismatch", "startup"),
        # an epoch header with a colon is the training loop
        (
            [
                "Epoch: 0",
                "Could not load library libcudnn_cnn_infer.so.8. Error: libcuda.so: cannot open "
                "shared object file: No such file or directory",
                "Aborted",
            ],
            "env_mismatch",
            "execute",
        ),
        # a program's word that TensorRT's ONNX parser refused the model, then glibc's abort in
        # Chinese: the abort is the error's own doing
        (
            [
                "[ERROR] fastdeploy/backends/tensorrt/trt_backend.cc(573)::CreateTrtEngineFromOnnx"
                "\tFailed to parse ONNX model by TensorRT.",
                "已放弃 (核心已转储)",
            ],
            "unsupported_config",
            "compile",
        ),
        # (an error no rule knows, then a segmentation fault in Chinese: still that error)
        (["Failed to create encoder: no session", "段错误 (核心已转储)"], "unknown", "unknown"),
    ],
)
def test_round100_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    ("line", "category"),
    [
        (
            "/usr/include/crt/host_config.h:121:2: error: #error -- unsupported GNU version!",
            "env_mismatch",
        ),
        ("fork/exec /usr/bin/nvidia-container-runtime: no such file or directory", "env_mismatch"),
        (_PADDLE_CC, "env_mismatch"),
        ("Failed to parse ONNX model by TensorRT.", "unsupported_config"),
    ],
)
def test_a_round100_line_is_found_mid_log(tmp_path: Path, line: str, category: str) -> None:
    classify_mid_log(tmp_path, line, category)
