"""Mechanisms of the twenty-sixth round (tuned on fresh72-fresh75): the kernel's log of a
crashed process, Ray's exception wrappers, more shapes of an error line, a rank's record glued
to the line before, cuDNN's plan warnings, the driver's and .NET's names for a kernel fault,
Caffe's weights, llama.cpp's KV slots, cuBLAS' own words, a run-time compiler that failed, a
message continued below its colon, and what a program says it is doing (weights loaded, a
simulation started, a training loss). The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # the kernel's log of a process it killed (syslog, dmesg)
        (
            [
                "Jan  1 10:00:00 host kernel: [123.456] server[4242]: segfault at 0 ip "
                "00007f00aa00bb00 sp 00007ffc11223340 error 4 in libcuda.so.1[7f00aa000000+100000]"
            ],
            "engine_died",
            "unknown",
        ),
        (
            ["[99.1] traps: python3[777] general protection fault ip:7f01 sp:7ffd error:0"],
            "engine_died",
            "unknown",
        ),
        # Ray's wrapper naming the exception it carries; a timeout among them
        (
            ["ray.exceptions.RayTaskError(TimeoutError): ray::Actor.step() (pid=1, ip=x)"],
            "timeout",
            "unknown",
        ),
        (["ray.exceptions.RayTaskError(KeyError): ray::Actor.step()"], "unknown", "unknown"),
        # more shapes of an error line: a quoted flag before the colon (and a parser refusing
        # it, at start-up); an exception told with where it happened; an error and its call
        (
            ['error while handling argument "--kv-type": Unsupported cache type: q2'],
            "unsupported_config",
            "startup",
        ),
        (
            ["Exception in worker loop: Out of memory allocating 1,024 bytes"],
            "device_oom",
            "unknown",
        ),
        (
            ["Error while calling cudaMalloc(&p, n) in file buf.cpp:9. reason: out of memory"],
            "device_oom",
            "unknown",
        ),
        # the driver API's own description of a kernel fault, and its name in .NET bindings
        (
            [
                "GPU 0: fatal: While executing a kernel, the device encountered a load or store "
                "instruction on an invalid memory address."
            ],
            "illegal_memory_access",
            "unknown",
        ),
        (["Worker stopped: ErrorIllegalAddress"], "illegal_memory_access", "unknown"),
        # an error numbered 700 with the CUDA code it came from named after it
        (
            ["Exception: Error synchronizing: error code (700) in platforms/cuda/src/sync.cpp"],
            "illegal_memory_access",
            "unknown",
        ),
        # Caffe's weights that cannot be parsed: a model file rejected while it is read
        (
            [
                "F0101 net.cpp:1] Check failed: ReadProtoFromBinaryFile(f, p) Failed to parse "
                "NetParameter file: model.caffemodel"
            ],
            "unsupported_config",
            "loading",
        ),
        # llama.cpp's newer words for a KV cache with no slot for the batch
        (
            ["RuntimeError: llama_decode failed (code 1): No KV slot available"],
            "kv_cache_oom",
            "execute",
        ),
        # cuBLAS' own string for CUBLAS_STATUS_NOT_SUPPORTED
        (
            ["CUDA error: the requested functionality is not supported", "  in mul_mat_cublas"],
            "dispatch_failure",
            "unknown",
        ),
        # a compiler run by the program failed: the compiler's own error below is the cause;
        # the compiler not found at all (exit 127 in a raw wait status) is a missing tool
        (
            [
                "Exception: Error launching CUDA compiler: 256",
                "nvcc fatal   : Value 'sm_61' is not defined for option 'gpu-architecture'",
            ],
            "dispatch_failure",
            "compile",
        ),
        (["Exception: Error launching CUDA compiler: 32512"], "env_mismatch", "compile"),
        # a C++ exception's message continued on the line below its colon
        (
            [
                "terminate called after throwing an instance of 'gpu::error'",
                "  what():  /src/pool/SimpleMalloc.hpp(42):",
                "error: out of memory",
            ],
            "device_oom",
            "unknown",
        ),
        # a handle the library could not create, in lower case
        (
            ["RuntimeError: could not create cuDNN handle: CUDNN_STATUS_INTERNAL_ERROR"],
            "env_mismatch",
            "unknown",
        ),
        # a compiler's error happened while it compiled a node of the graph
        (
            ["RuntimeError: ('The following error happened while compiling the node', Conv)"],
            "unknown",
            "compile",
        ),
        # JAX's barrier of the tasks registering with the coordination service
        (
            ["DEADLINE_EXCEEDED: Barrier timed out. Id: [Init]Wait_for_all_tasks_to_register::0"],
            "timeout",
            "startup",
        ),
        # what the program said it did before the error
        (
            ["Loading weights from yolo.weights...Done!", "Killed"],
            "engine_died",
            "profile",
        ),
        (["Loading weights from yolo.weights...", "Killed"], "engine_died", "loading"),
        (
            ["Start simulation", "Memory access fault by GPU node-1 on address 0x7f00."],
            "illegal_memory_access",
            "execute",
        ),
        (
            [
                "Loss/train_mse: 0.4210 (0.4400) | Grad/encoder: 1.02",
                "HW Exception by GPU node-2 (Agent handle: 0x1) reason :GPU Hang",
            ],
            "timeout",
            "execute",
        ),
        # the plain-worded last line of an excerpt keeps what ran before it
        (
            [
                "step 3   learning rate: 0.01   average loss: 0.25",
                "buffer growth stopped: not enough memory on device 0",
            ],
            "device_oom",
            "execute",
        ),
    ],
)
def test_round26_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_a_rank_record_glued_to_the_line_before_keeps_its_level(tmp_path: Path) -> None:
    # the autotuner's warning about a configuration it drops, pasted on the line of its table
    line = (
        "AUTOTUNE benchmarking takes 1.2 seconds. [rank1]:W0101 10:00:00.000000 1 "
        "torch/_inductor/select_algorithm.py:1] out of resource: shared memory, Required: "
        "122880, Hardware limit: 101376."
    )
    assert classify_both(tmp_path, [line, "step 2 done"]) is None


def test_cudnn_trying_its_next_plan_is_no_failure(tmp_path: Path) -> None:
    lines = [
        "/env/torch/nn/modules/conv.py:306: UserWarning: Plan failed with a cudnnException: "
        "CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR: cudnnFinalize Descriptor Failed "
        "cudnn_status: CUDNN_STATUS_NOT_SUPPORTED (Triggered internally at Conv_v8.cpp:919.)",
        "  return F.conv1d(input, weight, bias)",
        " 40%|####      | 40/100 [00:02<00:03, 19.1it/s]",
    ]
    assert classify_both(tmp_path, lines) is None
