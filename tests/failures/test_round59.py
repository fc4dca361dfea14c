"""Mechanisms of the fifty-ninth round, tuned on ``fresh198/`` to ``fresh205/``.

Categories: an NVIDIA container's entry point refusing the host's driver (``This container was
built for NVIDIA Driver Release ... or later``, at ``startup``); Triton's model repository
refusing a model directory (``Poll failed for model directory``, ``unsupported_config`` at
``loading``); argparse refusing an option named by all its flags or a positional argument; an
engine built for another world size; ONNX Runtime's message on the line after the C++ signature
that threw; Cosmopolitan's ``Uncaught SIGSEGV``; Metal's threadgroup memory (shared memory);
DirectML's ``not enough GPU video memory``; ONNX Runtime's ``Status Message: std::bad_alloc``;
the host kernel's own oops (``unknown``, never no failure).
Stages: a CUDA sample counting the devices (``cudaGetDeviceCount returned 35``, ``startup``);
stable-diffusion.cpp generating an image behind its logger's source location, and a model load
it reports as completed is over; a scheduler's ``Prefill failed for <request>``; a batch of
inputs being processed; DeepSpeed's step report.
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
                "== Inference Server ==",
                "ERROR: This container was built for NVIDIA Driver Release 530.30 or later, but",
                "       version 470.82.01 was detected and compatibility mode is UNAVAILABLE.",
            ],
            "env_mismatch",
            "startup",
        ),
        (
            [
                "I1102 08:26:22.860896 1349 server.cc:120] Initializing server",
                "E1102 08:26:22.860896 1349 model_repository_manager.cc:1307] Poll failed for "
                "model directory 'mymodel': failed to open text file for read "
                "/models/mymodel/config.pbtxt: No such file or directory",
            ],
            "unsupported_config",
            "loading",
        ),
        (
            [
                "usage: tool [-h] {serve,chat,list}",
                "tool: error: argument command: invalid choice: 'serv' (choose from 'serve', "
                "'chat', 'list')",
            ],
            "unsupported_config",
            "startup",
        ),
        (
            [
                '  File "/app/runtime/model_runner.py", line 12, in read_config',
                "    assert world == expected",
                "AssertionError: Engine world size (4 * 1) != Runtime world size (2)",
            ],
            "unsupported_config",
            "unknown",
        ),
        (
            [
                "UNAVAILABLE: Internal: onnx runtime error 6: Exception during initialization: "
                "/src/onnxruntime/core/framework/bfc_arena.cc:368 void* "
                "onnxruntime::BFCArena::AllocateRawInternal(size_t, bool)",
                "Failed to allocate memory for requested buffer of size 268435456",
            ],
            "device_oom",
            "loading",
        ),
        # (round 78: a program announcing a part it sets up is start-up activity, as the label
        # of fresh203/'s log reads it)
        (
            [
                "initializing gpu module...",
                "library not found: failed to load library",
                "GPU support successfully linked and loaded",
                "error: Uncaught SIGSEGV (SEGV_MAPERR) at 0x7ffc1766660d on host pid 19752",
            ],
            "engine_died",
            "startup",
        ),
        (
            [
                "2026-07-10 15:03:18,704 - server.scheduler - ERROR - Prefill failed for "
                "req-42: [metal::Device] Unable to load kernel my_kernel",
                "Threadgroup memory size (40192) exceeds the maximum threadgroup memory allowed "
                "(32768)",
            ],
            "smem_limit",
            "execute",
        ),
        (
            [
                "Error occurred when executing KSampler:",
                "",
                "Could not allocate tensor with 52428800 bytes. There is not enough GPU video "
                "memory available!",
            ],
            "device_oom",
            "execute",
        ),
        (
            [
                "[E:onnxruntime:, sequential_executor.cc:494 ExecuteKernel] Non-zero status code "
                "returned while running Add node. Name:'/enc/Add' Status Message: std::bad_alloc",
            ],
            "device_oom",
            "execute",
        ),
        (
            [
                "Apr 28 10:17:39 host kernel: BUG: kernel NULL pointer dereference, address: "
                "0000000000000030",
                "Apr 28 10:17:39 host kernel: RIP: 0010:some_driver_fn+0x1b/0x350 [nvidia]",
            ],
            "unknown",
            "unknown",
        ),
        (
            [
                "./deviceQuery Starting...",
                "cudaGetDeviceCount returned 35",
                "-> CUDA driver version is insufficient for CUDA runtime version",
                "Result = FAIL",
            ],
            "env_mismatch",
            "startup",
        ),
        (
            [
                "[INFO ] stable-diffusion.cpp:520  - loading model from 'x.safetensors' "
                "completed, taking 8.40s",
                "[INFO ] stable-diffusion.cpp:1391 - sampling using Euler A method",
                "[INFO ] stable-diffusion.cpp:1428 - generating image: 1/1 - seed 42",
                "libc++abi: terminating due to uncaught exception of type vk::DeviceLostError: "
                "vk::Device::waitForFences: ErrorDeviceLost",
            ],
            "unknown",
            "execute",
        ),
        (
            [
                "[DEBUG] Processing GPU batch 1 of expected 1",
                "terminate called after throwing an instance of 'std::runtime_error'",
                "  what():  CUDA failed with error an illegal memory access was encountered",
            ],
            "illegal_memory_access",
            "execute",
        ),
        (
            [
                "[INFO] [logging.py:68:log_dist] [Rank 0] step=800, skipped=0, lr=[0.0003]",
                "[host:2121 :0:7025] Caught signal 7 (Bus error: nonexistent physical address)",
            ],
            "engine_died",
            "execute",
        ),
    ],
)
def test_round59_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_a_model_load_in_progress_is_still_loading(tmp_path: Path) -> None:
    """Only a load the program reports as completed is over: one under way is the activity."""
    lines = [
        "[INFO ] stable-diffusion.cpp:480  - loading model from 'x.safetensors'",
        "CUDA error: out of memory",
    ]
    classify_as(tmp_path, lines, "device_oom", "loading")
