"""Mechanisms of the fifty-fifth round, tuned on ``fresh190/`` to ``fresh193/``.

Categories: an accelerator's allocator with no room for a buffer (Tenstorrent's ``Not enough
space to allocate ... B DRAM buffer``: ``device_oom``); the amdgpu driver's GPU page fault
(``illegal_memory_access``); Windows' Application Error event for a crashed process
(``ExceptionCode c0000005``: ``engine_died``); libc++'s uncaught exception, its message on the
line (``unknown``); XLA's fatal status check behind a TensorFlow-style prefix is read.
Stages: NCCL's duplicate-GPU check (``startup``: it runs as a communicator is set up); TRL's
GRPO batch-size check (``startup``); torch.load deserialising onto a device (``loading``);
ggml's Vulkan device report (``startup``).
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
                "RuntimeError: TT_FATAL @ /tt-metal/tt_metal/impl/allocator/bank_manager.cpp:433: "
                "address.has_value()",
                "2025-10-01 22:09:37.644 | critical |          Always | Out of Memory: Not "
                "enough space to allocate 499122176 B DRAM buffer across 12 banks, where each "
                "bank needs to store 41594240 B",
            ],
            "device_oom",
            "unknown",
        ),
        (
            [
                "[Tue Sep  9 02:30:28 2025] amdgpu 0000:a6:00.0: amdgpu:   cookie node_id 5 fault "
                "from die AID1.XCD0",
                "[Tue Sep  9 02:30:28 2025] amdgpu 0000:a6:00.0: amdgpu: VM_L2_PROTECTION_FAULT_"
                "STATUS:0x00341051",
            ],
            "illegal_memory_access",
            "unknown",
        ),
        (
            [
                "   [ Name]  Application Error ",
                "   EventID 1000 ",
                "  AppName python.exe ",
                "  ModuleName c10.dll ",
                "  ExceptionCode c0000005 ",
                "  FaultingOffset 000000000006ce14 ",
            ],
            "engine_died",
            "unknown",
        ),
        (
            [
                "ggml_vulkan: Found 1 Vulkan devices:",
                "Vulkan0: Adreno (TM) 690 (Qualcomm Technologies Inc. Adreno Vulkan Driver) | "
                "uma: 1 | fp16: 1 | warp size: 64",
                "libc++abi: terminating due to uncaught exception of type vk::UnknownError: "
                "vk::Device::createComputePipeline: ErrorUnknown",
                "Aborted",
            ],
            "unknown",
            "startup",
        ),
        (
            [
                "0: reward=317.351",
                "2025-04-23 20:35:34.618070: F external/xla/xla/service/gpu/autotuning/"
                "gemm_fusion_autotuner.cc:1099] Non-OK-status: executable.status()",
            ],
            "unknown",
            "unknown",
        ),
        (
            [
                "host:5011:5092 [1] NCCL WARN Duplicate GPU detected : rank 0 and "
                "rank 1 both on CUDA device e3000",
                "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1727, "
                "invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.19.3",
            ],
            "nccl_error",
            "startup",
        ),
        (
            [
                "ValueError: The global train batch size (7 x 1) must be evenly divisible by the "
                "number of generations per prompt (8). Given the current train batch size, the "
                "valid values for the number of generations are: [7].",
            ],
            "unsupported_config",
            "startup",
        ),
        (
            [
                "RuntimeError: Attempting to deserialize object on a CUDA device but "
                "torch.cuda.is_available() is False. If you are running on a CPU-only machine, "
                "please use torch.load with map_location=torch.device('cpu').",
            ],
            "env_mismatch",
            "loading",
        ),
    ],
)
def test_round55_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)
