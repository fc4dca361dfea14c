"""Mechanisms of the classifier that must transfer to logs it was never tuned on.

Every line here is synthetic, written from the wording the libraries document or print (PyTorch's
architecture warning, CUDA's runtime error strings, llama.cpp's server, the NVIDIA container
toolkit, bitsandbytes, Go's runtime), with paths and numbers of our own.
"""

from __future__ import annotations

from pathlib import Path

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
    assert failure is not None and failure.category == "device_oom"
    assert failure == classify_log(log.read_text().splitlines())
