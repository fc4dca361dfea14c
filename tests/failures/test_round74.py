"""Mechanisms of the seventy-fourth round, tuned on ``fresh297/``, ``fresh299/``, ``fresh301/``,
``fresh303/`` (kept unread through round 73) and ``fresh304/``, ``fresh306/``, ``fresh308/``,
``fresh310/`` (measured before reading with round 73); ``fresh305/``, ``fresh307/``,
``fresh309/``, ``fresh311/`` stay unread.

Formats: a Rust panic's backtrace (``  5: mistralrs_core::pipeline::Pipeline::step``) is read as
frames, the standard library's own frames left out. Categories, stages and no-failures in the
tests' own words; the lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # Go's runtime on Windows: the exception that stopped a cgo call, after the runner is up
        (
            [
                'time=2025-03-25T10:42:17 level=INFO source=server.go:619 msg="llama runner '
                'started in 0.75 seconds"',
                "Exception 0xc0000005 0x0 0x240 0x7ffc1d684ebe",
                "PC=0x7ffc1d684ebe",
                "signal arrived during external code execution",
            ],
            "engine_died",
            "execute",
        ),
        # an assertion that a needed setting was not given
        (
            [
                '  File "/env/gen/streaming.py", line 90, in begin_stream',
                '    assert settings.cfg_scale is not None, "No CFG scale set"',
                "AssertionError: No CFG scale set",
            ],
            "unsupported_config",
            "unknown",
        ),
        # a Rust panic, its backtrace read as frames (the standard library's left out)
        (
            [
                "thread '<unnamed>' panicked at core/src/pipeline/sampling.rs:303:26:",
                "Expected receiver.: SendError { .. }",
                "stack backtrace:",
                "   0: rust_begin_unwind",
                "   1: std::backtrace::Backtrace::capture",
                "   2: core::result::unwrap_failed",
                "   3: mistralrs_core::pipeline::Pipeline::step::{{closure}}",
                "   4: mistralrs_core::engine::Engine::run::{{closure}}",
            ],
            "unknown",
            "execute",
        ),
        # mistral.rs reading the files of a model
        (
            [
                "2024-08-16T12:25:08Z  INFO mistralrs_core::pipeline::normal: Loading "
                "`tokenizer_config.json` at `org/model`",
                "Error: unsupported dtype BF16 for op matmul",
            ],
            "dispatch_failure",
            "loading",
        ),
        # Android's Vulkan loader as an app sets its GPU up, then a crash
        (
            [
                "2019-11-06 10:48:38.099 22391-22407/com.example.demo D/vulkan: searching for "
                "layers in '/data/app/com.example.demo-2/lib/arm'",
                "2019-11-06 10:48:38.123 22391-22407/com.example.demo A/libc: Fatal signal 11 "
                "(SIGSEGV), code 1, fault addr 0x0 in tid 22407 (Net)",
            ],
            "engine_died",
            "startup",
        ),
        # torchelastic's agent stopping its workers on SIGHUP, in the middle of training
        (
            [
                " 59%|█████▊    | 1662/2840 [6:59:16<4:51:54, 14.87s/it]",
                "W1229 16:43:25.650000 190834 torch/distributed/elastic/agent/server/api.py:723] "
                "Received 1 death signal, shutting down workers",
            ],
            "engine_died",
            "execute",
        ),
        # older torch's words for the collective watchdog
        (
            [
                "RuntimeError: [Rank 1] Caught collective operation timeout: WorkNCCL(SeqNum=6, "
                "OpType=ALLREDUCE, Timeout(ms)=10800000) ran for 10800863 milliseconds"
            ],
            "nccl_error",
            "unknown",
        ),
        # OpenMMLab's registry asked for a type it does not hold
        (["KeyError: 'None is not in the detector registry'"], "unsupported_config", "startup"),
        # systemd-coredump's report of a crashed process
        (
            [
                "           PID: 1302516 (whisper-stream)",
                "        Signal: 11 (SEGV)",
                "       Message: Process 1302516 (whisper-stream) of user 1000 dumped core.",
            ],
            "engine_died",
            "unknown",
        ),
        # a ctypes binding that finds no native library, as its package is imported
        (
            [
                "Traceback (most recent call last):",
                '  File "/env/llama_cpp/llama_cpp.py", line 71, in _load_shared_library',
                "    raise FileNotFoundError(",
                "FileNotFoundError: Shared library with base name 'llama' not found",
            ],
            "env_mismatch",
            "startup",
        ),
        # torch's NCCL process group in a process that sees no GPU
        (
            ["RuntimeError: ProcessGroupNCCL is only supported with GPUs, no GPUs found!"],
            "env_mismatch",
            "startup",
        ),
        # Ultralytics' trainer setting itself up (the AMP flag broadcast from rank 0)
        (
            [
                '  File "/env/ultralytics/engine/trainer.py", line 323, in _do_train',
                "    self._setup_train(world_size)",
                '  File "/env/ultralytics/engine/trainer.py", line 268, in _setup_train',
                "    dist.broadcast(self.amp, src=0)",
                "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:3384, "
                "unhandled cuda error",
            ],
            "nccl_error",
            "startup",
        ),
        # the driver's entry points that cannot be had (CUDA error 34, a stub libcuda)
        (
            [
                "Warp CUDA error: Failed to get driver entry point 'cuDriverGetVersion' (CUDA "
                "error 34)"
            ],
            "env_mismatch",
            "startup",
        ),
        # a runtime naming the device it set up, then its memory pool out of memory
        (
            [
                "Using CUDA Device [0]: GeForce 940M",
                "[E 01/08/20 15:49:06.124] [unified_allocator.cpp:UnifiedAllocator@23] Cuda "
                "Error cudaErrorMemoryAllocation: out of memory",
            ],
            "device_oom",
            "startup",
        ),
        # a program's own word that its model is loaded, then a crash: the first forward pass
        (["Loaded model", "Segmentation fault (core dumped)"], "engine_died", "profile"),
        # XLA's collective waiting on the other participants
        (
            [
                "2021-06-01 12:09:19.912475: E xla/service/collective_ops_utils.h:209] This "
                "thread has been waiting for 5000ms for and may be stuck: participant for device "
                "ordinal 1"
            ],
            "timeout",
            "unknown",
        ),
        # a check that tolerates the runtime unloading names no shutdown
        (
            [
                "terminate called after throwing an instance of 'dmlc::Error'",
                "  what():  [10:34:37] /src/cuda_device_api.cc:103: Check failed: e == "
                "cudaSuccess || e == cudaErrorCudartUnloading: CUDA: an illegal memory access "
                "was encountered",
            ],
            "illegal_memory_access",
            "unknown",
        ),
        # Paddle Inference's predictor without its model file
        (
            [
                "NotFoundError: Cannot open file ./models/det/inference.pdmodel, please confirm "
                "whether the file is normal."
            ],
            "unsupported_config",
            "unknown",
        ),
    ],
)
def test_round74_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    "lines",
    [
        # a loader trying its ways in turn
        [
            "[2026-06-03 12:06:03] [Worker 3] Strategy rdma failed, trying next: No RDMA source",
            "[2026-06-03 12:06:24] Multi-thread loading shards:   0% Completed | 0/46",
        ],
        # a program that says it ignores an optional import that failed
        [
            "Ignore import error when loading sglang.srt.multimodal.processors.x: No module "
            "named 'transformers.models.x'",
            "[2025-10-30 10:00:00] server started",
        ],
        # a notice of a default, not a setting refused
        [
            "No language specified, language will be first be detected for each audio file.",
            "Transcribing...",
        ],
        # SIGTERM and SIGINT stop a job on purpose
        [
            "W1130 10:00:00.000000 1 torch/distributed/elastic/agent/server/api.py:723] Received "
            "15 death signal, shutting down workers"
        ],
    ],
)
def test_round74_no_failure(tmp_path: Path, lines: list[str]) -> None:
    assert classify_both(tmp_path, lines) is None
