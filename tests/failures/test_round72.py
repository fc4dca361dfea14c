"""Mechanisms of the seventy-second round, tuned on ``fresh294/`` and ``fresh295/`` (measured
before reading with round 71) and the whole corpus; ``fresh293/`` stays unread.

Formats: ExecuTorch's log (``I 00:00:00.046097 executorch:f.cpp:78] ...``) has a level, so its
INFO records are no errors and its E records always are. Categories: requests' and httpx'
``ConnectTimeout:`` / ``ReadTimeout:`` named in a message are timeouts; getopt's ``unrecognized
option '--x'`` is an argument refused; a program asking that a dependency ``is cloned`` or
``installed`` and a ``FileNotFoundError`` inside an installed package's directory are the
environment's. Stages: Gradio's ``To create a public link, set `share=True``` is a server that
is up. The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        (
            ["  Failed to load Whisper model: Got: ConnectTimeout: [WinError 10060] timed"],
            "timeout",
            "loading",
        ),
        (
            ["basename: unrecognized option '--name'", "Try 'basename --help' for more."],
            "unsupported_config",
            "startup",
        ),
        (
            [
                "Launching UI",
                "To create a public link, set `share=True` in `launch()`.",
                "Could not locate cudnn_ops64_9.dll. Please make sure it is in your library path!",
            ],
            "env_mismatch",
            "execute",
        ),
        (
            [
                "Could not find repositories/exllama. Please ensure that exllama "
                "(https://example.org/exllama) is cloned inside repositories/."
            ],
            "env_mismatch",
            "unknown",
        ),
        (
            [
                "FileNotFoundError: [WinError 3] The system cannot find the path specified: "
                "'C:\\\\env\\\\Lib\\\\site-packages\\\\ctranslate2/../_rocm_sdk_core\\\\bin'"
            ],
            "env_mismatch",
            "unknown",
        ),
    ],
)
def test_round72_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_executorch_records_keep_their_level(tmp_path: Path) -> None:
    """An INFO record that says something failed is no error; the E record after it is."""
    lines = [
        "I 00:00:00.046097 executorch:cpuinfo_utils.cpp:78] Failed to open midr file x",
        "E 00:01:34.607969 executorch:operator_registry.cpp:252] Missing out variant",
    ]
    failure = classify_as(tmp_path, lines, "unknown", "unknown")
    assert failure.line == 2
    assert failure.first_error == "Missing out variant"


def test_executorch_info_records_are_no_failure(tmp_path: Path) -> None:
    lines = [
        "I 00:00:00.046040 executorch:cpuinfo_utils.cpp:62] Reading file /sys/x",
        "I 00:00:00.046097 executorch:cpuinfo_utils.cpp:78] Failed to open midr file /sys/x",
        "I 00:00:00.190149 executorch:main.cpp:112] image size(0): 3",
    ]
    assert classify_both(tmp_path, lines) is None


def test_a_missing_file_outside_the_installation_is_no_environment(tmp_path: Path) -> None:
    lines = ["FileNotFoundError: [Errno 2] No such file or directory: 'data/train.json'"]
    failure = classify_both(tmp_path, lines)
    assert failure is not None
    assert failure.category != "env_mismatch"
