"""Mechanisms of the classifier that must transfer to logs it was never tuned on.

Every line here is synthetic, written from the wording the libraries document or print (PyTorch's
architecture warning, CUDA's runtime error strings, llama.cpp's server, the NVIDIA container
toolkit, bitsandbytes, Go's runtime), with paths and numbers of our own.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_blackwell.failures import classify_log

FILLER = "INFO 01-01 00:00:00 [x.py:1] serving\n"


def test_quick_file_scan_gives_the_line_by_line_answer(tmp_path: Path) -> None:
    """A precursor warning the quick pass skips (no error word) must not make the answers differ."""
    lines = [
        "GPU0 with CUDA capability sm_120 is not compatible with the current PyTorch installation.",
        "The current PyTorch install supports CUDA capabilities sm_80 sm_90.",
        "",
        "RuntimeError: CUDA error: no kernel image is available for execution on the device",
        "For debugging consider passing CUDA_LAUNCH_BLOCKING=1.",
    ]
    for before in (0, 30, 3000):
        log = tmp_path / f"x{before}.log"
        log.write_text(FILLER * before + "\n".join(lines) + "\n")
        thorough = classify_log(log.read_text().splitlines())
        assert thorough is not None
        assert classify_log(log) == thorough
        assert len(thorough.traceback) > 1  # the warning belongs to the answer


def test_quick_file_scan_keeps_its_answer_when_nothing_was_skipped(tmp_path: Path) -> None:
    log = tmp_path / "x.log"
    log.write_text(
        FILLER * 2000 + "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate "
        "2.00 GiB\n" + FILLER * 100
    )
    failure = classify_log(log)
    assert failure is not None
    assert failure.category == "device_oom"
    assert failure == classify_log(log.read_text().splitlines())


@pytest.mark.parametrize(
    "line",
    [
        "docker: Error response from daemon: could not start container process",
        "some-tool: resolve error: unsatisfied dependency",
        "CUDA Error: invalid value (invalid value) kernels/foo.cuh: line 12 at function bar",
        '3 errors detected in the compilation of "/tmp/kernels/foo.cu".',
        "worker 3: Segmentation fault (core dumped)",
        "step 4 aborted: device lost",
    ],
)
def test_last_line_of_defence_never_reports_no_failure(line: str) -> None:
    failure = classify_log(["starting", line])
    assert failure is not None, line


@pytest.mark.parametrize(
    "lines",
    [
        ["[2024-01-01 10:00:00] cachelib WARNING: Failed to allocate a spare buffer."],
        ["retrying: request failed (attempt 1), will retry in 5 s"],
        ["Falling back to the slow path: fast kernel failed to build"],
        ["summary: 12 passed, 0 failed"],
        [
            f"INFO Waiting for the server to start at http://h:1/v1... Attempt: {n}/100"
            for n in (1, 2)
        ],
        ["INFO launcher: Waiting for shard to be ready... rank=0"] * 3,
    ],
)
def test_routine_lines_are_no_failure(lines: list[str]) -> None:
    assert classify_log(lines) is None


def test_a_wait_that_never_ends_is_still_a_hang() -> None:
    lines = ["DEBUG Waiting for 1 local core engine proc(s) to start."] * 4
    failure = classify_log(lines)
    assert failure is not None
    assert failure.category == "timeout"


@pytest.mark.parametrize(
    ("line", "category"),
    [
        # the NVIDIA container toolkit refusing an image for the host's driver
        (
            "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.8, please "
            "update your driver to a newer version",
            "env_mismatch",
        ),
        (
            "RuntimeError: Error 804: forward compatibility was attempted on non supported HW",
            "env_mismatch",
        ),
        (
            "ptxas /tmp/k.ptx, line 3; fatal   : Unsupported .version 8.7; "
            "current version is '8.4'",
            "env_mismatch",
        ),
        (
            "CUDA SETUP: Required library version not found: libbitsandbytes_cuda124.so.",
            "env_mismatch",
        ),
        (
            "xFormers was built for: PyTorch 2.5.0+cu124 with CUDA 1204 (you have 2.4.1+cu121)",
            "env_mismatch",
        ),
        # dispatch: no code for this architecture
        (
            "ERROR: CUDA kernel mul_mat_vec has no device code compatible with CUDA arch 610.",
            "dispatch_failure",
        ),
        (
            "ptxas /tmp/x.ptx, line 9; error   : Feature '.kind::mxf8f6f4' not supported on "
            ".target 'sm_100'",
            "dispatch_failure",
        ),
        (
            "NotImplementedError: No operator found for `memory_efficient_attention_backward` "
            "with inputs:",
            "dispatch_failure",
        ),
        # allocation and budgets
        (
            "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while "
            "trying to allocate 1024 bytes.",
            "device_oom",
        ),
        (
            "max_total_tokens=4096 is larger than the profiled value -1200. Use the profiled "
            "value instead.",
            "kv_cache_oom",
        ),
        # hangs and deaths in other engines' words
        (
            "srv  next: stopping wait for next result (adjust the --timeout argument if needed)",
            "timeout",
        ),
        ("goroutine 7 [running]:", "engine_died"),
        ("SIGABRT: abort", "engine_died"),
    ],
)
def test_widened_wordings(line: str, category: str) -> None:
    failure = classify_log([line])
    assert failure is not None, line
    assert failure.category == category, failure


@pytest.mark.parametrize(
    "line",
    [
        "ImportError: libcudart.so.13: cannot open shared object file: No such file or directory",
        "ModuleNotFoundError: No module named 'flash_attn_3'",
        "ImportError: /site/ext/_C.so: undefined symbol: _ZN3c104cuda9SetDeviceEi",
    ],
)
def test_an_import_failure_happens_at_startup(line: str) -> None:
    failure = classify_log([line])
    assert failure is not None
    assert failure.stage == "startup"


def test_a_bare_error_of_unknown_shape_has_no_stage() -> None:
    failure = classify_log(["RuntimeError: something odd"])
    assert failure is not None
    assert failure.stage == "unknown"


def test_tokens_per_second_before_an_error_mean_execute() -> None:
    failure = classify_log(
        [
            "eval time = 900.00 ms / 64 runs (14.06 ms per token, 71.11 tokens per second)",
            "RuntimeError: CUDA error: an illegal memory access was encountered",
        ]
    )
    assert failure is not None
    assert failure.stage == "execute"
