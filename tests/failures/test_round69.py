"""Mechanisms of the sixty-ninth round, tuned on ``fresh259/``, ``fresh261/``, ``fresh263/``,
``fresh265/`` (measured twice before) and ``fresh266/``, ``fresh268/``, ``fresh270/``,
``fresh272/`` (measured before reading with round 68); ``fresh267/``, ``fresh269/``,
``fresh271/`` and ``fresh273/`` were measured apart and left unread.

Never "no failure": a Windows launcher's pause in its own language right after a progress bar
(``请按任意键继续``). Categories: ENOMEM by its number (``errno=12``), ROCm's and HIP's runtime
out of memory, Metal's status code 8 with its name cut, OpenCL's buffer too large; a relay that
names the error that ended the runner (``process has terminated: GGML_ASSERT(...) failed``) is
that error's; an extension's ``Not compiled with GPU support``, torch's ``cudaGetDeviceCount()
returned cudaError...`` and ggml's Metal backend failing to set up are ``env_mismatch``; HIP's
module load failing on a code object (``shared object initialization failed``) and TensorRT's
``no supported formats`` are ``dispatch_failure``; whisper.cpp's ``not all tensors loaded`` and a
loaded tensor's size asserted against the model's are ``unsupported_config``; c10d's store
waiting too long while the NCCL id is fetched is a timeout; a process pool's worker
``terminated abruptly`` is a death; faulthandler's ``Timeout (0:02:00)!`` is a hang. Stages: a
printed error line that ends in a colon keeps the lines after it (its message); Slurm's task
label in front of a traceback's lines; the Hub being synchronised is loading; TensorRT's tactic
timing and INT8 calibration and LLVM's ``compilation aborted`` are compile; torch's warning at
exit about ``destroy_process_group()`` is the shutdown. The lines are of our own, in the shapes
the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        (
            [
                "Loading checkpoint shards:  25%|##5       | 1/4 [00:01<00:03,  1.20s/it]"
                "请按任意键继续. . .",
            ],
            "engine_died",
            "unknown",
        ),
        (
            [
                "Load model error: Failed to initialize engine: Unable to map file to memory "
                "buffer, errno=12",
            ],
            "device_oom",
            "loading",
        ),
        (
            ["amdgpu 0000:03:00.0: amdgpu: 000000004a1b pin failed", "ROCm error: out of memory"],
            "device_oom",
            "unknown",
        ),
        (
            [
                "[ERROR] backend.cpp:84 - ggml_metal_synchronize: error: command buffer 0 failed",
                "[ERROR] backend.cpp:84 - error: Insufficient Memory (00000008:kIOGPUCommandBuf",
            ],
            "device_oom",
            "unknown",
        ),
        (
            [
                "runtime/opencl/opencl_device_api.cc:238: InternalError: Check failed: (err == "
                "CL_SUCCESS) is false: OpenCL Error, code=-61: CL_INVALID_BUFFER_SIZE",
            ],
            "device_oom",
            "unknown",
        ),
        (
            [
                "Error: llama runner process has terminated: GGML_ASSERT(tensor->op == "
                "GGML_OP_UNARY) failed",
            ],
            "unknown",
            "unknown",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "ops/nms.py", line 20, in nms',
                "    return ext.nms(boxes, scores, thr)",
                "RuntimeError: Not compiled with GPU support",
            ],
            "env_mismatch",
            "unknown",
        ),
        (
            [
                "/opt/torch/cuda/__init__.py:1113: UserWarning: cudaGetDeviceCount() returned "
                "cudaErrorNotSupported, likely using older driver or on CPU machine",
            ],
            "env_mismatch",
            "startup",
        ),
        (
            [
                "whisper_init_from_file: loading model from 'models/ggml-base.bin'",
                'ggml_metal_init: error: Error Domain=MTLLibraryErrorDomain Code=3 "program_'
                "source:61:35: error: unknown type name 'block_q8_0'\"",
            ],
            "env_mismatch",
            "startup",
        ),
        (
            [
                "src/runtime/rocm/rocm_module.cc:110: ROCM HIP Error: hipModuleLoadData(&module, "
                "data) failed with error: shared object initialization failed",
            ],
            "dispatch_failure",
            "unknown",
        ),
        (
            [
                "[E] Error[2]: [optimizer.cpp::getFormatRequirements::3815] Error Code 2: "
                "Internal Error (Assertion !n->candidateRequirements.empty() failed. no "
                "supported formats)",
            ],
            "dispatch_failure",
            "compile",
        ),
        (
            [
                "whisper_model_load: loading model",
                "whisper_model_load: ERROR not all tensors loaded from model file - expected "
                "245, got 80",
            ],
            "unsupported_config",
            "loading",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "model_executor/models/llama.py", line 400, in load_weights',
                "    weight_loader(param, loaded_weight)",
                '  File "model_executor/layers/vocab_parallel_embedding.py", line 9, in '
                "weight_loader",
                "    assert loaded_weight.shape[output_dim] == self.org_vocab_size",
                "AssertionError",
            ],
            "unsupported_config",
            "loading",
        ),
        (
            [
                "torch.distributed.DistBackendError: [1] is setting up NCCL communicator and "
                "retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but "
                "store->get('0') got error: wait timeout after 600000ms",
            ],
            "timeout",
            "startup",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "/usr/lib/python3.11/concurrent/futures/_base.py", line 456, in result',
                "    return self.__get_result()",
                "concurrent.futures.process.BrokenProcessPool: A process in the process pool "
                "was terminated abruptly while the future was running or pending.",
            ],
            "engine_died",
            "unknown",
        ),
        (
            [
                "Timeout (0:05:00)!",
                "Thread 0x00007f1b2c4e5740 (most recent call first):",
                '  File "/usr/lib/python3.11/threading.py", line 320 in wait',
            ],
            "timeout",
            "unknown",
        ),
        (
            [
                "An error occured while synchronizing the model org/model-small from the Hub:",
                "Connection to huggingface.co timed out. (connect timeout=10)",
            ],
            "timeout",
            "loading",
        ),
        (
            [
                '3:   File "train.py", line 92, in train',
                "3:     optimizer.step()",
                "3: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
            ],
            "device_oom",
            "execute",
        ),
        (
            [
                "[10/01/2023-12:00:00] [W] [TRT] Calibration table not found",
                "[10/01/2023-12:00:01] [E] [TRT] 1: [calibrator.cpp::add::779] Error Code 1: "
                "Cuda Runtime (an illegal memory access was encountered)",
            ],
            "illegal_memory_access",
            "compile",
        ),
        (
            [
                "in function triton_kernel",
                "LLVM ERROR: Broken function found, compilation aborted!",
            ],
            "unknown",
            "compile",
        ),
        (
            [
                "Train: 100%|##########| 10/10 [01:00<00:00,  6.00s/it]",
                "[rank0]:[W1001 12:00:00.000 ProcessGroupNCCL.cpp:1496] Warning: WARNING: "
                "destroy_process_group() was not called before program exit, which can leak "
                "resources.",
                "E1001 12:01:00.000 12 torch/distributed/elastic/multiprocessing/api.py:869] "
                "failed (exitcode: -6) local_rank: 0 (pid: 47) of binary: /usr/bin/python",
            ],
            "engine_died",
            "shutdown",
        ),
    ],
)
def test_round69_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_a_loggers_record_ending_in_a_colon_stands_alone(tmp_path: Path) -> None:
    """Only a printed line keeps the lines after it as its message: a logger's record at an
    error level is followed by records of their own (vLLM's scheduler dump)."""
    lines = [
        "ERROR 06-15 13:57:57 [dump_input.py:79] Dumping scheduler output for model execution:",
        "ERROR 06-15 13:57:57 [dump_input.py:80] SchedulerOutput(scheduled_new_reqs=[])",
        "ERROR 06-15 13:57:57 [core.py:517] EngineCore encountered a fatal error.",
    ]
    failure = classify_both(tmp_path, lines)
    assert failure is not None
    assert failure.first_error.startswith("Dumping scheduler output")
    assert failure.category == "unknown"


def test_an_enomem_of_a_drivers_probe_at_boot_is_no_allocation(tmp_path: Path) -> None:
    """Only a runtime's errno names an allocation: the kernel's probe failing with -12 at boot
    is a driver event."""
    lines = [
        "[    5.408787] amdgpu 0000:03:00.0: amdgpu: Fatal error during GPU init",
        "[    5.408790] amdgpu 0000:03:00.0: probe with driver amdgpu failed with error -12",
    ]
    failure = classify_both(tmp_path, lines)
    assert failure is not None
    assert failure.category == "unknown"


def test_a_runner_that_ended_with_its_exit_status_is_a_death(tmp_path: Path) -> None:
    """The relay names no error of its own when it gives only the exit status."""
    lines = ["Error: llama runner process has terminated: exit status 0xc0000409"]
    failure = classify_both(tmp_path, lines)
    assert failure is not None
    assert failure.category == "engine_died"


@pytest.mark.parametrize(
    "lines",
    [
        ["config:", "Timeout: 30s", "Retries: 3", "INFO starting server", "INFO ready"],
        ["Settings:", "  model: llama", "Timeout: 1800", "Starting server", "Server ready"],
        ["config:", "requestTimeout: 0:30:00", "INFO ready", "INFO serving"],
    ],
)
def test_timeout_settings_are_no_timeout(tmp_path: Path, lines: list[str]) -> None:
    """A setting and its value, whatever its unit, near the end of a log or not."""
    assert classify_both(tmp_path, lines) is None


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # (the review of rounds 68 and 69: each case was read wrongly before its fix)
        (
            [
                "[E] [executionContext.cpp::initializeExecutionContext::625] Error Code 2: "
                "OutOfMemory (Requested size was 20132809216 bytes.)",
            ],
            "device_oom",
            "loading",
        ),
        (
            [
                "Loading checkpoint shards:  25%|##5  | 1/4 [00:01<00:03,  1.20s/it] "
                "请按任意键继续. . ."
            ],
            "engine_died",
            "unknown",
        ),
        (
            ["Error: llama runner process has terminated: error loading model: missing tensor"],
            "unsupported_config",
            "loading",
        ),
        (["Error in roi_align_forward: Not compiled with GPU support"], "env_mismatch", "unknown"),
        (
            [
                "Error: could not read optional config file:",
                "  using defaults",
                "Loading model",
                "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
            ],
            "device_oom",
            "loading",
        ),
        (
            [
                "Error occurred when executing SpeechNode:",
                "",
                "cudaMallocAsync does not yet support checkPoolLiveAllocations.",
            ],
            "unsupported_config",
            "execute",
        ),
        (
            [
                "thread 'main' panicked at src/main.rs:12:5:",
                "index out of bounds: the len is 3 but the index is 7",
            ],
            "unknown",
            "unknown",
        ),
    ],
)
def test_review_of_rounds_68_and_69(
    tmp_path: Path, lines: list[str], category: str, stage: str
) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_an_environment_that_does_not_fit_is_no_settings_refusal(tmp_path: Path) -> None:
    """``not compatible with`` a driver, a build or a GPU is no configuration's refusal."""
    for text in (
        "RuntimeError: The installed NVIDIA driver is not compatible with CUDA 12.4",
        "RuntimeError: this wheel is not compatible with this GPU (sm_120)",
    ):
        failure = classify_both(tmp_path, [text])
        assert failure is not None
        assert failure.category != "unsupported_config", failure
