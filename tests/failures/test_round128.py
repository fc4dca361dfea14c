"""Mechanisms of the hundred-and-twenty-eighth round, tuned on the other half of the
fifty-third batch (computer vision with OpenCV's CUDA modules, CUDA on other hardware and
translation layers, gradient boosting on GPUs, state-space and linear-attention models).

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # OpenCV's error names the function it was raised in: read like a frame
        (
            [
                "/src/opencv/modules/core/src/cuda_info.cpp:74: error: (-217:Gpu API call) out of "
                "memory in function 'setDevice'"
            ],
            "device_oom",
            "startup",
        ),
        (
            [
                "OpenCV Error: No GPU support (The library is compiled without CUDA support) in "
                "setDevice, file /src/opencv2/dynamicuda.hpp, line 84"
            ],
            "env_mismatch",
            "startup",
        ),
        # OpenCV's CUDA stub with the function's name quoted
        (
            [
                "  what():  OpenCV(4.8.0) /src/private.cuda.hpp:112: error: (-213:The "
                "function/feature is not implemented) The called functionality is disabled for "
                "current build or platform in function 'throw_no_cuda'"
            ],
            "env_mismatch",
            "unknown",
        ),
        # a build without kernels for the selected device, in OpenCV's words
        (
            [
                "error: (-216:No CUDA support) OpenCV was not built to work with the selected "
                "device. Please check CUDA_ARCH_PTX or CUDA_ARCH_BIN in your build configuration."
            ],
            "dispatch_failure",
            "unknown",
        ),
        # a module built without the GPU backend, as the log's last word (a warning)
        (
            [
                "[ WARN:0@3.210] global net_impl.cpp (179) setUpNet DNN module was not built "
                "with CUDA backend; switching to CPU"
            ],
            "env_mismatch",
            "unknown",
        ),
        # dash's words for a program it cannot find
        (["sh: 1: /opt/cuda/bin/nvcc: not found"], "env_mismatch", "unknown"),
        # clang's words for a backend without an instruction for an intrinsic
        (
            ["fatal error: error in backend: Cannot select: intrinsic %llvm.nvvm.match.any.sync"],
            "dispatch_failure",
            "compile",
        ),
        # Numba's report of CUDA's init call that failed
        (
            [
                "numba.cuda.cudadrv.driver.CudaAPIError: [999] Call to cuInit results in "
                "CUDA_ERROR_UNKNOWN"
            ],
            "env_mismatch",
            "startup",
        ),
        # a device or a feature the installed build does not have
        (["xgbError: GPU Devices not found."], "env_mismatch", "unknown"),
        (
            ["LightGBMError: CUDA Tree Learner was not enabled in this build."],
            "env_mismatch",
            "unknown",
        ),
        # a header's check of the language standard the compiler was run with
        (
            [
                "/env/include/c10/util/C++17.h:13:2: error: #error \"You're trying to build "
                'PyTorch with a too old version of GCC. We need GCC 9 or later."',
                '/env/include/c10/util/variant.h:243:2: error: #error "MPark.Variant requires '
                'C++11 support."',
            ],
            "env_mismatch",
            "compile",
        ),
    ],
)
def test_round128_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_round128_a_finished_load_ends_the_loading_activity(tmp_path: Path) -> None:
    lines = [
        "[Trainer] [Info] Loading weights...",
        "[Trainer] [Info] Finished loading data in 0.05 seconds",
        "[Trainer] [Info] Number of data: 7000",
        "Unknown OpenCL Error (221)",
    ]
    assert classify_as(tmp_path, lines, "unknown", "unknown").evidence["stage"] == "none"


@pytest.mark.parametrize(
    "lines",
    [
        # the same warning in a run that goes on, on the CPU
        [
            "[ WARN:0@3.210] global net_impl.cpp (179) setUpNet DNN module was not built with "
            "CUDA backend; switching to CPU",
            "[ INFO:0@3.300] frame 1 done",
            "frame 2 done",
        ],
    ],
)
def test_round128_quiet_lines(tmp_path: Path, lines: list[str]) -> None:
    assert classify_both(tmp_path, lines) is None
