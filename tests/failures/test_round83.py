"""Mechanisms of the eighty-third round, tuned on half of the sixteenth batch (``fresh360/``,
``fresh362/``, ``fresh364/``, ``fresh366/``, measured before reading with round 82);
``fresh313/``, ``fresh315/``, ``fresh333/``, ``fresh335/``, ``fresh337/``, ``fresh339/``,
``fresh345/``, ``fresh347/``, ``fresh349/``, ``fresh351/``, ``fresh353/``, ``fresh355/``,
``fresh357/``, ``fresh359/`` and the other half (``fresh361/``, ``fresh363/``, ``fresh365/``,
``fresh367/``) stay unread.

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both

from pytest_blackwell.failures.ownwords import own_words


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # a native abort at its source line, cut before its words: never "no failure" (the
        # debugger's lines below it are noise, as before)
        (
            [
                "load_tensors: offloaded 49/49 layers to GPU",
                "common_init_from_params: warming up the model with an empty run - please wait",
                "/src/llama.cpp/ggml/src/ggml-backend.cpp:1201: GGML_AS",
                "[New LWP 4242]",
                "[New LWP 4243]",
                "[Thread debugging using libthread_db enabled]",
                'Using host libthread_db library "/lib/x86_64-linux-gnu/libthread_db.so.1".',
            ],
            "unknown",
            "warmup",
        ),
        # (its path as a paste shows it, a placeholder with spaces)
        (
            ["/<path to code>/ggml/src/ggml-backend.cpp:1201: GGML_AS"],
            "unknown",
            "unknown",
        ),
        # ggml's abort with a message of its own, read for its words, with more output below
        (
            [
                "ggml/src/ggml-cuda/common.cuh:120: ggml was not compiled with any CUDA arch "
                "<= 610",
                "",
                "nvcc: NVIDIA (R) Cuda compiler driver",
                "Copyright (c) 2005-2023 NVIDIA Corporation",
                "Cuda compilation tools, release 12.0, V12.0.140",
            ],
            "dispatch_failure",
            "unknown",
        ),
        # an abort header naming only the kind of error: its message is the next line
        (
            [
                "/src/ggml/src/ggml-cann/aclnn_ops.cpp:88: CANN error",
                "CANN error: EZ1001: op AddRmsNorm is not supported on Ascend310P",
            ],
            "dispatch_failure",
            "unknown",
        ),
        # ctypes' access violation printed as its message alone
        (
            ["exception: access violation writing 0x0000000000000010"],
            "engine_died",
            "unknown",
        ),
        # Open MPI's signal handler: the signal by name
        (
            [
                "[node7:31337] *** Process received signal ***",
                "[node7:31337] Signal: Segmentation fault (11)",
                "[node7:31337] Signal code: Address not mapped (1)",
            ],
            "engine_died",
            "unknown",
        ),
        # an attention backend named after the feature it refuses
        (
            ["ValueError: sliding window is not supported by FlashInfer at this head size"],
            "dispatch_failure",
            "unknown",
        ),
        # a program's check of an NCCL call, NCCL's own string for the result
        (
            [
                "terminate called after throwing an instance of 'std::runtime_error'",
                "  what():  NCCL failure: unhandled system error in bench.cu at line: 40 rank: 3",
            ],
            "nccl_error",
            "unknown",
        ),
        # a function named for setting the process group up
        (
            [
                "Traceback (most recent call last):",
                '  File "/x/trainer/dist.py", line 20, in init_distributed_mode',
                "    torch.distributed.barrier()",
                "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1191, unhandled cuda error",
            ],
            "nccl_error",
            "startup",
        ),
        # NVSHMEM's source tree under another name, its failed status
        (
            [
                "/opt/deps/nvshmem_build/src/host/init/init.cu:900: non-zero status: 7 "
                "nvshmem detect topo failed"
            ],
            "nccl_error",
            "startup",
        ),
        # hipBLASLt's kernel library unreadable, a console's stream tag glued before it
        (
            ['stderrrocblaslt error: Could not load "TensileLibrary_lazy_gfx1150.dat"'],
            "dispatch_failure",
            "unknown",
        ),
        # a request answered with an error that relays what failed: the step it names tells
        (
            [
                "ResponseError: status code 500: llama runner process has terminated: "
                "llama_new_context_with_model: failed to allocate compute buffers"
            ],
            "device_oom",
            "kv_alloc",
        ),
        # a run-time GPU program build, in the error's own words
        (
            [
                "/tvm/src/runtime/library_module.cc:87: TVMError: OpenCL build error for "
                "device=0x55aa",
                "Error: CL_OUT_OF_HOST_MEMORY",
            ],
            "device_oom",
            "compile",
        ),
        # an allocator's message wrapped over indented lines below its heading
        (
            [
                "RuntimeError: Error in function 'allocate' at /src/include/pool/allocator.h:71:",
                "  Buffer overflow when allocating memory for workspace_k",
                "  with size 1073741824 and alignment 256,",
                "  but only 268435456 bytes available in PoolAllocator.",
            ],
            "device_oom",
            "unknown",
        ),
    ],
)
def test_round83_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    "lines",
    [
        # a compiler's warning at a source line is no abort
        ["kernels/attn.cu:140: warning: variable 'tmp' set but not used"],
        # a logger's record of that shape starts with its time (dmlc's INFO records)
        ["[10:01:02] /src/cpp/llm_chat.cc:689: [i: 12] decoding-time=8.7ms tok/s: 117.3."],
        # a choice made and its reason given
        [
            "2026-01-01T10:00:00Z  INFO launcher: Forcing attention to 'paged' because head dim "
            "is not supported by flashinfer"
        ],
    ],
)
def test_round83_no_failure(tmp_path: Path, lines: list[str]) -> None:
    assert classify_both(tmp_path, lines) is None


def test_round83_signal_handler_frames_at_error_level_are_not_the_error(tmp_path: Path) -> None:
    # Ray writes glog's crash stack at its error level; the crash itself is what they belong to
    classify_as(
        tmp_path,
        [
            "[2026-01-01 10:00:00,000 E 7 7] logging.cc:365: PC: @     0x5266a0  (unknown)  "
            "(unknown)",
            "[2026-01-01 10:00:00,000 E 7 7] logging.cc:365:     @     0x7fca1c09  (unknown)  "
            "raise",
            "Fatal Python error: Segmentation fault",
        ],
        "engine_died",
        "unknown",
    )


def test_round83_a_wrapped_message_stops_at_its_indentation() -> None:
    head = "RuntimeError: Error in function 'f' at a.h:1:"
    lines = [head, "  first part of the message", "  second part,", "    frame-like deeper line"]
    assert own_words(head, lines) == [head, "first part of the message second part,"]
