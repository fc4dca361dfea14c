"""Mechanisms of the sixty-second round, tuned on the whole corpus.

Categories: an installed version without a feature (``driver and/or toolkit version does not
support ...``: ``env_mismatch``); a library's op without a kernel for the backend it runs on
(``This op had not been implemented on CPU backend``: ``dispatch_failure``).
Stages: Megatron's timer line cut before its bracket (``before the start of training step]``)
and a runner prefilling a request (``execute``); Lightning's ``MisconfigurationException``,
raised as the Trainer is built, and ggml's older device report (``ggml_init_cublas: found 2
CUDA devices``) (``startup``); ggml's reader of a GGUF file that is not there or is no GGUF
(``loading``, also after llama.cpp's start-up banner); a server that cannot stop in time
(``shutdown``); a CUDA graph's preparation (``graph_capture``); TurboMind stepping a batch
(``[Forward]``, ``execute``).
The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        (
            [
                "AssertionError: CUDA device, driver and/or toolkit version does not support "
                "comm+GEMM overlap with CUDA Multicast.",
            ],
            "env_mismatch",
            "unknown",
        ),
        (
            ["ValueError: This op had not been implemented on CPU backend."],
            "dispatch_failure",
            "unknown",
        ),
        (
            [
                "before the start of training step] datetime: 2024-07-22 18:26:45",
                "torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -11) "
                "local_rank: 0 (pid: 1761020) of binary: /usr/bin/python",
            ],
            "engine_died",
            "execute",
        ),
        (
            [
                "2025-10-23 04:15:30.108 | INFO     | tt.generator:prefill_forward:627 - "
                "Prefilling User 1 up to 8010 tokens",
                "2025-10-23 04:15:50.252 | critical |          Always | Out of Memory: Not enough "
                "space to allocate 117440512 B DRAM buffer across 12 banks",
            ],
            "device_oom",
            "execute",
        ),
        (
            [
                '  File "/x/pytorch_lightning/trainer/connectors/accelerator_connector.py", line '
                "12, in _check_config",
                "    raise MisconfigurationException(message)",
                "pytorch_lightning.utilities.exceptions.MisconfigurationException: You requested "
                "gpu: [0] But your machine only has: []",
            ],
            "env_mismatch",
            "startup",
        ),
        (
            [
                "ggml_init_cublas: found 2 CUDA devices:",
                "  Device 0: Tesla T4, compute capability 7.5",
                "CUDA error 222 at /src/ggml-cuda.cu:1501: the provided PTX was compiled with an "
                "unsupported toolchain.",
            ],
            "env_mismatch",
            "startup",
        ),
        (
            [
                "main: build = 3172 (1c5eba6f)",
                "gguf_init_from_file: failed to open 'models/7B/ggml-model-f16.gguf': 'No such "
                "file or directory'",
            ],
            "unsupported_config",
            "loading",
        ),
        (
            [
                "I0101 00:00:00.000000 1 server.cc:300] Waiting for in-flight requests.",
                "error: failed to stop server: Internal - Exit timeout expired. Exiting "
                "immediately.",
            ],
            "timeout",
            "shutdown",
        ),
        (
            [
                "error: CUDA Graph preparation consumed 875819008 bytes, exceeding the planned "
                "allowance of 12582912 bytes",
            ],
            "unknown",
            "graph_capture",
        ),
        (
            [
                " [TM][INFO] [Forward] [0, 1), dc=0, pf=1, sum_q=679, sum_k=679, max_q=679",
                "",
                " terminate called after throwing an instance of 'std::runtime_error'",
                "   what():  [TM][ERROR] CUDA runtime error: an illegal memory access was "
                "encountered /src/turbomind/models/llama/LlamaBatch.h:143",
            ],
            "illegal_memory_access",
            "execute",
        ),
    ],
)
def test_round62_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)
