"""Mechanisms of the ninety-first round, tuned on half of the twenty-fourth batch (``fresh424/``,
``fresh426/``, ``fresh428/``, ``fresh430/``, measured before reading with round 90); the other
half (``fresh425/``, ``fresh427/``, ``fresh429/``, ``fresh431/``) and the older unread sets stay
unread.

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as

from pytest_blackwell.failures.scan import classify_log


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # Android's linker: a library the executable needs is not on the device
        (
            [
                'CANNOT LINK EXECUTABLE "./runner": library "libgomp.so" not found: needed by main '
                "executable"
            ],
            "env_mismatch",
            "startup",
        ),
        # (or a symbol it needs that no library defines)
        (
            [
                'CANNOT LINK EXECUTABLE "./runner": cannot locate symbol "__tls_get_x" referenced '
                'by "/data/app/lib/libcore.so"...'
            ],
            "env_mismatch",
            "startup",
        ),
        # a build without the GPU feature asked for
        (["RuntimeError: Not compiled with GPU encoder support."], "env_mismatch", "unknown"),
        # libtorch without CUDA, as a binding relays it under its own heading
        (
            [
                "Error in run(x) :",
                "  PyTorch is not linked with support for cuda devices (getDeviceGuardImpl at "
                "DeviceGuardImplInterface.h:216)",
            ],
            "env_mismatch",
            "unknown",
        ),
        # OpenCV's stub for a CUDA function in a build without CUDA
        (
            [
                "  what():  OpenCV(4.5.0) /src/private.cuda.hpp:111: error: (-213:The function/"
                "feature is not implemented) The called functionality is disabled for current "
                "build or platform in function throw_no_cuda"
            ],
            "env_mismatch",
            "unknown",
        ),
        # a GPU encoder that finds no device able to run it
        (["[hevc_nvenc @ 0x5500] No capable devices found"], "env_mismatch", "unknown"),
        # (after the session's own error, which says more)
        (
            [
                "[hevc_nvenc @ 0x5500] OpenEncodeSessionEx failed: out of memory (10): (no "
                "details)",
                "[hevc_nvenc @ 0x5500] No capable devices found",
            ],
            "device_oom",
            "startup",  # (the encode session being opened: round 92)
        ),
        # a model bundle that is not the archive it should be
        (
            ["MediaPipeException: Failed to create engine: UNKNOWN: Unable to open zip archive."],
            "unsupported_config",
            "unknown",
        ),
        # MATLAB's error heading, its message on the next line
        (
            [
                "epoch 01: 1/100:Error using conv_mex",
                "Out of memory on device. To view more detail about available memory on the GPU, "
                "use 'gpuDevice()'.",
                "",
                "Error in net.forward (line 11)",
            ],
            "device_oom",
            "execute",
        ),
        # a device's capability the compiler has no target for
        (
            ["Device capability v3.0.0 not supported by available toolchain"],
            "dispatch_failure",
            "unknown",
        ),
        # a traceback whose colour codes lost their escape to a bad decode
        (
            [
                "\ufffd[1;36m(Core pid=12)\ufffd[0;0m Traceback (most recent call last):",
                '\ufffd[1;36m(Core pid=12)\ufffd[0;0m   File "/x/a.py", line 3, in run',
                "\ufffd[1;36m(Core pid=12)\ufffd[0;0m     raise ValueError('x')",
                "\ufffd[1;36m(Core pid=12)\ufffd[0;0m ValueError: x",
            ],
            "unsupported_config",
            "unknown",
        ),
    ],
)
def test_round91_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_a_feature_off_on_this_device_is_no_refusal(tmp_path: Path) -> None:
    log = tmp_path / "note.log"
    log.write_text(
        "WARNING 01-02 10:00:00 [comm.py:67] Communicator: Device capability 10.3 not "
        "supported, communicator is not available.\n"
    )
    assert classify_log(log) is None


def test_colour_codes_lost_to_a_bad_decode_leave_the_process_tag(tmp_path: Path) -> None:
    lines = [
        "\ufffd[1;36m(Core pid=12)\ufffd[0;0m Traceback (most recent call last):",
        '\ufffd[1;36m(Core pid=12)\ufffd[0;0m   File "/x/a.py", line 3, in run',
        "\ufffd[1;36m(Core pid=12)\ufffd[0;0m     raise ValueError('x')",
        "\ufffd[1;36m(Core pid=12)\ufffd[0;0m ValueError: x",
    ]
    failure = classify_as(tmp_path, lines, "unsupported_config", "unknown")
    assert failure.first_error == "ValueError: x"
