"""Mechanisms of the hundred-and-twelfth round, tuned on the read half of the forty-second batch
(request-time failures of LLM servers, PyTorch core, production deployments, diffusion).

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # nvcc's fatal error indented in a build's output, behind a compose service's prefix
        (
            [
                "app-gpu-1  |     /usr/local/cuda/bin/nvcc -c kernels/attn.cu -o build/attn.o",
                "app-gpu-1  |     nvcc fatal   : Unsupported gpu architecture 'compute_200'",
                "app-gpu-1  |",
            ],
            "dispatch_failure",
            "compile",
        ),
        (
            [
                "app-gpu-1  |     /usr/local/cuda/bin/nvcc -c kernels/attn.cu -o build/attn.o",
                "app-gpu-1  |     nvcc fatal   : A single input file is required for a non-link "
                "phase when an outputfile is specified",
            ],
            "unknown",
            "compile",
        ),
        # Flask's report of an exception raised while it handled a request
        (
            [
                "[2026-01-01 10:00:00,000] ERROR in app: Exception on /v1/chat [POST]",
                "Traceback (most recent call last):",
                '  File "/srv/app.py", line 9, in handle',
                "KeyError: 'prompt'",
            ],
            "unknown",
            "execute",
        ),
        # a structured-output grammar refusing the tokens a request generated
        (
            [
                "ERROR 01-01 10:00:00 [backend_xgrammar.py:160] Failed to advance FSM for request "
                "chatcmpl-x for tokens 42. Please file an issue."
            ],
            "unknown",
            "execute",
        ),
        # a configuration file named as not found
        (
            ["ERROR router: Server error: Can't find 'adapter_config.json' at '/data/adapters/a1'"],
            "unsupported_config",
            "unknown",
        ),
        # torch's broadcast check, as its expand check already was
        (
            [
                "RuntimeError: The size of tensor a (77) must match the size of tensor b (256) at "
                "non-singleton dimension 1"
            ],
            "unsupported_config",
            "unknown",
        ),
    ],
)
def test_round112_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_fatal_inside_a_word_is_no_error(tmp_path: Path) -> None:
    """Only ``fatal:`` as a word is an error's: a count of non-fatal issues is no failure."""
    lines = ["checked 40 files", "    non-fatal: 0 issues, 2 notes", "done"]
    assert classify_both(tmp_path, lines) is None


# --- the review of rounds 110 to 112: what the new words must not read ---


@pytest.mark.parametrize(
    "lines",
    [
        # TensorFlow relying on the driver when ptxas cannot be launched, a warning it goes on from
        [
            "2021-03-01 10:00:00.123456: W tensorflow/stream_executor/gpu/redzone_allocator.cc:"
            "314] Internal: Failed to launch ptxas",
            "Relying on driver to perform ptx compilation.",
            "Epoch 1/10",
        ],
        # git's words that builds print while they work out a version
        ["      fatal: not a git repository (or any of the parent directories): .git", "built"],
        ["app-1  |  fatal: No names found, cannot describe anything.", "app-1  | ready"],
        # a buffer of NVSHMEM's reported at INFO level
        ["INFO 05-01 10:00:00 [ep.py:1] NvshmemBuffer: allocated 1024 MiB symmetric heap"],
    ],
)
def test_the_new_words_raise_no_false_alarm(tmp_path: Path, lines: list[str]) -> None:
    assert classify_both(tmp_path, lines) is None


def test_a_gpu_in_the_list_is_no_missing_gpu(tmp_path: Path) -> None:
    """TensorFlow's placer naming another GPU than the one the process has is no missing GPU."""
    classify_as(
        tmp_path,
        [
            "tensorflow.python.framework.errors_impl.InvalidArgumentError: Cannot assign a "
            "device for operation x: node x was explicitly assigned to /device:GPU:1 but "
            "available devices are [ /device:CPU:0, /device:GPU:0 ]."
        ],
        "unknown",
        "unknown",
    )


def test_every_nvcc_tool_that_crashed_reads_alike(tmp_path: Path) -> None:
    classify_as(tmp_path, ["nvcc error   : 'cudafe++' died due to signal 11"], "unknown", "compile")


def test_only_real_frames_are_given_their_spaces_back(tmp_path: Path) -> None:
    """A paste indented whole with a line that only starts like a frame keeps its other lines
    flush, so the death below is still read with its signal."""
    failure = classify_as(
        tmp_path,
        ['    File "config.json" not found in cache', "    Killed"],
        "engine_died",
        "unknown",
    )
    assert failure.detail.get("signal") == "SIGKILL"
