"""Mechanisms of the ninety-second round: the general wordings that round 91's read half
(``fresh424/``, ``fresh426/``, ``fresh428/``, ``fresh430/``) and the older dev errors still had
in common with other tools, read again after round 91 took the corpus below its category target.

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # libc++'s older words for an exception nobody caught, its message a key not found
        (
            [
                "terminating with uncaught exception of type std::out_of_range: "
                "unordered_map::at: key not found",
                "Aborted",
            ],
            "unsupported_config",
            "unknown",
        ),
        # FFmpeg asked for a codec its build does not have
        (["[vost#0:0 @ 0x5500] Unknown encoder 'av1_nvenc'"], "unsupported_config", "unknown"),
        # an accelerator runtime that cannot open its session or load its libraries
        (
            ["[ERROR] [Qnn]:  <E> DspTransport.openSession qnn_open failed, 0x80000416"],
            "env_mismatch",
            "startup",
        ),
        (
            ["[ERROR] [Qnn]: QnnDsp <E> Failed to load skel, error: 4000"],
            "env_mismatch",
            "startup",
        ),
        (
            ["Torch libraries are installed but loading them was unsuccessful."],
            "env_mismatch",
            "startup",
        ),
        # a device allocator's own API failing
        (
            ["E RUNTIME [drv.cc:12] DevMemAlloc: halMemAlloc failed: size=32(Byte), drvRetCode=6"],
            "device_oom",
            "unknown",
        ),
        # a model file read short
        (
            [
                "E 00:00:00.650 loader.cpp:194] Reading from model.pte at offset 4096: short read "
                "1024 < 8192"
            ],
            "unsupported_config",
            "unknown",
        ),
        # a tensor the model lacks, named before the word
        (
            ['src/model.cpp:100: GGML_ASSERT(res != NULL && "missing output_norm tensor") failed'],
            "unsupported_config",
            "unknown",
        ),
        # a bare KeyError under the lookup of a scaling setting, or of a constant table's choice
        (
            [
                "Traceback (most recent call last):",
                '  File "/app/build.py", line 40, in main',
                "    kind = rope_scaling['kind']",
                "KeyError: 'kind'",
            ],
            "unsupported_config",
            "unknown",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "/app/plugin.py", line 80, in get_scheduler',
                "    return SCHEDULER_TYPES[name]",
                "KeyError: 'cosine_x'",
            ],
            "unsupported_config",
            "unknown",
        ),
        # a value refused by name
        (["err: invalid method"], "unsupported_config", "unknown"),
        (
            ["grammar.cc:202: Check failed: (id < vocab) is false: Invalid token id 40000"],
            "unsupported_config",
            "unknown",
        ),
        # a model file said to be null
        (
            [
                "F0000 00:00:1.0 engine.cc:92] Failed to get params: INVALID_ARGUMENT: model file "
                "is null"
            ],
            "unsupported_config",
            "unknown",
        ),
        # an encode session FFmpeg cannot open is set-up
        (
            ["[h264_nvenc @ 0x5500] OpenEncodeSessionEx failed: out of memory (10): (no details)"],
            "device_oom",
            "startup",
        ),
    ],
)
def test_round92_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_a_lookup_in_a_lower_case_table_is_no_setting(tmp_path: Path) -> None:
    # (only a constant's table, in capitals, lists the choices a program knows)
    lines = [
        "Traceback (most recent call last):",
        '  File "/app/run.py", line 9, in main',
        "    row = results[key]",
        "KeyError: 'r1'",
    ]
    classify_as(tmp_path, lines, "unknown", "unknown")


def test_a_script_ending_early_is_no_model_read_short(tmp_path: Path) -> None:
    # a shell's syntax error names no category: only a file read short is a truncated model
    classify_as(
        tmp_path, ["./run.sh: line 40: syntax error: unexpected end of file"], "unknown", "unknown"
    )
