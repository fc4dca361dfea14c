"""Families of wordings, not single logs: hangs, timeouts, backend refusals, stage from frames.

Each case is a wording taken from the engines' and libraries' sources (facts), written the way a
user pastes it; most differ from every corpus log, so a rule tuned to one file would fail here.
"""

from __future__ import annotations

import pytest

from pytest_blackwell.failures import classify_log
from pytest_blackwell.failures.frames import frame_stage

SITE = "/usr/lib/python3.12/site-packages"


def _frame(path: str, func: str, faulthandler: bool = False) -> str:
    sep = " in" if faulthandler else ", in"
    return f'  File "{SITE}/{path}", line 10{sep} {func}'


@pytest.mark.parametrize(
    "line",
    [
        "ray.exceptions.GetTimeoutError: Get timed out: some object(s) not ready.",
        "ERROR 01-02 03:04:05 [core.py:1] TimeoutError: RPC call to sample_tokens timed out.",
        "grpc._channel._InactiveRpcError: status = StatusCode.DEADLINE_EXCEEDED",
        "Error: context deadline exceeded",
        "ERROR: request timed out after 600 seconds",
        "RuntimeError: Timeout of 300s exceeded while waiting for the workers",
        "torch.distributed.DistStoreError: Timed out after 601 seconds waiting for clients.",
        "RuntimeError: Engine core initialization failed. Timed out after 600s waiting for it",
        "[   12.3] NVRM: Xid (PCI:0000:01:00): 8, pid=1, Channel 00000010",
        "NVRM: Xid (PCI:0000:41:00): 109, pid=7, name=python, Ch 00000008, errorString CTX SWITCH "
        "TIMEOUT, Info 0x1c000",
    ],
)
def test_timeouts_in_many_wordings(line: str) -> None:
    failure = classify_log([line])
    assert failure is not None
    assert failure.category == "timeout", failure


def test_xid_faults_still_win_over_timeouts() -> None:
    failure = classify_log(["NVRM: Xid (PCI:0000:01:00): 31, pid=3, Ch 00000010, MMU Fault"])
    assert failure is not None
    assert failure.category == "illegal_memory_access"


@pytest.mark.parametrize(
    ("tail", "reason"),
    [
        # older vLLM wording of its shared-memory broadcast being stuck
        (
            [
                "(VllmWorkerProcess pid=3) WARNING 08-28 14:16:50 shm_broadcast.py:404] "
                "No available block found in 60 second."
            ],
            "no shared-memory broadcast progress",
        ),
        # SGLang's scheduler watchdog dumps the batch it waited on
        (
            [
                "[2025-01-01 10:00:00 TP0] Scheduler debug info:",
                "scheduler.cur_batch.batch_size()=4",
                "scheduler.cur_batch.reqs=[Req(rid=1), Req(rid=2)]",
            ],
            "watchdog dump",
        ),
        # older vLLM metrics: 'Pending' instead of 'Waiting', nothing moves at all
        (
            [
                "INFO 09-18 16:10:53 metrics.py:351] Avg prompt throughput: 0.0 tokens/s, Avg "
                "generation throughput: 0.0 tokens/s, Running: 0 reqs, Swapped: 0 reqs, Pending: 7 "
                "reqs, GPU KV cache usage: 0.0%, CPU KV cache usage: 0.0%."
            ],
            "0.0 tokens/s with requests pending",
        ),
    ],
)
def test_hangs_without_an_error_line(tail: list[str], reason: str) -> None:
    lines = ["INFO 01-01 00:00:00 api_server.py:1] Started server process", *tail]
    failure = classify_log(lines)
    assert failure is not None
    assert failure.category == "timeout"
    assert failure.evidence["category"] == f"hang: {reason}"


def test_idle_server_is_not_a_hang() -> None:
    idle = (
        "INFO 09-18 16:10:53 metrics.py:351] Avg prompt throughput: 0.0 tokens/s, Avg generation "
        "throughput: 0.0 tokens/s, Running: 0 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV "
        "cache usage: 0.0%, CPU KV cache usage: 0.0%."
    )
    assert classify_log([idle, idle, idle]) is None


@pytest.mark.parametrize(
    ("line", "category"),
    [
        (
            "NotImplementedError: FlashInfer backend currently does not support attention sinks",
            "dispatch_failure",
        ),
        ("NotImplementedError: FlashAttention V1 with FP8 KV cache no", "dispatch_failure"),
        ("ValueError: XFormers backend does not support sliding window", "dispatch_failure"),
        ("NotImplementedError: FlashMLA is not supported on this device", "dispatch_failure"),
        # a plain configuration refusal stays unsupported_config
        ("ValueError: max_num_batched_tokens must be positive", "unsupported_config"),
        (
            "RuntimeError: Cannot call CUDAGeneratorImpl::current_seed during CUDA graph capture.",
            "stream_capture",
        ),
        (
            "RuntimeError: Capture cuda graph failed: operation not allowed while the stream is "
            "capturing",
            "stream_capture",
        ),
        (
            "[TRT-LLM] [E] Failed to parse the arguments for the LLM constructor: x",
            "unsupported_config",
        ),
        # (since round 42 Python's own TypeError of a call is a program's error, as two
        # collected logs label it: one package calling another of a version that does not take
        # the keyword; a launcher refusing an option stays a refusal)
        ("TypeError: LLM.__init__() got an unexpected keyword argument 'foo'", "unknown"),
        ("serve: error: unrecognized arguments: --foo", "unsupported_config"),
        (
            "[12-11 17:52:52] Rank 0 scheduler is dead. Please check if there are relevant logs.",
            "engine_died",
        ),
        ("[12-11 17:52:54] Exit code: -9", "engine_died"),
        ("subprocess.CalledProcessError: Error building extension 'fused_kernels'", "env_mismatch"),
    ],
)
def test_wordings_of_each_family(line: str, category: str) -> None:
    failure = classify_log([line])
    assert failure is not None
    assert failure.category == category, failure


def test_a_compiler_cause_beats_the_jit_build_relay() -> None:
    failure = classify_log(
        [
            "ERROR 01-01 00:00:00 [jit.py:1] ptxas fatal   : Value 'sm_121a' is not defined",
            "ERROR 01-01 00:00:00 [jit.py:1] ninja: build stopped: subcommand failed.",
            "RuntimeError: Error building extension 'batch_decode'",
        ]
    )
    assert failure is not None
    assert (failure.category, failure.stage) == ("dispatch_failure", "compile")


def test_collective_timeout_explains_the_abort_before_it() -> None:
    failure = classify_log(
        [
            "ERROR 07-01 13:54:43 multiproc_worker_utils.py:120] Worker VllmWorkerProcess pid 9 "
            "died, exit code: -6",
            "[rank0]:[E ProcessGroupNCCL.cpp:563] [Rank 0] Watchdog caught collective operation "
            "timeout: WorkNCCL(SeqNum=2, OpType=ALLREDUCE) ran for 600059 milliseconds",
        ]
    )
    assert failure is not None
    assert failure.category == "nccl_error"
    # the other order: the death is the later one, the collective failure stays the answer
    failure = classify_log(
        [
            "[rank0]:[E ProcessGroupNCCL.cpp:563] [Rank 0] Watchdog caught collective operation "
            "timeout: WorkNCCL(SeqNum=2, OpType=ALLREDUCE) ran for 600059 milliseconds",
            "Fatal Python error: Aborted",
        ]
    )
    assert failure is not None
    assert failure.category == "nccl_error"


def test_faulthandler_stack_names_the_stage() -> None:
    lines = [
        "Fatal Python error: Segmentation fault",
        "",
        "Current thread 0x00007f (most recent call first):",
        _frame("torch/cuda/graphs.py", "capture_begin", faulthandler=True),
        _frame("vllm/worker/model_runner.py", "capture_model", faulthandler=True),
        _frame("vllm/worker/worker.py", "_warm_up_model", faulthandler=True),
    ]
    assert frame_stage(lines) == ("graph_capture", "frame capture_model")
    failure = classify_log(lines)
    assert failure is not None
    assert (failure.category, failure.stage) == ("engine_died", "graph_capture")


def test_engine_function_around_a_jit_compile_names_the_stage() -> None:
    triton = [_frame("triton/compiler/compiler.py", "_init_handles")]
    around = [
        "Traceback (most recent call last):",
        _frame("sglang/srt/model_executor/model_runner.py", "init_cuda_graphs"),
        _frame("sglang/srt/model_executor/cuda_graph_runner.py", "__init__"),
        *triton,
    ]
    assert frame_stage(around) == ("graph_capture", "frame init_cuda_graphs")
    # alone, Triton's JIT frames say compile; inside the profiling run vLLM compiles: compile
    assert frame_stage(["Traceback (most recent call last):", *triton]) == (
        "compile",
        "frame _init_handles",
    )
    profiling = [
        "Traceback (most recent call last):",
        _frame("vllm/v1/worker/gpu_model_runner.py", "profile_run"),
        _frame("torch/_dynamo/eval_frame.py", "_fn"),
        _frame("torch/_dynamo/convert_frame.py", "_compile"),
    ]
    assert frame_stage(profiling) == ("compile", "frame _compile")
    # dynamo's wrapper alone is a call passing through (a compiled function run, or one that
    # dynamo leaves out): the profiling run's own name tells the stage
    assert frame_stage(profiling[:-1]) == ("profile", "frame profile_run")


@pytest.mark.parametrize(
    ("lines", "stage"),
    [
        (["ERROR text_generation_launcher: Method Warmup encountered an error."], "warmup"),
        (["ERROR text_generation_launcher: Method Prefill encountered an error."], "execute"),
        (
            [
                "Traceback (most recent call last):",
                _frame("sglang/srt/managers/tp_worker.py", "forward_step"),
                "AttributeError: 'NoneType' object has no attribute 'cpu'",
            ],
            "execute",
        ),
        (
            [
                "Traceback (most recent call last):",
                _frame("vllm/utils.py", "get_open_port"),
                "OSError: [Errno 98] Address already in use",
            ],
            "startup",
        ),
        (["AssertionError: Error in memory profiling"], "profile"),
        (
            ["llama_init_from_gpt_params: error: failed to create context with model 'm.gguf'"],
            "kv_alloc",
        ),
        (["TimeoutError: Timed out waiting for engines to send initial message"], "startup"),
    ],
)
def test_stage_from_frames_methods_and_phrases(lines: list[str], stage: str) -> None:
    failure = classify_log(lines)
    assert failure is not None
    assert failure.stage == stage, failure


def test_a_signal_line_gets_the_stage_of_the_stack_printed_after_it() -> None:
    lines = [
        "*** SIGSEGV received at time=1709021359 on cpu 44 ***",
        "[2024-02-27 16:09:19,110 E 1 1] logging.cc:361:     @ ... and at least 2 more frames",
        "Fatal Python error: Segmentation fault",
        "",
        "Stack (most recent call first):",
        _frame("torch/cuda/graphs.py", "capture_begin", faulthandler=True),
        _frame("vllm/worker/model_runner.py", "capture_model", faulthandler=True),
    ]
    failure = classify_log(lines)
    assert failure is not None
    assert (failure.category, failure.stage) == ("engine_died", "graph_capture")
    assert failure.first_error.startswith("*** SIGSEGV received")
    assert failure.evidence["stage"] == "frame capture_model"


def test_a_hang_after_requests_were_accepted_is_in_execute() -> None:
    lines = [
        "INFO 08-28 14:15:50 async_llm_engine.py:173] Added request c14e8b5485c540cb.",
        "(VllmWorkerProcess pid=3) WARNING 08-28 14:16:50 shm_broadcast.py:404] No available "
        "block found in 60 second.",
    ]
    failure = classify_log(lines)
    assert failure is not None
    assert (failure.category, failure.stage) == ("timeout", "execute")
    assert failure.evidence["stage"] == "marker 'Added request '"


def test_vllm_saving_the_inputs_of_a_failed_step_marks_execute() -> None:
    lines = [
        "INFO 02-19 12:14:43 model_runner_base.py:120] Writing input of failed execution to "
        "/tmp/err_execute_model_input_20250219-121443.pkl...",
        "[rank0]:[E219 12:14:43.35 ProcessGroupNCCL.cpp:1595] [PG ID 2 Rank 0] Process group "
        "watchdog thread terminated with exception: CUDA error: an illegal memory access was "
        "encountered",
    ]
    failure = classify_log(lines)
    assert failure is not None
    assert (failure.category, failure.stage) == ("illegal_memory_access", "execute")


def test_a_traceback_escaped_inside_an_error_message_is_read() -> None:
    inner = (
        "Traceback (most recent call last):\\n"
        '  File "/site-packages/triton/backends/nvidia/compiler.py", line 356, in make_cubin\\n'
        "    subprocess.run(ptxas_cmd, check=True)\\n"
        "subprocess.CalledProcessError: Command '['/triton/bin/ptxas', '--gpu-name=sm_120', "
        "'/tmp/x.ptx']' returned non-zero exit status 255.\\n"
    )
    escaped_twice = inner.replace("\\", "\\\\").replace("'", "\\'")
    line = f"app.exceptions.HTTPException: (500, 'SubprocException: failed:\\n{escaped_twice}')"
    failure = classify_log([line])
    assert failure is not None
    assert (failure.category, failure.stage) == ("dispatch_failure", "compile")
