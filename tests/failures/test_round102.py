"""Mechanisms of the hundred-and-second round, tuned on the read half of the thirty-third batch
(TensorRT-LLM builds, Intel GPUs and Gaudi, SGLang's serving features, custom CUDA extensions).

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_mid_log


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # an Intel GPU build of torch that finds no device, and a build without the backend
        # (set-up since round 103, as torch's "No CUDA GPUs are available" is)
        (["RuntimeError: No XPU devices are available."], "env_mismatch", "startup"),
        (
            ["RuntimeError: PyTorch is not linked with support for xpu devices"],
            "env_mismatch",
            "unknown",
        ),
        # a process group without a backend for the device a collective is given
        (
            ["RuntimeError: No backend type associated with device type xpu"],
            "dispatch_failure",
            "unknown",
        ),
        # TensorRT's plan of another version, its message cut after "compatible"
        (
            ["[05/02/2024-10:01:02] [TRT] [E] 6: The engine plan file is not compatible"],
            "env_mismatch",
            "loading",
        ),
        # (a plan built on another GPU stays a missing kernel)
        (
            [
                "[TRT] [E] 6: The engine plan file is generated on an incompatible device, "
                "expecting compute 8.9 got compute 8.6, please rebuild."
            ],
            "dispatch_failure",
            "loading",
        ),
        # oneDNN finding no implementation of a primitive for these inputs
        (
            [
                "RuntimeError: could not create a primitive descriptor for a deconvolution "
                "forward propagation primitive"
            ],
            "dispatch_failure",
            "unknown",
        ),
        # OpenVINO's GPU plugin out of device resources
        (
            [
                "Exception from src/plugins/intel_gpu/src/runtime/ocl/ocl_engine.cpp:190:",
                "[GPU] out of GPU resources",
            ],
            "device_oom",
            "unknown",
        ),
        # Ascend's and Habana's collective library, NCCL's counterpart, named in an error
        (
            ["RuntimeError: HCCL function error: HcclAllReduce(...), error code is 11"],
            "nccl_error",
            "unknown",
        ),
        # DeepSpeed's op builder without a CUDA toolkit
        (
            [
                "deepspeed.ops.op_builder.builder.MissingCUDAException: CUDA_HOME does not "
                "exist, unable to compile CUDA op(s)"
            ],
            "env_mismatch",
            "compile",
        ),
    ],
)
def test_round102_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    ("line", "category"),
    [
        ("RuntimeError: No XPU devices are available.", "env_mismatch"),
        ("RuntimeError: No backend type associated with device type hpu", "dispatch_failure"),
        ("[TRT] [E] 6: The engine plan file is not compatible", "env_mismatch"),
        ("RuntimeError: could not create a primitive descriptor for an LSTM", "dispatch_failure"),
        ("RuntimeError: [GPU] out of GPU resources", "device_oom"),
    ],
)
def test_a_round102_line_is_found_mid_log(tmp_path: Path, line: str, category: str) -> None:
    classify_mid_log(tmp_path, line, category)
