"""Mechanisms of the hundred-and-tenth round, tuned on the read half of the fortieth batch
(expert-parallel communication, Stable Diffusion UIs, quantization toolkits, JAX and PyTorch/XLA).

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # NVSHMEM's source tree under any name, its status naming what failed
        (
            [
                "/build/rel/main_nvshmem/src/modules/transport/ibgda/ibgda.cpp:100: NULL value "
                "Unable to create qp."
            ],
            "nccl_error",
            "unknown",
        ),
        # nvshmem4py's exception classes
        (
            ["nvshmem.core.nvshmem_types.NvshmemError: collective launch failed on team 0"],
            "nccl_error",
            "unknown",
        ),
        # a compiled extension's operator called with another release's arguments
        (
            [
                "RuntimeError: _C::rms_norm() expected at most 4 argument(s) but received 5 "
                "argument(s). Declaration: _C::rms_norm(Tensor($0! -> ) result, Tensor input)"
            ],
            "env_mismatch",
            "unknown",
        ),
        (
            [
                "RuntimeError: _rocm_C::paged_attention() is missing value for argument "
                "'scale'. Declaration: _rocm_C::paged_attention(Tensor out, float scale)"
            ],
            "env_mismatch",
            "unknown",
        ),
        # a library built for another CPU, in macOS' and glibc's loader words
        (
            [
                "OSError: dlopen(/opt/app/lib/libx.dylib, 0x0006): tried: '/opt/app/lib/libx."
                "dylib' (mach-o file, but is an incompatible architecture (have 'arm64', need "
                "'x86_64'))"
            ],
            "env_mismatch",
            "startup",
        ),
        (
            ["ImportError: /opt/app/lib/libx.so: wrong ELF class: ELFCLASS32"],
            "env_mismatch",
            "startup",
        ),
        # XLA unable to start ptxas on the kernels it generated
        (
            [
                "2026-01-01 00:00:00.000000: W external/xla/stream_executor/gpu/asm_compiler.cc:"
                "1] Couldn't get ptxas version",
                "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to launch ptxas",
            ],
            "env_mismatch",
            "compile",
        ),
        # a torch operator missing for a device type (older torch's "not current implemented")
        (
            [
                "NotImplementedError: The operator 'aten::nonzero' is not currently implemented "
                "for the XPU device."
            ],
            "dispatch_failure",
            "unknown",
        ),
        (
            [
                "NotImplementedError: The operator 'aten::cumsum.out' is not current implemented "
                "for the MPS device."
            ],
            "dispatch_failure",
            "unknown",
        ),
        # TensorFlow's placer with no GPU in the process, found when the graph runs
        (
            [
                "tensorflow.python.framework.errors_impl.InvalidArgumentError: Cannot assign a "
                "device for operation MatMul: node MatMul was explicitly assigned to "
                "/job:localhost/replica:0/task:0/device:GPU:0 but available devices are [ "
                "/job:localhost/replica:0/task:0/device:CPU:0 ]."
            ],
            "env_mismatch",
            "unknown",
        ),
        # a setting of a named system missing
        (
            ["RuntimeError: runtime/computation_client.cc:10 : Missing TPU configuration"],
            "unsupported_config",
            "unknown",
        ),
        # a library built without the GPU, saying so as it is imported
        (
            [
                "UserWarning: The installed version of bitsandbytes was compiled without GPU "
                "support. 8-bit optimizers and GPU quantization are unavailable."
            ],
            "env_mismatch",
            "startup",
        ),
    ],
)
def test_round110_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_an_operator_registered_from_python_is_a_programs_call(tmp_path: Path) -> None:
    """Only a compiled extension (``*_C``) gets the other-release reading: a Python-registered
    operator called with the wrong arguments is a program's error, as round 42 reads Python's own
    ``got an unexpected keyword argument``."""
    classify_as(
        tmp_path,
        [
            "RuntimeError: my_ops::all_gather() expected at most 3 argument(s) but received 5 "
            "argument(s). Declaration: my_ops::all_gather(Tensor t, int dim, int[] sizes)"
        ],
        "unknown",
        "unknown",
    )


def test_torchs_view_error_is_a_programs_bug(tmp_path: Path) -> None:
    """``view size is not compatible with input tensor's size and stride`` is no refused
    setting, while other settings that cannot go together still are."""
    classify_as(
        tmp_path,
        [
            "RuntimeError: view size is not compatible with input tensor's size and stride (at "
            "least one dimension spans across two contiguous subspaces). Use .reshape(...)."
        ],
        "unknown",
        "unknown",
    )
    classify_as(
        tmp_path,
        ["ValueError: quantization is not compatible with offloading"],
        "unsupported_config",
        "unknown",
    )


def test_nvshmems_ib_device_probe_is_no_failure(tmp_path: Path) -> None:
    """NVSHMEM's InfiniBand transport finding no devices on a host without them goes on over its
    other transports."""
    lines = [
        "[Rank 0] symmetric tensor of 16 bytes",
        "/build/rel/main_nvshmem/src/modules/transport/ibrc/ibrc.cpp:1653: NULL value "
        "get_device_list failed ",
        "[Rank 0] all-to-all done in 0.12 ms",
    ]
    assert classify_both(tmp_path, lines) is None
