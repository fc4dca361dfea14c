"""Mechanisms of the hundred-and-sixteenth round, tuned on the read half of the forty-sixth
batch (fine-tuning stacks, SGLang of 2026, JAX on NVIDIA GPUs, multi-node serving).

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # an exception only said to have happened, its traceback lost
        (["[TP1] Scheduler hit an exception:"], "unknown", "unknown"),
        (["Worker encountered an unexpected exception."], "unknown", "unknown"),
        # Dynamo's advice closing an error's message, the exception's line cut above it
        (
            [
                '  File "/srv/model.py", line 40, in forward',
                "    return self.proj(x)",
                "",
                "Set TORCHDYNAMO_VERBOSE=1 for the internal stack trace (please do this especially "
                "if you're reporting a bug to PyTorch).",
            ],
            "unknown",
            "compile",
        ),
        # JAX unable to set its CUDA backend up, at INFO, then on the CPU
        (
            [
                "INFO:jax._src.xla_bridge:Unable to initialize backend 'cuda': INTERNAL: no "
                "supported devices found for platform CUDA"
            ],
            "env_mismatch",
            "startup",
        ),
        (
            [
                "I0101 10:00:00.000000 1 xla_bridge.py:500] Unable to initialize backend 'cuda': "
                "FAILED_PRECONDITION: No visible GPU devices.",
                "W0101 10:00:00.000100 1 xla_bridge.py:510] An NVIDIA GPU may be present on this "
                "machine, but a CUDA-enabled jaxlib is not installed. Falling back to cpu.",
            ],
            "env_mismatch",
            "startup",
        ),
        # a backend checked against the GPU as it is chosen
        (
            [
                "ValueError: FlashMLA backend is only supported on Hopper GPUs (SM90). Please use "
                "another attention backend."
            ],
            "dispatch_failure",
            "unknown",
        ),
        # CUDA required and not there; a CUDA library that cannot be loaded, by its name
        (
            ["RuntimeError: CUDA is required but not available for this package."],
            "env_mismatch",
            "unknown",
        ),
        (["RuntimeError: Unable to load cuFFT. Is it installed?"], "env_mismatch", "unknown"),
        # JAX's plugin set-up failing, its traceback cut
        (
            [
                "ERROR:2026-01-02 10:00:00,000:jax._src.xla_bridge:444: Jax plugin configuration "
                "error: Exception when calling jax_plugins.xla_cuda13.initialize()",
                "Traceback (most recent call last):",
            ],
            "unknown",
            "startup",
        ),
        # a watchdog that got no answer for a while
        (
            [
                "Health check failed. Server couldn't get a response from tokenizer for last "
                "30 seconds"
            ],
            "timeout",
            "unknown",
        ),
        # Ray's autoscaler finding no node for what was asked
        (
            [
                "(autoscaler +5s) Error: No available node types can fulfill resource request "
                "{'GPU': 8.0}. Add suitable node types to this cluster to resolve this issue."
            ],
            "unsupported_config",
            "unknown",
        ),
        # a limit a setting goes past, as a log's last line
        (["Placement group bundle cannot have more than 2 GPUs."], "unsupported_config", "unknown"),
        # XLA picking a cuDNN convolution algorithm: its autotuner, compiling
        (
            [
                "jaxlib.xla_extension.XlaRuntimeError: UNKNOWN: Failed to determine best cudnn "
                "convolution algorithm for: %cudnn-conv = (f32[1,64,56,56]{3,2,1,0}) custom-call("
            ],
            "unknown",
            "compile",
        ),
    ],
)
def test_round116_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    "lines",
    [
        # JAX probing platforms its build does not have, and the TPU, as every start does
        [
            "INFO:jax._src.xla_bridge:Unable to initialize backend 'rocm': NOT_FOUND: Could not "
            'find registered platform with name: "rocm". Available platform names are: CUDA',
            "INFO:jax._src.xla_bridge:Unable to initialize backend 'tpu': INTERNAL: Failed to "
            "open libtpu.so: libtpu.so: cannot open shared object file: No such file or directory",
            "step 1 loss 2.31",
        ],
        # a handler that caught an exception and went on, at a quiet level
        ["WARNING: request handler caught an exception, retrying", "request served"],
        # (review) a handler's plain words that it raised one, then a retry that served
        ["request handler raised an exception", "retrying in 1s", "request served in 0.2s"],
        # (review) a test skipped for the hardware, in pytest's summary
        [
            "tests/gemm/test_bmm_fp8.py::test_bmm_fp8[cudnn] PASSED",
            "SKIPPED [4] tests/gemm/test_bmm_fp8.py:20: bmm_fp8 with cutlass backend is only "
            "supported on SM100, SM110, and SM120/121 GPUs.",
            "==== 40 passed, 4 skipped in 12.31s ====",
        ],
        # (review) JAX at DEBUG, and a backend its configuration does not list
        ["DEBUG:jax._src.xla_bridge:Unable to initialize backend 'cuda': INTERNAL: no devices"],
        [
            "INFO:jax._src.xla_bridge:Unable to initialize backend 'cuda': Backend 'cuda' is not "
            "in the list of known backends: ['cpu', 'tpu'].",
            "step 1 loss 2.31",
        ],
    ],
)
def test_the_new_words_raise_no_false_alarm(tmp_path: Path, lines: list[str]) -> None:
    assert classify_both(tmp_path, lines) is None


def test_a_header_that_says_an_exception_was_hit_keeps_its_traceback(tmp_path: Path) -> None:
    """SGLang's "Scheduler hit an exception: Traceback ..." opens the traceback below it: the
    frames there still tell the stage; the header is not the error."""
    failure = classify_both(
        tmp_path,
        [
            "[2026-01-02 10:00:00 TP0] Scheduler hit an exception: Traceback (most recent call "
            "last):",
            '  File "/sgl/python/sglang/srt/model_executor/cuda_graph_runner.py", line 300, in '
            "capture",
            "    self.capture_one_batch_size(bs, forward)",
        ],
    )
    assert failure is not None
    assert failure.stage == "graph_capture"


def test_a_backend_only_for_an_operating_system_is_no_missing_kernel(tmp_path: Path) -> None:
    failure = classify_both(tmp_path, ["ValueError: The NCCL backend is only supported on Linux."])
    assert failure is not None
    assert failure.category != "dispatch_failure"


def test_a_backend_check_raised_mid_run_keeps_the_run_s_stage(tmp_path: Path) -> None:
    """(review) FlashInfer checks the GPU when its kernel is called: a check raised after the
    run's steps is no start-up; the rule names no stage of its own."""
    classify_as(
        tmp_path,
        [
            "step 10 loss 2.31",
            "Traceback (most recent call last):",
            '  File "/w/train.py", line 5, in train_step',
            "    out = bmm_fp8(a, b)",
            "ValueError: cutlass backend is only supported on SM100, SM103, SM110, SM120, SM121",
        ],
        "dispatch_failure",
        "execute",
    )


@pytest.mark.parametrize(
    "line",
    [
        "RuntimeError: MPS backend is only supported on MacOS 14.0+",
        "ValueError: The IPEX backend is only supported on x86 CPUs.",
        "ValueError: This backend is only supported on non-Windows platforms.",
    ],
)
def test_a_backend_only_for_a_system_or_host_cpu_is_no_missing_kernel(
    tmp_path: Path, line: str
) -> None:
    """(review) an operating system or a host CPU in any case is no GPU without a kernel."""
    failure = classify_both(tmp_path, [line])
    assert failure is not None
    assert failure.category != "dispatch_failure"


def test_ray_s_wait_for_a_node_does_not_hide_the_later_error(tmp_path: Path) -> None:
    """(review) Ray's autoscaler says it has no node for a request while it waits; when the
    cluster grows and the job runs, the error after it is the failure, at its own stage."""
    classify_as(
        tmp_path,
        [
            "(autoscaler +5s) Error: No available node types can fulfill resource request "
            "{'GPU': 8.0}. Add suitable node types to this cluster to resolve this issue.",
            "(autoscaler +1m) Resized to 64 CPUs, 8 GPUs.",
            "(TrainWorker pid=1234) step 1 loss 2.31",
            "(TrainWorker pid=1234) torch.distributed.DistBackendError: NCCL error in: "
            "ProcessGroupNCCL.cpp:1970, unhandled cuda error",
        ],
        "nccl_error",
        "execute",
    )
