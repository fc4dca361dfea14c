"""Mechanisms of the hundred-and-nineteenth round, tuned on the read half of the forty-sixth
batch (video generation, Triton kernels and their libraries, mixture-of-experts kernels and
expert parallelism).

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both

from pytest_blackwell.failures.frame_words import frame_category


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # a UI framework refusing an input under its least allowed value, while serving
        (
            [
                "Traceback (most recent call last):",
                '  File "/py/gradio/blocks.py", line 2047, in process_api',
                "    inputs = await self.preprocess_data(",
                "gradio.exceptions.Error: 'Value 2 is less than minimum value 64.'",
            ],
            "unsupported_config",
            "execute",
        ),
        # an instruction the device's compiler has none of
        (["error: bf conversion instruction not supported!"], "dispatch_failure", "unknown"),
        # MLIR's passes failing: the kernel was being compiled
        (
            [
                "error: 'tt.load' op operation destroyed but still has uses",
                "Pipeline failed while executing TritonAMDGPUStreamPipeline",
            ],
            "unknown",
            "compile",
        ),
        (["RuntimeError: PassManager::run failed"], "unknown", "compile"),
        # a kernel's own assert macro printing from the device
        (
            ["Assertion failed: /src/csrc/kernels/intranode.cu:88, condition: num_tokens > 0"],
            "illegal_memory_access",
            "unknown",
        ),
        # NVSHMEM's heap that cannot be allocated (2: CUDA_ERROR_OUT_OF_MEMORY), before the
        # faults that follow it
        (
            [
                "/nvshmem/src/host/mem/mem_heap.cpp:1509: non-zero status: 2 cuMemCreate failed",
                "[/nvshmem/src/host/coll/barrier/barrier.cpp:21] cuda failed with an illegal "
                "memory access was encountered",
            ],
            "device_oom",
            "unknown",
        ),
        # NVSHMEM's transport failing as it is set up, its function in the source location
        # (one transport: the next is tried after it, so no collective failure of its own)
        (
            [
                "/opt/nvshmem_src/src/host/transport/transport.cpp:nvshmemi_transport_init:275: "
                "init failed for transport: IBGDA"
            ],
            "unknown",
            "startup",
        ),
        # one batch size's CUDA graph done, the next one's being captured
        (
            [
                ">> CUDA graph initialized for bsz = 1: TPS = 56.1.",
                "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB",
            ],
            "device_oom",
            "graph_capture",
        ),
        # Triton's launch refused on HIP, in its own words and code
        (
            ["RuntimeError: Triton Error [HIP]:  Code: 1, Messsage: invalid argument"],
            "smem_limit",
            "unknown",
        ),
        # Triton's autotuner compiling and timing a config, cut there
        (
            [
                "Traceback (most recent call last):",
                '  File "/py/triton/runtime/autotuner.py", line 133, in _bench',
                "    return do_bench(kernel_call, warmup=self.num_warmups)",
                '  File "/py/triton/testing.py", line 103, in do_bench',
            ],
            "unknown",
            "compile",
        ),
    ],
)
def test_round119_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    "lines",
    [
        # a start-up report of the optional components there and not there
        [
            "Device: cuda:0 NVIDIA GeForce RTX 3090 : cudaMallocAsync",
            "Xformers is installed!",
            "Flash Attn is not installed!",
            "Sage Attn is not installed!",
        ],
        # a kernel that failed and the fallback the program goes on with
        [
            "[GGUF][llama.cpp CUDA] linear GGUF CUDA kernels failed for Q2_K, using fallback: "
            "ggml abort at kernels.cu:1056: GGML_ASSERT(ne % blck == 0) failed"
        ],
    ],
)
def test_round119_routine_lines(tmp_path: Path, lines: list[str]) -> None:
    assert classify_both(tmp_path, lines) is None


def test_a_component_that_is_not_there_alone_is_still_an_error(tmp_path: Path) -> None:
    """Without the report of what is there, a missing component stays the environment's."""
    classify_as(tmp_path, ["Starting", "vllm is not installed!"], "env_mismatch", "unknown")


def test_triton_s_launch_check_frame_keeps_to_its_own_errors() -> None:
    """``_init_handles`` checks the shared memory, then loads the binary: a driver's error that
    names another cause is the load's, not the shared memory's."""
    frames = [
        "Traceback (most recent call last):",
        '  File "/py/triton/compiler/compiler.py", line 376, in _init_handles',
        "    self.module, self.function = driver.active.utils.load_binary(",
    ]
    assert frame_category(frames) == ("smem_limit", "frame _init_handles")
    assert frame_category(frames, "RuntimeError: Triton Error [CUDA]: invalid argument") == (
        "smem_limit",
        "frame _init_handles",
    )
    assert frame_category(frames, "RuntimeError: Triton Error [ZE]: 0x70000004") is None


@pytest.mark.parametrize(
    ("lines", "category"),
    [
        # (review) a runtime the program needs, missing beside an optional component that is there
        (
            ["Checking prerequisites", "Python is installed.", "CUDA is not installed."],
            "env_mismatch",
        ),
        (["Xformers is installed!", "NVIDIA driver is not installed!"], "env_mismatch"),
        # (review) a warning made fatal keeps its cause, whatever fallback it names
        (
            [
                "Traceback (most recent call last):",
                '  File "/py/mylib/attn.py", line 9, in attn',
                "    warnings.warn(msg)",
                "UserWarning: flash kernel failed, using fallback: CUDA error: no kernel image is "
                "available for execution on the device",
            ],
            "dispatch_failure",
        ),
        # (review) the least allowed, with or without the word "value"
        (["gradio.exceptions.Error: 'Value 4 is less than minimum 128.'"], "unsupported_config"),
    ],
)
def test_review_of_round119_readings(tmp_path: Path, lines: list[str], category: str) -> None:
    failure = classify_both(tmp_path, lines)
    assert failure is not None
    assert failure.category == category


def test_review_a_fallback_in_other_words_is_routine(tmp_path: Path) -> None:
    lines = ["[GGUF] linear kernels failed for Q2_K. Using fallback: GGML_ASSERT(x) failed"]
    assert classify_both(tmp_path, lines) is None


def test_review_mlir_s_bracketed_pass_is_a_compile(tmp_path: Path) -> None:
    classify_as(
        tmp_path,
        [
            "error: 'tt.load' op operation destroyed but still has uses",
            "Pipeline failed while executing [`TritonAMDGPUStreamPipeline` on 'builtin.module' "
            "operation]: reproducer generated at /tmp/x.mlir",
        ],
        "unknown",
        "compile",
    )


def test_review_one_nvshmem_transport_failing_is_no_collective_failure(tmp_path: Path) -> None:
    """NVSHMEM tries its next transport after one fails to start (IBGDA, then IBRC or P2P)."""
    failure = classify_both(
        tmp_path,
        [
            "/nvshmem_src/src/host/transport/transport.cpp:nvshmemi_transport_init:275: init "
            "failed for transport: IBGDA"
        ],
    )
    assert failure is not None
    assert failure.category == "unknown"


def test_review_a_two_space_launch_error_still_names_the_shared_memory() -> None:
    frames = [
        "Traceback (most recent call last):",
        '  File "/py/triton/compiler/compiler.py", line 376, in _init_handles',
        "    self.module = driver.active.utils.load_binary(",
    ]
    for message in (
        "RuntimeError: Triton Error [HIP]:  Code: 1, Messsage: invalid argument",
        "RuntimeError: Triton Error [CUDA]:  invalid argument",
    ):
        assert frame_category(frames, message) == ("smem_limit", "frame _init_handles")
