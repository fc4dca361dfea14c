"""Mechanisms of the hundred-and-twenty-third round, tuned on the read half of the fifty-first
batch (Keras and TensorFlow, NVIDIA's video codecs and streaming SDKs, mixture-of-experts
training).

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # TensorFlow found a GPU but skips it: its libraries cannot be opened (also cut)
        (
            [
                "2025-01-02 10:00:00.000001: W tensorflow/core/common_runtime/gpu/gpu_device.cc:"
                "2256] Cannot dlopen some GPU libraries. Please make sure the missing libraries "
                "mentioned above are installed properly if you would like to use GPU.",
                "Skipping registering GPU devices...",
            ],
            "env_mismatch",
            "startup",
        ),
        (
            ["W0000 00:00:1745040002.716147     960 gpu_device.cc:2341] Cannot dlopen some GPU li"],
            "env_mismatch",
            "startup",
        ),
        # XLA compiling a module that needs libdevice, at its warning level
        (
            [
                "W0000 00:00:1739677334.594935    3089 gpu_backend_lib.cc:617] libdevice is "
                "required by this HLO module but was not found at ./libdevice.10.bc"
            ],
            "env_mismatch",
            "compile",
        ),
        # a driver call of TensorFlow's generated kernels, at its warning level
        (
            [
                "W tensorflow/compiler/mlir/tools/kernel_gen/tf_gpu_runtime_wrappers.cc:40] "
                "'cuModuleLoadData(&module, data)' failed with 'CUDA_ERROR_INVALID_PTX'",
                "Epoch 1/5",
            ],
            "unknown",
            "compile",
        ),
        # XLA refusing an op of the graph it compiles
        (
            [
                "W tensorflow/core/framework/op_kernel.cc:1841] OP_REQUIRES failed at "
                "xla_ops.cc:577 : INVALID_ARGUMENT: Detected unsupported operations when trying "
                "to compile graph __inference_train_step_12[] on XLA_GPU_JIT: MyOp"
            ],
            "unsupported_config",
            "compile",
        ),
        # a graph written by a newer TensorFlow, read back as a SavedModel
        (
            [
                "Traceback (most recent call last):",
                '  File "/x/tensorflow/python/saved_model/loader_impl.py", line 310, in load',
                "    return f()",
                "tensorflow.python.framework.errors_impl.InvalidArgumentError: NodeDef mentions "
                "attr 'foo' not in Op<name=Bar>; NodeDef: {{node b}}. (Check whether your "
                "GraphDef-interpreting binary is up to date with your GraphDef-generating "
                "binary.).",
            ],
            "env_mismatch",
            "loading",
        ),
        # GStreamer's debug log: the error record, not the warnings before it
        (
            [
                "0:00:00.050000000   100 0x55aa00000001 WARN   qtdemux qtdemux.c:3250:"
                "qtdemux_parse_trex:<qtdemux0> failed to find fragment defaults for stream 1",
                "0:00:00.130000000   100 0x55aa00000002 ERROR  myfilter gstmyfilter.c:399:"
                "gst_my_filter_set_caps:<myfilter0> The GPU is not supported",
            ],
            "dispatch_failure",
            "unknown",
        ),
        # an error after its tool's tag, spaced from its colon
        (["nvenc : Error on NvEncEncodePicture: 8 (invalid param)"], "unknown", "execute"),
        # the codec SDK creating its decoder, and its labelled detail below the exception
        (
            ["cuvid: Failed cuvidCreateDecoder 2 (CUDA_ERROR_OUT_OF_MEMORY)"],
            "device_oom",
            "startup",
        ),
        (
            [
                "RuntimeError: NvEncoder::CreateEncoder : nvEncInitializeEncoder(h, &p) "
                "returned error 8",
                "Description: Preset p9 is not supported with this rate control mode",
            ],
            "unsupported_config",
            "startup",
        ),
        # Triton with no back end it can use
        (
            ["RuntimeError: 0 active drivers ([]). There should only be one."],
            "env_mismatch",
            "unknown",
        ),
        # split sizes that do not add up; an operand's alignment in bytes
        (
            ["RuntimeError: Split sizes doesn't match total dim 0 size"],
            "unsupported_config",
            "unknown",
        ),
        (["RuntimeError: strides should be multiple of 16 bytes"], "dispatch_failure", "unknown"),
        # NVRTC without the CUDA headers; pip's summary naming the package it could not build
        (
            ['default_program(1): catastrophic error: cannot open source file "cuda_fp16.h"'],
            "env_mismatch",
            "compile",
        ),
        (
            ["  running clean", "  removing 'build'", "Failed to build my_ext"],
            "env_mismatch",
            "compile",
        ),
    ],
)
def test_round123_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    "lines",
    [
        # TensorFlow's CPU runs: the runtime missing, said to be ignorable
        [
            "2024-08-24 15:40:49.279326: W tensorflow/stream_executor/platform/default/"
            "dso_loader.cc:64] Could not load dynamic library 'libcudart.so.11.0'; dlerror: "
            "libcudart.so.11.0: cannot open shared object file: No such file or directory",
            "2024-08-24 15:40:49.279356: I tensorflow/stream_executor/cuda/cudart_stub.cc:29] "
            "Ignore above cudart dlerror if you do not have a GPU set up on your machine.",
            "Epoch 1/3",
        ],
        # GStreamer's warnings in a pipeline that goes on
        [
            "Setting pipeline to PAUSED ...",
            "0:00:00.050000000   100 0x55aa00000001 WARN   qtdemux qtdemux.c:3250:"
            "qtdemux_parse_trex:<qtdemux0> failed to find fragment defaults for stream 1",
            "0:00:00.060000000   100 0x55aa00000001 FIXME  default gstutils.c:4025:"
            "gst_pad_create_stream_id_internal:<src> Creating random stream-id",
            "Setting pipeline to PLAYING ...",
        ],
        # an optional part, said so
        ["Warning: failed to load the foo backend; check it is installed if you want to use it"],
        # a build's own step, not pip's summary
        ["Failed to build acceleration structure, retrying with compaction", "Frame 1 done"],
    ],
)
def test_round123_quiet_lines(tmp_path: Path, lines: list[str]) -> None:
    assert classify_both(tmp_path, lines) is None


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # (review) a program's own build step is no package build
        (["Failed to build engine"], "unknown", "compile"),
        # (a program's own sentence, or a thing of two words, is no package either)
        (
            [
                "Failed to build the chat prompt. The input is too long for the available "
                "context length."
            ],
            "unsupported_config",
            "unknown",
        ),
        (["Failed to build acceleration structure"], "unknown", "unknown"),
        # (review) pip's summary naming several packages
        (["Failed to build flash-attn grouped_gemm"], "env_mismatch", "compile"),
        # (review) GStreamer's element error, recorded at its warning level
        (
            [
                "0:00:00.040629425 12345 0x55b2f0a3c400 WARN  basesrc gstbasesrc.c:3072:"
                "gst_base_src_loop:<filesrc0> error: Internal data stream error."
            ],
            "unknown",
            "unknown",
        ),
        # (review) the error a CPU run dies of, after TensorFlow skipped the GPU
        (
            [
                "W tensorflow/core/common_runtime/gpu/gpu_device.cc:1960] Cannot dlopen some GPU "
                "libraries. Please make sure the missing libraries mentioned above are installed "
                "properly if you would like to use GPU.",
                "Skipping registering GPU devices...",
                "Epoch 1/10",
                "ValueError: Shapes (None, 10) and (None, 1) are incompatible",
            ],
            "unsupported_config",
            "unknown",
        ),
        # (review) an option's alignment is a configuration's; a device type refused too
        (
            ["ValueError: --swap-space-alignment must be a multiple of 4096 bytes"],
            "unsupported_config",
            "startup",
        ),
        (
            ["RuntimeError: expected data_ptr to be aligned to 16 bytes"],
            "dispatch_failure",
            "unknown",
        ),
        (
            ["ValueError: The device is not supported. Expected one of ['cpu', 'cuda']"],
            "unsupported_config",
            "unknown",
        ),
        # (review) FFmpeg's NVENC wrapper, its calls without the API's prefix
        (
            ["[hevc_nvenc @ 0x5581] InitializeEncoder failed: invalid param (8): Invalid Level."],
            "unknown",
            "startup",
        ),
        (["[h264_nvenc @ 0x5581] EncodePicture failed!: generic error (20)"], "unknown", "execute"),
        # (review) NVRTC missing a header without an extension
        (
            ['default_program(2): catastrophic error: cannot open source file "type_traits"'],
            "env_mismatch",
            "compile",
        ),
    ],
)
def test_review_of_round123_readings(
    tmp_path: Path, lines: list[str], category: str, stage: str
) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    "lines",
    [
        # (review) optional CUDA ops and GPU acceleration, said to be optional
        [
            "UserWarning: Failed to import the compiled CUDA ops (No module named 'mmcv._ext'); "
            "build mmcv-full if you want to use CUDA ops.",
            "Epoch 1 loss 0.3",
        ],
        # (review) a metric after its tag
        ["val : Error rate: 0.123", "Epoch 2 done"],
    ],
)
def test_review_of_round123_quiet_lines(tmp_path: Path, lines: list[str]) -> None:
    assert classify_both(tmp_path, lines) is None


def test_review_of_round123_saved_model_call_is_no_load(tmp_path: Path) -> None:
    """(review) The SavedModel module also runs the loaded model's calls: only its ``load``
    function reads as loading."""
    lines = [
        "Traceback (most recent call last):",
        '  File "/x/tensorflow/python/saved_model/load.py", line 704, in _call_attribute',
        "    return instance.__call__(*args, **kwargs)",
        "tensorflow.python.framework.errors_impl.ResourceExhaustedError: Graph execution error:",
    ]
    classify_as(tmp_path, lines, "device_oom", "unknown")
