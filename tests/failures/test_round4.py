"""Mechanisms of the fourth round of generalisation (level handling, pasting damage, stages).

Every line here is written from the text the library itself prints (Triton's resource check as
Inductor's autotuner logs it, glog-style records of PyTorch), with names and numbers of our own.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_both as _classify

from pytest_blackwell.failures.normalize import logical_lines

_SMEM = (
    "out of resource: shared memory, Required: 98304, Hardware limit: 65536. "
    "Reducing block sizes or `num_stages` may help."
)


def test_an_autotuner_dropping_a_config_at_warning_is_not_a_failure(tmp_path: Path) -> None:
    lines = [
        "AUTOTUNE mm(64x512, 512x512)",
        "  triton_mm_3 0.0100 ms 100.0% BLOCK_K=32, BLOCK_M=64, BLOCK_N=64, num_stages=3",
        f"W0607 01:02:03.456000 4242 torch/_inductor/select_algorithm.py:1200] [0/0] {_SMEM}",
        f"[rank1]:W0607 01:02:04.456000 4242 torch/_inductor/select_algorithm.py:1200] {_SMEM}",
        "SingleProcess AUTOTUNE benchmarking takes 1.0000 seconds and 0.0000 seconds precompiling",
    ]
    assert _classify(tmp_path, lines) is None


def test_the_same_resource_check_at_error_level_is_smem_limit(tmp_path: Path) -> None:
    lines = [f"E0607 01:02:03.456000 4242 torch/_inductor/select_algorithm.py:1200] {_SMEM}"]
    failure = _classify(tmp_path, lines)
    assert failure is not None
    assert failure.category == "smem_limit"
    assert failure.detail["required_bytes"] == 98304


@pytest.mark.parametrize(
    ("raw", "level", "text"),
    [
        ("  12 [rank0]:W0607 01:02:03.456000 42 torch/x.py:1] hello", "WARNING", "hello"),
        ("1234  ERROR 06-07 01:02:03 [core.py:1] boom", "ERROR", "boom"),
        ("7 (Worker pid=12) INFO 06-07 01:02:03 [w.py:1] fine", "INFO", "fine"),
        # a message that merely starts with a number keeps it
        ("12 requests finished", "", "12 requests finished"),
    ],
)
def test_a_viewers_line_numbers_before_a_record_are_dropped(
    raw: str, level: str, text: str
) -> None:
    (line,) = logical_lines(raw)
    assert (line.level, line.text) == (level, text)


_TB = "Traceback (most recent call last):"


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # Inductor's autotuner reports at ERROR that no config of a kernel fits: compile
        (
            [
                "AUTOTUNE addmm(32x1024, 32x4096, 4096x1024)",
                "SingleProcess AUTOTUNE benchmarking takes 0.5000 seconds",
                f"E0101 00:00:00.000000 7 torch/_inductor/select_algorithm.py:99] {_SMEM}",
            ],
            "smem_limit",
            "compile",
        ),
        # the reason cut from the line, the autotuner's own words still say compile
        (
            ["E0101 00:00:00.000000 7 torch/_inductor/x.py:9] Exception No valid triton configs."],
            "unknown",
            "compile",
        ),
        # a request rejected while serving (vLLM's request validation)
        (
            [
                "ERROR 01-01 00:00:00 [serving_chat.py:1] ValueError: This model's maximum "
                "context length is 4096 tokens. However, your request has 5000 input tokens.",
            ],
            "unsupported_config",
            "execute",
        ),
        (
            ["ERROR 01-01 00:00:00 [serving_chat.py:1] Error in chat completion stream generator."],
            "unknown",
            "execute",
        ),
        # an engine's own weight-building function, whatever the engine calls it
        (
            [
                _TB,
                '  File "/opt/eng/runner.py", line 10, in _create_weight',
                "    model.make_all_weights(rank)",
                '  File "/opt/eng/runner.py", line 20, in create_shared_weights',
                "    alloc(n)",
                "RuntimeError: something nobody knows",
            ],
            "unknown",
            "loading",
        ),
        # TGI's process-group set-up is start-up, inside get_model or not
        (
            [
                _TB,
                '  File "/srv/server.py", line 5, in get_model',
                "    return Sharded(model_id)",
                '  File "/srv/dist.py", line 9, in initialize_torch_distributed',
                '    assert world_size <= n, "not enough devices"',
                "AssertionError: not enough devices",
            ],
            "unknown",
            "startup",
        ),
        # TGI's launcher: the shard dies by a signal right after it was started
        (
            [
                "2030-01-01T00:00:00.000000Z  INFO shard-manager: text_generation_launcher: "
                "Starting shard rank=0",
                "2030-01-01T00:00:09.000000Z ERROR shard-manager: text_generation_launcher: "
                "Shard process was signaled to shutdown with signal 11 rank=0",
            ],
            "engine_died",
            "loading",
        ),
        # a tool reading the model's tokenizer files right before it errors
        (
            ["load tokenizer: /models/m/tokenizer.json", "ERROR: cannot parse the file"],
            "unknown",
            "loading",
        ),
    ],
)
def test_stage_from_the_words_of_tuners_servers_and_loaders(
    tmp_path: Path, lines: list[str], category: str, stage: str
) -> None:
    failure = _classify(tmp_path, lines)
    assert failure is not None
    assert (failure.category, failure.stage) == (category, stage), failure.evidence


def test_a_runtime_that_needs_a_newer_driver_is_env_mismatch(tmp_path: Path) -> None:
    lines = [
        "RuntimeError: CUDA runtime error: API call is not supported in the installed CUDA driver"
    ]
    failure = _classify(tmp_path, lines)
    assert failure is not None
    assert failure.category == "env_mismatch"


def test_the_async_output_loop_raising_means_the_engine_core_died(tmp_path: Path) -> None:
    lines = [
        _TB,
        '  File "/x/vllm/v1/engine/async_llm.py", line 3, in output_handler',
        "    outputs = await engine_core.get_output_async()",
        '  File "/x/vllm/v1/engine/core_client.py", line 9, in get_output_async',
        "    raise self._format_exception(outputs) from None",
    ]  # the paste ends before the exception line
    failure = _classify(tmp_path, lines)
    assert failure is not None
    assert (failure.category, failure.stage) == ("engine_died", "execute"), failure.evidence


def test_a_logged_message_keeps_its_traceback_when_the_paste_cuts_it(tmp_path: Path) -> None:
    """``logger.exception`` prints the message, then the traceback; the paste ends mid-way."""
    head = "ERROR 01-01 00:00:00 [x.py:1] "
    lines = [
        f"{head}Something went wrong here.",
        f"{head}Traceback (most recent call last):",
        f'{head}  File "/srv/eng/worker.py", line 5, in load_model',
        f"{head}    self.model = build(cfg)",
        f'{head}  File "/srv/eng/build.py", line 8, in build',
        f"{head}    return Model(cfg)",
    ]
    failure = _classify(tmp_path, lines)
    assert failure is not None
    assert failure.first_error == "Something went wrong here."
    assert (failure.category, failure.stage) == ("unknown", "loading"), failure.evidence
    assert any("load_model" in t for t in failure.traceback)


@pytest.mark.parametrize(
    ("before", "stage"),
    [
        (
            ["Capture cuda graph bs [1, 2, 4, 8]", "Capture piecewise CUDA graph begin"],
            "graph_capture",
        ),
        (["Capturing CUDA graphs (mixed prefill-decode, PIECEWISE): 10%"], "graph_capture"),
        (["double enter to end input >>> hello", ""], "execute"),
    ],
)
def test_activity_of_graph_capture_and_of_a_chat_answering(
    tmp_path: Path, before: list[str], stage: str
) -> None:
    lines = [*before, "RuntimeError: CUDA error: an illegal memory access was encountered"]
    failure = _classify(tmp_path, lines)
    assert failure is not None
    assert (failure.category, failure.stage) == ("illegal_memory_access", stage), failure.evidence


_TERMINATE = "terminate called after throwing an instance of 'std::runtime_error'"


@pytest.mark.parametrize(
    ("what", "category"),
    [
        ("  what():  the frobnicator refused the widget", "unknown"),
        (
            "  what():  CUDA error: an illegal memory access was encountered",
            "illegal_memory_access",
        ),
    ],
)
def test_the_message_of_an_uncaught_cpp_exception_is_the_error(
    tmp_path: Path, what: str, category: str
) -> None:
    failure = _classify(tmp_path, [_TERMINATE, what, "Aborted (core dumped)"])
    assert failure is not None
    assert failure.category == category, failure.evidence
    assert failure.first_error.strip() == what.strip()


def test_the_abort_alone_is_a_death(tmp_path: Path) -> None:
    failure = _classify(tmp_path, [_TERMINATE, "Aborted (core dumped)"])
    assert failure is not None
    assert failure.category == "engine_died"


def test_torch_warning_at_cuda_set_up_that_the_card_is_too_new_is_startup(tmp_path: Path) -> None:
    lines = [
        "/x/torch/cuda/__init__.py:200: UserWarning: ",
        "NVIDIA GeForce RTX 9999 with CUDA capability sm_130 is not compatible with the current "
        "PyTorch installation.",
    ]
    failure = _classify(tmp_path, lines)
    assert failure is not None
    assert (failure.category, failure.stage) == ("env_mismatch", "startup"), failure.evidence
    assert failure.evidence["stage"].startswith("prior:")


def test_a_rich_traceback_box_is_read_like_pythons_own(tmp_path: Path) -> None:
    lines = [
        "╭───────────────── Traceback (most recent call last) ─────────────────╮",
        "│ /opt/app/run.py:12 in main                                           │",
        "│                                                                      │",
        "│   11 │   graph = build()                                             │",
        "│ ❱ 12 │   graph.finish()                                              │",
        "│                                                                      │",
        "│ /opt/venv/torch/cuda/graphs.py:88 in capture_end                     │",
        "│                                                                      │",
        "│ ❱ 88 │   │   super().capture_end()                                   │",
        "╰──────────────────────────────────────────────────────────────────────╯",
        "RuntimeError: CUDA error: operation failed due to a previous error dur",
    ]
    failure = _classify(tmp_path, lines)
    assert failure is not None
    assert (failure.category, failure.stage) == ("stream_capture", "graph_capture")
    assert failure.evidence["category"] == "frame capture_end"


def test_a_box_drawn_line_that_is_no_frame_stays_text() -> None:
    (line,) = logical_lines("│ ❱ 12 │   graph.finish() │")
    assert line.text.strip().startswith("❱ 12")


def test_gloos_transport_failing_is_a_collective_failure(tmp_path: Path) -> None:
    lines = [
        "RuntimeError: [/src/third_party/gloo/gloo/transport/tcp/pair.cc:100] Connection closed "
        "by peer [10.0.0.2]:1234",
    ]
    failure = _classify(tmp_path, lines)
    assert failure is not None
    assert failure.category == "nccl_error"
