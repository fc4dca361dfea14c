"""Mechanisms of the eighty-ninth round, tuned on half of the twenty-second batch (``fresh408/``,
``fresh410/``, ``fresh412/``, ``fresh414/``, measured before reading with round 88); the other
half (``fresh409/``, ``fresh411/``, ``fresh413/``, ``fresh415/``) and the older unread sets stay
unread.

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # Windows' loader: a module or one of its dependencies not found
        (
            [
                "Traceback (most recent call last):",
                '  File "C:\\\\app\\\\main.py", line 3, in <module>',
                "    import torch",
                # (the system's message in Chinese, so that only the code and the DLL tell)
                "OSError: [WinError 126] \u627e\u4e0d\u5230\u6307\u5b9a\u7684\u6a21\u5757\u3002 "
                "Error loading "
                '"C:\\\\app\\\\lib\\\\torch\\\\lib\\\\fbgemm.dll" or one of its dependencies.',
            ],
            "env_mismatch",
            "startup",
        ),
        # Windows' commit limit reached while a checkpoint is read
        (
            [
                "Loading checkpoint shards:   0%|          | 0/2 [00:00<?, ?it/s]",
                "OSError: The paging file is too small for this operation to complete. (os error "
                "1455)",
            ],
            "device_oom",
            "loading",
        ),
        # a Windows crash status in hex alone
        (
            ['error="llama-server --list-devices failed: exit status 0xc0000005"'],
            "engine_died",
            "unknown",
        ),
        # (not abort()'s fast fail, which follows an assertion that says the cause)
        (["Error: llama-server failed: exit status 0xc0000409"], "unknown", "unknown"),
        # a worker that died, its parent only guessing at the cause
        (
            [
                "cog.server.exceptions.FatalWorkerException: Prediction failed for an unknown "
                "reason. It might have run out of memory? (exitcode -6)"
            ],
            "engine_died",
            "execute",
        ),
        # a library's compiler module failing as it is imported: an import, not a compile
        (
            [
                "Traceback (most recent call last):",
                '  File "/x/site-packages/triton/backends/amd/compiler.py", line 2, in <module>',
                "    from triton._C.libtriton import ir, passes",
                "ImportError: DLL load failed while importing libtriton: A dynamic link library "
                "(DLL) initialization routine failed.",
            ],
            "env_mismatch",
            "startup",
        ),
        # a kernel generated at run time, refused by nvcc
        (
            [
                '/tmp/tmpa1b2c3.cu(70): error: no instance of function template "tl::gemm_ss" '
                "matches the argument list"
            ],
            "dispatch_failure",
            "compile",
        ),
        # an include the compiler cannot find, a header without an extension
        (
            [
                "third-party/cutlass/include/cutlass/cutlass.h:43:35: fatal error: "
                "cuda/std/utility: No such file or directory"
            ],
            "env_mismatch",
            "compile",
        ),
        # a kernel library's check of the target architecture, and a feature one architecture has
        (
            [
                "cutlass.cute.nvgpu.common.OpError: OpError: expects arch to be one of ['sm_100a', "
                "'sm_100f'], but got sm_121a"
            ],
            "dispatch_failure",
            "unknown",
        ),
        (
            ["RuntimeError: Only Hopper supports different V headdim"],
            "dispatch_failure",
            "unknown",
        ),
        # the NVIDIA container CLI that cannot give a container the GPU
        (
            [
                "Error response from daemon: failed to create task for container: OCI runtime "
                "create failed: error running prestart hook #0: exit status 1, stdout: , stderr: "
                "Auto-detected mode as 'legacy'",
                "nvidia-container-cli: initialization error: WSL environment detected but no "
                "adapters were found: unknown",
            ],
            "env_mismatch",
            "startup",
        ),
        # an exception's own line whose message is a number is no tally of errors
        (["RuntimeError: 1"], "unknown", "unknown"),
        # an engine that cannot read the model's configuration
        (
            [
                "RuntimeError: Failed to load the model config. If the model is a custom model "
                "not yet available in the HuggingFace transformers library, consider setting "
                "`trust_remote_code=True`."
            ],
            "unsupported_config",
            "loading",
        ),
    ],
)
def test_round89_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_a_setup_script_running_is_still_a_build(tmp_path: Path) -> None:
    # pip runs setup.py's module-level code: that is the build, whatever it raises
    lines = [
        "Traceback (most recent call last):",
        '  File "<string>", line 2, in <module>',
        '  File "<pip-setuptools-caller>", line 34, in <module>',
        '  File "/tmp/pip-req-build-x/setup.py", line 40, in <module>',
        '    raise RuntimeError("Foo requires sm75+")',
        "RuntimeError: Foo requires sm75+",
    ]
    classify_as(tmp_path, lines, "dispatch_failure", "compile")


def test_a_permission_the_host_refused_names_no_category(tmp_path: Path) -> None:
    lines = [
        "error: pyxis:     nvidia-container-cli: mount error: failed to add device rules: open "
        "/sys/fs/cgroup/devices/job_85/devices.allow: permission denied"
    ]
    failure = classify_as(tmp_path, lines, "unknown", "startup")
    assert failure.evidence["category"] == "error line without a known signature"
