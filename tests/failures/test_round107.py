"""Mechanisms of the hundred-and-seventh round, tuned on the read half of the thirty-eighth batch
(scientific models, face swapping and upscaling, big-model inference, demo apps on shared GPUs).

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both

_SITE = "/opt/venv/lib/python3.10/site-packages"


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # JAX probing a platform its build lacks is routine; the status XLA raises is the error
        (
            [
                "Unable to initialize backend 'rocm': NOT_FOUND: Could not find registered "
                'platform with name: "rocm". Available platform names are: Host CUDA',
                "Unable to initialize backend 'tpu': INTERNAL: Failed to open libtpu.so",
                "Running on GPU",
                "Query 1/2: sample_a (length 40)",
                "Could not run sample_a. INVALID_ARGUMENT: stream is in an error state",
            ],
            "unknown",
            "unknown",
        ),
        # (a memory shortage only guessed at, with a question mark, names nothing)
        (
            ["Could not predict x. Not enough GPU memory? INTERNAL: launch failed"],
            "unknown",
            "execute",
        ),
        # the word "error" alone as a heading, its message on the next line
        (
            ["error", "The worker gave up on its task"],
            "unknown",
            "unknown",
        ),
        # Transformers' generate starting, then the failure
        (
            [
                "Setting `pad_token_id` to `eos_token_id`:2 for open-end generation.",
                "RuntimeError: CUDA error: an illegal memory access was encountered",
            ],
            "illegal_memory_access",
            "execute",
        ),
        # BasicSR's tools announcing each image they process
        (
            [
                "Testing 0 photo_01",
                "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
            ],
            "device_oom",
            "execute",
        ),
        # the work announced as it starts is that work, not a program starting
        (
            ["Starting Predictions", "Failed (CUDA out of memory) on sequence s1 of length 900."],
            "device_oom",
            "execute",
        ),
        # a guess at the cause after the error names nothing
        (
            [
                "2024-01-31 10:48:31.089476 [E:onnxruntime:, sequential_executor.cc:514 "
                "ExecuteKernel] Non-zero status code returned while running CoreML_1 node. "
                "Name:'CoreML_1_0' "
                "Status Message: Error executing model: Unable to compute the prediction. It can "
                "be an invalid input data or broken/unsupported model (error code: -1)."
            ],
            "unknown",
            "execute",
        ),
        # torch refusing to read a tensor that has no data is a program's error, no refusal
        (
            [
                "Loading checkpoint shards: 100%|██████████| 2/2 [00:05<00:00,  2.50s/it]",
                "NotImplementedError: Cannot copy out of meta tensor; no data!",
            ],
            "unknown",
            "loading",
        ),
        # Rich's frame line when a paste lost its box
        (
            ["app/serve/inference.py:132 in load_model", "", "RuntimeError: weights are broken"],
            "unknown",
            "loading",
        ),
        # the terminal's echo of Ctrl-C as a log's last line: interrupted, as a KeyboardInterrupt
        (
            ["[App] Loading model weights ...", "^C"],
            "unknown",
            "loading",
        ),
    ],
)
def test_round107_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_ctrl_c_before_a_program_prints_its_statistics_is_no_failure(tmp_path: Path) -> None:
    """An interactive session left with Ctrl-C prints its timings on the way out: healthy."""
    lines = [
        "> hello",
        "Hello! How can I help?",
        "^C",
        "llama_print_timings:        load time =     348.01 ms",
        "llama_print_timings:      sample time =     521.15 ms /   607 runs",
    ]
    assert classify_both(tmp_path, lines) is None


def test_words_before_a_server_that_came_up_are_no_failure(tmp_path: Path) -> None:
    """A model's missing buffers reported before the app serves: it went on."""
    lines = [
        "Missing tensor: mel.spectrogram.window",
        "* Running on local URL:  http://0.0.0.0:7860",
        "To create a public link, set `share=True` in `launch()`.",
    ]
    assert classify_both(tmp_path, lines) is None


def test_words_after_the_server_came_up_are_still_read(tmp_path: Path) -> None:
    """Only what came before the server reported itself up is passed over: words after it, the
    log's last, are read as before."""
    lines = [
        "loading the voice model",
        "* Running on local URL:  http://0.0.0.0:7860",
        "Missing tensor: mel.spectrogram.window",
    ]
    failure = classify_both(tmp_path, lines)
    assert failure is not None
    assert failure.first_error == "Missing tensor: mel.spectrogram.window"
