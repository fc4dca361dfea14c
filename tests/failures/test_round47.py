"""Mechanisms of the forty-seventh round, tuned on ``fresh166/`` to ``fresh169/`` (collected
without picking the clear cases).

Transports: UCX's error records and NIXL's backend errors (the KV transfers of disaggregated
serving) are ``nccl_error``; vLLM setting its NIXL agents up is ``startup``. Wordings: a client's
``server launch failed`` is an engine that never came up; torch.compile's tracer refusing code
(``torch._dynamo.exc.Unsupported``) is the compiler's limit, ``unknown`` at ``compile``; a warm-up
of a given size that failed is ``warmup``; ggml's ``compiled without support for the current GPU
architecture`` is a missing kernel; a driver error number of a kernel exception beside a name the
binding does not know (numba's ``[716] ... UNKNOWN_CUDA_ERROR``) is one; ptxas exiting non-zero
under XLA is a JIT build failing, and XLA's ``Non-OK-status`` is a CHECK whose abort is its
doing; a loader that cannot detect a model file's type is a model file rejected; ``X killed by
SIGSEGV`` is a death. Stages: a C assert printed onto a progress bar leaves the bar as activity;
llama.cpp's per-turn speeds, ``Training starts at step N`` and a ``got prompt`` behind a host's
tags are work being done; Ollama's older ``Initializing llama server`` and whisper.cpp's
``whisper_model_load:`` lines are loading activity (not a marker: CUDA initialised lazily under
it fails at start-up); torchelastic's rendezvous, Accelerate preparing DeepSpeed and a library
that ``wasn't able to be loaded`` are start-up. Not evidence: the interconnect's ``NVLink error``
is no device linker's error; an HTTP client's ``generate`` streams a body, it runs no model; the
line torch ends a C++ warning with (``(Triggered internally at ...)``) is a warning's. SkyPilot's
process tags (``(task, pid=3369)``) are taken off.
The lines are of our own, in the shapes the tools print.
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
                "terminate called after throwing an instance of 'c10::Error'",
                "  what():  CUDA error: uncorrectable NVLink error detected during the execution",
            ],
            "unknown",
            "unknown",
        ),
        (
            [
                "[1700000000.000001] [node1:100  :0]   ib_mlx5_log.c:179  UCX  ERROR Local "
                "protection error on mlx5_0:1/RoCE (synd 0x4 vend 0x51)",
            ],
            "nccl_error",
            "unknown",
        ),
        (
            [
                "2025-05-16T04:56:18.119Z ERROR engine.run_mp_engine: NIXL_ERR_BACKEND",
                "Traceback (most recent call last):",
                '  File "/env/vllm/engine/llm_engine.py", line 450, in __init__',
                "    self._nixl_agents_names = self._initialize_nixl()",
                '  File "/env/vllm/engine/llm_engine.py", line 480, in _initialize_nixl',
            ],
            "nccl_error",
            "startup",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "/srv/rl/engine/remote.py", line 67, in _wait_for_server',
                '    raise RuntimeError("server launch failed")',
                "RuntimeError: server launch failed",
            ],
            "engine_died",
            "startup",
        ),
        (
            [
                "ERROR 09-17 01:05:51 [core.py:720] torch._dynamo.exc.Unsupported: Observed "
                "exception",
            ],
            "unknown",
            "compile",
        ),
        (
            [
                "Processed prompts:   0%|          | 0/40 [00:00<?, ?it/s]python: /src/C.cpp:43: "
                "void convert(): Assertion `mma layout is only supported on Ampere' failed.",
            ],
            "dispatch_failure",
            "execute",
        ),
        (
            [
                "[TM][WARNING] [LlamaTritonModel] max_context_token_num is limited to 8192.",
                "[Engine] Warm-up for 4096 tokens failed with status 6",
            ],
            "unknown",
            "warmup",
        ),
        (
            ["ERROR: ggml-cuda was compiled without support for the current GPU architecture."],
            "dispatch_failure",
            "unknown",
        ),
        (
            [
                "numba.cuda.cudadrv.driver.CudaAPIError: [716] Call to cuMemcpyDtoH results in "
                "UNKNOWN_CUDA_ERROR",
            ],
            "illegal_memory_access",
            "unknown",
        ),
        (
            [
                "F external/xla/xla/service/gpu/autotuner.cc:900] Non-OK-status: "
                "executable.status()",
                "Status: INTERNAL: ptxas exited with non-zero error code 139, output:",
                " - Failure occurred when compiling fusion dot.12",
                "Aborted (core dumped)",
            ],
            "env_mismatch",
            "compile",
        ),
        (
            [
                "Error occurred when executing CheckpointLoaderSimple:",
                "",
                "Could not detect model type of: /models/checkpoints/custom-merge.safetensors",
            ],
            "unsupported_config",
            "loading",
        ),
        (
            [
                "[ Prompt: 90.1 t/s | Generation: 30.2 t/s ]",
                "",
                "> and another question",
                "",
                "E CUDA error: an illegal memory access was encountered",
            ],
            "illegal_memory_access",
            "execute",
        ),
        (
            [
                "time=2024-03-02T00:34:24.628Z level=INFO source=dyn_ext_server.go:150 "
                'msg="Initializing llama server"',
                "",
                "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: "
                "Illegal seek for GPU arch : gfx1031",
            ],
            "dispatch_failure",
            "loading",
        ),
        (
            [
                "whisper_model_load: n_text_layer  = 4",
                "whisper_model_load: ftype         = 1",
                "ggml_aligned_malloc: insufficient memory (attempted to allocate 9000.00 MB)",
            ],
            "device_oom",
            "loading",
        ),
        (
            # (a guard: CUDA failing to initialise under the loader stays start-up)
            [
                "whisper_model_load: n_langs       = 99",
                "ggml_cuda_init: failed to initialize CUDA: system not yet initialized",
            ],
            "env_mismatch",
            "startup",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "/env/torch/distributed/elastic/agent/server/api.py", line 620, in '
                "_assign_worker_ranks",
                '  File "/env/torch/distributed/elastic/utils/store.py", line 34, in get_all',
                '    data = store.get(f"{prefix}{idx}")',
                "RuntimeError: Socket Timeout",
            ],
            "timeout",
            "startup",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "/env/accelerate/accelerator.py", line 1650, in _prepare_deepspeed',
                "    engine, optimizer, _, lr_scheduler = deepspeed.initialize(**kwargs)",
                "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1691, "
                "unhandled cuda error, NCCL version 2.20.5",
                "ncclUnhandledCudaError: Call to CUDA function failed.",
                "Last error:",
                "Cuda failure 2 'out of memory'",
            ],
            "device_oom",
            "startup",
        ),
        (
            [
                "[rank0]: INFO - Training starts at step 1, with local batch size 8",
                "[rank0]:[E128 13:23:00.788972321 ProcessGroupNCCL.cpp:1897] Process group "
                "watchdog thread terminated with exception: CUDA error: an illegal memory access "
                "was encountered",
            ],
            "illegal_memory_access",
            "execute",
        ),
        (
            [
                "EP Error onnxruntime_pybind_state.cc:866 CreateExecutionProviderInstance "
                "CUDA_PATH is set but CUDA wasnt able to be loaded. Please install the correct "
                "version of CUDA and cuDNN.",
            ],
            "env_mismatch",
            "startup",
        ),
        (
            [
                "2025-07-11 17:00:33.638 [Debug] [ComfyUI-0/STDERR] got prompt",
                "2025-07-11 17:00:33.639 [Error] [ComfyUI-0/STDERR] Failed to validate prompt for "
                "output 9:",
            ],
            "unknown",
            "execute",
        ),
        (
            # (a crash reporter's summary, then what it collected)
            [
                '"llama-cli killed by SIGSEGV"',
                "cmdline:",
                "llama-cli -m /models/tiny.gguf -c 2048 -ngl 99 -cnv",
                "",
                "os_release:",
                "Fedora release 40 (Forty)",
            ],
            "engine_died",
            "unknown",
        ),
        (
            [
                '(task, pid=3369) [rank7]:   File "/env/torch/_inductor/select_algorithm.py", '
                "line 1357, in __call__",
                "(task, pid=3369) [rank7]:     raise NoValidChoicesError(",
                "(task, pid=3369) [rank7]: torch._inductor.exc.LoweringException: "
                "NoValidChoicesError: No choices to select",
            ],
            "unknown",
            "compile",
        ),
        (
            # an HTTP client's "generate" is no model's work: nothing tells the stage
            [
                "Traceback (most recent call last):",
                '  File "/env/lib/python3.10/site-packages/requests/models.py", line 816, in '
                "generate",
                '  File "/env/lib/python3.10/site-packages/urllib3/response.py", line 567, in read',
                "TimeoutError: The read operation timed out",
            ],
            "timeout",
            "unknown",
        ),
    ],
)
def test_round47_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_round47_a_torch_warning_tail_is_no_failure(tmp_path: Path) -> None:
    lines = [
        "/env/torch/autograd/graph.py:744: UserWarning: Grad strides do not match bucket view "
        "strides. This is not an error, but may impair performance.",
        "grad.sizes() = [64, 256, 1, 1], strides() = [256, 1, 256, 256]",
        "bucket_view.sizes() = [64, 256, 1, 1], strides() = [256, 1, 1, 1] (Triggered "
        "internally at ../torch/csrc/distributed/c10d/reducer.cpp:327.)",
    ]
    assert classify_both(tmp_path, lines) is None
