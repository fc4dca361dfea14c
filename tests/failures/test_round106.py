"""Mechanisms of the hundred-and-sixth round, tuned on the read half of the thirty-seventh batch
(hosted notebooks, Triton-kernel libraries, 3D vision extensions, accelerators other than GPUs).

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both

from pytest_blackwell.failures.normalize import logical_lines

_LIB = "/opt/tt/lib"


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # a core's L1 too small for a kernel's circular buffers, tt-metal's stack below
        (
            [
                "Statically allocated circular buffers on core range [(x=0,y=0) - (x=7,y=7)] "
                "grow to 1600000 B which is beyond max L1 size of 1499136 B",
                "backtrace:",
                f" --- {_LIB}/libtt_metal.so(+0x3017bb) [0x7fd1b18137bb]",
                " --- tt::tt_metal::detail::ProgramImpl::validate_circular_buffer_region("
                "tt::tt_metal::IDevice const*)",
                " --- tt::tt_metal::distributed::EnqueueMeshWorkload(MeshCommandQueue&, bool)",
            ],
            "smem_limit",
            "unknown",
        ),
        (
            [
                "Statically allocated circular buffers in program 12 clash with L1 buffers on "
                "core range [(x=0,y=0) - (x=1,y=1)]. L1 buffer allocated at 500000 and static "
                "circular buffer region ends at 600000"
            ],
            "smem_limit",
            "unknown",
        ),
        # MSVC's linker by its codes, its words in another language
        (
            [
                'ops.obj : error LNK2001: 无法解析的外部符号 "void __cdecl f(void)"',
                "build\\lib\\_C.pyd : fatal error LNK1120: 1 个无法解析的外部命令",
            ],
            "env_mismatch",
            "compile",
        ),
        # a UI relaying its backend's stderr at its own Warning level: the error is the
        # backend's (an MLIR diagnostic at a kernel's source: Triton compiling it)
        (
            [
                "2025-01-01 10:00:00.000 [Warning] [ComfyUI-0/STDERR] C:\\env\\kern.py:18:23: "
                "error: 'tt.dot' op operand #0 has a wrong layout",
                "2025-01-01 10:00:00.001 [Warning] [ComfyUI-0/STDERR]         qk = tl.dot(q, k)",
            ],
            "unknown",
            "compile",
        ),
        # Triton's compiler pass asserting, with Windows' separators and its assert's words
        (
            [
                'Assertion failed: false && "bad layout", file C:\\src\\triton\\lib\\'
                "Dialect\\TritonGPU\\Transforms\\AccelerateMatmul.cpp, line 40"
            ],
            "unknown",
            "compile",
        ),
        # AWS Neuron's compiler failing to start its tools, and failing outright
        (
            [
                "2024-01-01 10:00:00.000001:  766  ERROR ||NEURON_CC_WRAPPER||: Failed "
                "compilation with ['neuronx-cc', 'compile']: walrus: error while loading shared "
                "libraries: libxml2.so.2: cannot open shared object file: No such file or "
                "directory"
            ],
            "env_mismatch",
            "compile",
        ),
        (
            ["subprocess.SubprocessError: neuron-cc failed with the following command line call:"],
            "unknown",
            "compile",
        ),
        # a model traced to HLO to be compiled, then the process killed
        (
            ["INFO:Neuron:generating HLO: decoder_model, input example shape = [1, 16]", "Killed"],
            "engine_died",
            "compile",
        ),
    ],
)
def test_round106_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    ("raw", "level"),
    [
        # a level in a gutter's column of its own (loguru, tt-metal)
        ("2025-01-01 10:00:00.000 | WARNING  | mod:f:12 - cache is cold", "WARNING"),
        ("                 Always | ERROR    | device 0 hung", "ERROR"),
        ("2025-01-01 10:00:00.000 | SUCCESS  | mod:f:3 - done", "INFO"),
        # (not the level of a relay that names the stream it copies)
        ("2025-01-01 10:00:00 | ERROR | stderr | Loading shards:   0%", ""),
        # (nor a service's name that is no level word)
        ("vllm-1  | hello", ""),
    ],
)
def test_a_level_in_a_column_of_its_own_is_the_records(raw: str, level: str) -> None:
    assert [line.level for line in logical_lines(raw)] == [level]


def test_a_warning_in_a_level_column_is_no_failure(tmp_path: Path) -> None:
    """tt-metal's warning that a buffer exceeds a bank, at WARNING in its column, stays quiet."""
    lines = [
        "                 Always | WARNING  | Circular buffer size 104448 B exceeds allocated "
        "L1 buffer bank size of 90304 B.",
        "                 Always | INFO     | Program finished",
    ]
    assert classify_both(tmp_path, lines) is None
