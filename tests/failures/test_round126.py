"""Mechanisms of the hundred-and-twenty-sixth round, tuned on the second half of the
fifty-second batch (sparse 3D CUDA libraries, 3D asset generation, quantum and scientific
simulation, embedding and retrieval models).

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both, classify_mid_log

from pytest_blackwell.failures import classify_log, classify_stream


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # an exception line a paste made a markdown list item of
        (["- RuntimeError: /build/src/gemm/GemmUnitTest_sync.cc(11)"], "unknown", "unknown"),
        # a cross compiler's driver without its own C++ front end
        (
            [
                "      aarch64-linux-gnu-g++: error trying to exec 'cc1plus': execvp: No such file "
                "or directory",
                "      nvcc fatal   : Failed to preprocess host compiler properties.",
            ],
            "env_mismatch",
            "compile",
        ),
        # setuptools' build of an extension, its compiler's own words cut above the excerpt
        (
            [
                "See <https://gcc.gnu.org/bugs/> for instructions.",
                "error: command '/opt/cuda-12.4/bin/nvcc' failed with exit code 1",
            ],
            "env_mismatch",
            "compile",
        ),
        (["error: command 'g++' failed with exit status 1"], "env_mismatch", "compile"),
        # a compiled extension module without the op its Python side calls
        (
            ["AttributeError: module 'voxel_ops_ext' has no attribute 'scatter_forward'"],
            "env_mismatch",
            "unknown",
        ),
        # Python's words for a DLL that did not load, whatever language Windows gives its reason
        # in, relayed without the exception's type
        (
            [
                "!!! Exception during processing !!! DLL load failed while importing "
                "mesh_kernel: Die angegebene Prozedur wurde nicht gefunden."
            ],
            "env_mismatch",
            "startup",
        ),
        # the CUDA toolkit's check of the host compiler, as MSVC prints an #error
        (
            [
                "C:\\CUDA\\v12.1\\include\\crt/host_config.h(164): fatal error C1189: #error:  "
                "-- unsupported Microsoft Visual Studio version! Only the versions between 2017 "
                "and 2022 (inclusive) are supported!"
            ],
            "env_mismatch",
            "compile",
        ),
        # an exception the program says it caught, about memory it could not pin
        (
            [
                "Caught solver exception: Cannot allocate pinned memory",
                " at: /src/base/src/memory.cu:120",
            ],
            "device_oom",
            "unknown",
        ),
        # (raised, pinned memory is no optimisation given up)
        (["RuntimeError: failed to allocate pinned host memory"], "device_oom", "unknown"),
        # an assertion with the shell's report of the abort glued to it: the assertion is first
        (
            [
                "Index assertion n < numDevices() failed in Index::Index(int) at Index.cu:30"
                "Aborted (core dumped)"
            ],
            "unknown",
            "unknown",
        ),
    ],
)
def test_round126_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    "lines",
    [
        # a library going on with its CPU version
        [
            "INFO - Exporting mesh ...",
            "meshkit was not compiled with CUDA support, use CPU version instead.",
            "INFO - Exporting mesh finished in 4065.16ms.",
        ],
        # a word ending in a death's name is no death glued to a line
        ["INFO request 12 status: wasAborted"],
    ],
)
def test_round126_quiet_lines(tmp_path: Path, lines: list[str]) -> None:
    assert classify_both(tmp_path, lines) is None


def test_round126_glued_death_alone_is_the_death(tmp_path: Path) -> None:
    failure = classify_as(
        tmp_path, ["step 3 done", "running step 4.Segmentation fault (core dumped)"],
        "engine_died", "unknown",
    )  # fmt: skip
    assert failure.first_error == "Segmentation fault (core dumped)"


@pytest.mark.parametrize(
    ("line", "category"),
    [
        ("error: command '/usr/local/cuda/bin/nvcc' failed with exit code 1", "env_mismatch"),
        ("ImportError: DLL load failed while importing _ext: x", "env_mismatch"),
        ("Caught amgx exception: Cannot allocate pinned memory", "device_oom"),
    ],
)
def test_round126_found_mid_log(tmp_path: Path, line: str, category: str) -> None:
    classify_mid_log(tmp_path, line, category)


def test_stream_whose_last_line_has_no_newline() -> None:
    """A stream that ends without a newline right on its error (a one-line paste, ``echo -n``):
    the quick scan's look past the error finds the end instead of failing."""
    text = b"AttributeError: module 'voxel_ops_ext' has no attribute 'scatter_forward'"
    failure = classify_stream(io.BytesIO(text))
    assert failure is not None
    assert (failure.category, failure.line) == ("env_mismatch", 1)


@pytest.mark.parametrize(
    "lines",
    [
        # (review) an exception a program says it caught and retries or skips is routine, at a
        # quiet level or by its words
        [
            "2024-05-01 12:30:00,000 - hub - WARNING - Caught exception: ConnectionResetError(104, "
            "'Connection reset by peer'), retrying in 2s",
            "2024-05-01 12:30:02,000 - trainer - INFO - step 12 loss 0.31",
        ],
        ["INFO:app:Caught exception: table users already exists"],
        ["Caught exception: Tactic 3 failed, skipping"],
    ],
)
def test_review_of_round126_caught_and_gone_on_is_routine(tmp_path: Path, lines: list[str]) -> None:
    assert classify_both(tmp_path, lines) is None


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # (review) setuptools' compiler with its version, its line indented
        (["  error: command '/usr/bin/g++-11' failed with exit code 1"], "env_mismatch", "compile"),
        (["error: command 'clang++-14' failed with exit code 1"], "env_mismatch", "compile"),
        # (review) an extension module in a package, and a module without its CUDA function
        (["AttributeError: module 'mmcv._ext' has no attribute 'nms'"], "env_mismatch", "unknown"),
        (
            ["AttributeError: module 'quant' has no attribute 'quant_cuda'"],
            "env_mismatch",
            "unknown",
        ),
        # (review) an exception line as an indented or a numbered list item
        (["  - RuntimeError: /build/x/GemmUnitTest_sync.cc(11)"], "unknown", "unknown"),
        (["1. RuntimeError: /build/x/GemmUnitTest_sync.cc(11)"], "unknown", "unknown"),
    ],
)
def test_review_of_round126_readings(
    tmp_path: Path, lines: list[str], category: str, stage: str
) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_review_of_round126_death_glued_to_a_record(tmp_path: Path) -> None:
    failure = classify_as(
        tmp_path,
        ['{"level": "info", "msg": "done"}Aborted (core dumped)'],
        "engine_died",
        "unknown",
    )
    assert failure.first_error == "Aborted (core dumped)"


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    "line",
    [
        "payload=" + "deadbeef" * 5000 + "Aborted (core dumped)",
        "A" * 160000 + "Aborted (core dumped)",
    ],
)
def test_review_of_round126_glued_death_check_is_linear(tmp_path: Path, line: str) -> None:
    """(review) the check for a death glued to a line looked at every position of a long last
    word (45 s for 40,000 characters); it reads only the line's end."""
    failure = classify_as(tmp_path, ["step 1", line], "engine_died", "unknown")
    assert failure.first_error == "Aborted (core dumped)"


def test_review_of_round126_file_without_final_newline_reads_as_lines(tmp_path: Path) -> None:
    """(review) a file whose last line, the error, has no newline is read with the lines before
    it, as the list of lines is: the activity before the error gives its stage."""
    lines = [
        f"2024-05-01 12:00:{i:02d},000 - trainer - INFO - step {i} loss 0.5" for i in range(20)
    ]
    lines.append("RuntimeError: CUDA error: out of memory")
    log = tmp_path / "cut.log"
    log.write_text("\n".join(lines))
    failure = classify_log(log)
    assert failure is not None
    assert failure == classify_log(lines)
    assert failure.stage == "execute"
