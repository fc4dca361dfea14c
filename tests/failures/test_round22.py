"""Mechanisms of the twenty-second round (tuned on fresh56-fresh59): IPython's tracebacks, a
wrapper's method beside the traceback it announces, the same unknown error told again by a
wrapper, a method's wrapper read after the traceback's own frames, and wordings of JAX, cuDNN,
c10, NCCL, model files, servers and trainers. The lines are of our own, in the shapes the tools
print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both

from pytest_blackwell.failures.lineshapes import is_frame, is_header


def test_ipython_tracebacks_are_tracebacks_not_errors(tmp_path: Path) -> None:
    lines = [
        "Building extension module fused_op...",
        "-" * 75,
        "CalledProcessError                        Traceback (most recent call last)",
        "~/lib/python3.10/site-packages/torch/utils/cpp_extension.py in _run_ninja_build(d, v)",
        "   1672             check=True,",
        "-> 1673             env=env)",
        "",
        "/usr/lib/python3.10/subprocess.py in run(input, timeout, check, *popenargs, **kwargs)",
        "--> 438                                      output=stdout, stderr=stderr)",
    ]
    # the frame naming a timeout argument is no timeout; torch's ninja build failing is a JIT
    # build's failure (env_mismatch) while compiling
    failure = classify_as(tmp_path, lines, "env_mismatch", "compile")
    assert failure.evidence["category"] == "frame _run_ninja_build"
    assert is_header(lines[2])
    assert is_frame(lines[3])
    assert is_frame(lines[5])
    assert not is_frame("RuntimeError: in run(x)")


def test_a_worker_wrapper_before_a_traceback_names_its_method(tmp_path: Path) -> None:
    message = "Unexpected key in the worker state. To continue, remove the stale state"
    lines = [
        f"(Worker pid=5) ERROR 01-19 03:55:24 utils.py:233] RuntimeError: {message}",
        "(Worker pid=7) INFO 01-19 03:55:24 utils.py:218] Worker ready; awaiting tasks",
        f"(Worker pid=7) ERROR 01-19 03:55:24 utils.py:233] Exception in worker Worker while "
        f"processing method init_device: {message}, Traceback (most recent call last):",
        '(Worker pid=7) ERROR 01-19 03:55:24 utils.py:233]   File "/x/worker.py", line 9, in run',
    ]
    failure = classify_as(tmp_path, lines, "unknown", "startup")
    assert failure.evidence["stage"] == "frame init_device (traceback after the error)"
    # the wrapper's words before the header, not a method named inside the message
    plain = [lines[0], lines[1], lines[2].replace("while processing method init_device", "")]
    classify_as(tmp_path, plain, "unknown", "unknown")


def test_a_methods_wrapper_is_read_after_the_tracebacks_own_frames(tmp_path: Path) -> None:
    lines = [
        "Method Warmup encountered an error.",
        "Traceback (most recent call last):",
        '  File "/srv/server/models/causal_lm.py", line 775, in warmup',
        "    set_cache_manager(blocks)",
        '  File "/srv/server/models/cache_manager.py", line 29, in __init__',
        "    self.kv_cache = [torch.empty(shape) for _ in range(layers)]",
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 320.00 MiB.",
    ]
    classify_as(tmp_path, lines, "kv_cache_oom", "kv_alloc")


@pytest.mark.parametrize(
    ("line", "category", "stage"),
    [
        (
            "RuntimeError: Backend 'cuda' failed to initialize: Unable to use CUDA because of the "
            "following issues with CUDA components: Outdated cuDNN installation found.",
            "env_mismatch",
            "startup",
        ),
        (
            "Exception during initialization: cuda_call.cc:129 CUDNN failure 1001: "
            "CUDNN_STATUS_NOT_INITIALIZED ; GPU=0 ; expr=cudnnCreate(&cudnn_handle_);",
            "env_mismatch",
            "startup",
        ),
        (
            "Exception raised from ncclCommWatchdog at ../torch/csrc/distributed/c10d/"
            "ProcessGroupNCCL.cpp:1186 (most recent call first):",
            "nccl_error",
            "unknown",
        ),
        (
            "gguf_init_from_file: invalid magic characters 'tjgg', expected 'GGUF'",
            "unsupported_config",
            "loading",
        ),
        (
            "[TensorRT] ERROR: coreReadArchive.cpp (31) - Serialization Error in verifyHeader: 0 "
            "(Magic tag does not match)",
            "unsupported_config",
            "loading",
        ),
        (
            "[W] Unhandled exception caught in c10/util/AbortHandler.h",
            "engine_died",
            "unknown",
        ),
        (
            "fastapi.exceptions.HTTPException: 500: Error transcribing chunk: This CTranslate2 "
            "package was not compiled with CUDA support",
            "env_mismatch",
            "execute",
        ),
        (
            "Error: 500 Internal Server Error: llama runner process has terminated: exit status 2",
            "engine_died",
            "execute",
        ),
        (
            "Error while invoking session 4f, invocation 28 (text_encoder): CUDA error: no kernel "
            "image is available for execution on the device",
            "dispatch_failure",
            "execute",
        ),
        (
            # (round 70: CUDA that cannot be set up at all is env_mismatch, whatever the reason)
            "whisper_init: ggml_cuda_init: failed to initialize CUDA: unknown error",
            "env_mismatch",
            "startup",
        ),
    ],
)
def test_wordings_of_round22(tmp_path: Path, line: str, category: str, stage: str) -> None:
    classify_as(tmp_path, [line], category, stage)


@pytest.mark.parametrize(
    ("before", "stage"),
    [
        ("slot 0 is processing [task id: 0]", "execute"),
        ("INFO moshi_server: warming-up the asr", "warmup"),
        # a warm-up step in a configuration dump is no warm-up going on
        ("config: warmup_steps=100, lr=0.001", "unknown"),
    ],
)
def test_activity_of_round22(tmp_path: Path, before: str, stage: str) -> None:
    classify_as(tmp_path, [before, "CUDA error: an illegal memory access was encountered"],
                "illegal_memory_access", stage)  # fmt: skip


def test_a_server_answering_5xx_is_never_silent_and_replaces_nothing(tmp_path: Path) -> None:
    gin = '[GIN] 2024/12/11 - 09:58:58 | 500 |  29m59s |  127.0.0.1 | POST     "/api/chat"'
    classify_as(tmp_path, [gin], "unknown", "execute")
    ok = gin.replace("| 500 |", "| 200 |")
    assert classify_both(tmp_path, [ok, ok]) is None
    cause = "llama.go:459: error starting llama runner: llama runner process has terminated"
    failure = classify_both(tmp_path, [cause, gin])
    assert failure is not None
    assert failure.category == "engine_died"


def test_a_warning_of_unexpected_results_is_no_failure(tmp_path: Path) -> None:
    line = (
        "Sliding Window Attention is enabled but not implemented for `sdpa`; unexpected results "
        "may be encountered."
    )
    assert classify_both(tmp_path, [line, "Loading checkpoint shards: 100%|##| 2/2"]) is None


@pytest.mark.parametrize(
    "path",
    [
        "/x/site-packages/triton/backends/nvidia/compiler.py",
        "/x/site-packages/torch/utils/cpp_extension.py",
    ],
)
def test_jit_build_paths_are_compile(tmp_path: Path, path: str) -> None:
    lines = [
        "Traceback (most recent call last):",
        f'  File "{path}", line 12, in helper',
        "    subprocess.run(cmd, check=True)",
        "RuntimeError: the tool returned a non-zero exit status",
    ]
    classify_as(tmp_path, lines, "unknown", "compile")
