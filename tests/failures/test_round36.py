"""Mechanisms of the thirty-sixth round (tuned on fresh110-fresh117): a model file without the
tensors its loader expects, an Xid whose text says it timed out in any case, a kernel that
is not there for a shape ("No suitable kernel"), a router's tracing spans logged as JSON, an
inference server's model table naming why a model is unavailable, vLLM's chat-completion
generators and a communicator class built on the innermost source line. The lines are of our
own, in the shapes the tools print.
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
                "llama_model_load: error loading model: check_tensor_dims: tensor 'output.weight' "
                "not found"
            ],
            "unsupported_config",
            "loading",
        ),
        # no error word at all: the rule's keywords find it
        (
            ["gpt2_model_load: tensor 'model/wte' has wrong size in model file"],
            "unsupported_config",
            "loading",  # (since round 41: a model file's tensors are checked while it loads)
        ),
        (["ValueError: Could not find model.layers.* in model"], "unsupported_config", "loading"),
        (
            [
                "NVRM: Xid (PCI:0000:41:00): 119, pid=4242, name=python, Timeout after 6s of "
                "waiting for RPC response from GPU0 GSP!"
            ],
            "timeout",
            "unknown",
        ),
        (
            [
                '{"timestamp":"2026-01-01T00:00:00Z","level":"ERROR","message":"Server error: '
                'No suitable kernel. h_in=64 h_out=512 dtype=Float16","target":"router_client",'
                '"span":{"name":"warmup"},"spans":[{"name":"warmup"}]}',
            ],
            "dispatch_failure",
            "warmup",
        ),
        (
            [
                "| encoder | 1 | UNAVAILABLE: Internal: Stub process 'encoder_0_0' is not "
                "healthy. |",
            ],
            "engine_died",
            "loading",
        ),
        (
            [
                "ERROR 01-01 10:00:00 [serving_chat.py:900] Error in "
                "chat_completion_full_generator - the output could not be parsed.",
            ],
            "unknown",
            "execute",
        ),
    ],
)
def test_round36_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_an_unknown_tensor_a_loader_skips_at_a_warning_is_no_failure(tmp_path: Path) -> None:
    lines = [
        "[WARN ] model.cpp:1200 - unknown tensor 'cond_stage_model.logit_scale' in model file",
        "[INFO ] stable-diffusion.cpp:500 - loading model from 'sd.safetensors' completed",
    ]
    assert classify_both(tmp_path, lines) is None


def test_a_communicator_built_where_the_traceback_is_cut_is_setup(tmp_path: Path) -> None:
    lines = [
        "ERROR worker failed:",
        "Traceback (most recent call last):",
        '  File "/env/lib/python3.12/site-packages/engine/comm.py", line 80, in setup',
        "    self.comm = NcclCommunicator(",
    ]
    failure = classify_as(tmp_path, lines, "unknown", "startup")
    assert failure.evidence["stage"] == "frame __init__"


def test_a_fallback_named_by_its_substitute_is_no_failure(tmp_path: Path) -> None:
    lines = [
        "app.log:12 DEBUG -> worker (stderr): lib/transcribe.py:80: UserWarning: FP16 is not "
        "supported on CPU; using FP32 instead",
        "Detected language: English",
    ]
    assert classify_both(tmp_path, lines) is None
