"""Mechanisms of the hundred-and-twenty-fourth round, tuned on the read half of the fifty-second
batch (GPU renderers, hybrid CPU/GPU LLM inference, serving frameworks, new NVIDIA platforms).

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # a renderer out of GPU memory, under the context errors it causes
        (
            [
                "Invalid value in cuCtxPushCurrent(device->cuContext) (device/cuda/util.cpp:26)",
                "System is out of GPU and shared host memory",
            ],
            "device_oom",
            "unknown",
        ),
        # a runtime's init call and what it returned
        (["CUDA cuInit: Unknown CUDA error value"], "env_mismatch", "startup"),
        # kernels built by a newer toolkit than the driver takes, in a renderer's words
        (
            [
                "Failed to load CUDA kernel from '/opt/app/lib/kernel_sm_86.ptx' (Unsupported PTX "
                "version)"
            ],
            "env_mismatch",
            "unknown",
        ),
        # the driver release a program needs
        (
            ["Render Error: Please make sure you have NVIDIA driver 560.10 or later installed."],
            "env_mismatch",
            "unknown",
        ),
        # a layer's kernel without the dtypes it was given
        (
            [
                "Engine Error: Linear error: unsupported dataType combination. input.dataType = "
                "float16, weight.dataType = int2"
            ],
            "dispatch_failure",
            "unknown",
        ),
        # a URL refused, a field missing (pydantic v1)
        (
            [
                "ERROR | controller | Get status fails: w-1, Invalid URL 'w-1/status': No scheme "
                "supplied."
            ],
            "unsupported_config",
            "unknown",
        ),
        (
            [
                "1 validation error for ModelSpec",
                "model_specs",
                "  field required (type=value_error.missing)",
            ],
            "unsupported_config",
            "unknown",
        ),
        # the hub's files neither reachable nor cached, under a model's load
        (
            [
                "Traceback (most recent call last):",
                '  File "/srv/app/model.py", line 103, in load',
                "    if self.infer_dtype_from_config(self.model_id) is not None:",
                '  File "/srv/app/model.py", line 80, in infer_dtype_from_config',
                "    cfg = hf_hub_download(repo, 'config.json')",
                "huggingface_hub.errors.LocalEntryNotFoundError: An error happened while trying "
                "to locate the file on the Hub and we cannot find the requested files in the "
                "local cache.",
            ],
            "unsupported_config",
            "loading",
        ),
        # ptxas refusing an instruction for a target; CuTe DSL's MLIR error
        (
            [
                "ptxas /tmp/k.ptx, line 12: Instruction cvt with .e2m1x2 not supported on .target "
                "sm_89"
            ],
            "dispatch_failure",
            "compile",
        ),
        (
            [
                '  File "kernels/attn_fwd.py", line 393, in epilogue',
                "cutlass._mlir._mlir_libs._site_initialize.<locals>.MLIRError: Operation creation "
                "failed:",
            ],
            "unknown",
            "compile",
        ),
    ],
)
def test_round124_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    "lines",
    [
        # nvidia-smi's table on an integrated GPU: its memory cell says "Not Supported"
        [
            "|   0  NVIDIA GB10                    On |   0000000F:01:00.0 Off |                  "
            "N/A |",
            "| N/A   42C    P8              4W /  N/A  | Not Supported          |      0%      "
            "Default |",
            "|                                         |                        |             "
            "N/A |",
        ],
        # a value inferred from a configuration is no inference run
        ["INFO infer_dtype_from_config: bfloat16", "Model ready"],
    ],
)
def test_round124_quiet_lines(tmp_path: Path, lines: list[str]) -> None:
    assert classify_both(tmp_path, lines) is None


@pytest.mark.timeout(60)
def test_round124_long_row_of_cells_is_read() -> None:
    """A long line of cells is read (the row check once backtracked without end on a line of
    many ``" | "`` separators; pytest-timeout stops such a hang)."""
    from pytest_blackwell.failures import classify_log

    line = " | ".join(["x"] * 3000) + " y"
    assert classify_log(["step 1", line]) is None
    failure = classify_log(["step 1", line, "Segmentation fault (core dumped)"])
    assert failure is not None
    assert failure.category == "engine_died"


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # (review) TensorRT's build message with its full stop is no package build
        (["Failed to build engine."], "unknown", "compile"),
        # (review) the GPU itself, named before what it would be used for
        (
            [
                "RuntimeError: No CUDA GPUs are available. Check CUDA_VISIBLE_DEVICES if you "
                "want to use GPUs for inference"
            ],
            "env_mismatch",
            "startup",
        ),
        # (review) ptxas' own quoted form of its target
        (
            ["Instruction 'mma with block scale' not supported on .target 'sm_120'"],
            "dispatch_failure",
            "compile",
        ),
        # (review) a run of inference named with "from", not a value deduced
        (
            [
                "Traceback (most recent call last):",
                '  File "run.py", line 30, in infer_images_from_folder',
                "    out = model(batch)",
                "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
            ],
            "device_oom",
            "execute",
        ),
    ],
)
def test_review_of_round124_readings(
    tmp_path: Path, lines: list[str], category: str, stage: str
) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    "lines",
    [
        # (review) Blender's HIP probe on an NVIDIA machine, then a render that finishes
        ["Blender 4.1.0", "HIP hipInit: Invalid device", "Fra:1 Sample 1024/1024", "Blender quit"],
        # (review) Cycles' report of a successful init call
        ["CUDA cuInit: No error", "Render finished"],
        # (review) a driver release named as a requirement in a note, a healthy run after it
        ["Note: This version requires NVIDIA driver 470 or later for OptiX.", "Blender quit"],
        ["WARNING: NVIDIA driver 550 or later is recommended for FP8", "Processed 100 prompts"],
    ],
)
def test_review_of_round124_quiet_lines(tmp_path: Path, lines: list[str]) -> None:
    assert classify_both(tmp_path, lines) is None


@pytest.mark.timeout(60)
def test_review_of_round124_long_pip_summary_is_read() -> None:
    """(review) pip's summary of names with many underscores and digits, cut before its end, is
    read without backtracking for minutes (pytest-timeout stops such a hang)."""
    from pytest_blackwell.failures import classify_log

    names = " ".join(f"pkg_{i}_1_2_cu128" for i in range(40))
    assert classify_log([f"Failed to build {names} (exit status 1)"]) is not None
    failure = classify_log([f"Failed to build {names}"])
    assert failure is not None
    assert failure.category == "env_mismatch"
