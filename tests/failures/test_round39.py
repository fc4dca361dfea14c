"""Mechanisms of the thirty-ninth round (tuned on fresh122-fresh125): a native crash that ctypes
raises as ``OSError`` on Windows, a GGUF file whose hyperparameters or vocabulary llama.cpp cannot
take, a communication backend the engine does not know, a compiled extension that was never
bound, the work an error says it broke (an ASGI application answering a request, an audio
generation), TGI's launcher refusing its arguments and a launcher's own check that torch can use
the GPU. The lines are of our own, in the shapes the tools print.
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
                "Traceback (most recent call last):",
                '  File "C:\\koboldcpp\\koboldcpp.py", line 328, in load_model',
                "    ret = handle.load_model(inputs)",
                "OSError: exception: access violation reading 0x0000000000000000",
            ],
            "engine_died",
            "loading",
        ),
        (
            [
                "llama_model_load: error loading model: error loading model vocabulary: invalid "
                "gguf type for tokenizer.ggml.scores",
            ],
            "unsupported_config",
            "loading",
        ),
        (
            [
                "llama_model_load: error loading model: error loading model hyperparameters: key "
                "not found in model: llama.context_length",
            ],
            "unsupported_config",
            "loading",
        ),
        (
            [
                "[TM][FATAL] comm/device_comm.cc(28): Check failed: 0 Unknown communication "
                "backend: x"
            ],
            "unsupported_config",
            "startup",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "/srv/app/ext.py", line 12, in <module>',
                "    ext_c = exllamav2_ext",
                "NameError: name 'exllamav2_ext' is not defined",
            ],
            "env_mismatch",
            "unknown",  # raised where the extension is used: at start-up or while serving
        ),
        (
            [
                "ERROR:    Exception in ASGI application",
                "Traceback (most recent call last):",
                '  File "/venv/lib/python3.10/site-packages/starlette/middleware/errors.py", line '
                "165, in __call__",
                "    await self.app(scope, receive, _send)",
                "KeyError: 'choices'",
            ],
            "unknown",
            "execute",
        ),
        (
            ["Error during audio generation: CUDA error: device-side assert triggered"],
            "illegal_memory_access",
            "execute",
        ),
        (
            [
                'Error: ArgumentValidation("`max_input_tokens`(9) must be < '
                '`max_total_tokens`(8)")',
            ],
            "unsupported_config",
            "startup",
        ),
        (
            [
                "RuntimeError: Torch is not able to use GPU; add --skip-torch-cuda-test to "
                "COMMANDLINE_ARGS variable to disable this check",
            ],
            "env_mismatch",
            "startup",
        ),
    ],
)
def test_round39_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_a_name_that_is_no_compiled_extension_stays_unknown(tmp_path: Path) -> None:
    failure = classify_both(tmp_path, ["NameError: name 'model' is not defined"])
    assert failure is not None
    assert failure.category == "unknown"


def test_an_access_violation_that_ctypes_did_not_raise_is_no_death(tmp_path: Path) -> None:
    # a program's own words about an address it refused, with no native crash
    failure = classify_both(tmp_path, ["ERROR: access violation check failed for the user token"])
    assert failure is not None
    assert failure.category != "engine_died"


def test_a_generation_mentioned_without_an_error_tells_nothing(tmp_path: Path) -> None:
    lines = [
        "INFO: starting audio generation for 3 prompts",
        "RuntimeError: CUDA error: device-side assert triggered",
    ]
    failure = classify_both(tmp_path, lines)
    assert failure is not None
    assert failure.category == "illegal_memory_access"
    assert failure.stage == "unknown"
