"""Mechanisms of the hundred-and-ninth round, tuned on the read halves of the corpus (the
thirty-ninth batch's OCR and recommendation systems, and older dev logs).

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # TensorRT's builder: an allocation fails, and its very next error is the tactic search
        # finding nothing for a node: the allocation failed while an engine was being built
        (
            [
                "[TRT] [E] 2: [virtualMemoryBuffer.cpp::resizePhysical::140] Error Code 2: "
                "OutOfMemory (no further information)",
                "[TRT] [E] 4: Could not find any implementation for node conv_7 due to "
                "insufficient workspace.",
            ],
            "device_oom",
            "compile",
        ),
        # a bracketed header with the time before the level (HugeCTR's), and an epoch heading
        # with what follows it on the line: training was running
        (
            [
                "[HCTR][10:00:01.100][INFO][RK0][main]: ------Epoch 2, source file: ./a.txt------",
                "[HCTR][10:00:02.200][INFO][RK0][main]: Preparing embedding table for next pass",
                "[HCTR][10:00:03.300][ERROR][RK0][main]: Runtime error: an illegal memory access "
                "was encountered",
            ],
            "illegal_memory_access",
            "execute",
        ),
        # ONNX Runtime's bindings registering an execution provider as the session is set up
        (
            [
                "Error: CUDA provider registration failed: CUDA execution provider is not "
                "enabled in this build."
            ],
            "env_mismatch",
            "startup",
        ),
        (
            [
                "2026-01-01T00:00:00Z ERROR ort::execution_providers: An error occurred when "
                "attempting to register `TensorRTExecutionProvider`: TensorRT execution provider "
                "is not enabled in this build.",
            ],
            "env_mismatch",
            "startup",
        ),
        # an error said to have come while a runtime initialised (WebLLM's "Init error, ...")
        (
            ["Init error, OperationError: The operation failed for an operation-specific reason"],
            "unknown",
            "startup",
        ),
        (
            ["RuntimeError: Error while initializing the GPU pool: Unknown"],
            "unknown",
            "startup",
        ),
        # a loader's own list of the weights its checkpoint lacks
        (
            ["RuntimeError: Keys 'encoder.layer.0.weight, encoder.layer.0.bias' are missing."],
            "unsupported_config",
            "unknown",
        ),
        # XLA's command buffer that could not launch the graph it instantiated
        (
            [
                "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to launch CUDA graph: "
                "CUDA_ERROR_INVALID_VALUE: invalid argument"
            ],
            "stream_capture",
            "graph_capture",
        ),
        # a loader asking memory for the model together with its cache
        (
            ["RuntimeError: Insufficient VRAM for model and cache"],
            "kv_cache_oom",
            "unknown",
        ),
        # a feature the machine itself lacks
        (
            ['Error: Simulation device "GPU" does not support cuTensorNet on this system'],
            "env_mismatch",
            "unknown",
        ),
        # Triton refusing a tensor the program left on the host: the program's bug
        (
            ["ValueError: Pointer argument (at 2) cannot be accessed from Triton (cpu tensor?)"],
            "unknown",
            "unknown",
        ),
        # an error vLLM re-raised from the model's execution, under the error's own type
        (
            [
                "ValueError: Error in model execution (input dumped to /tmp/err.pkl): Attempted "
                "to assign 10 multimodal tokens to 12 placeholders"
            ],
            "unknown",
            "execute",
        ),
    ],
)
def test_round109_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_an_error_further_below_does_not_name_the_first_ones_stage(tmp_path: Path) -> None:
    """Only the next line's error tells what its tool was doing: one further down is another
    step's."""
    lines = [
        # (an allocator of no stage of its own: the builder's workspace, virtualMemoryBuffer,
        # says compile by itself since round 118)
        "[TRT] [E] 2: [allocator.cpp::allocate::140] Error Code 2: OutOfMemory",
        "[TRT] [I] retrying with a smaller workspace",
        "[TRT] [I] tactic 0x00001 skipped",
        "[TRT] [E] 4: Could not find any implementation for node conv_7.",
    ]
    classify_as(tmp_path, lines, "device_oom", "unknown")


def test_a_bracketed_header_at_a_quiet_level_is_no_error(tmp_path: Path) -> None:
    """HugeCTR's INFO records with an error word in their message stay quiet."""
    lines = [
        "[HCTR][10:00:01.100][INFO][RK0][main]: Global seed is 1",
        "[HCTR][10:00:01.200][WARNING][RK0][main]: fallback: the model name is not specified",
        "[HCTR][10:00:01.300][INFO][RK0][main]: Evaluation, AUC: 0.70 (failed samples: 0)",
    ]
    assert classify_both(tmp_path, lines) is None


def test_a_value_error_naming_a_setting_is_still_refused(tmp_path: Path) -> None:
    """(The exclusion is of vLLM's re-raise only: a plain ValueError stays a refusal.)"""
    classify_as(
        tmp_path,
        ["ValueError: max_model_len (9000) is larger than the maximum allowed (8192)"],
        "unsupported_config",
        "unknown",
    )


def test_an_init_word_inside_a_message_names_no_stage(tmp_path: Path) -> None:
    """Only a message that starts with ``Init error`` is one: the words elsewhere on the line
    (a model's own error text) say nothing of when it came."""
    classify_as(
        tmp_path,
        ["RuntimeError: CUDA error: unknown error (Init error, retried)"],
        "unknown",
        "unknown",
    )
