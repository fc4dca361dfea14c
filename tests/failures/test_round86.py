"""Mechanisms of the eighty-sixth round, tuned on half of the nineteenth batch (``fresh384/``,
``fresh386/``, ``fresh388/``, ``fresh390/``, measured before reading with round 85); the other
half (``fresh385/``, ``fresh387/``, ``fresh389/``, ``fresh391/``) and the older unread sets stay
unread.

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # a traceback cut before its exception line, pasted with doubled line breaks and no
        # indentation: still a cut traceback, its frames (a name cut short completed by the call
        # above it) read
        (
            [
                "Traceback (most recent call last):",
                "",
                'File "/x/modules/ui.py", line 213, in load_model_wrapper',
                "",
                "shared.model = load_model(selected_model, loader)",
                "",
                'File "/x/modules/models.py", line 87, in load_',
            ],
            "unknown",
            "loading",
        ),
        # Ray's actor that died of an error raised in its constructor, the traceback cut
        (
            [
                "The actor died because of an error raised in its creation task, ray::Trainer."
                "__init__() (pid=42, ip=10.0.0.1, actor_id=30, repr=<x.Trainer object at 0x7e>)",
                '  File "/x/vllm/engine/llm_engine.py", line 141, in _init_workers',
                "    self._run_workers(",
                '  File "/x/vllm/engine/llm_engine.py", line 200, in _run_workers',
            ],
            "engine_died",
            "startup",
        ),
        # (and the error it died of, in the same block: that error is the answer)
        (
            [
                "The actor died because of an error raised in its creation task, ray::Tester."
                "__init__() (pid=7, ip=10.0.0.1)",
                'File "/x/tester.py", line 20, in __init__',
                "dist.all_reduce(x)",
                'File "/x/distributed_c10d.py", line 2924, in all_reduce',
                "work = group.allreduce([tensor], opts)",
                "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:3699, "
                "unhandled cuda error (run with NCCL_DEBUG=INFO for details)",
            ],
            "nccl_error",
            "startup",
        ),
        # an engine asking for another attention backend by name: the one it has lacks a kernel
        (
            [
                "ValueError: Please use the XFormers backend for models with sliding windows. "
                "Set it with VLLM_ATTENTION_BACKEND=XFORMERS."
            ],
            "dispatch_failure",
            "unknown",
        ),
        # a binding's native library that cannot be loaded
        (
            ["LLama.Exceptions.RuntimeError: The native library could not be correctly loaded."],
            "env_mismatch",
            "startup",
        ),
        # Metal's shader compiler on a kernel built at run time
        (
            [
                "program_source:120:9: error: invalid type 'const constant int64_t &' for buffer "
                "declaration"
            ],
            "dispatch_failure",
            "compile",
        ),
        # macOS' loader calling a weakly linked symbol that is missing: found when it is called
        (["dyld[4242]: missing symbol called"], "env_mismatch", "unknown"),
    ],
)
def test_round86_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)
