"""Mechanisms of the sixty-sixth round, tuned on ``fresh234/`` to ``fresh241/`` (measured before
reading, with round 65 and older rounds).

Frames: a debugger's backtrace of native code printed after an error (gdb's ``#N 0x... in f ()
from lib.so``, lldb's ``frame #N: 0x... lib`f(...)``) tells its stage like a traceback, innermost
first, when nothing else does; llama.cpp's ``load_tensors`` (``loading``), ``llama_decode`` and
whisper.cpp's transcription (``execute``) and ``init_cuda`` (``startup``) are named frames there;
SGLang's test launcher ``popen_launch_server`` waits for its server (``startup``). asyncio's report
of a task that ended in an exception carries the exception its traceback ends in.
Categories: RayActorError's message for a call in flight (``engine_died``); Python's ctypes not
finding a DLL and a backend asked for by name that the build lacks (``env_mismatch``); a model
file with a bad magic and a format no longer supported (``unsupported_config``); a CUDA sample's
device count failing with error 3 (``env_mismatch``), its ``Result = FAIL`` never silence; c10d's
store that cannot open its server socket and torch_xla's rendezvous (``nccl_error``); a launch
beyond the maximum block size (``smem_limit``); hipBLAS' ``NOT_SUPPORTED`` (``dispatch_failure``);
a kernel template's static assertion and Metal's shader compiler failing on a backend's kernel
(``dispatch_failure`` at ``compile``); the APE loader that cannot start a program
(``env_mismatch``); Vulkan's out-of-device-memory while pinning host memory is no failure.
Stages: the Docker daemon refusing a run and NCCL's warning from its initialisation
(``startup``).
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
                "/src/ggml/ggml-backend.cpp:1552: GGML_ASSERT(!sched->is_alloc) failed",
                "(lldb) bt",
                "* thread #1, stop reason = signal SIGSTOP",
                "  * frame #0: 0x0000000180001204 libsystem_kernel.dylib`__wait4 + 8",
                "    frame #1: 0x0000000100f3546c libggml-base.dylib`ggml_abort + 156",
                "    frame #2: 0x0000000100f4d14c libggml-base.dylib`ggml_backend_sched_alloc_graph"
                " + 504",
                "    frame #3: 0x0000000100b3c70c libwhisper.dylib`whisper_encode_internal("
                "whisper_context&, whisper_state&, int) + 92",
                "    frame #4: 0x0000000100b3d000 libwhisper.dylib`whisper_full_with_state + 12",
            ],
            "unknown",
            "execute",
        ),
        (
            [
                "Segmentation fault (core dumped)",
                "#0  0x00005555559a0af2 in ggml_fp16_to_fp32_row ()",
                "#1  0x00005555555eb689 in ModelLoader::load_tensors(ggml_backend*) ()",
                "#2  0x00005555556bf935 in StableDiffusionGGML::load_from_file(std::string const&)"
                " ()",
                "#3  0x0000555555580123 in main ()",
            ],
            "engine_died",
            "loading",
        ),
        (
            [
                "/src/ggml-cuda.cu:75: CUDA error",
                "#0  0x00007f00aa10813 in __GI___wait4 (pid=9, stat_loc=0x0) at wait4.c:30",
                "#1  0x00007f00ab14d6c3 in ggml_print_backtrace () from /opt/lib/libggml-base.so",
                "#2  0x00007f00ab14d86b in ggml_abort () from /opt/lib/libggml-base.so",
                "#3  0x00007f00ac0b0b77 in llama_context::decode(llama_batch const&) () from "
                "/opt/lib/libllama.so",
                "#4  0x00007f00ac0b1a8f in llama_decode () from /opt/lib/libllama.so",
            ],
            "unknown",
            "execute",
        ),
        (
            [
                "future: <Task finished coro=<_wrap_awaitable() done, defined at tasks.py:623> "
                "exception=RayActorError()>",
                "Traceback (most recent call last):",
                '  File "/venv/lib/python3.10/asyncio/tasks.py", line 630, in _wrap_awaitable',
                "    return (yield from awaitable.__await__())",
                "ray.exceptions.RayActorError: The actor died unexpectedly before finishing this "
                "task.",
            ],
            "engine_died",
            "unknown",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "C:\\app\\node.py", line 3, in <module>',
                "    from fastlib import Model",
                "FileNotFoundError: Could not find module 'C:\\app\\lib\\fast.dll' (or one of its "
                "dependencies). Try using the full path with constructor syntax.",
            ],
            "env_mismatch",
            "startup",
        ),
        (
            [
                "whisper_model_load: loading model",
                "whisper_model_load: invalid model data (bad magic)",
                "whisper_init_with_params_no_state: failed to load model",
            ],
            "unsupported_config",
            "loading",
        ),
        (
            [
                "load_backend: loaded CPU backend from ./ggml-cpu.dll",
                "[Init] FATAL: GGML_BACKEND=ROCm0 not found. Available: CPU",
            ],
            "env_mismatch",
            "unknown",
        ),
        (
            [
                "./deviceQuery Starting...",
                "cudaGetDeviceCount returned 3",
                "-> initialization error",
                "Result = FAIL",
            ],
            "env_mismatch",
            "startup",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "train.py", line 9, in setup',
                '    dist.init_process_group("nccl")',
                "RuntimeError: The server socket has failed to listen on any local network address."
                " The server socket has failed to bind to [::]:29500 (errno: 98 - Address already "
                "in use).",
            ],
            "nccl_error",
            "startup",
        ),
        (
            [
                "2024-01-02 10:00:00.000001: E xla_client/tf_logging.cc:11] Failed to meet "
                "rendezvous 'init': Socket closed (14)",
            ],
            "nccl_error",
            "startup",
        ),
        (
            [
                "RuntimeError: Cannot launch the kernel since n = 70000 exceeds the maximum CUDA "
                "blocksize = 65536.",
            ],
            "smem_limit",
            "unknown",
        ),
        (
            [
                "RuntimeError: CUDA error: HIPBLAS_STATUS_NOT_SUPPORTED when calling "
                "`hipblasGemmEx(handle, ...)`",
            ],
            "dispatch_failure",
            "unknown",
        ),
        (
            [
                "Load model error: internal: Failed to initialize engine: INVALID_ARGUMENT: "
                "Loading from a folder is no longer supported, convert it to one file.",
            ],
            "unsupported_config",
            "loading",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "bench.py", line 20, in main',
                "    process = popen_launch_server(model, url)",
                '  File "sglang/test/test_utils.py", line 625, in popen_launch_server',
                "    raise Exception(",
                "Exception: Server process exited with code -9. Check server logs for errors.",
            ],
            "engine_died",
            "startup",
        ),
        (
            [
                "Unable to find image 'my-llm:latest' locally",
                "docker: Error response from daemon: pull access denied for my-llm, repository "
                "does not exist or may require 'docker login'.",
            ],
            "unknown",
            "startup",
        ),
        (
            [
                "node1:10:10 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>",
                "node1:10:10 [0] ofi_init:700 NCCL WARN NET/OFI Only EFA provider is supported",
                "node1:10:10 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>",
            ],
            "nccl_error",
            "startup",
        ),
        (
            [
                "/src/kernels/include/gemm.cuh(88): error: static assertion failed with "
                '"Block size must divide the tile"',
                "      static_assert(kTile % kBlock == 0);",
            ],
            "dispatch_failure",
            "compile",
        ),
        (
            [
                "ggml_metal_init: loaded kernel_add                0x7f00 | th_max = 1024",
                "ggml_metal_init: load pipeline error: Error Domain=CompilerError Code=2 "
                '"Compiler encountered an internal error"',
            ],
            "dispatch_failure",
            "compile",
        ),
        (
            ["ape error: ./model.llamafile: prog mmap failed w/ errno 1"],
            "env_mismatch",
            "startup",
        ),
        (
            [
                "ggml_vulkan: Requested buffer size exceeds device buffer size limit: "
                "ErrorOutOfDeviceMemory"
            ],
            "device_oom",
            "unknown",
        ),
    ],
)
def test_round66_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        (  # ggml's own backtrace, two columns; the decode under llama.cpp's common set-up
            [
                "ggml-cuda.cu:100: Pool Failure: invalid argument",
                "ggml_print_backtrace()                    libggml-base.so",
                "ggml_abort()                              libggml-base.so",
                "ggml_cuda_pool_vmm::alloc()               libggml-hip.so",
                "llama_context::decode()                   libllama.so",
                "llama_decode()                            libllama.so",
                "common_init_from_params()                 libllama-common.so",
            ],
            "unknown",
            "warmup",
        ),
        (  # an Android tombstone's frames: the context created inside the common set-up
            [
                "signal 6 (SIGABRT), code -1 (SI_QUEUE), fault addr --------",
                "#00 abort",
                "#01 ggml_abort+224",
                "#02 llama_context::graph_reserve(unsigned int, bool)+1624",
                "#03 llama_init_from_model+832",
                "#04 common_init_from_params(common_params&)+76",
            ],
            "engine_died",
            "kv_alloc",
        ),
        (  # an abort naming its source line, then what gdb prints as it attaches
            [
                "Jun 03 17:36:52 box llama-server[13]: [565] srv load_model: loading model "
                "'/m/model.gguf'",
                "Jun 03 17:36:53 box llama-server[13]: [565] /src/tools/mtmd/clip.cpp:4391: "
                "Unknown projector type",
                "Jun 03 17:36:53 box llama-server[13]: [565] [New LWP 1332389]",
                "Jun 03 17:36:53 box llama-server[13]: [565] [New LWP 1332390]",
                "Jun 03 17:36:53 box llama-server[13]: [565] [New LWP 1332391]",
            ],
            "unsupported_config",
            "loading",
        ),
        (
            ["ggml_init_cublas: found 1 CUDA devices:", "cuBLAS error 7 at ggml-cuda.cu:1573"],
            "unknown",
            "startup",
        ),
        (  # a bare assertion: the condition its traceback shows is its message
            [
                'vllm-server  |   File "/v/model_executor/layers/linear.py", line 1336, in '
                "weight_loader",
                "vllm-server  |     assert param_data.shape == loaded_weight.shape",
                "vllm-server  |            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
                "vllm-server  | AssertionError",
                "vllm-server  | Process SpawnProcess-1:",
                "vllm-server  | Traceback (most recent call last):",
                'vllm-server  |   File "/usr/lib/python3.12/multiprocessing/process.py", line 314, '
                "in _bootstrap",
            ],
            "unsupported_config",
            "unknown",
        ),
        (  # Android's report of a thread's uncaught exception, logcat's aligned lines
            [
                "FATAL EXCEPTION: main",
                " " * 60 + "Process: com.example.app, PID: 8548",
                " " * 60 + "java.lang.UnsatisfiedLinkError: dlopen failed: library "
                '"libengine_jni.so" not found',
                " " * 60 + "\tat java.lang.Runtime.loadLibrary0(Runtime.java:1087)",
            ],
            "env_mismatch",
            "unknown",
        ),
        (
            ["RuntimeError: Unsupported head size: 48"],
            "dispatch_failure",
            "unknown",
        ),
        (
            ["RuntimeError: Device type PRIVATEUSEONE is not supported for torch.Generator() api."],
            "dispatch_failure",
            "unknown",
        ),
        (
            ["E/GPU: <clGetPlatformIDs:12>: Fatal: Failed to open libFoo from libOpenCL"],
            "env_mismatch",
            "unknown",
        ),
        (
            [
                "ValueError: `org/NewModel-1B` is not supported yet in `transformers==4.57.6`.",
            ],
            "env_mismatch",
            "unknown",
        ),
        (
            [
                "libc++abi: terminating due to uncaught exception of type std::runtime_error: "
                "[METAL] Command buffer execution failed: Caused GPU Timeout Error "
                "(00000002:kIOGPUCommandBufferCallbackErrorTimeout)",
            ],
            "timeout",
            "unknown",
        ),
        (
            ["cudaSetDevice err: 35"],
            "env_mismatch",
            "startup",
        ),
        (
            [
                "/opt/nvshmem_src/src/modules/bootstrap/uid/socket.cpp:socketProgress:59: "
                "socketProgress: Connection closed by remote peer",
            ],
            "nccl_error",
            "startup",
        ),
        (
            [
                "whisper_model_load: model size    = 3117.02 MB",
                "whisper_init_state: kv self size  =  220.20 MB",
                "Segmentation fault (core dumped)",
            ],
            "engine_died",
            "kv_alloc",
        ),
    ],
)
def test_round66_second_part(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_pinning_host_memory_that_vulkan_refuses_is_no_failure(tmp_path: Path) -> None:
    """ggml goes on without pinned memory: Vulkan's out-of-device-memory there is no failure."""
    lines = [
        "ggml_vulkan: Failed to allocate pinned memory (Requested buffer size exceeds device "
        "buffer size limit: ErrorOutOfDeviceMemory)",
        "decode: tile 3 of 8 done",
    ]
    assert classify_both(tmp_path, lines) is None


def test_a_backtrace_is_read_only_when_the_error_says_nothing(tmp_path: Path) -> None:
    """A stage the error's own traceback tells wins over a debugger's backtrace printed later."""
    lines = [
        "Traceback (most recent call last):",
        '  File "worker.py", line 3, in load_model',
        "    self.model = build()",
        "RuntimeError: boom",
        "#0  0x00007f00ac0b1a8f in llama_decode () from /opt/lib/libllama.so",
    ]
    failure = classify_as(tmp_path, lines, "unknown", "loading")
    assert failure.evidence["stage"] == "frame load_model"


def test_a_test_verdict_alone_is_never_silence(tmp_path: Path) -> None:
    failure = classify_both(tmp_path, ["Running the sample", "Result = FAIL"])
    assert failure is not None
    assert failure.first_error == "Result = FAIL"
