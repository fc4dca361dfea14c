"""Mechanisms of the twenty-ninth round (tuned on fresh84-fresh85): a linker that cannot resolve
what it links against, SGLang's capture of a speculative drafter's graphs, vLLM loading its
drafter, Ollama's scheduler failing to load its runner, a request answered with an error that
yields to the line saying what failed, a Rust launcher's argument parser, and an allocator that
reserves its buffers anew. The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # a link step that cannot resolve a symbol of a prebuilt library
        (
            [
                "/usr/bin/ld: libengine_static.a(runner.cpp.o): in function `run()':",
                "runner.cpp:(.text+0x42): undefined reference to `engine::load(char const*)'",
                "collect2: error: ld returned 1 exit status",
            ],
            "env_mismatch",
            "compile",
        ),
        (["/usr/bin/ld: cannot find -lcudart_static"], "env_mismatch", "compile"),
        # SGLang capturing the drafter's graphs when the scheduler dies by a signal
        (
            [
                "[2025-01-01 00:00:00 TP0] Capture draft cuda graph begin. This can take up to "
                "several minutes. avail mem=8.60 GB",
                "Fatal Python error: Segmentation fault",
            ],
            "engine_died",
            "graph_capture",
        ),
        (
            [
                "[2025-01-01 00:00:00 TP0] Capture draft extend cuda graph end. Time elapsed: 3 s",
                "Fatal Python error: Segmentation fault",
            ],
            "engine_died",
            "warmup",
        ),
        # vLLM loading a speculative decoding drafter when its worker fails to start
        (
            [
                "(Worker pid=7) INFO 01-01 00:00:00 [gpu_model_runner.py:1] Loading drafter "
                "model...",
                "(Worker pid=7) ERROR 01-01 00:00:01 [multiproc_executor.py:1] WorkerProc failed "
                "to start.",
            ],
            "engine_died",
            "loading",
        ),
        # a Rust launcher's parser refusing a flag's value
        (
            ["error: invalid value 'yes' for '--sharded <SHARDED>'"],
            "unsupported_config",
            "startup",
        ),
    ],
)
def test_round29_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_a_failed_load_answered_with_an_error_is_at_loading(tmp_path: Path) -> None:
    """Ollama loads a model for the request that asks for it: the request is answered 500 after
    the load failed, and the line saying what failed decides the stage."""
    lines = [
        'time=2025-01-01T00:00:00Z level=ERROR source=sched.go:1 msg="error loading llama '
        'server" error="llama runner process has terminated: signal: killed"',
        '[GIN] 2025/01/01 - 00:00:00 | 500 |  2m48s |  127.0.0.1 | POST  "/api/generate"',
    ]
    classify_as(tmp_path, lines, "engine_died", "loading")


def test_a_request_answered_with_an_error_still_tells_execute_alone(tmp_path: Path) -> None:
    lines = [
        'time=2025-01-01T00:00:00Z level=ERROR source=server.go:1 msg="runner failed" '
        'error="llama runner process has terminated: signal: killed"',
        '[GIN] 2025/01/01 - 00:00:00 | 500 |  1.2s |  127.0.0.1 | POST  "/api/chat"',
    ]
    classify_as(tmp_path, lines, "engine_died", "execute")


def test_an_allocator_that_reserves_anew_is_no_failure(tmp_path: Path) -> None:
    lines = [
        "llama_context: CUDA0 compute buffer size = 300.00 MiB",
        "ggml_backend_sched_alloc_splits: failed to allocate graph, reserving "
        "(backend_ids_changed = 1)",
        "main: context initialized",
    ]
    assert classify_both(tmp_path, lines) is None
