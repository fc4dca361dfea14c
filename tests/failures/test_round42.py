"""Mechanisms of the forty-second round (tuned on fresh138-fresh141): Python's own TypeError of a
call with a keyword the callee does not take, DeepSpeed's batch check at start-up, Triton's
frontend refusing a kernel's source, trtllm-build's engine builds, TGI's weight loader and
torch's ``Error(s) in loading state_dict``. The lines are of our own, in the shapes the tools
print.
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
                "triton.compiler.errors.CompilationError: at 15:11:",
                "    x = tl.load(ptr + offs)",
                "           ^",
            ],
            "unknown",
            "compile",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "/srv/tensorrt_llm/commands/build.py", line 600, in parallel_build',
                "    with ProcessPoolExecutor(max_workers=workers) as p:",
                "ValueError: max_workers must be greater than 0",
            ],
            "unsupported_config",
            "compile",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "/opt/conda/lib/python3.10/site-packages/text_generation_server/utils/'
                'weights.py", line 120, in get_multi_weights_col',
                "    w = [self.get_sharded(p, dim=0) for p in prefixes]",
                "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 96.00 MiB.",
            ],
            "device_oom",
            "loading",
        ),
        (
            [
                "Node Type: IPAdapterAdvanced",
                "RuntimeError: Error(s) in loading state_dict for Resampler:",
                "\tsize mismatch for proj_in.weight: copying a param with shape torch.Size([8, 4]) "
                "from checkpoint, the shape in current model is torch.Size([8, 2]).",
            ],
            "unsupported_config",
            "loading",
        ),
    ],
)
def test_round42_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_a_call_with_a_keyword_the_callee_does_not_take_is_a_program_s_error(
    tmp_path: Path,
) -> None:
    line = "TypeError: Worker.__init__() got an unexpected keyword argument 'kv_cache_dtype'"
    failure = classify_both(tmp_path, [line])
    assert failure is not None
    assert failure.category == "unknown", failure


def test_a_launcher_refusing_an_argument_stays_a_refusal(tmp_path: Path) -> None:
    line = "error: got an unexpected argument '--kv-cache-dtype' found"
    failure = classify_both(tmp_path, [line])
    assert failure is not None
    assert failure.category == "unsupported_config", failure


@pytest.mark.parametrize(
    ("lines", "category"),
    [
        (["AssertionError: 96 is not divisible by 64"], "unsupported_config"),
        (
            [
                "RuntimeError: [TensorRT-LLM][ERROR] Assertion failed: mpiSize == tp * pp "
                "(/src/tensorrt_llm/runtime/worldConfig.cpp:99)"
            ],
            "unsupported_config",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "/srv/train.py", line 9, in main',
                "    trainer = pl.Trainer(gpus=1)",
                "pytorch_lightning.utilities.exceptions.MisconfigurationException: ",
                "            You requested GPUs: [0]",
                "            But your machine only has: []",
            ],
            "env_mismatch",
        ),
    ],
)
def test_round42_categories(tmp_path: Path, lines: list[str], category: str) -> None:
    failure = classify_both(tmp_path, lines)
    assert failure is not None
    assert failure.category == category, failure
