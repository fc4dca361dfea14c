"""Mechanisms of the seventy-third round, tuned on ``fresh285/``, ``fresh287/``, ``fresh289/``,
``fresh291/``, ``fresh293/`` (kept unread through rounds 69 to 72) and ``fresh296/``, ``fresh298/``,
``fresh300/``, ``fresh302/`` (measured before reading with round 72); the other half of
``fresh296/`` to ``fresh303/`` stays unread.

Formats: Ray's C++ records (``[2023-08-25 00:42:40,265 E 5623 7733] logging.cc:97: ...``) have a
level, and a Ray worker without a name is only its pid (``(pid=5623)``); torchrun's and launchers'
``[default0]:`` / ``[host:2]:`` tags; a program's name in brackets in front of a library's record
(``[node-llama-cpp] ggml_metal_init: ...``); torch's older ``name: [WARNING] `` format; NCCL's
records start a record, and a program's records of one length are not a hard-wrapped paste.
Categories, stages and the first error are in the tests' own words; the lines are of our own, in
the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # Ray's C++ record at its error level, the worker tagged by its pid alone
        (
            [
                "INFO 08-25 00:42:36 llm_engine.py:70] Initializing an LLM engine with config: x",
                "(pid=71) [2023-08-25 00:42:40,265 E 71 72] logging.cc:97: Unhandled exception: "
                "St12system_error. what(): Resource temporarily unavailable",
            ],
            "unknown",
            "startup",
        ),
        # a program's name in front of ggml's Metal record; Metal's shader compiler failing
        (
            ["[my-app] ggml_metal_library_init: error compiling source"],
            "dispatch_failure",
            "compile",
        ),
        # llama.cpp's parser refusing a stray word (a path with a space, unquoted)
        (["error: invalid argument: Models\\model.gguf"], "unsupported_config", "startup"),
        # SYCL's catch block after the code it caught, under the runtime's build log
        (
            [
                "Build program log for 'Intel(R) Arc(TM) Graphics':",
                " -11 (PI_ERROR_BUILD_PROGRAM_FAILURE)Exception caught at file:/x/ggml-sycl.cpp, "
                "line:100",
            ],
            "unknown",
            "compile",
        ),
        # whisper.cpp's loader, a ggml model named without its extension
        (
            [
                "whisper_init_from_file_no_state: loading model from 'models/ggml-small'",
                "whisper_init_from_file_no_state: failed to open 'models/ggml-small'",
            ],
            "unsupported_config",
            "loading",
        ),
        # XLA naming an NCCL call with its arguments
        (
            [
                "INTERNAL: external/xla/nccl_utils.cc:275: NCCL operation ncclCommInitRank(&comm, "
                "nranks, id, rank) failed: unhandled cuda error"
            ],
            "nccl_error",
            "startup",
        ),
        # ... and NCCL's library that it cannot load, as XLA words it
        (
            [
                "INTERNAL: nccl_utils.cc:134: NCCL operation ncclGetUniqueId(&id) failed: Unable "
                "to load NCCL library. Multi-GPU collectives will not work."
            ],
            "env_mismatch",
            "startup",
        ),
        # Open MPI's collective component failing as a communicator is created
        (
            [
                "[node1:4711] Error: coll_hcoll_module.c:312 - mca_coll_hcoll_comm_query() Hcol "
                "library init failed"
            ],
            "nccl_error",
            "startup",
        ),
        # Horovod stopped by a failure elsewhere, in Horovod's initial broadcast
        (
            [
                '  File "train.py", line 240, in train',
                "    bcast = hvd.broadcast_global_variables(0)",
                "AbortedError: Horovod has been shut down. This was caused by an exception on one "
                "of the ranks",
            ],
            "nccl_error",
            "startup",
        ),
        # TensorFlow naming Keras' training step as the function of the op that failed
        (
            [
                "Horovod has been shut down. This was caused by an exception on one of the ranks",
                "\t [[{{node HorovodAllreduce_grads_0}}]] [Op:__inference_train_function_12]",
            ],
            "nccl_error",
            "execute",
        ),
        # FSDP's flat parameter, which only its constructor builds
        (
            [
                "Traceback (most recent call last):",
                '  File "/env/torch/distributed/fsdp/_flat_param.py", line 573, in __init__',
                "    self._init_flat_param_and_metadata(",
                '  File "/env/torch/distributed/fsdp/_flat_param.py", line 761, in _validate',
                "    raise ValueError(",
                "ValueError: Must flatten tensors with uniform dtype but got torch.bfloat16 and "
                "torch.float16",
            ],
            "unsupported_config",
            "startup",
        ),
        # TensorRT's builder unable to allocate what it asked for
        (
            [
                "[04/11/2022-09:13:11] [E] [TRT] Requested amount of GPU memory (4294967296 bytes)"
                " could not be allocated. There may not be enough free memory."
            ],
            "device_oom",
            "unknown",
        ),
        # Triton's compiler library in a debugger's backtrace of a crash
        (
            [
                'Thread 1 "python3" received signal SIGSEGV, Segmentation fault.',
                "0x00007fff9ab8a8b4 in triton::ir::user::replace_uses_of_with(triton::ir::value*)"
                " () from /env/triton/_C/libtriton.so",
                "#0  0x00007fff9ab8a8b4 in triton::ir::user::replace_uses_of_with(triton::ir::"
                "value*) () from /env/triton/_C/libtriton.so",
            ],
            "engine_died",
            "compile",
        ),
        # Triton 2.0's one-module compiler on faulthandler's stack after an abort
        (
            [
                "Fatal Python error: Aborted",
                "",
                "Current thread 0x00007f7325dfa280 (most recent call first):",
                '  File "/env/triton/compiler.py", line 1006 in ttgir_to_llir',
                '  File "/env/triton/compiler.py", line 1621 in compile',
            ],
            "engine_died",
            "compile",
        ),
        # pip building a package from the tree it unpacked it to
        (
            [
                "    Traceback (most recent call last):",
                '      File "/tmp/pip-req-build-abc123/setup.py", line 100, in <module>',
                "        check_versions(CUDA_HOME)",
                "    RuntimeError: Cuda extensions are being compiled with a version of Cuda that "
                "does not match the version used to compile Pytorch binaries.",
            ],
            "unknown",
            "compile",
        ),
        # TransformerEngine's userbuffers, a communicator, being built
        (
            [
                '  File "/env/transformer_engine/pytorch/module/base.py", line 181, in add_ub',
                "    ub_obj = tex.UbufP2PCommOverlap(",
                "RuntimeError: /src/userbuffers/userbuffers-host.cpp:208 in function "
                "create_communicator_grouped2: CUDA Error: operation not supported",
            ],
            "unknown",
            "startup",
        ),
        # an error in a component's set-up, said so
        (
            ["ERROR worker: Error in component setup: bind(): incompatible function arguments."],
            "unknown",
            "startup",
        ),
        # uvicorn running the app for a request, in the traceback printed after the error
        (
            [
                "RuntimeError: CUDA error: an illegal memory access was encountered",
                "",
                "The above exception was the direct cause of the following exception:",
                "",
                "Traceback (most recent call last):",
                '  File "/env/uvicorn/protocols/http/h11_impl.py", line 408, in run_asgi',
                "    result = await app(",
                '  File "/env/starlette/middleware/errors.py", line 184, in __call__',
                "    raise exc",
            ],
            "illegal_memory_access",
            "execute",
        ),
        # a child forked after its parent set CUDA up
        (
            [
                "RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with "
                "multiprocessing, you must use the 'spawn' start method"
            ],
            "unknown",
            "startup",
        ),
        # ggml's scheduler: the backend holding the tensor has no kernel for the op
        (
            [
                "/src/ggml/src/ggml-backend.cpp:750: pre-allocated tensor (cache_k_l0 (view)) in "
                "a buffer (Vulkan0) that cannot run the operation (CPY)"
            ],
            "dispatch_failure",
            "unknown",
        ),
        # OpenCL's allocation status by its number
        (
            ["CLBlast: OpenCL error: clEnqueueNDRangeKernel: -4", "GGML_ASSERT: x.cpp:1758: false"],
            "device_oom",
            "unknown",
        ),
        # a shell's "Segmentation fault" in the system's language, after ggml's device report
        (
            ["ggml_vulkan: Found 1 Vulkan devices:", "Speicherzugriffsfehler (Speicherabzug)"],
            "engine_died",
            "startup",
        ),
        # a Windows DLL error by its number, its message in another language
        (
            ["OSError: [WinError 1114] Ошибка инициализации библиотеки (DLL)"],
            "env_mismatch",
            "startup",
        ),
        # stable-diffusion.cpp giving a model's weights their buffer
        (
            ["[ERROR] ggml_extend.hpp:2063 - unet alloc params backend buffer failed, num = 857"],
            "device_oom",
            "loading",
        ),
        # NCCL's socket transport, older wording; its connect at set-up
        (
            [
                "host:1:2 [0] include/socket.h:428 NCCL WARN Net : Call to recv from 10.0.0.1<1> "
                "failed : Connection reset by peer",
                "host:1:1 [1] init.cc:204 NCCL WARN Cuda failure 'an illegal memory access was "
                "encountered'",
            ],
            "nccl_error",
            "unknown",
        ),
        (
            [
                "host:1:2 [0] NCCL INFO Call to connect returned Connection refused, retrying",
                "host:1:2 [0] include/socket.h:390 NCCL WARN Connect to 10.0.0.1<21724> failed",
            ],
            "nccl_error",
            "startup",
        ),
        # an installer checking its own packages
        (
            [
                "Checking PyTorch, Triton, and vLLM imports...",
                "RuntimeError: vLLM version is '0.26.0', expected '0.26.0+cu128'",
            ],
            "env_mismatch",
            "startup",
        ),
        # vLLM's older async engine: its loop's task ended (the traceback after it cut)
        (
            [
                "handler: Task finished unexpectedly. This should never happen! See stack trace "
                "above for the actual cause.",
                "traceback: Traceback (most recent call last):",
                '  File "/vllm/engine/async_llm_engine.py", line 414, in run_engine_loop',
                "    has_requests_in_progress = await self.engine_step()",
            ],
            "engine_died",
            "execute",
        ),
        # a launcher that saw its server's output end before the server said it was ready
        (
            [
                "Stdout stream ended before readiness message detected.",
                "RuntimeError: launcher: server process failed to load!",
            ],
            "engine_died",
            "unknown",
        ),
        # MLIR's translation to LLVM IR failing, then LLVM's abort, after the weights loaded
        (
            [
                "INFO 04-05 23:50:13 model_runner.py:104] Loading model weights took 30.6 GB",
                "error: LLVM Translation failed for operation: builtin.unrealized_conversion_cast",
                "LLVM ERROR: Failed to translate TritonGPU to LLVM IR.",
                "*** SIGABRT received at time=1712361058 on cpu 4 ***",
            ],
            "unknown",
            "compile",
        ),
    ],
)
def test_round73_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_a_caution_that_the_scheduler_moves_an_op_is_no_failure(tmp_path: Path) -> None:
    """koboldcpp's caution about the same placement is a warning: the fault after it is the
    error."""
    lines = [
        "Caution: pre-allocated tensor (cache_k_l0 (view)) in a buffer (CPU) that cannot run "
        "the operation (ROPE)",
        "Processing Prompt (12 / 55 tokens)",
        "CUDA error: an illegal memory access was encountered",
    ]
    failure = classify_as(tmp_path, lines, "illegal_memory_access", "execute")
    assert failure.line == 3


def test_a_ray_worker_without_a_name_is_no_process_tag(tmp_path: Path) -> None:
    """``(pid=N)`` is taken off the line, and leaves no tag that would split its lines off."""
    lines = ["(pid=9) :  25%|██▌       | 5/20 [1:04:24<3:07:19, 749s/it]HW Exception by GPU node-1"
             " (Agent handle: 0x35) reason :GPU Hang"]  # fmt: skip
    failure = classify_as(tmp_path, lines, "timeout", "execute")
    assert "process" not in failure.detail


def test_ray_info_records_are_no_failure(tmp_path: Path) -> None:
    lines = ["(pid=9) [2023-08-25 00:42:40,265 I 9 10] core_worker.cc:1: failed=0 tasks started"]
    assert classify_both(tmp_path, lines) is None


def test_torch_warning_records_with_an_error_are_quiet(tmp_path: Path) -> None:
    """Dynamo's fallback (``suppress_errors``) logs the compile error at WARNING and goes on."""
    lines = [
        "[2024-06-18 23:38:49,504] torch._dynamo.convert_frame: [WARNING] RuntimeError: Found "
        "NVIDIA GeForce GTX TITAN X which is too old to be supported by the triton GPU compiler, "
        "which is used as the backend. Triton only supports devices of CUDA Capability >= 7.0, "
        "but your device is of CUDA capability 5.2",
        "step 10 loss 1.2",
    ]
    assert classify_both(tmp_path, lines) is None


def test_a_prompt_that_says_how_long_it_waits_is_no_timeout(tmp_path: Path) -> None:
    lines = [
        "wandb: (3) Don't visualize my results",
        "wandb: Enter your choice: (30 second timeout) 3",
    ]
    assert classify_both(tmp_path, lines) is None


def test_the_process_ending_after_an_error_lends_it_no_stage(tmp_path: Path) -> None:
    """torch's warning as the process exits is its end, not what ran when the error came."""
    lines = [
        "(EngineCore_0 pid=120) TypeError: Method.__init__() missing 1 required positional "
        "argument: 'moe'",
        "[rank0]:[W914 16:04:51.240456569 ProcessGroupNCCL.cpp:1476] Warning: WARNING: "
        "destroy_process_group() was not called before program exit, which can leak resources.",
        "(APIServer pid=1) TypeError: Method.__init__() missing 1 required positional argument: "
        "'moe'",
    ]
    classify_as(tmp_path, lines, "unknown", "unknown")


def test_records_of_one_length_are_no_hard_wrapped_paste(tmp_path: Path) -> None:
    """Two records of a program's own that happen to share the log's longest length stay apart."""
    long_one = "bench 6 out of resource: shared memory, Required: 294944, Hardware limit: 232448."
    lines = ["bench 0 None", long_one, long_one.replace("bench 6", "bench 7"), "bench 8 1.49"]
    failure = classify_both(tmp_path, lines)
    assert failure is not None
    assert failure.first_error == long_one


@pytest.mark.parametrize("tag", ["[W]", "[error]", "[Warning]", "[TRT]", "[INFO]"])
def test_a_level_in_brackets_is_no_programs_name(tag: str) -> None:
    """Only a program's name is taken off in front of a library's record, never a level."""
    from pytest_blackwell.failures.normalize import logical_lines

    (line,) = logical_lines(f"{tag} ggml_init: failed to allocate buffer")
    assert line.level or line.text.startswith(tag)  # (read as the level, or kept)


def test_a_programs_name_in_brackets_is_taken_off() -> None:
    from pytest_blackwell.failures.normalize import logical_lines

    (line,) = logical_lines("[node-llama-cpp] ggml_init: failed to allocate buffer")
    assert line.text == "ggml_init: failed to allocate buffer"
