"""Mechanisms of the ninety-eighth round, tuned on the read half of the twenty-ninth batch
(SGLang on NVIDIA GPUs, PyTorch CUDA errors in scripts, ROCm in PyTorch projects, speech).

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both, classify_mid_log

_ASSERT = (
    "/usr/include/c++/13.1.1/bits/stl_vector.h:1125: std::vector<_Tp, _Alloc>::reference "
    "std::vector<_Tp, _Alloc>::operator[](size_type) [with _Tp = hip::DeviceFunc*]: Assertion "
    "'__n < this->size()' failed."
)


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # bash's report of a script's command killed, the script going on after it
        (
            [
                "Distributing 100 image paths into 1 jobs.",
                "./depth.sh: line 80: 1511091 Killed                  CUDA_VISIBLE_DEVICES=0 "
                "python run.py --input x",
                "Processing complete.",
            ],
            "engine_died",
            "unknown",
        ),
        # a package asked for by its installed metadata, not there
        (
            ["importlib.metadata.PackageNotFoundError: No package metadata was found for x_attn"],
            "env_mismatch",
            "unknown",
        ),
        (
            [
                "pkg_resources.DistributionNotFound: The 'tqdm>=4.27' distribution was not found "
                "and is required by this application"
            ],
            "env_mismatch",
            "unknown",
        ),
        # a GPU program built at run time that did not compile (HIPRTC's, NVRTC's status)
        (
            [
                "MIOpen(HIP): Error [BuildHip] HIPRTC status = HIPRTC_ERROR_COMPILATION (6), "
                "source file: conv_fwd.cpp"
            ],
            "env_mismatch",
            "compile",
        ),
        (["RuntimeError: NVRTC_ERROR_COMPILATION"], "env_mismatch", "compile"),
        # stable-diffusion-webui building a checkpoint's model: loading
        (
            [
                "Creating model from config: /x/configs/v1-inference.yaml",
                _ASSERT,
                "./webui.sh: line 255:  4501 Aborted                 (core dumped) python -u x.py",
            ],
            "unknown",
            "loading",
        ),
        # (a library's own record at an error level is still read; the bar's text is cut off)
        (
            [
                "  0%|          | 0/20 [00:00<?, ?it/s]MIOpen(HIP): Error [Compile] "
                "'hiprtcCompileProgram(prog.get())' conv.cpp: HIPRTC_ERROR_COMPILATION (6)"
            ],
            "env_mismatch",
            "compile",
        ),
        # (a library that cannot be loaded, said without a level, is still the environment)
        (
            [
                "Could not load library libcudnn_cnn_infer.so.8. Error: libnvrtc.so: cannot "
                "open shared object file: No such file or directory",
                "Aborted (core dumped)",
            ],
            "env_mismatch",
            "unknown",
        ),
    ],
)
def test_round98_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    "lines",
    [
        # a library's warning record, its function in brackets, printed against a progress bar
        [
            "  0%|          | 0/20 [00:00<?, ?it/s]MIOpen: Warning [OpenRuntimeLibraryForDevice] "
            "CK library not found for device gfx1010: The specified module could not be found."
        ],
        # a library that cannot be loaded, told at WARNING: the program goes on without it
        ["WARNING: Could not load library cudnn_ops_infer64_8.dll. Error code 126"],
    ],
)
def test_round98_no_failure(tmp_path: Path, lines: list[str]) -> None:
    assert classify_both(tmp_path, lines) is None


@pytest.mark.parametrize(
    ("line", "category"),
    [
        ("./run.sh: line 8:  4242 Killed                  python x.py", "engine_died"),
        ("./run.sh: line 3:  4242 Segmentation fault  (core dumped) python x.py", "engine_died"),
        ("PackageNotFoundError: No package metadata was found for x_attn", "env_mismatch"),
    ],
)
def test_a_round98_line_is_found_mid_log(tmp_path: Path, line: str, category: str) -> None:
    classify_mid_log(tmp_path, line, category)
