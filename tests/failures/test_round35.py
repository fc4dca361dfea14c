"""Mechanisms of the thirty-fifth round (tuned on fresh106-fresh109): the constructors of torch's
data-parallel wrappers (distributed set-up), a backend's warm-up error, vLLM's multi-modal
profiler, a work loop counting its iterations with a colon, a model load named in more words,
a launcher's shard that failed after it started, a loader missing a named weight and a library
that loads its native part as it is imported. The lines are of our own, in the shapes the
tools print.
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
                "node1:77:91 [0] transport/net.cc:120 NCCL WARN Could not open the device",
                "Traceback (most recent call last):",
                '  File "train.py", line 30, in <module>',
                "    model = DDP(model, device_ids=[rank])",
                '  File "/env/lib/python3.10/site-packages/torch/nn/parallel/distributed.py", '
                "line 640, in __init__",
            ],
            "nccl_error",
            "startup",
        ),
        (
            [
                "E0101 10:00:00.000001 7 backend_model_instance.cc:99] warmup error: Internal - "
                "OOM when allocating tensor with shape[64,3,224,224]",
            ],
            "device_oom",
            "warmup",
        ),
        (
            [
                "WARNING 01-01 10:00:00 [profiling.py:200] The sequence length used for profiling "
                "(max_num_batched_tokens / max_num_seqs = 4096) is too short to hold the "
                "multi-modal embeddings in the worst case.",
                "ERROR 01-01 10:00:02 [engine.py:400] CUDA out of memory. Tried to allocate "
                "512.00 MiB. GPU 0 has a total capacity of 23.6 GiB of which 80.00 MiB is free.",
            ],
            "device_oom",
            "profile",
        ),
        (
            [
                "iteration: 3",
                "render time: 0.01 s",
                "RuntimeError: CUDA error: an illegal memory access was encountered",
            ],
            "illegal_memory_access",
            "execute",
        ),
        (
            [
                "Loading stable diffusion model sd15 on cuda",
                "Could not load library cudnn_cnn_infer64_8.dll. Error code 126",
            ],
            "env_mismatch",
            "loading",
        ),
        (
            [
                "2026-01-01T10:00:00Z  INFO shard-manager: text_generation_launcher: shard "
                "terminated rank=1",
                "Error: ShardFailed",
            ],
            "engine_died",
            "unknown",
        ),
        (["Exception: can't find output.weight in GGUF file!"], "unsupported_config", "unknown"),
        (
            [
                "bitsandbytes library load error: Configured CUDA binary not found at "
                "/env/lib/python3.12/site-packages/bitsandbytes/libbitsandbytes_cuda130.so",
            ],
            "env_mismatch",
            "startup",
        ),
    ],
)
def test_round35_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_a_data_parallel_wrapper_running_is_no_setup(tmp_path: Path) -> None:
    # DDP's forward (its reducer's collectives while training) is not its constructor
    lines = [
        "Traceback (most recent call last):",
        '  File "/env/lib/python3.10/site-packages/torch/nn/parallel/distributed.py", '
        "line 1600, in forward",
        "    inputs, kwargs = self._pre_forward(*inputs, **kwargs)",
        "RuntimeError: CUDA error: an illegal memory access was encountered",
    ]
    failure = classify_as(tmp_path, lines, "illegal_memory_access", "unknown")
    assert failure.evidence["stage"] == "none"


def test_dynamos_advice_to_import_it_is_no_startup(tmp_path: Path) -> None:
    lines = [
        "backend='inductor' raised:",
        "RuntimeError: Cannot find a working triton installation. Either the package is not "
        "installed or it is too old.",
        "",
        "You can suppress this exception and fall back to eager by setting:",
        "import torch._dynamo",
        "torch._dynamo.config.suppress_errors = True",
    ]
    # (round 39: the advice itself is printed only under an error raised while Dynamo compiles;
    # round 71: Dynamo's "backend='inductor' raised:" over the error says so first)
    failure = classify_as(tmp_path, lines, "env_mismatch", "compile")
    assert failure.evidence["stage"] == "rule backend_raised"
    failure = classify_as(tmp_path, lines[1:], "env_mismatch", "compile")
    assert "suppress_errors" in failure.evidence["stage"]
