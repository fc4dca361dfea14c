"""Mechanisms of the forty-fifth round: tracebacks a paste flattened. A whole traceback on one
line, with no header before its frames (the paste began inside it), still tells its stage by
its frames; so do frames pasted two to a line, each followed by its source. A tensor that
torch's ``load_state_dict`` could not copy from a checkpoint is ``loading``, like the message's
header.
The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as

_ONE_LINE = (
    'r = self.engine.step()  File "/srv/vllm/worker/worker.py", line 40, in warm_up  '
    'self.model_runner.capture_model(self.gpu_cache)  File "/srv/vllm/worker/model_runner.py", '
    "line 1200, in capture_model  graph_runner.capture(**capture_inputs)  File "
    '"/srv/vllm/worker/model_runner.py", line 1500, in capture  self.model(input_ids, positions) '
    "RuntimeError: CUDA error: an illegal memory access was encountered Compile with "
    "TORCH_USE_CUDA_DSA to enable device-side assertions."
)


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        ([_ONE_LINE], "illegal_memory_access", "graph_capture"),
        (
            [
                "Traceback (most recent call last):",
                '  File "run.py", line 20, in <module>    main()',
                '  File "run.py", line 9, in main    x = x.cuda()  File '
                '"/env/torch/cuda/__init__.py", line 178, in _lazy_init    _check_driver()',
                '  File "/env/torch/cuda/__init__.py", line 108, in _check_driver',
                "    raise AssertionError(",
                "AssertionError: The NVIDIA driver on your system is too old (found version 9000).",
            ],
            "env_mismatch",
            "startup",
        ),
        (
            [
                "\tsize mismatch for blocks.0.attn.qkv.weight: copying a param with shape "
                "torch.Size([96, 32]) from checkpoint, the shape in current model is "
                "torch.Size([48, 32]).",
            ],
            "unsupported_config",
            "loading",
        ),
    ],
)
def test_round45_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)
