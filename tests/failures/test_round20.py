"""Mechanisms of the twentieth round (tuned on fresh48-fresh51): a CHECK's own abort, progress
bars whose words say nothing, compilers and executors in the error's own words, functions named
by native error reports, and a few wordings of the libraries. The lines are of our own, in the
shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both

from pytest_blackwell.failures import classify_log
from pytest_blackwell.failures.frames import frame_stage, parse_frame

STACK = [
    "*** Check failure stack trace: ***",
    "    @     0x7f00000010cd  google::LogMessage::Fail()",
    "    @     0x7f0000002f33  google::LogMessageFatal::~LogMessageFatal()",
    "    @     0x7f0000003643  mylib::Conv::Forward_gpu()",
]


def test_a_failed_check_is_not_replaced_by_the_abort_it_calls(tmp_path: Path) -> None:
    lines = [
        "F0102 03:04:05.678901  4242 conv.cu:28] Check failed: status == CUDNN_STATUS_SUCCESS "
        "(8 vs. 0)  CUDNN_STATUS_EXECUTION_FAILED",
        *STACK,
        "Aborted (core dumped)",
    ]
    failure = classify_as(tmp_path, lines, "unknown", "unknown")
    assert failure.first_error.startswith("Check failed")


def test_an_abort_far_from_the_check_or_after_another_error_is_a_death(tmp_path: Path) -> None:
    far = [
        "F0102 03:04:05.678901  4242 conv.cu:28] Check failed: x == y (1 vs. 0)",
        *[f"INFO step {n}" for n in range(40)],
        "Aborted (core dumped)",
    ]
    assert classify_both(tmp_path, far) is not None
    # an error line that only announces the output of a process that died is no check
    announced = [
        "2024-01-02T03:04:05Z ERROR shard-manager: launcher: Shard complete standard error output:",
        "2024-01-02T03:04:05Z ERROR shard-manager: launcher: Shard process was signaled to "
        "shutdown with signal 4 rank=0",
    ]
    failure = classify_both(tmp_path, announced)
    assert failure is not None
    assert failure.category == "engine_died", failure


@pytest.mark.parametrize(
    ("bar", "stage"),
    [
        ("Epoch 3:  41%|####1     | 205/500 [01:02<01:29,  3.29it/s]", "execute"),
        ("  7%|7         | 70/1000 [10:00<2:12:05,  8.52s/it]", "execute"),
        ("Processing: 12frame [00:03,  3.80frame/s]", "execute"),
        # a bar whose words tell another stage keeps it
        ("Loading checkpoint shards:  50%|#####     | 2/4 [00:03<00:03,  1.60s/it]", "loading"),
        ("Capturing CUDA graphs (mixed prefill-decode, PIECEWISE):  10%|# | 7/67 [00:01<00:09, "
         "6.20it/s]", "graph_capture"),
    ],
    ids=["training-epoch", "bare-bar", "frames-processed", "shards", "capture"],
)  # fmt: skip
def test_a_progress_bar_above_the_error_tells_its_work(
    tmp_path: Path, bar: str, stage: str
) -> None:
    lines = [bar, "RuntimeError: CUDA error: an illegal memory access was encountered"]
    failure = classify_as(tmp_path, lines, "illegal_memory_access", stage)
    assert failure.evidence["stage"].startswith(("activity ", "marker "))


def test_a_download_bar_is_no_work_of_the_model(tmp_path: Path) -> None:
    lines = [
        "model-00001-of-00002.safetensors: 100%|##########| 4.97G/4.97G [00:20<00:00, 241MB/s]",
        "RuntimeError: CUDA error: an illegal memory access was encountered",
    ]
    classify_as(tmp_path, lines, "illegal_memory_access", "unknown")


def test_an_error_printed_onto_a_bar_keeps_its_activity_when_recovered(tmp_path: Path) -> None:
    # the watchdog's line is a relay (recovered in full when it shows up): its bar still counts
    lines = [
        "Epoch 0:   0%|          | 0/500 [00:00<?, ?it/s][rank1]:[E0102 03:04:05.713449198 "
        "ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation timeout: "
        "WorkNCCL(SeqNum=7, OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600007 milliseconds",
        "[rank7]:[E0102 03:04:05.717957624 ProcessGroupNCCL.cpp:616] [Rank 7] Watchdog caught "
        "collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE, Timeout(ms)=600000) "
        "ran for 600018 milliseconds",
    ]
    classify_as(tmp_path, lines, "nccl_error", "execute")


def test_vllm_debug_capture_lines_are_graph_capture(tmp_path: Path) -> None:
    lines = [
        "(Worker_TP0 pid=7) DEBUG 01-02 03:04:05 [compilation/cuda_graph.py:239] Capturing a "
        "cudagraph on (FULL,BatchDescriptor(num_tokens=8, num_reqs=8, uniform=True))",
        "Memory access fault by GPU node-2 (Agent handle: 0x1234) on address 0x7f00. Reason: "
        "Page not present or supervisor privilege.",
    ]
    classify_as(tmp_path, lines, "illegal_memory_access", "graph_capture")


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # a compiler's own error line, TensorRT's builder namespace
        (["nvcc error   : 'cicc' died due to signal 9 (Kill signal)"], "engine_died", "compile"),
        (["[TRT] [E] 2: [allocator.cpp::nvinfer1::builder::Allocator::alloc::57] Error Code 2: "
          "OutOfMemory (no further information)"], "device_oom", "compile"),
        # ONNX Runtime's executor running a node of the graph
        (["onnxruntime.capi.onnxruntime_pybind11_state.Fail: [ONNXRuntimeError] : 1 : FAIL : "
          "Non-zero status code returned while running MatMul node. Name:'mm_1' Status Message: "
          "CUDA error cudaErrorIllegalAddress:an illegal memory access was encountered"],
         "illegal_memory_access", "execute"),
        # a model that could not be loaded, after the allocation that failed
        (["ggml_backend_cuda_buffer_type_alloc_buffer: allocating 2048.00 MiB on device 0: "
          "cudaMalloc failed: out of memory",
          "Error: unable to load model: /models/m.gguf"], "device_oom", "loading"),
        # devices that cannot be listed: what a process does first with CUDA
        (["Failed to fetch CUDA devices", " CUDA error: 35 (0x23) cudaErrorInsufficientDriver : "
          "CUDA driver version is insufficient for CUDA runtime version"], "env_mismatch",
         "startup"),
        # an OpenAI-compatible API's error object is its answer to a request
        (['{"object":"error","message":"CUDA out of memory. Tried to allocate 20.00 MiB","code":'
          '400}'], "device_oom", "execute"),
    ],
    ids=["nvcc", "trt-builder", "ort-node", "load-model", "fetch-devices", "api-error-object"],
)  # fmt: skip
def test_the_error_s_own_words_tell_the_stage(
    tmp_path: Path, lines: list[str], category: str, stage: str
) -> None:
    failure = classify_as(tmp_path, lines, category, stage)
    assert failure.evidence["stage"].startswith("phrase "), failure.evidence


def test_ggml_names_the_function_its_cuda_error_was_raised_in(tmp_path: Path) -> None:
    lines = [
        "CUDA error: CUDA-capable device(s) is/are busy or unavailable",
        "  current device: 0, in function ggml_cuda_set_device at ggml/src/ggml-cuda.cu:88",
        "  cudaSetDevice(device)",
    ]
    # the report of where it was raised, right after the error, lends the error its stage
    failure = classify_as(tmp_path, lines, "env_mismatch", "startup")
    assert failure.first_error == lines[0]
    assert parse_frame(lines[1]) is not None
    assert frame_stage([lines[1]]) == ("startup", "frame ggml_cuda_set_device")


@pytest.mark.parametrize(
    ("path", "func", "stage"),
    [
        ("/usr/lib/python3/site-packages/torch/serialization.py", "_load", "loading"),
        ("/x/base_worker.py", "setup_engine", "startup"),
    ],
    ids=["torch-load", "trtllm-setup-engine"],
)
def test_frames_of_round_20(tmp_path: Path, path: str, func: str, stage: str) -> None:
    lines = [
        "Traceback (most recent call last):",
        f'  File "{path}", line 10, in {func}',
        "    result = do_it()",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
    ]
    failure = classify_as(tmp_path, lines, "device_oom", stage)
    assert failure.evidence["stage"].startswith("frame ")


def test_a_function_named_for_capturing_graphs_is_graph_capture(tmp_path: Path) -> None:
    lines = [
        "Traceback (most recent call last):",
        '  File "/x/model_engine.py", line 9, in _capture_decode_cuda_graphs',
        "    self.forward(batch)",
        '  File "/x/model_engine.py", line 30, in forward',
        "    out = self.run(batch)",
    ]
    classify_as(tmp_path, lines, "unknown", "graph_capture")


@pytest.mark.parametrize(
    ("line", "category"),
    [
        ("Check failed: error == cudaSuccess (46 vs. 0)  all CUDA-capable devices are busy or "
         "unavailable", "env_mismatch"),
        ("llama_init_from_model: failed to initialize the context: failed to allocate buffer "
         "for rs cache", "kv_cache_oom"),
        ("InternalError: Check failed: (e == cudaSuccess) is false: CUDA: out of memory",
         "device_oom"),
        ("[Mon Jan  2 03:04:05 2024] Out of memory: Killed process 4242 (python3) total-vm:"
         "80000000kB", "engine_died"),
        ("[12345.678] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),global_oom,"
         "task=python3,pid=4242,uid=1000", "engine_died"),
        ("mlx5: host1: got completion with error:", "nccl_error"),
        ("[WARN rdma/channel.cc:202] pollOnce - channel_id: 4, CQE error, wr_id=3, status=2 "
         "(local QP operation error)", "nccl_error"),
        ("Runner failed with exception: Runner has been initializing for too long: 300 seconds",
         "timeout"),
    ],
    ids=[
        "devices-unavailable",
        "rs-cache",
        "tvm-oom",
        "oom-killer",
        "oom-kill-record",
        "mlx5",
        "cqe",
        "too-long",
    ],
)  # fmt: skip
def test_wordings_of_round_20(tmp_path: Path, line: str, category: str) -> None:
    failure = classify_both(tmp_path, [line])
    assert failure is not None
    assert failure.category == category, failure


@pytest.mark.parametrize(
    "line",
    [
        "[ctranslate2] [thread 7] [warning] The compute type inferred from the saved model is "
        "float16, but the target device or backend do not support efficient float16 computation.",
        "[info] CQE error counters reset",
    ],
    ids=["spdlog-warning", "spdlog-info"],
)
def test_spdlog_quiet_levels_stay_quiet(tmp_path: Path, line: str) -> None:
    assert classify_both(tmp_path, [line]) is None


def test_a_hard_wrapped_file_is_repaired_like_its_lines(tmp_path: Path) -> None:
    # a paste wrapped at a fixed width, every piece padded with spaces to it, saved with a final
    # newline: the file is read as its lines are (the empty rest after the newline is no line)
    width = 60
    lines = ["Loss: 0.004, MAE: 120.83".ljust(width)]
    for rank in (1, 3, 0):
        message = (
            f"[E ProcessGroupNCCL.cpp:587] [Rank {rank}] Watchdog caught collective operation "
            "timeout: WorkNCCL ran for 60109 ms."
        )
        lines += [message[:width], message[width:].ljust(width)]
    path = tmp_path / "wrapped.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    from_file, from_lines = classify_log(path), classify_log(lines)
    assert from_file == from_lines
    assert from_file is not None
    assert from_file.first_error.endswith("ran for 60109 ms."), from_file


def test_a_cancelled_task_does_not_replace_the_engine_s_death(tmp_path: Path) -> None:
    lines = [
        "vllm.engine.async_llm_engine.AsyncEngineDeadError: Task finished unexpectedly. See "
        "stack trace above for the actual cause.",
        'INFO:     127.0.0.1:4242 - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error',
        "Traceback (most recent call last):",
        '  File "/x/asyncio/tasks.py", line 491, in _wait',
        "    await waiter",
        "asyncio.exceptions.CancelledError",
    ]
    failure = classify_both(tmp_path, lines)
    assert failure is not None
    assert failure.category == "engine_died", failure
    # alone, a cancelled task is still never silent
    alone = classify_both(tmp_path, lines[2:])
    assert alone is not None
    assert alone.category == "unknown"


def test_vllm_reading_the_model_config_is_startup(tmp_path: Path) -> None:
    lines = [
        "Traceback (most recent call last):",
        '  File "/x/vllm/transformers_utils/config.py", line 219, in get_config',
        "    config = AutoConfig.from_pretrained(",
        '  File "/x/transformers/models/auto/configuration_auto.py", line 1040, in from_pretrained',
        "    raise ValueError(",
        "ValueError: The checkpoint you are trying to load has model t",  # cut by the paste
    ]
    failure = classify_as(tmp_path, lines, "unsupported_config", "startup")
    assert failure.evidence["stage"] == "frame get_config"


@pytest.mark.parametrize(
    ("node", "stage"),
    [("KSampler", "execute"), ("CheckpointLoaderSimple", "loading")],
)
def test_comfyui_names_the_node_it_was_executing(tmp_path: Path, node: str, stage: str) -> None:
    lines = [f"Error occurred when executing {node}:", "", "'sigmas'"]
    failure = classify_as(tmp_path, lines, "unknown", stage)
    assert failure.evidence["stage"].startswith(("phrase ", "activity "))


@pytest.mark.parametrize(
    "line",
    [
        "RuntimeError: CUDA error: operation not supported",
        "RuntimeError: [TM][ERROR] CUDA runtime error: operation not supported src/alloc.h:10",
        "RuntimeError: BatchPrefillRun failed with error: operation not supported",
        "[TensorRT-LLM][ERROR] CUDA runtime error in cudaDeviceGetDefaultMemPool(&pool, 0): "
        "operation no",
    ],
    ids=["cuda-error", "runtime-error", "kernel-run", "mempool-cut"],
)
def test_the_runtime_s_not_supported_names_no_category(tmp_path: Path, line: str) -> None:
    failure = classify_both(tmp_path, [line])
    assert failure is not None
    assert failure.category == "unknown", failure
    assert failure.evidence["category"] == "rule runtime_not_supported"
