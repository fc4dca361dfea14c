"""Mechanisms of the forty-sixth round, tuned on ``fresh162/`` to ``fresh165/`` and the corpus.

Go's crash dump (Ollama's runner) is a traceback: its goroutine header opens one, its calls are
frames read innermost first (``(*Context).Decode`` is ``decode``, ``_Cfunc_llama_decode`` is
``llama_decode``), so a kernel fault under the runner's decode is ``execute``. A weights file
named as it is read (``Loading "model.gguf"``) is loading activity. A DLL whose initialisation
fails (WinError 1114) is a library that cannot load, at start-up. torch's
``_verify_param_shape_across_processes`` is DDP's set-up. The container runtime refusing to start
a container (``nvidia-container-cli: requirement error``, ``OCI runtime create failed``) is
``startup``. Forge's ``Your device does not support the current version of Torch/CUDA`` is the
launcher's check that torch can use the GPU (``env_mismatch``), not a missing kernel. Intel's GPU
compiler's ``total scratch space exceeds HW supported limit`` is a thread's memory over the limit,
like ptxas' ``too much local data``. stable-diffusion-webui's job queue
(``modules/call_queue.py``) dispatches UI jobs. A Ray actor that died in its creation task was
being set up. Colab's frames (``[path.py](url) in func(...)``) are frames.
The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as

_GO_DUMP = [
    "CUDA error: an illegal memory access was encountered",
    "  current device: 0, in function ggml_cuda_op_mul_mat at ggml-cuda.cu:1500",
    "  cudaGetLastError()",
    "ggml-cuda.cu:80: CUDA error",
    "SIGSEGV: segmentation violation",
    "PC=0x7f0000001000 m=4 sigcode=1 addr=0x100",
    "signal arrived during cgo execution",
    "",
    "goroutine 12 gp=0xc000102000 m=4 mp=0xc000080008 [syscall]:",
    "runtime.cgocall(0x5600000010, 0xc000051b00)",
    "\truntime/cgocall.go:167 +0x4b fp=0xc000051ad8 sp=0xc000051aa0 pc=0x560000002",
    "github.com/ollama/ollama/llama._Cfunc_llama_decode(0x7f0000002000, {0x10, 0x7f00, 0x0})",
    "\t_cgo_gotypes.go:600 +0x4f fp=0xc000051b00 sp=0xc000051ad8 pc=0x560000003",
    "github.com/ollama/ollama/llama.(*Context).Decode.func1(0x5600?, 0x7f00?)",
    "\tgithub.com/ollama/ollama/llama/llama.go:150 +0xf5 fp=0xc000051c00 pc=0x560000004",
    "github.com/ollama/ollama/llama.(*Context).Decode(0xc000200000?, 0x0?)",
    "\tgithub.com/ollama/ollama/llama/llama.go:150 +0x13 fp=0xc000051c40 pc=0x560000005",
]


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        (_GO_DUMP, "illegal_memory_access", "execute"),
        (
            # Go's older header, the runner's decode the only named frame
            [
                "SIGSEGV: segmentation violation",
                "PC=0x7f0000001000 m=4 sigcode=1",
                "",
                "goroutine 7 [running]:",
                "github.com/ollama/ollama/llama.(*Context).Decode(0xc0001?, 0x0?)",
                "\tgithub.com/ollama/ollama/llama/llama.go:150 +0x13",
                "created by github.com/ollama/ollama/runner/llamarunner.Execute in goroutine 1",
            ],
            "engine_died",
            "execute",
        ),
        (
            [
                "10:00:01-100 INFO     Starting Text generation web UI",
                "Running on local URL:  http://127.0.0.1:7860",
                '10:02:11-200 INFO     Loading "Mistral-7B-Instruct.Q5_K_M.gguf"',
                "Illegal instruction (core dumped)",
            ],
            "engine_died",
            "loading",
        ),
        (
            # a weights file whose reading finished long before the failure is not the activity
            # (a guard: this reading holds without the round too)
            [
                "[INFO ] sd.cpp:900 - decoding 1 latents",
                "[DEBUG] model_loader.cpp:100 - loading 50/60 tensors from /models/vae.safetensors",
                "[INFO ] model_loader.cpp:200 - loading tensors completed, taking 0.30s",
                "[DEBUG] ggml_extend.hpp:60 - vae compute buffer size: 9000.00 MB(VRAM)",
                "[ERROR] ggml_extend.hpp:70 - CUDA error: out of memory",
            ],
            "device_oom",
            "execute",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "ctypes\\__init__.py", line 379, in __init__',
                "OSError: [WinError 1114] A dynamic link library (DLL) initialization routine "
                "failed",
            ],
            "env_mismatch",
            "startup",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "/env/torch/distributed/utils.py", line 280, in '
                "_verify_param_shape_across_processes",
                "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1300, "
                "invalid usage, NCCL version 2.19.3",
            ],
            "nccl_error",
            "startup",
        ),
        (
            [
                "Error response from daemon: failed to create task for container: OCI runtime "
                "create failed: runc create failed: unable to start container process: error "
                "running hook #0: exit status 1, stdout: , stderr: Auto-detected mode as 'legacy'",
                "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.8, "
                "please update your driver to a newer version: unknown",
            ],
            "env_mismatch",
            "startup",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "/srv/forge/launch.py", line 40, in main',
                "    prepare_environment()",
                "RuntimeError: Your device does not support the current version of Torch/CUDA! "
                "Consider download another version:",
            ],
            "env_mismatch",
            "startup",
        ),
        (
            [
                "error: in kernel 'matmul_kernel': total scratch space exceeds HW supported "
                "limit: 300000 bytes (max permitted PTSS 262144 bytes)",
                "error: backend compiler failed build.",
            ],
            "smem_limit",
            "compile",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "C:\\sd\\modules\\call_queue.py", line 57, in f',
                "    res = list(func(*args, **kwargs))",
                '  File "C:\\sd\\modules\\devices.py", line 60, in torch_gc',
                "    torch.cuda.empty_cache()",
                "RuntimeError: CUDA error: the launch timed out and was terminated",
            ],
            "timeout",
            "execute",
        ),
        (
            [
                "The actor died because of an error raised in its creation task, "
                "ray::Tester.__init__() (pid=100, ip=10.0.0.2)",
                '  File "/srv/app/worker.py", line 50, in __init__',
                "    dist.all_reduce(x)",
                "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:3600, "
                "unhandled cuda error, NCCL version 2.21.5",
            ],
            "nccl_error",
            "startup",
        ),
        (
            [
                "ray.exceptions.ActorDiedError: The actor died because of an error raised in "
                "its creation task, ray::Worker.__init__() (pid=200, ip=10.0.0.3)",
            ],
            "engine_died",
            "startup",
        ),
        (
            [
                "XlaRuntimeError                           Traceback (most recent call last)",
                "[/usr/lib/python3/jax/_src/dispatch.py](https://localhost:8080/#) in "
                "backend_compile(backend, module, options)",
                "--> 465   return backend.compile(built_c, compile_options=options)",
                "",
                "XlaRuntimeError: FAILED_PRECONDITION: DNN library initialization failed.",
            ],
            "env_mismatch",
            "compile",
        ),
    ],
)
def test_round46_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)
