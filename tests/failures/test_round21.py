"""Mechanisms of the twenty-first round: the traceback printed after an error lends it the words
of its frames, pastes that broke a frame line after its ``in`` or kept a terminal's right border,
and command-line entries whose names tell no stage. The lines are of our own, in the shapes the
tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both

from pytest_blackwell.failures.frame_words import worded_frame
from pytest_blackwell.failures.unwrap import unbordered

CUT_AFTER_ERROR = [
    "ERROR:    CUDA error: an illegal memory access was encountered",
    "ERROR:    Traceback (most recent call last):",
    '  File "/srv/app/loop.py", line 88, in <module>',
    "    run_epoch(loader, model)",
    '  File "/srv/app/loop.py", line 41, in train_one_epoch',
    "    loss.backward()",
]


def test_the_cut_traceback_after_an_error_lends_it_the_words_of_its_frames(
    tmp_path: Path,
) -> None:
    failure = classify_as(tmp_path, CUT_AFTER_ERROR, "illegal_memory_access", "execute")
    assert failure.evidence["stage"] == "frame train_one_epoch (traceback after the error)"
    # without a worded frame, nothing tells
    plain = [line.replace("train_one_epoch", "run_epoch") for line in CUT_AFTER_ERROR]
    classify_as(tmp_path, plain, "illegal_memory_access", "unknown")


def test_a_frame_line_broken_after_its_in_takes_the_name_on_the_next_line(
    tmp_path: Path,
) -> None:
    broken = [
        "2026-01-02 03:04:05.678 ERROR:    CUDA error: an illegal memory access was encountered",
        "2026-01-02 03:04:05.679 ERROR:    Traceback (most recent call last):",
        '2026-01-02 03:04:05.679 ERROR:      File "/srv/api/completion.py", line 572, in ',
        "stream_generate_chat_completion",
        "2026-01-02 03:04:05.679 ERROR:        raise generation",
    ]
    failure = classify_as(tmp_path, broken, "illegal_memory_access", "execute")
    assert "stream_generate_chat_completion" in failure.evidence["stage"]
    # a sentence on the next line is no function name
    sentence = [*broken[:3], "the request was cancelled", broken[4]]
    classify_as(tmp_path, sentence, "illegal_memory_access", "unknown")


def _bordered(lines: list[str], bar: str = "x", width: int = 100) -> list[str]:
    return [f"{line:<{width}}   {bar}" for line in lines]


def test_a_terminal_right_border_is_taken_off_before_the_frames_are_read(
    tmp_path: Path,
) -> None:
    lines = [
        "THCudaCheck FAIL file=/src/THC/alloc.cpp line=27 error=4 : unspecified launch failure",
        "Traceback (most recent call last):",
        '  File "main.py", line 464, in <module>',
        "    train(loader, model)",
        '  File "main.py", line 163, in train',
        "    loss.backward()",
    ]
    failure = classify_as(tmp_path, _bordered(lines), "illegal_memory_access", "execute")
    assert failure.first_error.endswith("unspecified launch failure")
    assert unbordered(_bordered(lines, "│")) == lines


@pytest.mark.parametrize(
    "lines",
    [
        # a table whose last column happens to be one letter on a few rows only
        ["name   size   x", "alpha  12     y", "beta   7      z", "gamma  3      x"],
        # a box drawn on both sides (Rich) is not a pane border
        ["│ a              │", "│ b              │", "│ c              │"],
        # two lines are not enough evidence
        ["first line       x", "second line      x"],
    ],
)
def test_no_border_is_taken_off_without_evidence(lines: list[str]) -> None:
    assert unbordered(lines) is None


@pytest.mark.parametrize(
    "path",
    [
        "/usr/lib/python3/site-packages/vllm/scripts.py",
        "/usr/lib/python3/site-packages/sglang/cli/serve.py",
        "/usr/lib/python3/site-packages/vllm/entrypoints/cli/serve.py",
        "/usr/lib/python3/site-packages/tool/__main__.py",
    ],
)
def test_a_command_line_entry_named_serve_tells_no_stage(path: str) -> None:
    lines = ["Traceback (most recent call last):", f'  File "{path}", line 42, in serve']
    assert worded_frame(lines) is None
    # (nor, since round 127, a server's own entry named so: it sets the engine up, then serves)
    server = ["Traceback (most recent call last):", '  File "/srv/app/server.py", line 9, in serve']
    assert worded_frame(server) is None
    request = [*server[:1], '  File "/srv/app/server.py", line 9, in serve_request']
    assert worded_frame(request) == ("execute", "frame serve_request")


# --- the second part, tuned on fresh52-fresh55 ------------------------------------------------


def test_a_cloud_logging_severity_is_the_streams_and_is_dropped(tmp_path: Path) -> None:
    stamp = "2026-01-02T03:04:05.123456789Z"
    lines = [
        f"ERROR {stamp} AssertionError: slot already freed (len=1)",
        f"ERROR {stamp} [2026-01-02 03:04:05 TP0] Scheduler hit an exception: Traceback (most "
        "recent call last):",
        f'ERROR {stamp} File "/srv/sglang/srt/managers/scheduler.py", line 9, in '
        "event_loop_overlap",
        f"ERROR {stamp} batch = self.get_next_batch_to_run()",
    ]
    failure = classify_as(tmp_path, lines, "unknown", "execute")
    assert failure.first_error == "AssertionError: slot already freed (len=1)"
    # what the program logged at INFO stays quiet, whatever severity the stream had
    quiet = [f"ERROR {stamp} INFO 01-02 03:04:05 [loader.py:12] Loading weights took 1.2 s"]
    assert classify_both(tmp_path, quiet) is None


@pytest.mark.parametrize("before", [[], ["I0305 20:23:38.860000 747 f.py:10] compiling"]])
def test_a_bare_glog_record_at_error_level_is_never_silent(
    tmp_path: Path, before: list[str]
) -> None:
    head = "E0305 20:23:38.866000 747 site-packages/torch/_inductor/runtime/heuristics.py:533]"
    lines = [*before, f"{head}     tmp1 = tl.where(tmp0, tmp2, tmp3)", f"{head}     tl.store(p, x)"]
    failure = classify_as(tmp_path, lines, "unknown", "unknown")
    assert failure.line == len(before) + 1
    # a record at another level, or a line that only starts like one, is no error
    assert classify_both(tmp_path, [line.replace("E0305", "I0305") for line in lines]) is None
    assert classify_both(tmp_path, ["E0 is the ground state energy", "F1 score 0.93"]) is None


@pytest.mark.parametrize(
    ("line", "category", "stage"),
    [
        # an NCCL call named as failing
        (
            "RuntimeError: ncclCommInitRank failed: unhandled cuda error (run with NCCL_DEBUG=INFO"
            " for details)",
            "nccl_error",
            "startup",
        ),
        ("CUDA_EXCEPTION_14, Warp Illegal Address.", "illegal_memory_access", "unknown"),
        (
            "CUDA error: cudaErrorGraphExecUpdateFailure: the graph update was not performed",
            "stream_capture",
            "graph_capture",
        ),
        (
            "RuntimeError: CUDA driver initialization failed, you might not have a CUDA gpu.",
            "env_mismatch",
            "startup",
        ),
        (
            "[Error] src/common.c (line 127): Cannot get number of CUDA devices: CUDA driver "
            "version is insufficient for CUDA runtime version",
            "env_mismatch",
            "startup",
        ),
        (
            "[E socket.cpp:462] [c10d] The server socket has failed to listen on any local "
            "network address.",
            "nccl_error",
            "startup",
        ),
        (
            "[TensorRT] ERROR: ../builder/myelin/codeGenerator.cpp (396) - Myelin Error in "
            "compileGraph: 64 ()",
            "unknown",
            "compile",
        ),
    ],
)
def test_wordings_of_round21(tmp_path: Path, line: str, category: str, stage: str) -> None:
    classify_as(tmp_path, [line], category, stage)


def test_mpirun_reporting_a_rank_killed_by_a_signal_is_a_death(tmp_path: Path) -> None:
    lines = [
        "Primary job  terminated normally, but 1 process returned",
        "a non-zero exit code. Per user-direction, the job has been aborted.",
        "-" * 74,
        "mpirun noticed that process rank 6 with PID 0 on node n1 exited on signal 9 (Killed).",
    ]
    failure = classify_as(tmp_path, lines, "engine_died", "unknown")
    assert failure.detail["signal"] == "SIGKILL"


@pytest.mark.parametrize(
    ("before", "stage"),
    [
        ("load model begin.", "loading"),
        ("> initializing model parallel with size 1", "startup"),
        (" iteration 10/ 100 | lm loss: 1.420515E+00 | grad norm: 13.636 |", "execute"),
        ("{'loss': 3.5534, 'grad_norm': 1.41, 'learning_rate': 2.0e-06, 'epoch': 0.01}", "execute"),
        ("06/17 19:51:14 - mmengine - INFO - Epoch(train) [1][ 8/10]  lr: 1.5e-03", "execute"),
        ("trtexec --onnx=model.onnx --saveEngine=model.plan --fp16", "compile"),
        # a pipeline being built is no distributed set-up; a loss option is no training step
        ("initializing pipeline...", "unknown"),
        ("python train.py --loss 1*L1 --max_epoch 200", "unknown"),
    ],
)
def test_activity_of_round21(tmp_path: Path, before: str, stage: str) -> None:
    classify_as(tmp_path, [before, "Killed"], "engine_died", stage)


@pytest.mark.parametrize(
    ("func", "stage"),
    [("_translate_batch", "execute"), ("transcribe", "execute"), ("beam_search", "execute")],
)
def test_frames_named_for_translating_or_transcribing_run_the_model(
    tmp_path: Path, func: str, stage: str
) -> None:
    lines = [
        "Traceback (most recent call last):",
        f'  File "/srv/app/model.py", line 12, in {func}',
        "    out = self.layer(x)",
        "RuntimeError: CUDA error: an illegal memory access was encountered",
    ]
    classify_as(tmp_path, lines, "illegal_memory_access", stage)


def test_a_model_built_from_weight_files_is_loading_when_the_call_is_cut(tmp_path: Path) -> None:
    lines = [
        "Traceback (most recent call last):",
        '  File "convert_checkpoint.py", line 423, in convert_and_save_rank',
        "    llama = LLaMAForCausalLM.from_hugging_face(",
    ]
    failure = classify_as(tmp_path, lines, "unknown", "loading")
    assert failure.evidence["stage"] == "frame from_hugging_face"
    # from_pretrained also reads configurations at start-up: only contextual
    config = [
        "Traceback (most recent call last):",
        '  File "/x/vllm/transformers_utils/config.py", line 219, in get_config',
        "    config = AutoConfig.from_pretrained(",
        '  File "/x/transformers/models/auto/configuration_auto.py", line 1040, in from_pretrained',
        "ValueError: The checkpoint you are trying to load has model type `qwen9`",
    ]
    classify_as(tmp_path, config, "unsupported_config", "startup")


def test_a_header_cut_inside_its_bracket_is_joined_in_a_wrapped_paste(tmp_path: Path) -> None:
    warning = [
        "[W:onnxruntime:Default, onnxruntime_pybind_state.cc:",
        "965 onnxruntime::python::CreateExecutionProviderInstance] Failed to create CUDAE",
        "xecutionProvider. Require cuDNN 9.* and CUDA 12.*, and the latest MSVC runtime.",
        "Please install all dependencies as mentioned in the GPU requirements page (https",
        "://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html#requireme",
        "nts), make sure they're in the PATH, and that your GPU is supported.",
    ]
    assert classify_both(tmp_path, warning) is None  # a warning: the session falls back
    error = [warning[0].replace("[W:", "[E:"), *warning[1:]]
    assert classify_both(tmp_path, error) is not None
