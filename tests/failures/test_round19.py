"""Mechanisms of the nineteenth round (tuned on fresh40-fresh43): libraries that cannot be
loaded, toolchains and GPU support missing, versions that do not match, Triton's resource check
relayed by Inductor, ptxas' shared data, capture errors by number, DistributedDataParallel's
construction, vLLM V0's worker loop and block counts. The lines are of our own, in the shapes
the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


def test_vllm_v0_block_counts_end_kv_cache_sizing(tmp_path: Path) -> None:
    # V0's executor logs the block counts it sized, then allocates the cache: a death right after
    # is in the KV-cache stage, not in the loading announced before.
    lines = [
        "INFO 01-02 03:04:05 model_runner.py:1 Loading model weights took 4.1 GiB",
        "INFO 01-02 03:04:09 gpu_executor.py:2 # GPU blocks: 2048, # CPU blocks: 512",
        "Killed",
    ]
    failure = classify_as(tmp_path, lines, "engine_died", "kv_alloc")
    assert failure.evidence["stage"] == "marker '# GPU blocks:'"


@pytest.mark.parametrize(
    "line",
    [
        "Could not locate cudnn_ops64_9.dll. Please make sure it is in your library path!",
        "Unable to load any of {libcudnn_ops.so.9.1.0, libcudnn_ops.so.9.1, libcudnn_ops.so.9}",
        "Invalid handle. Cannot load symbol cudnnCreateTensorDescriptor",
        "2024-01-01 10:00:00 [E:onnxruntime:Default, provider_bridge_ort.cc:12 Get] LoadLibrary "
        'failed with error 126 "" when trying to load "C:\\foo\\onnxruntime_providers_cuda.dll"',
        "D:\\a\\s\\onnxruntime_pybind_state.cc:891 onnxruntime::python::CreateExecutionProvider"
        "Instance CUDA_PATH is set but CUDA wasnt able to be loaded. Please install the correct "
        "version of CUDA andcuDNN",
        "ERROR 01-02 03:04:05 pynccl.py:44] Failed to load NCCL library from libnccl.so.2 .It is "
        "expected if you are not running on NVIDIA/AMD GPUs.",
    ],
    ids=[
        "dll-not-located",
        "none-of-the-sonames",
        "symbol",
        "loadlibrary-126",
        "cuda-path",
        "nccl-library",
    ],
)
def test_a_runtime_library_that_cannot_be_loaded_is_the_environment(
    tmp_path: Path, line: str
) -> None:
    failure = classify_both(tmp_path, [line])
    assert failure is not None
    assert failure.category == "env_mismatch", failure
    assert failure.evidence["category"] == "rule library_not_loaded"


@pytest.mark.parametrize(
    ("line", "stage"),
    [
        ("FileNotFoundError: [Errno 2] No such file or directory: 'nvcc'", "compile"),
        (
            "FileNotFoundError: [Errno 2] No such file or directory: '/usr/local/cuda/bin/nvcc'",
            "compile",
        ),
        ("ValueError: This Foo package was not compiled with CUDA support", "unknown"),
        (
            "Exception: >- Op Builder: Installed CUDA version 11.1 does not match the version "
            "torch was compiled with 12.4, unable to compile cuda/cpp extensions",
            "compile",
        ),
    ],
    ids=["nvcc-missing", "nvcc-path-missing", "built-without-cuda", "cuda-version-differs"],
)
def test_toolchains_gpu_support_and_versions_missing(tmp_path: Path, line: str, stage: str) -> None:
    classify_as(tmp_path, [line], "env_mismatch", stage)


def test_a_data_file_that_is_missing_is_no_toolchain(tmp_path: Path) -> None:
    line = "FileNotFoundError: [Errno 2] No such file or directory: 'data/nvcc_notes.txt'"
    failure = classify_both(tmp_path, [line])
    assert failure is not None
    assert failure.category != "env_mismatch", failure


def test_xformers_built_without_cuda_wins_on_a_flattened_refusal(tmp_path: Path) -> None:
    line = (
        "NotImplementedError: No operator found for `memory_efficient_attention_forward` with "
        "inputs: query : shape=(1, 4, 8, 64) (torch.float16) `cutlassF` is not supported because: "
        "xFormers wasn't build with CUDA support `flshattF` is not supported because: xFormers "
        "wasn't build with CUDA support"
    )
    failure = classify_both(tmp_path, [line])
    assert failure is not None
    assert failure.category == "env_mismatch", failure


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # Inductor relaying Triton's resource check with the kernel's name in the resource's place
        (
            [
                "torch._inductor.exc.InductorError: LoweringException: NoValidChoicesError: "
                "No valid triton configs. OutOfMemoryError: out of resource: triton_mm Required: "
                "262144 Hardware limit:232448 Reducing block sizes or `num_stages` may help."
            ],
            "smem_limit",
            "compile",
        ),
        # ptxas: a kernel's static shared memory above the target's limit
        (
            [
                "ptxas error   : Entry function '_Z6kernelPf' uses too much shared data "
                "(0x10000 bytes, 0xc000 max)"
            ],
            "smem_limit",
            "compile",
        ),
        # a failed capture reported with the stream-capture error's number
        (
            ["Graph capture failed: CUDA_ERROR_UNKNOWN (code: 901)"],
            "stream_capture",
            "graph_capture",
        ),
        (
            ["vLLM failed to start.  Retry with --verbose to learn more about the failure."],
            "engine_died",
            "startup",
        ),
        # a refusal naming the compute capability in CUDA's words
        (
            [
                "RuntimeError: Found Foo GPU which is too old to be supported by the compiler. It "
                "only supports devices of CUDA Capability >= 7.0, but your device is of CUDA "
                "capability 6.1"
            ],
            "dispatch_failure",
            "unknown",
        ),
    ],
    ids=[
        "inductor-relayed-resource",
        "ptxas-shared-data",
        "capture-code-901",
        "vllm-not-started",
        "cuda-capability-refused",
    ],
)
def test_causes_of_round_19(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    "line",
    [
        "ERROR out of resource: threads, Required: 2048, Hardware limit: 1024",
        "ERROR request failed (code: 901)",
    ],
    ids=["threads-not-smem", "code-901-without-capture"],
)
def test_look_alikes_of_round_19_keep_their_own_reading(tmp_path: Path, line: str) -> None:
    failure = classify_both(tmp_path, [line])
    assert failure is not None
    assert failure.category not in ("smem_limit", "stream_capture"), failure


def test_distributed_data_parallel_construction_is_startup(tmp_path: Path) -> None:
    lines = [
        "Traceback (most recent call last):",
        '  File "train.py", line 10, in <module>',
        "    model = DistributedDataParallel(model)",
        '  File "/x/torch/nn/parallel/distributed.py", line 800, in __init__',
        "    _verify_param_shape_across_processes(self.process_group, parameters)",
        '  File "/x/torch/distributed/utils.py", line 280, in _verify_param_shape_across_processes',
        "    return dist._verify_params_across_processes(process_group, tensors, logger)",
        "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1, internal error",
    ]
    failure = classify_as(tmp_path, lines, "nccl_error", "startup")
    assert failure.evidence["stage"] == "frame _verify_params_across_processes"


def test_vllm_v0_worker_loop_is_execute(tmp_path: Path) -> None:
    tag = "(VllmWorkerProcess pid=11) ERROR 03-19 10:55:18 [multiproc_worker_utils.py:242]"
    lines = [
        f"{tag} torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 128.00 MiB.",
        "(VllmWorkerProcess pid=12) ERROR 03-19 10:55:18 [multiproc_worker_utils.py:242] "
        "Exception in worker VllmWorkerProcess while processing method "
        "start_worker_execution_loop.",
    ]
    classify_as(tmp_path, lines, "device_oom", "execute")


def test_older_sglang_nccl_start_is_startup(tmp_path: Path) -> None:
    lines = [
        "[2024-09-01 10:00:00 TP0] Init nccl begin.",
        "[2024-09-01 10:00:01 TP0] RuntimeError: something broke",
    ]
    failure = classify_as(tmp_path, lines, "unknown", "startup")
    assert failure.evidence["stage"] == "marker 'Init nccl begin'"


def test_an_engine_that_never_started_is_at_startup_when_nothing_says_more(tmp_path: Path) -> None:
    lines = ["EngineCore failed to start."]
    failure = classify_as(tmp_path, lines, "engine_died", "startup")
    assert failure.evidence["stage"] == "prior: the engine says it never finished starting"


def test_a_cause_before_the_start_up_wrapper_keeps_its_own_stage(tmp_path: Path) -> None:
    lines = [
        "(EngineCore pid=3) RuntimeError: CUDA error: an illegal memory access was encountered",
        "RuntimeError: Engine core initialization failed. See root cause above.",
    ]
    classify_as(tmp_path, lines, "illegal_memory_access", "unknown")


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # a model class being constructed (the caller's source line names it)
        (
            [
                "Traceback (most recent call last):",
                '  File "app.py", line 5, in <module>',
                '    model = WhisperModel("large-v3", device="cuda")',
                '  File "/x/faster_whisper/transcribe.py", line 600, in __init__',
                "    self.model = ctranslate2.models.Whisper(model_path)",
                "RuntimeError: CUDA failed with error out of memory",
            ],
            "device_oom",
            "loading",
        ),
        # a layer of torch allocating its parameters as the model is built
        (
            [
                "Traceback (most recent call last):",
                '  File "/x/foo/image/transformer.py", line 638, in __init__',
                "    nn.Linear(dim, 6 * dim, bias=True),",
                '  File "/x/torch/nn/modules/linear.py", line 109, in __init__',
                "    self.weight = Parameter(torch.empty((out_features, in_features)))",
                "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 108.00 MiB.",
            ],
            "device_oom",
            "loading",
        ),
        # a communicator being constructed
        (
            [
                "Traceback (most recent call last):",
                '  File "/x/foo/parallel_state.py", line 154, in init_groups',
                "    self.comm = FooNcclCommunicator(group=self.cpu_group)",
                '  File "/x/foo/pynccl.py", line 99, in __init__',
                "    self.handle = self.lib.create_handle(self.world_size, self.rank)",
                "RuntimeError: NCCL error: unhandled system error",
            ],
            "nccl_error",
            "startup",
        ),
        # DeepSpeed's engine broadcasting the weights, behind pdsh's host prefix
        (
            [
                "node-3: Traceback (most recent call last):",
                'node-3:   File "/x/deepspeed/runtime/engine.py", line 200, in __init__',
                "node-3:     self._broadcast_model()",
                'node-3:   File "/x/deepspeed/runtime/engine.py", line 561, in _broadcast_model',
                "node-3:     dist.broadcast(p, self.src_rank, group=self.data_parallel_group)",
                "node-3: RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1, system error",
            ],
            "nccl_error",
            "startup",
        ),
    ],
    ids=["model-class-built", "torch-layer-built", "communicator-built", "deepspeed-broadcast"],
)
def test_what_is_being_built_tells_the_stage(
    tmp_path: Path, lines: list[str], category: str, stage: str
) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_a_host_prefix_is_stripped_only_before_a_record(tmp_path: Path) -> None:
    failure = classify_both(tmp_path, ["node-3: RuntimeError: CUDA error: out of memory"])
    assert failure is not None
    assert failure.first_error == "RuntimeError: CUDA error: out of memory"
    # a label ending in a digit before plain words is part of the message
    failure = classify_both(tmp_path, ["layer2: error at step 3, the value is out of range"])
    assert failure is not None
    assert failure.first_error.startswith("layer2: ")


def test_onnx_runtime_records_are_read_at_their_level(tmp_path: Path) -> None:
    error = "[E:onnxruntime:, session.cc:1 Initialize] Exception during initialization: foo bar"
    failure = classify_both(tmp_path, [error])
    assert failure is not None
    assert failure.first_error == "Exception during initialization: foo bar"
    warning = (
        "[W:onnxruntime:, transformer_memcpy.cc:74 ApplyImpl] 4 Memcpy nodes are added to the "
        "graph for CUDAExecutionProvider. It might have negative impact on performance"
    )
    assert classify_both(tmp_path, [warning]) is None


def test_a_thread_dump_of_a_waiting_thread_alone_is_a_hang(tmp_path: Path) -> None:
    lines = [
        "Thread 0x00007ff5755ab4c0 (most recent call first):",
        '  File "/usr/lib/python3.10/threading.py", line 320 in wait',
        '  File "/srv/foo/managers/scheduler.py", line 519 in event_loop_overlap',
        '  File "/usr/lib/python3.10/multiprocessing/process.py", line 108 in run',
        "",
        "Extension modules: numpy.core._multiarray_umath, uvloop.loop (total: 2)",
    ]
    failure = classify_as(tmp_path, lines, "timeout", "execute")
    assert failure.evidence["category"].startswith("hang: a thread dump")


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        (
            ["[FooError] : 1 : FAIL : Non-zero status code returned while running Conv node."],
            "unknown",
            "execute",  # round 20: ONNX Runtime's executor running a graph node is execute
        ),
        (
            ["Status Message: CUDNN error executing cudnnConvolutionForward(s_.handle, &alpha)"],
            "unknown",
            "unknown",
        ),
        (
            ['GGML_ASSERT: ggml-alloc.c:114: !"not enough space in the buffer"'],
            "device_oom",
            "unknown",
        ),
        (
            ["Windows fatal exception: access violation", "", "Main thread:"],
            "engine_died",
            "unknown",
        ),
        (
            ["[TRT]    10: Could not find any implementation for node conv1/7x7_s2 + conv1/relu."],
            "dispatch_failure",
            "compile",
        ),
        (
            [
                "W0616 17:16:24.460505  2840 gpu_resources.cc:96] The GPU architecture in your "
                "current machine is Pascal, which is not compatible with Paddle installation with "
                "arch: 70 75 80 86 , it is recommended to install the corresponding wheel package"
            ],
            "env_mismatch",
            "startup",
        ),
        (
            [
                "WARNING 07-17 20:03:10 _custom_ops.py:14] Failed to import from vllm._C with "
                "ImportError(\"/lib64/libc.so.6: version `GLIBC_2.32' not found (required by "
                '/x/vllm/_C.abi3.so)")'
            ],
            "env_mismatch",
            "startup",
        ),
    ],
    ids=[
        "bracketed-status",
        "cuda-macro",
        "ggml-assert-buffer",
        "windows-fatal-exception",
        "trt-no-implementation",
        "paddle-arch",
        "glibc-for-extension",
    ],
)
def test_errors_without_an_exception_line(
    tmp_path: Path, lines: list[str], category: str, stage: str
) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    ("line", "category"),
    [
        ("RuntimeError: Library foo64_12.dll is not found or cannot be loaded", "env_mismatch"),
        (" E   RuntimeError: fooIsCapturing is supported since CUDA 10.1+", "env_mismatch"),
        ("GPU #0: FATAL: the 'x' kernel requires 5.0 capability!", "dispatch_failure"),
        (
            "ValueError: Requested int8_float16 compute type, but the target device or backend do "
            "not support efficient int8_float16 computation.",
            "dispatch_failure",
        ),
        (
            "ERROR Failed to find groupsize for Foo Attention that satisfies Shared Memory "
            "constraint.",
            "smem_limit",
        ),
        (
            "RuntimeError: Failed to set maximum shared memory size (requested 147456 bytes)",
            "smem_limit",
        ),
        ("RuntimeError: Unknown gguf model_type: foo_v9", "unsupported_config"),
    ],
    ids=[
        "library-not-found",
        "newer-runtime",
        "capability-number",
        "target-device-refuses",
        "smem-constraint",
        "max-smem-not-set",
        "unknown-model-type",
    ],
)
def test_general_words_of_round_19(tmp_path: Path, line: str, category: str) -> None:
    failure = classify_both(tmp_path, [line])
    assert failure is not None
    assert failure.category == category, failure


@pytest.mark.parametrize(
    ("lines", "stage"),
    [
        (
            ["Running on local URL:  http://0.0.0.0:7860", "RuntimeError: something broke"],
            "execute",
        ),
        (
            ["INFO:foo:Processing audio with duration 00:29.466", "RuntimeError: something broke"],
            "execute",
        ),
        (
            [
                "2025-06-06T22:33:08.343990Z  INFO foo::engine::logger: Throughput (T/s) 212.20, "
                "Prefix cache hitrate 0.00%, 1 running, 0 waiting",
                "2025-06-07T01:01:16.617523Z ERROR foo::engine: step - Model failed with error",
            ],
            "execute",
        ),
        (
            ["ValueError: foo supports at most 32768. Set --max_model_len to 32768 or lower."],
            "startup",
        ),
        (["Error processing image: RuntimeError: something broke"], "execute"),
        (
            ["jax.errors.JaxRuntimeError: NOT_FOUND: All configs failed during profiling."],
            "compile",
        ),
        (
            [
                "E2025-08-13T11:34:14+08:00.677000 8929 torch/_inductor/select_algorithm.py:2100] "
                "[1/0] Runtime error during autotuning:"
            ],
            "compile",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "/x/foo/distributed/parallel_state.py", line 10, in destroy_model_parallel',
                "    _TP.destroy()",
                "RuntimeError: something broke",
            ],
            "shutdown",
        ),
        (["HTTP/1.1 500 Internal Server Error", "", "RuntimeError: something broke"], "execute"),
        (["RuntimeError: foo failed: HTTP/1.1 503 Service Unavailable"], "execute"),
        (["Exception: Foo builder: unable to compile cuda/cpp extensions"], "compile"),
        (["ERROR: Failed to start model server: integer division by zero"], "startup"),
        (
            ["[E:onnxruntime:, session.cc:1 Initialize] Exception during initialization: foo bar"],
            "startup",
        ),
    ],
    ids=[
        "gradio-up",
        "audio-processed",
        "tokens-moving",
        "flag-to-set",
        "work-item-failed",
        "xla-autotuner",
        "dated-glog-level",
        "teardown-frames",
        "http-status-line-before",
        "http-status-in-error",
        "unable-to-compile",
        "model-server-not-started",
        "exception-during-initialization",
    ],
)
def test_stages_of_round_19(tmp_path: Path, lines: list[str], stage: str) -> None:
    failure = classify_both(tmp_path, lines)
    assert failure is not None
    assert failure.stage == stage, failure


def test_a_cut_traceback_after_an_error_is_weaker_than_the_errors_own_words(
    tmp_path: Path,
) -> None:
    # the frames of the traceback printed after the error lend their stage only when the error's
    # own words say none; a quick scan (which reads the traceback apart) and a full read agree
    # (round 61: ComfyUI's "!!! Exception during processing !!!" is its executor's words, read
    # after such frames; an error's own words about its work are used here)
    lines = [
        "2024-12-05T05:51:01.414955 - Error processing image: Allocation on device ",
        "2024-12-05T05:51:01.416983 - Traceback (most recent call last):",
        '  File "/srv/app/execution.py", line 159, in process_inputs',
        "    results.append(getattr(obj, func)(**inputs))",
        '  File "/srv/app/nodes.py", line 10, in load_checkpoint',
        "    model = load(path)",
    ]
    failure = classify_as(tmp_path, lines, "device_oom", "execute")
    assert failure.evidence["stage"] == "phrase 'Error processing image'"


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        (
            [
                "⠴ Transcribing... 0:00:03Could not locate foo_ops64_9.dll. Please make sure it "
                "is in your library path!"
            ],
            "env_mismatch",
            "execute",
        ),
        (["OSError: (External) CUDA error(3), initialization error."], "env_mismatch", "startup"),
    ],
    ids=["spinner-before-the-error", "cuda-cannot-initialise"],
)
def test_last_readings_of_round_19(
    tmp_path: Path, lines: list[str], category: str, stage: str
) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_an_engine_building_its_executor_is_at_startup(tmp_path: Path) -> None:
    lines = [
        "Traceback (most recent call last):",
        '  File "/x/foo/engine/llm_engine.py", line 307, in __init__',
        "    self.model_executor = executor_class(vllm_config=vllm_config, )",
        "RuntimeError: CUDA error: no kernel image is available for execution on the device",
    ]
    failure = classify_as(tmp_path, lines, "dispatch_failure", "startup")
    assert failure.evidence["stage"] == "frame executor_class"
