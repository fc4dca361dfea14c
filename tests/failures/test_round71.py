"""Mechanisms of the seventy-first round, tuned on ``fresh277/``, ``fresh279/``, ``fresh281/``,
``fresh283/`` (measured before reading with rounds 69 and 70) and ``fresh286/``, ``fresh288/``,
``fresh290/``, ``fresh292/`` (measured before reading with round 70); ``fresh285/``,
``fresh287/``, ``fresh289/`` and ``fresh291/`` were measured apart and left unread.

Never "no failure": glog records of one length are no hard-wrapped paste (a record starts with
its glog header), so the line after them is read for itself (Triton's ``Signal (11)
received.``); an ``An exception has occurred:`` line; an abort line followed by gdb's
debuginfod chatter. Categories: nvcc too old for ``-arch=native``; Go's ``cmd.Wait() returned
error: signal: aborted`` of a supervised child; Metal's GPU hang; a pretty-printed JSON error's
``"message"`` field read as the message (torchelastic's error file); AITER's ``failed build jit``;
no compatible build of an extension for the GPU's compute capability; a model file named by its
path and not found; Triton's CUDA memory manager failing with the runtime's ``initialization
error``; a Rust panic keeps its place before the abort it causes; a timeout's repr as a logger
prints it. Stages: Triton's model lifecycle ``loading: m:1``, its ``load failed for model``;
torchelastic's ``Rendezvous...Error`` and torch's lazy CUDA set-up are starting; Dynamo's own
exceptions and its ``backend='inductor' raised:`` are a compile; Triton's backend library
initialisation (``TRITONBACKEND_Initialize``) names no stage. The lines are of our own, in the
shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both

_GLOG = (
    "I0101 10:00:0{} 4757 model_lifecycle.cc:636] \"successfully unloaded 'ensemble_m' version 1\""
)


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        (
            [
                _GLOG.format(1),
                'I0101 10:00:02 4757 model_lifecycle.cc:473] "loading: ensemble_m:1"',
                _GLOG.format(3),
                "Signal (11) received.",
                " 0# 0x0000561917CEF2F8 in tritonserver",
            ],
            "engine_died",
            "loading",
        ),
        # (a message no rule knows: shlex's "No closing quotation" is a refused command line)
        (["An exception has occurred: the pipeline stopped"], "unknown", "unknown"),
        (
            [
                "ggml_cuda_init: found 1 ROCm devices:",
                "/src/ggml/src/ggml-cuda/ggml-cuda.cu:75: ROCm error",
                "[New LWP 7410]",
                "This GDB supports auto-downloading debuginfo from the following URLs:",
                "  <https://debuginfod.example.org/>",
                "Enable debuginfod for this session? (y or [n]) [answered N; input not from "
                "terminal]",
                "Debuginfod has been disabled.",
                "To make this setting permanent, add 'set debuginfod enabled off' to .gdbinit.",
                "Function(s) ^std::(move|forward) will be skipped when stepping.",
            ],
            "unknown",
            "startup",
        ),
        (
            ["nvcc fatal   : Value 'native' is not defined for option 'gpu-architecture'"],
            "dispatch_failure",
            "compile",
        ),
        (
            [
                '[INFO] Request 10.0.0.1 "POST /upstream/m/infill HTTP/1.1" 502 41 "curl/8" 2ms',
                "[DEBUG] <m> cmd.Wait() returned error: signal: segmentation fault (core dumped)",
            ],
            "engine_died",
            "execute",
        ),
        (
            [
                "ggml_metal_synchronize: error: command buffer 0 failed with status 5",
                "error: Caused GPU Hang Error (00000003:kIOGPUCommandBufferCallbackErrorHang)",
            ],
            "timeout",
            "unknown",
        ),
        (
            [
                "ERROR:torch.distributed.elastic.multiprocessing.errors.error_handler:{",
                '  "message": {',
                '    "message": "RendezvousTimeoutError: ",',
                '    "extraInfo": {',
            ],
            "timeout",
            "startup",
        ),
        (
            [
                "torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The "
                "connection to the C10d store has failed."
            ],
            "nccl_error",
            "startup",
        ),
        (
            [
                "[aiter] start build [module_rmsnorm] under /opt/aiter/jit/build/module_rmsnorm",
                "[aiter] failed build jit [module_rmsnorm]",
            ],
            "env_mismatch",
            "compile",
        ),
        (
            ["OSError: Could not find compatible fusedmlp extension for compute capability 61."],
            "dispatch_failure",
            "unknown",
        ),
        (
            [
                "E0101 10:00:00.000001 1 model_lifecycle.cc:621] failed to load 'resnet' version "
                "1: Unavailable: unable to find '/models/resnet/1/model.onnx' for model instance "
                "'resnet'"
            ],
            "unsupported_config",
            "loading",
        ),
        (
            [
                "I0101 10:00:00.000001 1 onnxruntime.cc:1830] TRITONBACKEND_Initialize: onnx",
                "E0101 10:00:00.000002 1 server.cc:182] Failed to initialize CUDA memory manager: "
                "unable to get number of CUDA devices: initialization error",
            ],
            "env_mismatch",
            "startup",
        ),
        (
            [
                "E0101 10:00:00.000001 1 pinned_memory_manager.cc:1] failed to allocate pinned "
                "system memory: CUDA driver version is insufficient for CUDA runtime version"
            ],
            "env_mismatch",
            "startup",
        ),
        (
            [
                "[Model Analyzer] Model m_config_0 load failed: [StatusCode.INVALID_ARGUMENT] load "
                "failed for model 'm_config_0': version 1 is at UNAVAILABLE state"
            ],
            "unknown",
            "loading",
        ),
        (
            [
                "[address=0.0.0.0:45545, pid=2324] CUDA call failed lazily at initialization with "
                "error: device >= 0 && device < num_gpus INTERNAL ASSERT FAILED"
            ],
            "unknown",
            "startup",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "train.py", line 10, in <module>',
                "    loss = model(x)",
                "torch._dynamo.exc.TorchRuntimeError: Failed running call_function <built-in "
                "function getitem>(*(FakeTensor(..., device='cuda:0', size=(8, 4)),), **{}):",
            ],
            "unknown",
            "compile",
        ),
        (
            [
                "ERROR 10-12 22:21:31 client.py:244] TimeoutError('No heartbeat received from "
                "MQLLMEngine')",
                "ERROR 10-12 22:21:31 client.py:244] NoneType: None",
            ],
            "timeout",
            "unknown",
        ),
        (
            [
                "thread 'main' panicked at src/pipeline/auto.rs:179:31:",
                'File "config.json" not found at model id "/models/m"',
                "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
                "zsh: abort      ./server -m /models/m",
            ],
            "unsupported_config",
            "unknown",
        ),
        (
            [
                "SamplerNode",
                "backend='inductor' raised:",
                "OutOfMemoryError: Allocation on device",
            ],
            "device_oom",
            "compile",
        ),
    ],
)
def test_round71_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_a_record_header_is_no_wrapped_piece(tmp_path: Path) -> None:
    """Lines of one length followed by glog records are no paste cut at that width: each record
    stays a line of its own."""
    lines = [_GLOG.format(n) for n in range(1, 4)] + ["Signal (6) received."]
    failure = classify_both(tmp_path, lines)
    assert failure is not None
    assert failure.first_error == "Signal (6) received."
    assert failure.line == 4


def test_a_message_field_of_a_healthy_record_is_no_error(tmp_path: Path) -> None:
    lines = ["{", '  "message": "Model loaded in 2.1 s",', '  "status": "ok"', "}"]
    assert classify_both(tmp_path, lines) is None
