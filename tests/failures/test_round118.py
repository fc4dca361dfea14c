"""Mechanisms of the hundred-and-eighteenth round, tuned on the read half of the forty-eighth
batch (vLLM on ROCm, quantization toolkits, NVIDIA edge inference, local LLM desktop apps).

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # a kernel library's check, behind its tag, failing to choose a kernel for the inputs
        (
            [
                "[AITER] /src/csrc/asm_mla.cu:193 get_heuristic_kernel_mla: cannot get heuristic "
                "kernel! q_type:bf16 kv_type:fp8 gqa:8"
            ],
            "dispatch_failure",
            "unknown",
        ),
        # a kernel without a variant for this head count, raised under a frame named for decoding
        (
            [
                "Traceback (most recent call last):",
                '  File "/py/kernels/mla.py", line 116, in mla_decode_fwd',
                "    params = get_meta_param(nhead)",
                "AssertionError: nhead=24 not supported",
            ],
            "dispatch_failure",
            "execute",
        ),
        # a tensor subclass with no implementation of an aten op
        (
            [
                "NotImplementedError: QuantTensor dispatch: attempting to run unimplemented "
                "operator/function: func=<OpOverload(op='aten.x', overload='default')>"
            ],
            "dispatch_failure",
            "unknown",
        ),
        # a refusal naming AMD's accelerators
        (
            ["AssertionError: this kernel only works for MI300 and newer"],
            "dispatch_failure",
            "unknown",
        ),
        # a quantizer's progress, layer by layer, then an allocation failing
        (
            [
                "Quantizing q_proj in layer 3/32...",
                "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
            ],
            "device_oom",
            "execute",
        ),
        # TensorRT's builder workspace that cannot grow
        (
            [
                "[TRT] [E] 2: [virtualMemoryBuffer.cpp::resizePhysical::140] Error Code 2: "
                "OutOfMemory (no further information)"
            ],
            "device_oom",
            "compile",
        ),
        # a plan file of another build, as the plan reader asserts it; an empty one
        (
            [
                "ERROR: [TRT]: IRuntime::deserializeCudaEngine: Error Code 1: Serialization "
                "(Serialization assertion plan->header.magicTag == rt::kPLAN_MAGIC_TAG failed.)"
            ],
            "unsupported_config",
            "loading",
        ),
        (
            ["[TensorRT] ERROR: INVALID_ARGUMENT: Cannot deserialize with an empty memory buffer."],
            "unsupported_config",
            "loading",
        ),
        # an assertion whose condition compares with zero is no count of zero failures; the
        # board missing from TensorRT's table of devices
        (
            [
                "[TRT] 2: [utils.cpp::checkMemLimit::380] Error Code 2: Internal Error "
                "(Assertion upperBound != 0 failed. Unknown embedded device detected.)"
            ],
            "dispatch_failure",
            "unknown",
        ),
        (["Assertion count != 0 failed."], "unknown", "unknown"),
        # an engine file built from the model, then a crash
        (
            [
                "0:00:01.0 INFO nvinfer: Trying to create engine from model files",
                "Input filename:   /models/model.onnx",
                "Segmentation fault (core dumped)",
            ],
            "engine_died",
            "compile",
        ),
        # a library without the function looked up; a device node the system lacks
        (
            [
                "ERROR: Detect-postprocessor failed to init resource because dlsym failed to get "
                "func ParseBoxes pointer"
            ],
            "env_mismatch",
            "unknown",
        ),
        (
            ["2024-01-01 10:00:00.000 ERROR driver.cpp@75: failed to open the device /dev/pps3"],
            "env_mismatch",
            "startup",
        ),
        # a component that cannot be torn down
        (
            ["ERROR gxf/core/runtime.cpp@751: Could not deinitialize entity 'x' (E288)"],
            "unknown",
            "shutdown",
        ),
        # ctypes' native crash glued to the progress line before it
        (
            ["Generating (12 / 512 tokens)exception: access violation reading 0x0000000000000000"],
            "engine_died",
            "unknown",
        ),
        # a record at an error level written in lower case
        (["[2026-01-01 10:00:00.000] [error] [App] GPU Configuration:"], "unknown", "unknown"),
        # the message of an uncaught C++ exception, spaced by a paste
        (
            [
                "terminate called after throwing an instance of 'std :: out_of_range'",
                "  what (): vector",
                "Aborted (core dumped)",
            ],
            "unknown",
            "unknown",
        ),
        # a wrapper of wrappers whose innermost words name the engine build
        (
            [
                "RuntimeError: Error in Inference Operator: TRT Inference: failed to build TRT "
                "engine."
            ],
            "unknown",
            "compile",
        ),
    ],
)
def test_round118_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    "lines",
    [
        # torch's tunable ops setting aside a tuning file written for another setup
        [
            "INFO Model loading took 3.5 GiB",
            "/py/layers/utils.py:117: UserWarning: Failed validator: GCN_ARCH_NAME (Triggered "
            "internally at /src/aten/src/ATen/cuda/tunable/Tunable.cpp:366.)",
            "INFO Available KV cache memory: 8.71 GiB",
        ],
        # a zero count of failures is still routine
        ["Tests run: 12, 0 failed"],
    ],
)
def test_routine_lines_stay_quiet(tmp_path: Path, lines: list[str]) -> None:
    assert classify_both(tmp_path, lines) is None


def test_preparing_a_model_is_not_serving_it(tmp_path: Path) -> None:
    """A function named for preparing a model for inference patches its layers: the model is
    not run yet, so its name tells no stage."""
    failure = classify_both(
        tmp_path,
        [
            "Traceback (most recent call last):",
            '  File "/py/patching.py", line 116, in prepare_for_inference',
            "    patch_linearlayers(model, patch_fn)",
            '  File "/py/backends/int4.py", line 91, in patch_fn',
        ],
    )
    assert failure is not None
    assert failure.stage == "unknown"


@pytest.mark.parametrize(
    "lines",
    [
        # (review) a tagged record at a source line is an error only when its words say so
        ["[NOTICE] src/hub.cpp:55 fetch_model: download complete"],
        ["[AITER] csrc/asm_mla.cu:193 get_heuristic_kernel_mla: selected kernel mla_a16w16"],
        # (review) a results banner's zero count is no assertion's condition
        ["======= 0 failed, 12 passed in 3.1s ======="],
    ],
)
def test_review_quiet_lines(tmp_path: Path, lines: list[str]) -> None:
    assert classify_both(tmp_path, lines) is None


@pytest.mark.parametrize(
    ("lines", "category"),
    [
        # (review) the operating system's kernel is no compute kernel
        (["ERROR: Failed to get kernel version: permission denied"], "unknown"),
        # (review) an accelerator named beside a requirement counts GPUs, it refuses nothing
        (
            [
                "ValueError: tensor_parallel_size=16 requires 16 GPUs, but only 8 MI300X GPUs "
                "are available"
            ],
            "unsupported_config",
        ),
        (["RuntimeError: FP8 is not supported on MI60"], "dispatch_failure"),
        (["AssertionError: num_heads=24 not supported"], "dispatch_failure"),
        (["Error Code 2: Internal Error (Assertion upperBound > 0 failed. )"], "unknown"),
        (["[2026-01-01 10:00:00.000] [critical] [App] GPU Configuration:"], "unknown"),
        (
            ["Generating 12/512 tokens...exception: access violation reading 0x0000000000000000"],
            "engine_died",
        ),
    ],
)
def test_review_readings(tmp_path: Path, lines: list[str], category: str) -> None:
    failure = classify_both(tmp_path, lines)
    assert failure is not None
    assert failure.category == category


@pytest.mark.parametrize(
    "line",
    [
        "Failed to open /dev/nvidia0: No such file or directory",
        "failed to open the device /dev/pps0",
    ],
)
def test_review_a_device_node_in_any_case_is_start_up(tmp_path: Path, line: str) -> None:
    classify_as(tmp_path, [line], "env_mismatch", "startup")


@pytest.mark.parametrize(
    "progress",
    [
        "2024-05-01 10:00:00 INFO [auto_gptq.modeling._base] Quantizing self_attn.q_proj in "
        "layer 3/32...",
        "INFO - Quantizing self_attn.q_proj in layer 3 of 31",
    ],
)
def test_review_a_quantizer_s_logged_progress(tmp_path: Path, progress: str) -> None:
    classify_as(
        tmp_path,
        [progress, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"],
        "device_oom",
        "execute",
    )
