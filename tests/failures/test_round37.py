"""Mechanisms of the thirty-seventh round (tuned on fresh118-fresh121 and the whole corpus): HIP's
per-thread device-side assertion, a camelCase engine function (cupy's ``setDevice``), a CUDA
mismatch a library says it tolerates, Inductor's Triton resource check with its figures cut
off, and c10d's backend error named only by a wrapper. The lines are of our own, in the shapes
the tools print.
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
                "/src/aten/native/hip/Indexing.hip:1292: indexSelectLargeIndex: Device-side "
                "assertion `srcIndex < srcSelectDimSize' failed.",
            ],
            "illegal_memory_access",
            "unknown",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "train.py", line 9, in <module>',
                "    cupy.cuda.Device(0).use()",
                '  File "cupy/cuda/device.pyx", line 180, in cupy.cuda.device.Device.use',
                '  File "cupy_backends/cuda/api/runtime.pyx", line 360, in '
                "cupy_backends.cuda.api.runtime.setDevice",
                "cupy_backends.cuda.api.runtime.CUDARuntimeError: cudaErrorInsufficientDriver: "
                "CUDA driver version is insufficient for CUDA runtime version",
            ],
            "env_mismatch",
            "startup",
        ),
        (["OutOfMemoryError: out of resource: triton_red_fused_sum_3"], "smem_limit", "unknown"),
        (
            [
                "ray.exceptions.RayTaskError(DistBackendError): ray::Worker.execute_method() "
                "(pid=17, ip=10.0.0.1)",
            ],
            "nccl_error",
            "unknown",
        ),
    ],
)
def test_round37_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_a_tolerated_cuda_mismatch_is_no_failure(tmp_path: Path) -> None:
    lines = [
        "Installed CUDA version 12.1 does not match the version torch was compiled with 12.4 "
        "but since the APIs are compatible, accepting this combination",
        "Loading extension module fused_adam...",
        "Time to load fused_adam op: 0.1 seconds",
    ]
    assert classify_both(tmp_path, lines) is None
