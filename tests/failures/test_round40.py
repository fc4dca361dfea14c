"""Mechanisms of the fortieth round (tuned on fresh130-fresh133): Triton lowering an fp8
conversion for a GPU without one, a model file ggml cannot open, a launcher that finds no GPU,
DeepSpeed's batch-size check, a function named for loading a model, Ray Data's actor tags, and a
store-based barrier that waits over and over. Also words that looked like a refusal and are not:
Python's ``unsupported operand type(s)`` and a kernel's "only supported for contiguous tensors".
The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both

RAY_TAG = "(MapWorker(MapBatches(LLMActor)) pid=77, ip=10.1.2.3) (EngineCore_DP0 pid=78) ERROR"


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        (
            [
                "Running on local URL:  http://0.0.0.0:7860",
                "LLVM ERROR: Unsupported rounding mode for conversion.",
            ],
            "dispatch_failure",
            "execute",
        ),
        (
            [
                "main: build = 5000 (abcdef12)",
                "gguf_init_from_file: failed to open 'models/m.gguf': 'No such file or directory'",
                "llama_model_load: error loading model: llama_model_loader: failed to load model",
            ],
            "unsupported_config",
            "loading",  # (round 62: ggml reading a GGUF file is loading, after the banner too)
        ),
        (
            [
                "initializing gpu module...",
                "fatal error: --n-gpu-layers 20 was passed but no gpus were found",
            ],
            "env_mismatch",
            "startup",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "/srv/train.py", line 40, in main',
                "    engine, *_ = deepspeed.initialize(model=model, config=cfg)",
                "AssertionError: Check batch related parameters. train_batch_size is not equal to "
                "micro_batch_per_gpu * gradient_acc_step * world_size 32 != 2 * 4 * 2",
            ],
            "unsupported_config",
            "startup",  # (since round 42: DeepSpeed checks its configuration as it initialises)
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "/srv/scripts/train.py", line 200, in train',
                "    model = util.load_base_model(args)",
                '  File "/srv/scripts/util.py", line 50, in load_base_model',
                "    return _load_base_model(args.path)",
                '  File "/srv/scripts/util.py", line 90, in _load_base_model',
                "    dtype = encoder.dtype",
                "AttributeError: 'NoneType' object has no attribute 'dtype'",
            ],
            "unknown",
            "loading",
        ),
        (
            [
                f'{RAY_TAG} 03-08 17:31:28 [core.py:1]   File "/usr/lib/python3.12/contextlib.py", '
                "line 137, in __enter__",
                f"{RAY_TAG} 03-08 17:31:28 [core.py:1]     return next(self.gen)",
                f"{RAY_TAG} 03-08 17:31:28 [core.py:1]     raise TimeoutError",
                f"{RAY_TAG} 03-08 17:31:28 [core.py:1] TimeoutError",
            ],
            "timeout",
            "unknown",
        ),
        (
            [
                "Waiting in store based barrier to initialize process group for rank: 0, key: "
                "store_based_barrier_key:1 (world_size=2, worker_count=4, timeout=0:30:00)"
            ]
            * 4,
            "timeout",
            "startup",
        ),
    ],
)
def test_round40_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    "line",
    [
        "TypeError: unsupported operand type(s) for |: 'type' and 'type'",
        "Model failed with error `matmul is only supported for contiguous tensors lstride: [8, 1] "
        "rstride: [1, 8]`.",
    ],
)
def test_a_program_bug_is_no_refused_configuration(tmp_path: Path, line: str) -> None:
    failure = classify_both(tmp_path, [line])
    assert failure is not None
    assert failure.category == "unknown", failure


def test_a_refusal_in_the_same_words_stays_one(tmp_path: Path) -> None:
    # (the words kept out above only: "unsupported" and "only supported for" still refuse)
    for line in (
        "ValueError: unsupported quantization method: x",
        "ValueError: chunked prefill is only supported for models with sliding window off",
    ):
        failure = classify_both(tmp_path, [line])
        assert failure is not None
        assert failure.category == "unsupported_config", failure


def test_a_wait_that_ends_is_no_hang(tmp_path: Path) -> None:
    wait = (
        "Waiting in store based barrier to initialize process group for rank: 1, key: "
        "store_based_barrier_key:1 (world_size=2, worker_count=1, timeout=0:30:00)"
    )
    lines = [wait, wait, "Rank 1: Completed store-based barrier for key:store_based_barrier_key:1"]
    lines.append("epoch 0 step 10 loss 2.31")
    assert classify_both(tmp_path, lines) is None


@pytest.mark.parametrize(
    "line",
    [
        "ValueError: substring not found",
        "ValueError: too many values to unpack (expected 2)",
        "ValueError: invalid literal for int() with base 10: 'auto'",
        "ValueError: 'q_proj' is not in list",
        "ValueError: CublasError(CUBLAS_STATUS_INVALID_VALUE)",
    ],
)
def test_python_s_own_value_errors_are_no_refused_configuration(tmp_path: Path, line: str) -> None:
    failure = classify_both(tmp_path, [line])
    assert failure is not None
    assert failure.category == "unknown", failure


def test_a_value_error_of_a_check_stays_a_refusal(tmp_path: Path) -> None:
    failure = classify_both(tmp_path, ["ValueError: max_model_len must not be larger than 4096"])
    assert failure is not None
    assert failure.category == "unsupported_config", failure
