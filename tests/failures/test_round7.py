"""Mechanisms of the seventh round of generalisation (NCCL's transports as causes, ggml's and
ptxas's bare words, the same error reported again, what a progress bar or a stack dump shows,
log formats that carry a level).

Every line here is written from the text the library itself prints (NCCL, ggml-cuda, ptxas,
TensorRT, vLLM, SGLang, py-spy, llama.cpp's server, Ollama, the OpenAI client), with names,
paths and numbers of our own.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as
from classify_helpers import classify_both as _classify

_TB = "Traceback (most recent call last):"


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # the network between ranks failed first: a cause, not a relay a later fault replaces
        (["n1:10:20 [0] transport/net_ib.cc:700 NCCL WARN NET/IB : Got completion from peer "
          "10.1.1.2<40000> with status=12 opcode=0 len=0 vendor err 129",
          "n1:10:10 [0] NCCL INFO Destroyed comm 0x1 rank 0",
          "n1:10:10 [1] init.cc:90 NCCL WARN Cuda failure 'an illegal memory access was "
          "encountered'"], "nccl_error", "unknown"),
        (["n2:11:21 [0] misc/socket.cc:50 NCCL WARN socketProgress: Connection closed by remote "
          "peer n3<5000>",
          "n2:11:22 [3] include/alloc.h:180 NCCL WARN Cuda failure 'out of memory'"],
         "nccl_error", "unknown"),
        (["Error while creating shared memory segment /dev/shm/nccl-AbC123 (size 4194304)"],
         "nccl_error", "unknown"),
        # ggml-cuda's abort where no case fits, ptxas's words without its prefix
        (["/src/ggml/src/ggml-cuda/fattn-vec.cuh:300: fatal error"], "dispatch_failure",
         "unknown"),
        (["Value 'sm_121a' is not defined for option 'gpu-name'"], "dispatch_failure",
         "compile"),
        # a model architecture a tool cannot convert is the model's, not the GPU's
        (['Error: unsupported architecture "MyNewForCausalLM"'], "unsupported_config",
         "unknown"),
        (["ERROR 01-01 00:00:00 [engine.py:1] AssertionError('Only FlashAttention backend is "
          "supported for now.')"], "dispatch_failure", "unknown"),
        (["ERROR 01-01 00:00:00 async_llm_engine.py:9] Engine iteration timed out. This should "
          "never happen!"], "timeout", "execute"),  # round 15: a step of running requests
        # vLLM checks the model path and the architecture while it builds its config
        (["ValueError: Invalid repository ID or local directory specified: 'org/model'."],
         "unsupported_config", "startup"),
        (["ValueError: Model architectures ['FooForCausalLM'] are not supported for now."],
         "unsupported_config", "startup"),
        # TensorRT's builder: its own messages say where it was
        (["[01/01/2025-00:00:00] [TRT] [E] 9: Skipping tactic 0x0000000000000001 due to "
          "exception Assertion kernel failed."], "unknown", "compile"),
        (["Couldn't init a GPU test: Error in load module (burn.cpp:243): the provided PTX was "
          "compiled with an unsupported toolchain."], "env_mismatch", "compile"),
    ],
)  # fmt: skip
def test_lines_of_the_libraries(
    tmp_path: Path, lines: list[str], category: str, stage: str
) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_a_fallback_logged_at_info_is_no_failure(tmp_path: Path) -> None:
    lines = [
        "2025-01-01 00:00:00,000 vllm.attention.selector 4242 INFO     Cannot use "
        "FlashAttention-2 backend for Volta and Turing GPUs.",
        "2025-01-01 00:00:00,001 vllm.attention.selector 4242 INFO     Using XFormers backend.",
    ]
    assert _classify(tmp_path, lines) is None


def test_the_same_error_reported_again_says_what_was_being_done(tmp_path: Path) -> None:
    lines = [
        "RuntimeError: CUDA error: an illegal memory access was encountered",
        "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
        "[TRT-LLM] [RANK 0] [E] Encountered an error in forward function: CUDA error: an "
        "illegal memory access was encountered",
    ]
    failure = _classify(tmp_path, lines)
    assert failure is not None
    assert (failure.category, failure.stage) == ("illegal_memory_access", "execute")
    assert failure.evidence["stage"].endswith("(the same error reported again)")


def test_another_error_later_does_not_lend_its_words(tmp_path: Path) -> None:
    lines = [
        "RuntimeError: CUDA error: an illegal memory access was encountered",
        "ERROR Error in forward function: something else broke",
    ]
    failure = _classify(tmp_path, lines)
    assert failure is not None
    assert failure.stage == "unknown"


@pytest.mark.parametrize(
    ("before", "stage"),
    [
        # a progress bar the traceback was printed onto, on the same physical line
        (["Capturing batches (bs=16 avail_mem=0.10 GB):  50%|█████     | 2/4 [00:01<00:01]"
          + _TB], "graph_capture"),
        (["slot update_slots: id  0 | task 3 | prompt processing progress, n_tokens = 12",
          _TB], "execute"),
        (['time=2025-01-01T00:00:00 level=INFO source=server.go:600 msg="waiting for server to '
          'become available" status="llm server loading model"', _TB], "loading"),
    ],
)  # fmt: skip
def test_what_ran_right_before_tells_the_stage(
    tmp_path: Path, before: list[str], stage: str
) -> None:
    lines = [*before, '  File "/opt/x/run.py", line 3, in go', "    go()", "RuntimeError: boom"]
    failure = _classify(tmp_path, lines)
    assert failure is not None
    assert failure.stage == stage
    assert failure.evidence["stage"].startswith("activity")


@pytest.mark.parametrize(
    ("frame", "stage"),
    [
        ('  File "/opt/lib/transformers/tokenization_auto.py", line 9, in from_pretrained',
         "loading"),
        ('  File "/opt/lib/openai/resources/chat/completions.py", line 9, in create', "execute"),
    ],
)  # fmt: skip
def test_frames_of_the_libraries(tmp_path: Path, frame: str, stage: str) -> None:
    lines = [_TB, '  File "/opt/app/main.py", line 3, in <module>', "    go()", frame, "    x()"]
    failure = _classify(tmp_path, [*lines, "OSError: something is missing"])
    assert failure is not None
    assert failure.stage == stage


def test_a_stack_dumped_after_a_hang_sign_tells_its_stage(tmp_path: Path) -> None:
    lines = [
        "WARNING No available shared memory broadcast block found in 60 seconds.",
        "Pyspy dump for PID 100:",
        "Process 100: scheduler",
        'Thread 100 (active): "MainThread"',
        "    draft (spec_worker.py:10)",
        "    run_batch (scheduler.py:20)",
        "    event_loop_normal (scheduler.py:30)",
    ]
    failure = _classify(tmp_path, lines)
    assert failure is not None
    assert (failure.category, failure.stage) == ("timeout", "execute")
    assert failure.evidence["stage"] == "frame run_batch"
