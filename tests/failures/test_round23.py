"""Mechanisms of the twenty-third round: the error vocabularies that libraries document, read
whole rather than as they happened to appear in the corpus. Each CUDA runtime error string (as
``cudaGetErrorString`` words it), its enum name in the runtime and the driver API, and the status
names of the CUDA math libraries and of CUTLASS map to the category their documentation gives
them. The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both

#: (category, what the runtime, a binding or a check macro prints)
DOCUMENTED = [
    # kernel exceptions that leave the context unusable
    ("illegal_memory_access", "RuntimeError: CUDA error: invalid program counter"),
    ("illegal_memory_access", "RuntimeError: CUDA error: hardware stack error"),
    (
        "illegal_memory_access",
        "RuntimeError: CUDA error: operation not supported on global/shared address space",
    ),
    ("illegal_memory_access", "Triton Error [CUDA]: CUDA_ERROR_HARDWARE_STACK_ERROR"),
    (
        "illegal_memory_access",
        'kernel.cu:40 code=718(cudaErrorInvalidPc) "cudaDeviceSynchronize()"',
    ),
    ("illegal_memory_access", "HIP error: hipErrorLaunchFailure"),
    # per-block resources, the driver's watchdog
    ("smem_limit", "Triton Error [CUDA]: CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"),
    ("smem_limit", 'main.cu:12 code=701(cudaErrorLaunchOutOfResources) "cudaGetLastError()"'),
    ("timeout", "Triton Error [CUDA]: CUDA_ERROR_LAUNCH_TIMEOUT"),
    # stream capture
    (
        "stream_capture",
        "RuntimeError: CUDA error: capture sequence contains a fork that was not joined to the "
        "primary stream",
    ),
    # no device, no driver piece, a library of another version
    ("env_mismatch", 'main.cu:12 code=100(cudaErrorNoDevice) "cudaGetDeviceCount(&n)"'),
    ("env_mismatch", "E0101 cuda_driver.cc:282] failed to create context: CUDA_ERROR_NO_DEVICE"),
    ("env_mismatch", "RuntimeError: CUDA error: PTX JIT compiler library not found"),
    ("env_mismatch", 'main.cu:12 code=222(cudaErrorUnsupportedPtxVersion) "cudaGetLastError()"'),
    ("env_mismatch", "RuntimeError: cuDNN error: CUDNN_STATUS_VERSION_MISMATCH"),
    ("env_mismatch", "RuntimeError: cuDNN error: CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH"),
    # torch's extension builder before it builds
    ("env_mismatch", "RuntimeError: Ninja is required to load C++ extensions"),
    ("env_mismatch", "OSError: CUDA_HOME environment variable is not set. Please set it to your"),
    (
        "env_mismatch",
        "RuntimeError: The detected CUDA version (11.8) mismatches the version that was used to "
        "compile PyTorch (12.1). Please make sure to use the same CUDA versions.",
    ),
    # TGI's launcher: a shard that never came up (a wrapper: a cause above replaces it)
    ("engine_died", "Error: ShardCannotStart"),
    # no kernel for this architecture
    ("dispatch_failure", 'main.cu:12 code=98(cudaErrorInvalidDeviceFunction) "cudaGetLastError()"'),
    ("dispatch_failure", "RuntimeError: CUSPARSE_STATUS_ARCH_MISMATCH when calling `cusparseSpMM`"),
    ("dispatch_failure", "RuntimeError: CUTLASS kernel failed: Error Arch Mismatch"),
    ("dispatch_failure", "RuntimeError: Expected is_sm80 || is_sm90 to be true, but got false."),
    # ptxas: shared data per block, local data per thread (its stack frame), over the limit
    ("smem_limit", "error: too much shared data (0x19000 bytes, 0xc000 max)"),
    ("smem_limit", "ptxas error   : Entry function 'k' uses too much local data (0x20000 bytes)"),
    (
        "env_mismatch",
        "RuntimeError: Attempting to deserialize object on a CUDA device but "
        "torch.cuda.is_available() is False. If you are running on a CPU-only machine, ...",
    ),
    (
        "dispatch_failure",
        "rocBLAS error: Cannot read /x/TensileLibrary.dat: No such file or "
        "directory for GPU arch : gfx1103",
    ),
    # the kernel driver not loaded; a ROCm machine without GPUs
    (
        "env_mismatch",
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.",
    ),
    ("env_mismatch", "nvidia-container-cli: initialization error: nvml error: driver not loaded"),
    ("env_mismatch", "RuntimeError: No HIP GPUs are available"),
    # Vulkan's and Metal's out-of-memory, ROCm's GPU hang and its other hardware exceptions
    ("device_oom", "  what():  vk::Device::allocateMemory: ErrorOutOfDeviceMemory"),
    (
        "device_oom",
        "error: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)",
    ),
    ("timeout", "HW Exception by GPU node-1 (Agent handle: 0x5612) reason :GPU Hang"),
    ("unknown", "HW Exception by GPU node-1 (Agent handle: 0x5612) reason :Unknown"),
    # TensorRT: a plan built for another GPU, no formats for a plugin's data types, a plugin
    # library not loaded, the ONNX parser refusing the model, a network without a shape profile
    (
        "dispatch_failure",
        "[TRT] [E] 6: The engine plan file is generated on an incompatible device, expecting "
        "compute 8.6 got compute 8.9, please rebuild.",
    ),
    (
        "dispatch_failure",
        "[TRT] [E] 9: Error Code 9: Internal Error (/attn/Plugin: could not find any supported "
        "formats consistent with input/output data types)",
    ),
    ("env_mismatch", "[TRT] [E] 3: getPluginCreator could not find plugin: NMS_TRT version: 1"),
    (
        "unsupported_config",
        "[E] [TRT] ModelImporter.cpp:726: ERROR: onnx2trt_utils.cpp:12 In function checkDims: "
        "[8] Assertion failed: dims.nbDims > 0",
    ),
    (
        "unsupported_config",
        "[TRT] [E] 4: Error Code 4: Internal Error (Network has dynamic or shape inputs, but no "
        "optimization profile has been defined.)",
    ),
    # round 23 part 2: candle's backends, a backend offered on other GPUs only, a missing
    # tensor, a repository without a loadable version, vLLM's engine ended by its signal, cuDNN's
    # frontend without a plan, XLA's cuDNN handle, a server never ready, a compiler not started
    ("dispatch_failure", 'Error: Cuda("no cuda implementation for rms-norm")'),
    (
        "dispatch_failure",
        "AssertionError: Only {'triton', 'fa4'} backends are supported on Blackwell GPUs for "
        "hybrid GDN models. Got attention_backend=flashinfer.",
    ),
    ("unsupported_config", "Error: Could not start backend: cannot find tensor enc.q.weight"),
    ("unsupported_config", "InferenceServerException: failed to load 'm', no version is available"),
    ("engine_died", "KeyboardInterrupt: MQLLMEngine terminated"),
    (
        "dispatch_failure",
        "cuDNN Error: [cudnn_frontend] Error: No execution plans built successfully",
    ),
    (
        "env_mismatch",
        "E0101 cuda_dnn.cc:535] Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR",
    ),
    ("timeout", "Command failed (exit 1): Server failed to become ready within 120s"),
    ("env_mismatch", "openmm.OpenMMException: Error launching CUDA compiler: 32512"),
    ("env_mismatch", "Error compiling program: builtins: link error: Invalid value"),
    (
        "unsupported_config",
        "Error Code 1: Serialization (Serialization assertion magicTagRead == kMAGIC_TAG failed."
        "Magic tag does not match)",
    ),
    # the math libraries' allocation statuses
    ("device_oom", "RuntimeError: cuFFT error: CUFFT_ALLOC_FAILED"),
    ("device_oom", "RuntimeError: CUSPARSE_STATUS_ALLOC_FAILED when calling `cusparseCreate`"),
    ("device_oom", "RuntimeError: cusolver error: CUSOLVER_STATUS_ALLOC_FAILED, when calling"),
    ("device_oom", "RuntimeError: CURAND_STATUS_ALLOCATION_FAILED"),
    # a checkpoint torch cannot read, a model file that is not there
    ("unsupported_config", "_pickle.UnpicklingError: invalid load key, '<'."),
    (
        "unsupported_config",
        "RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central "
        "directory",
    ),
    (
        "unsupported_config",
        "OSError: Unable to load weights from pytorch checkpoint file for '/m/x.bin' at '/m/x.bin'",
    ),
    (
        "unsupported_config",
        "FileNotFoundError: [Errno 2] No such file or directory: '/models/x/config.json'",
    ),
    (
        "unsupported_config",
        "FileNotFoundError: [Errno 2] No such file or directory: '/m/model-00001.safetensors'",
    ),
]


@pytest.mark.parametrize(("category", "line"), DOCUMENTED)
def test_a_documented_error_string_names_its_category(
    tmp_path: Path, category: str, line: str
) -> None:
    failure = classify_both(tmp_path, ["INFO starting", line])
    assert failure is not None, line
    assert failure.category == category, (line, failure.evidence)


@pytest.mark.parametrize(
    "line",
    [
        # a data file or a script that is not there is no model file
        "FileNotFoundError: [Errno 2] No such file or directory: '/data/train.json'",
        "FileNotFoundError: [Errno 2] No such file or directory: 'run_model.py'",
        # CUDA's "operation not supported" alone names no category
        "RuntimeError: CUDA error: operation not supported",
        # a check that names no architecture
        "RuntimeError: Expected is_contiguous() to be true, but got false.",
        # a word inside another word is no status
        "RuntimeError: MYCUDNN_ALLOC_FAILEDX",
    ],
)
def test_look_alikes_of_documented_strings_stay_unknown(tmp_path: Path, line: str) -> None:
    failure = classify_both(tmp_path, ["INFO starting", line])
    assert failure is not None
    assert failure.category == "unknown", (line, failure.evidence)


ERROR = "RuntimeError: CUDA error: an illegal memory access was encountered"


@pytest.mark.parametrize(
    ("stage", "line"),
    [
        # vLLM V0 counting its cache blocks by the device's name, and its compile cache
        (
            "kv_alloc",
            "INFO 05-01 10:00:00 executor_base.py:112] # cuda blocks: 4096, # CPU blocks: 2048",
        ),
        (
            "compile",
            "INFO 05-01 10:00:00 [backends.py:450] Using cache directory: /root/.cache/vllm/"
            "torch_compile_cache/abc/rank_0_0/backbone for vLLM's torch.compile",
        ),
        # llama.cpp's loader, in its older and newer wordings
        ("loading", "llama_model_loader: loaded meta data with 30 key-value pairs and 291 tensors"),
        ("loading", "llm_load_print_meta: model type       = 8B"),
        ("loading", "print_info: file format = GGUF V3 (latest)"),
        # llama.cpp's server loop, Ollama starting its runner to load a model
        ("execute", "srv  update_slots: all slots are idle"),
        (
            "loading",
            'time=2025-05-01T10:00:00Z level=INFO source=server.go:400 msg="starting llama server"',
        ),
        (
            "loading",
            'time=2025-05-01T10:00:00Z level=INFO source=server.go:600 msg="waiting for llama '
            'runner to start responding"',
        ),
    ],
)
def test_a_documented_progress_line_before_an_error_tells_its_stage(
    tmp_path: Path, stage: str, line: str
) -> None:
    failure = classify_both(tmp_path, [line, ERROR])
    assert failure is not None
    assert (failure.category, failure.stage) == ("illegal_memory_access", stage), failure.evidence


# --- part 2, tuned on fresh60-fresh63 ---------------------------------------------------------


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # markdown's inline code around a pasted error line, a heading mark before a record
        (
            ["loaded 12 tensors (1.0GB) in 0.03s", '`Error: Cuda("no cuda implementation for x")`'],
            "dispatch_failure",
            "profile",
        ),
        # a failure told by a status code only, never silent
        (
            [
                "runtime_initializer_failed :: requested device is unavailable: cuda:0",
                "startup_failed",
            ],
            "env_mismatch",
            "unknown",
        ),
        # DeepSpeed's launcher: the process it ran exits on a signal
        (
            [
                "[ERROR] [launch.py:434:sigkill_handler] ['python', 'main.py'] exits with "
                "return code = -9"
            ],
            "engine_died",
            "unknown",
        ),
        # zerolog's levels: a debug probe of a file's format is no error; the 5xx answer is
        (
            [
                '7:26PM ERR Server error error="rpc error: code = Unavailable desc = error '
                'reading from server: EOF" method=POST status=500 url=/v1/images/generations',
                "7:26PM DBG guessDefaultsFromFile: not a GGUF file",
            ],
            "engine_died",
            "execute",
        ),
        # the wrapper quoting a worker's error is that error; the death after it its doing
        (
            [
                "Traceback (most recent call last):",
                '  File "/x/vllm/v1/executor/abstract.py", line 85, in determine_available_memory',
                '    return self.collective_rpc("determine_available_memory")',
                "RuntimeError: Worker failed with error 'tensor must be on CUDA', please check "
                "the stack trace above for the root cause",
                "Worker proc VllmWorker-1 died unexpectedly, shutting down executor.",
            ],
            "unknown",
            "profile",
        ),
        # an editor's line numbers in front of a traceback's lines
        (
            [
                "85     kernel[grid](",
                '86   File "/x/triton/compiler/compiler.py", line 568, in _init_handles',
                '87     raise OutOfResources(self.shared, max_shared, "shared memory")',
                "88 triton.runtime.errors.OutOfResources: out of resource: shared memory, "
                "Required: 131072, Hardware limit: 98304",
            ],
            "smem_limit",
            "compile",
        ),
        # a death printed right against a progress bar's end: the bar is what was being done
        (
            ["Loading checkpoint shards:  38%|######    | 3/8 [00:02<00:03,  1.28it/s]Killed"],
            "engine_died",
            "loading",
        ),
        # Accelerate building its state: the device and the process group are set up
        (
            [
                "RuntimeError: CUDA error: invalid device ordinal",
                "Traceback (most recent call last):",
                '  File "/x/accelerate/accelerator.py", line 358, in __init__',
                "    self.state = AcceleratorState(",
                '  File "/x/accelerate/state.py", line 720, in __init__',
                "    PartialState(cpu, **kwargs)",
            ],
            "unknown",
            "startup",
        ),
        # the store's socket timing out while a rank fetches the communicator's id
        (
            [
                "RuntimeError: [3] is setting up NCCL communicator and retrieving ncclUniqueId "
                "from [0] via c10d key-value store by key '0', but store->get('0') got error: "
                "Socket Timeout"
            ],
            "timeout",
            "startup",
        ),
        # Ollama waiting for the server that loads the model
        (
            [
                'level=INFO source=sched.go:641 msg="Load failed" error="timed out waiting for '
                'llama-server to start: context deadline exceeded"'
            ],
            "timeout",
            "loading",
        ),
    ],
)
def test_round23_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    "lines",
    [
        # xFormers' notice with the import error it caught
        [
            "A matching Triton is not available, some optimizations will not be enabled.",
            "Error caught was: No module named 'triton'",
        ],
        # c10's warning at exit, pasted under a markdown heading mark
        [
            "#[rank0]:[W403 11:42:02.380967152 ProcessGroupNCCL.cpp:1250] Warning: WARNING: "
            "process group has NOT been destroyed before we destruct ProcessGroupNCCL."
        ],
    ],
)
def test_round23_harmless_lines_stay_silent(tmp_path: Path, lines: list[str]) -> None:
    assert classify_both(tmp_path, lines) is None


@pytest.mark.parametrize(
    ("stage", "line"),
    [
        (
            "execute",
            "Could not predict job_1. Not Enough GPU memory? RESOURCE_EXHAUSTED: Out of memory",
        ),
        ("compile", "openmm.OpenMMException: Error launching CUDA compiler: 32512"),
        (
            "compile",
            "CUDA platform error: Error compiling program: builtins: link error: Invalid value",
        ),
    ],
)
def test_round23_phrases_tell_the_stage(tmp_path: Path, stage: str, line: str) -> None:
    failure = classify_both(tmp_path, [line])
    assert failure is not None
    assert failure.stage == stage, failure
