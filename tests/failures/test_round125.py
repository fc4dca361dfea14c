"""Mechanisms of the hundred-and-twenty-fifth round, tuned on the read half of the fifty-first
batch (PyTorch Lightning, GPU data processing with RAPIDS and Spark, application frameworks
running local models, image and video upscaling).

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # a JVM exception named for the shortage, as Spark relays a lost task
        (
            [
                "24/01/02 10:00:00 WARN TaskSetManager: Lost task 3.0 in stage 7.0 (TID 41) "
                "(host executor 2): com.nvidia.spark.rapids.jni.GpuRetryOOM: GPU OutOfMemory: "
                "could not allocate and retry",
                "\tat ai.rapids.cudf.Table.concatenate(Native Method)",
            ],
            "device_oom",
            "execute",
        ),
        (
            [
                "Job aborted due to stage failure: Task 2 in stage 9.0 failed 4 times, most "
                "recent failure: Lost task 2.3 in stage 9.0 (TID 90) (host executor 1): "
                "com.nvidia.spark.rapids.jni.SplitAndRetryOOM: could not split further"
            ],
            "device_oom",
            "execute",
        ),
        # Spark RAPIDS' executor plugin setting its GPU up
        (
            [
                "24/01/02 10:00:00 ERROR RapidsExecutorPlugin: Exception in the executor plugin, "
                "shutting down!",
                "ai.rapids.cudf.CudaException: out of memory",
                "\tat ai.rapids.cudf.Cuda.freeZero(Native Method)",
            ],
            "device_oom",
            "startup",
        ),
        # a feature the installed driver and runtime do not have
        (
            [
                "ai.rapids.cudf.CudfException: RMM failure at: rmm/mr/device/"
                "cuda_async_memory_resource.hpp:67: cudaMallocAsync not supported with this CUDA "
                "driver/runtime version"
            ],
            "env_mismatch",
            "unknown",
        ),
        # ggml's scratch pool too small for the graph, then the crash it causes
        (
            [
                "llama_eval: prompt of 512 tokens",
                "ggml_new_tensor_impl: not enough space in the scratch memory pool (needed "
                "337076992, available 268435456)",
                "Segmentation fault (core dumped)",
            ],
            "device_oom",
            "unknown",
        ),
        # FFmpeg refusing a frame size, without an error word
        (
            ["[libx264 @ 0x55d0] Picture size 16384x30720 is invalid"],
            "unsupported_config",
            "unknown",
        ),
        # Vulkan that cannot initialise, by its result's number
        (["vkCreateInstance failed -3"], "env_mismatch", "startup"),
        # (another result of a Vulkan call is no initialisation refused)
        (["vkQueuePresentKHR failed -1000001004"], "unknown", "unknown"),
        # a node of a graph UI that ran, and a shortage said with hyphens
        (
            [
                "An error occurred in a Upscale Image node:",
                "",
                "A VRAM out-of-memory error has occurred. Please try a smaller tile size.",
            ],
            "device_oom",
            "execute",
        ),
        # an inference said to have failed for a model
        (
            ["\tFailed inference for GFPGAN: CUDA error: unknown error"],
            "unknown",
            "execute",
        ),
    ],
)
def test_round125_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    "lines",
    [
        # an OOM-named class mentioned in a sentence, not raised
        ["INFO Retry framework: RetryOOM and SplitAndRetryOOM are handled per batch"],
    ],
)
def test_round125_quiet_lines(tmp_path: Path, lines: list[str]) -> None:
    assert classify_both(tmp_path, lines) is None


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # (review) a graph UI's loader node is loading, as ComfyUI's
        (
            [
                "An error occurred in a Load Model node:",
                "",
                "CUDA error: no kernel image is available for execution on the device",
            ],
            "dispatch_failure",
            "loading",
        ),
        # (review) a driver release asked for in other words
        (
            ["Error: You need NVIDIA driver version 550 or newer to run this application."],
            "env_mismatch",
            "unknown",
        ),
        (
            ["Error: Please ensure that you have NVIDIA driver 551.78 or later installed."],
            "env_mismatch",
            "unknown",
        ),
        # (review) a function deducing the task or framework runs no model
        (
            [
                "Traceback (most recent call last):",
                '  File "x.py", line 3, in infer_framework_from_model',
                "    framework = look_up(model)",
                "RuntimeError: CUDA error: no kernel image is available for execution on the "
                "device",
            ],
            "dispatch_failure",
            "unknown",
        ),
        # (review) vulkan-hpp's initialisation failure, and ncnn's incompatible driver by number
        (
            [
                "terminate called after throwing an instance of 'vk::InitializationFailedError'",
                "  what():  vk::createInstance: ErrorInitializationFailed",
            ],
            "env_mismatch",
            "startup",
        ),
        (["vkCreateInstance failed -9"], "env_mismatch", "startup"),
        # (review) a shortage of two hyphenated words
        (["RuntimeError: out-of-host-memory while staging buffers"], "device_oom", "unknown"),
    ],
)
def test_review_of_round125_readings(
    tmp_path: Path, lines: list[str], category: str, stage: str
) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_review_of_round125_damaged_packet_size_is_routine(tmp_path: Path) -> None:
    """(review) A decoder's 0x0 picture size of a damaged packet, then a transcode that ends."""
    lines = [
        "ffmpeg version 6.1",
        "[h264 @ 0x55d0c0] Picture size 0x0 is invalid",
        "[h264 @ 0x55d0c0] decode_slice_header error",
        "frame= 1200 fps=300 q=-1.0 Lsize=10000kB",
        "video:10000kB audio:0kB subtitle:0kB global headers:0kB muxing overhead: 0.1%",
    ]
    assert classify_both(tmp_path, lines) is None


def test_review_of_round125_pinned_memory_given_up_is_routine(tmp_path: Path) -> None:
    """ggml's Vulkan backend giving pinned memory up names vulkan-hpp's error too: routine."""
    lines = [
        "ggml_vulkan: Failed to allocate pinned memory.",
        "ggml_vulkan: Null Pointer: ErrorInitializationFailed",
        "llama_new_context_with_model:    Vulkan0 compute buffer size =    16.86 MiB",
        "main: prompt processed",
    ]
    assert classify_both(tmp_path, lines) is None
