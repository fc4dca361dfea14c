"""Mechanisms of the seventy-sixth round, tuned on ``fresh316/``, ``fresh318/``, ``fresh320/``,
``fresh322/``, ``fresh324/``, ``fresh326/``, ``fresh328/`` and ``fresh330/`` (measured before
reading with round 75); the odd shards of those two batches and ``fresh332/`` to ``fresh339/``
stay unread.

GPU work beyond language models (media pipelines, miners, OpenCL and ROCm programs, Apple's
frameworks) in the words those programs print. The lines are of our own, in the shapes the tools
print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # a media pipeline set playing, then a kernel launch over the per-block resources
        (
            [
                "** INFO: <bus_callback:180>: Pipeline running",
                "",
                "CUDA failure: too many resources requested for launch in file plugin.cpp at "
                "line 20",
            ],
            "smem_limit",
            "execute",
        ),
        # a program starting on one of its inputs, then torch's allocator
        (
            [
                "Separating track /data/song.mp3",
                "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 8.00 GiB "
                "total capacity; 5.10 GiB already allocated)",
            ],
            "device_oom",
            "execute",
        ),
        # a miner given work (the job's id between), then its allocation failing in words
        (
            [
                "net | pool | New job '00000060efe0c20e', diff=2",
                "Start Mining... ",
                "GPU 1: error when allocating memory or building DAG. Disabling card.",
            ],
            "device_oom",
            "execute",
        ),
        # an OpenCL program build running out of host memory
        (
            ["clBuildProgram(): CL_OUT_OF_HOST_MEMORY"],
            "device_oom",
            "compile",
        ),
        # the driver linking PTX newer than it knows
        (
            ["cuLinkAddData(): the provided PTX was compiled with an unsupported toolchain."],
            "env_mismatch",
            "compile",
        ),
        # an OpenCL object that cannot be made, its status by number in brackets (round 78: a
        # command queue that cannot be made is the device being set up, startup)
        (
            ["[ERROR] Couldn't create OpenCL command queue (error: -6)!"],
            "device_oom",
            "startup",
        ),
        # a container's entry point finding the driver but not CUDA
        (
            [
                "ERROR: The NVIDIA Driver is present, but CUDA failed to initialize.  GPU "
                "functionality will not be available."
            ],
            "env_mismatch",
            "startup",
        ),
        # Vulkan's allocation call failing with a result other than -1 or -2
        (
            ["vkAllocateMemory failed -1000069000"],
            "device_oom",
            "unknown",
        ),
        # the OpenCL C compiler refusing a kernel's source
        (
            [
                "Build log:",
                '<kernel>:12:3: error: conversion to address space "private" is not supported',
            ],
            "dispatch_failure",
            "compile",
        ),
        # an OpenCL program build failing with no compiler cause shown: the JIT-build relay
        (
            [
                "[Fatal] Cannot build GPU program: Build Program Failure",
                "terminate called after throwing an instance of 'std::runtime_error'",
            ],
            "env_mismatch",
            "compile",
        ),
        (
            ["Compilation of OpenCL kernels failed.", "Error: CL_BUILD_PROGRAM_FAILURE"],
            "env_mismatch",
            "compile",
        ),
        # FFmpeg's NVENC wrapper checking the driver's codec API
        (
            [
                "[h264_nvenc @ 0x55d0] Driver does not support the required nvenc API version. "
                "Required: 12.1 Found: 12.0"
            ],
            "env_mismatch",
            "unknown",
        ),
        # the runtime's initialization error after the CUDA source line that checked it
        (
            [
                "  what():  [10:18:55] src/common/common.h:41: src/common/device.cuh: 103: "
                "initialization error"
            ],
            "env_mismatch",
            "startup",
        ),
        # devices of a GPU API the program cannot find
        (
            ["Error: No OpenCL device found"],
            "env_mismatch",
            "startup",
        ),
        (
            ["java.lang.IllegalStateException: Could not find a single GPU to use"],
            "env_mismatch",
            "startup",
        ),
        # a build without what was asked for
        (
            [
                "Unhandled exception. Microsoft.ML.OnnxRuntime.OnnxRuntimeException: "
                "[ErrorCode:Fail] CUDA execution provider is not enabled in this build."
            ],
            "env_mismatch",
            "unknown",
        ),
        # an option unimplemented for a kind of task: a refusal
        (
            [
                "_lib.LibError: options.h:19: Error: change of option loss is unimplemented "
                "for task type GPU"
            ],
            "unsupported_config",
            "unknown",
        ),
        # the collectives set up by a function named for it
        (
            [
                '  File "/env/raft/comms.py", line 484, in _func_init_nccl',
                "    n.init(workers, uid, wid)",
                "RuntimeError: NCCL_ERROR: b'unhandled system error'",
            ],
            "nccl_error",
            "startup",
        ),
        # HIP's string in its own capitals, and the runtime's numbers read by the enum
        (
            ["HIP error: Invalid device function"],
            "dispatch_failure",
            "unknown",
        ),
        (
            ["CUDA error 98 at /src/ggml-cuda.cu:6951"],
            "dispatch_failure",
            "unknown",
        ),
        (
            ["Faiss assertion 'err == cudaSuccess' failed; details: CUDA error 77", "Aborted"],
            "illegal_memory_access",
            "unknown",
        ),
        # ninja's failed edge as newer ninja prints it, a shared object being linked
        (
            ["[2/2] c++ @module_x.so.rsp -shared -o module_x.so", "FAILED: [code=1] module_x.so"],
            "env_mismatch",
            "compile",
        ),
        # MIOpen's run-time kernel build (a relay), and the code-object compiler refusing the
        # GPU's target name (a cause), in MIOpen's records at error level
        (
            ["MIOpen Error: /src/hipoc/hipoc_program.cpp:300: Code object build failed."],
            "env_mismatch",
            "compile",
        ),
        (
            [
                "MIOpen(HIP): Error [SetIsaName] 'amd_comgr_action_info_set_isa_name(handle, "
                "isa)' amdgcn-amd-amdhsa--gfx900:xnack-: INVALID_ARGUMENT (2)",
                "MIOpen Error: /src/hipoc/hipoc_program.cpp:286: Code object build failed.",
            ],
            "dispatch_failure",
            "compile",
        ),
        # SGLang's launcher finding its scheduler's pipe closed
        (
            [
                '  File "/sgl/srt/entrypoints/engine.py", line 1340, in _wait_for_scheduler_ready',
                "    data = readers[i].recv()",
                '  File "/usr/lib/python3.10/multiprocessing/connection.py", line 383, in _recv',
                "    raise EOFError",
                "EOFError",
            ],
            "engine_died",
            "startup",
        ),
        # the GPU runtime that cannot be loaded
        (
            [
                "(EngineCore_DP0 pid=1) ERROR 03-05 12:36:31 [core.py:1006] hip runtime failed "
                "to load."
            ],
            "env_mismatch",
            "unknown",
        ),
        # a progress bar a fault report was printed into
        (
            [
                " 40%|████████Memory access fault by GPU node-2 (Agent handle: 0x5a) on address "
                "0x7098. Reason: Page not present or supervisor privilege.:10:01, 2.02s/it]"
            ],
            "illegal_memory_access",
            "execute",
        ),
        # macOS' loader naming the symbol it could not find
        (
            [
                "OSError: dlopen(/app/lib/x.dylib, 0x0006): Symbol not found: "
                "_OBJC_CLASS_$_MPSGraphX"
            ],
            "env_mismatch",
            "startup",
        ),
        # PyTorch's MPS backend asked for an array over what one may hold
        (
            [
                "/AppleInternal/Library/MPSNDArray.mm:850: failed assertion `[MPSNDArray "
                "initWithDevice:descriptor:] Error: total bytes of NDArray > 2**32'"
            ],
            "device_oom",
            "unknown",
        ),
        # an Apple framework that cannot be loaded
        (
            ["Exception: Unable to load CoreML.framework. Cannot make predictions."],
            "env_mismatch",
            "unknown",
        ),
        # a Go supervisor relaying its child's stream at debug level: the child's words count
        (
            [
                "6:54PM DBG GRPC(m-10.0.0.1:43453): stderr gguf_init_from_file: failed to open "
                "GGUF file '/models/m.gguf'",
                "6:54PM ERR [llama-cpp] Failed loading model, trying with fallback 'cpu'",
            ],
            "unsupported_config",
            "loading",
        ),
        # a package a feature needs, named as such
        (
            ["AssertionError: Ring Attention requires xfuser package."],
            "env_mismatch",
            "unknown",
        ),
        # an image model's work named by its function
        (
            [
                "Traceback (most recent call last):",
                '  File "upscaler.py", line 232, in _upscale_frames',
                "    self.engine.run(frames)",
                "RuntimeError: CUDA error: an illegal memory access was encountered",
            ],
            "illegal_memory_access",
            "execute",
        ),
        # an exception's name cut mid-word at the end of the paste
        (
            [
                "Traceback (most recent call last):",
                '  File "/app/extract.py", line 115, in <module>',
                "    files = process(video)",
                '  File "/app/codec.py", line 39, in __iter__',
                "    for frame in self.reader.read(packet):",
                "Runtime",
            ],
            "unknown",
            "unknown",
        ),
    ],
)
def test_round76_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    "lines",
    [
        # a library saying which backend it uses instead
        [
            "<stdin>:6: UserWarning: Attempting to use hipBLASLt on an unsupported architecture! "
            "Overriding blas backend to hip"
        ],
        # a compiler's warning on a kernel source
        [
            "/home/user/.cache/ggml-cuda.cu:5712:24: warning: loop not unrolled: the optimizer "
            "was unable to perform the requested transformation; an unsupported transformation "
            "ordering [-Wpass-failed=transform-warning]"
        ],
    ],
)
def test_round76_no_failure(tmp_path: Path, lines: list[str]) -> None:
    assert classify_both(tmp_path, lines) is None


def test_round76_a_socket_closed_by_asyncio_tells_no_shutdown(tmp_path: Path) -> None:
    """A call the standard library makes (asyncio shutting a socket down) names no stage of the
    program's, even on Windows, where a conda environment keeps the library in ``lib``."""
    failure = classify_as(
        tmp_path,
        [
            "ERROR | asyncio | Exception in callback _ProactorBasePipeTransport."
            "_call_connection_lost(None)",
            "Traceback (most recent call last):",
            '  File "D:\\app\\env\\lib\\asyncio\\events.py", line 80, in _run',
            "    self._context.run(self._callback, *self._args)",
            '  File "D:\\app\\env\\lib\\asyncio\\proactor_events.py", line 165, in '
            "_call_connection_lost",
            "    self._sock.shutdown(socket.SHUT_RDWR)",
            "ConnectionResetError: [WinError 10054] An existing connection was forcibly closed",
        ],
        "unknown",
        "unknown",
    )
    assert failure.evidence["stage"] == "none"


def test_round76_a_check_of_the_arguments_is_no_training(tmp_path: Path) -> None:
    """A function named for checking what training will be given runs before it."""
    failure = classify_both(
        tmp_path,
        [
            '  File "_lib.pyx", line 1039, in _lib._Base._check_train_params',
            "_lib.LibError: Error: the option is wrong",
        ],
    )
    assert failure is not None
    assert failure.stage != "execute"
