"""Mechanisms of the hundred-and-twentieth round, tuned on the read half of the forty-ninth
batch (Stable Diffusion web UIs, 3D vision and neural rendering extensions, evaluation
harnesses, robotics and physics simulation).

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # a Vulkan driver without the API version asked for, as its instance is created
        (
            [
                "[1,468ms] [Error] [carb.graphics-vulkan.plugin] VkResult: "
                "ERROR_INCOMPATIBLE_DRIVER",
                "[1,469ms] [Error] [carb.graphics-vulkan.plugin] vkCreateInstance failed.",
            ],
            "env_mismatch",
            "startup",
        ),
        # a driver said to be unsupported, or in need of an update
        (
            ["[Error] [gpu.foundation.plugin] The installed graphics driver is unsupported."],
            "env_mismatch",
            "unknown",
        ),
        (
            [
                "vkCreateInstance failed. Vulkan 1.1 is not supported, or your driver requires an "
                "update."
            ],
            "env_mismatch",
            "unknown",
        ),
        # pip's summary of wheels it could not build
        (
            [
                "  Building PyTorch extension for ext version 1.7",
                "Failed to build ext",
                "ERROR: Could not build wheels for ext, which is required to install "
                "pyproject.toml-based projects",
            ],
            "env_mismatch",
            "compile",
        ),
        # nvcc's diagnostic on a header, indented as pip shows a build's output
        (
            ["  /usr/local/cuda/include/thrust/x.h(349): error: y is not a template"],
            "unknown",
            "compile",
        ),
        # Taichi's kernel refused as it is compiled on its first call
        (
            [
                "taichi.lang.exception.TaichiSyntaxError: ",
                'File "/py/engine/coupler.py", line 202, in grid_op:',
                "Parameter `i` missing.",
            ],
            "unknown",
            "compile",
        ),
        # a device allocator that cannot allocate, in its own grammar, before the faults after it
        (
            [
                "PxgCudaDeviceMemoryAllocator fail to allocate memory 339738624 bytes!! Result = 2",
                "/src/PxgNarrowphaseCore.cpp (2155) : internal error : memcpy failed fail! 2  700",
            ],
            "device_oom",
            "unknown",
        ),
    ],
)
def test_round120_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_omniverse_kit_s_warnings_are_quiet(tmp_path: Path) -> None:
    """Kit's records carry their level in brackets after the time since start."""
    lines = [
        "[3.581s] [ext: omni.kit.widget.nucleus_connector-2.0.1] startup",
        "2025-11-15T04:29:46Z [3,587ms] [Warning] [omni.usd.audio] failed to subscribe to stage "
        "events",
        "[3.632s] [ext: omni.kit.asset_converter-4.1.4] startup",
    ]
    assert classify_both(tmp_path, lines) is None


@pytest.mark.parametrize(
    "lines",
    [
        # (review) a program's own "Warning:" naming the fallback it goes on with
        [
            "Model loaded",
            "Warning: flash kernel failed, using fallback: CUDA error: no kernel image is "
            "available for execution on the device",
            "Done.",
        ],
        # (review) a runtime that is there beside an optional component that is not
        ["Checking prerequisites", "PyTorch is installed.", "Flash Attn is not installed."],
        ["Xformers is installed!", "NVIDIA Apex is not installed!"],
    ],
)
def test_review_of_round120_quiet_lines(tmp_path: Path, lines: list[str]) -> None:
    assert classify_both(tmp_path, lines) is None


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # (review) a minimum a version or a memory requires is no value refused
        (
            ["RuntimeError: Version of nvcc (11.4) is less than the minimum required version"],
            "unknown",
            "unknown",
        ),
        # (review) a device created while the model loads keeps the loader's stage
        (
            [
                "E llama_model_load: error loading model: vk::PhysicalDevice::createDevice: "
                "ErrorExtensionNotPresent",
                "E llama_model_load_from_file_impl: failed to load model",
            ],
            "env_mismatch",
            "loading",
        ),
        # (review) a bracketed level before a plugin that is no dotted name is no Kit record
        (
            [
                "2025-07-11 17:00:31.578 [Debug] [BackendHandler] backend #0 will load a model",
                "2025-07-11 17:00:33.639 [Warning] [BackendHandler] backend #0 failed to load "
                "model flux1-dev.safetensors",
            ],
            "unknown",
            "loading",
        ),
        # (review) the allocator in the third person; pip's newer summary; drivers in plural
        (
            ["PxgCudaDeviceMemoryAllocator fails to allocate memory 339738624 bytes!! Result = 2"],
            "device_oom",
            "unknown",
        ),
        (
            [
                "Failed to build flash-attn",
                "ERROR: Failed to build installable wheels for some pyproject.toml based "
                "projects (flash-attn)",
            ],
            "env_mismatch",
            "compile",
        ),
        (["Error: your graphics drivers require an update."], "env_mismatch", "unknown"),
        (["Error: NVIDIA drivers are unsupported on this system"], "env_mismatch", "unknown"),
    ],
)
def test_review_of_round120_readings(
    tmp_path: Path, lines: list[str], category: str, stage: str
) -> None:
    classify_as(tmp_path, lines, category, stage)
