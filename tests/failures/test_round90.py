"""Mechanisms of the ninetieth round, tuned on half of the twenty-third batch (``fresh416/``,
``fresh418/``, ``fresh420/``, ``fresh422/``, measured before reading with round 89); the other
half (``fresh417/``, ``fresh419/``, ``fresh421/``, ``fresh423/``) and the older unread sets stay
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
        # a model archive that lacks one of its members, as a server's model table shows it
        (
            [
                "| resnet | 1 | UNAVAILABLE: Internal: failed to load model 'resnet': "
                "PytorchStreamReader failed locating file data.pkl: file not found |"
            ],
            "unsupported_config",
            "loading",
        ),
        # a backend that cannot open the model file it was given
        (
            [
                "I1203 10:00:00.000100 1 model.h:92] Loading pipeline from file m/1/model.bin",
                "E1203 10:00:00.000200 1 model.cc:32] Failed to open serialized model file: "
                "m/1/model.bin",
                "E1203 10:00:00.000300 1 model_lifecycle.cc:597] failed to load 'm' version 1: "
                "Unknown: Failed to open serialized model file: m/1/model.bin",
            ],
            "unsupported_config",
            "loading",
        ),
        # a model repository without the model's configuration, words between verb and path
        (
            [
                "E1203 10:00:00.000300 1 model_repository_manager.cc:1519] failed to open text "
                "file for read /models/m/1/config.pbtxt: No such file or directory",
            ],
            "unsupported_config",
            "unknown",
        ),
        # a configuration composer that cannot find the file it was asked for
        (
            [
                "MissingConfigException: Cannot find primary config 'net_large.yaml'. Check "
                "that it's in your config search path."
            ],
            "unsupported_config",
            "unknown",
        ),
        # a model registry asked for a name it does not have
        (["RuntimeError: Unknown model (convnet_huge_512)"], "unsupported_config", "unknown"),
        # an assertion that a configuration was found
        (
            [
                "Traceback (most recent call last):",
                '  File "/app/models/helpers.py", line 40, in resolve_cfg',
                "    assert default_cfg",
                "AssertionError",
            ],
            "unsupported_config",
            "unknown",
        ),
        # a saved model written by another release of the library that reads it
        (
            [
                "E1203 10:00:01.000000 1 model_repository_manager.cc:1186] failed to load 'trees' "
                "version 1: Unknown: Model failed to load into Forest with error: Cannot "
                "deserialize model from a different version of Forest"
            ],
            "env_mismatch",
            "loading",
        ),
        # a watchdog giving up on a process it started
        (
            [
                "[Analyzer] Profiling m_config_0: client batch size=1, concurrency=4",
                "[Analyzer] load_gen took very long to exit, killing load_gen",
            ],
            "timeout",
            "unknown",
        ),
        # a launcher whose server died while it waited for it to come up
        (
            [
                "2026-01-02 10:00:00,100 - DEBUG - launcher: Waiting for server to be ready "
                "(timeout=120.0)",
                "2026-01-02 10:00:00,900 - DEBUG - launcher: server exit code -11",
            ],
            "engine_died",
            "startup",
        ),
        # a library's own check of the CUDA driver's start
        (
            [
                'RuntimeError: [/src/core/device_guard.cc:31] Assert on "cuInitChecked()" '
                "failed: Failed to load libcuda.so. Check your library paths."
            ],
            "env_mismatch",
            "startup",
        ),
        # nvcc refusing a target, its "nvcc fatal :" lost in the paste
        (["Unsupported gpu architecture 'compute_130'"], "dispatch_failure", "compile"),
        # a kernel compiler's pass asserting that it has nothing for this GPU, camel-cased
        (
            [
                "python: /src/lib/Dialect/KernelGPU/Transforms/Matmul.cpp:36: int "
                'mlir::kgpu::getVersion(int): Assertion `false && "computeCapability not '
                "supported\"' failed."
            ],
            "dispatch_failure",
            "compile",
        ),
        # older pip's words for a package it could not build
        (
            [
                "  Running setup.py develop for fastops",
                "    ERROR: Command errored out with exit status 1:",
            ],
            "env_mismatch",
            "compile",
        ),
    ],
)
def test_round90_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_aborting_requests_is_routine(tmp_path: Path) -> None:
    log = tmp_path / "rollout.log"
    log.write_text(
        "(Manager pid=12) [2026-01-02 10:00:00] rollout.py:338 - Abort request for "
        "['http://10.0.0.1:15000', 'http://10.0.0.1:15002']\n"
        "(Manager pid=12) [2026-01-02 10:00:00] rollout.py:1193 - perf 0: {'tokens': 1024}\n"
    )
    assert classify_log(log) is None


def test_a_user_aborting_a_request_under_a_failure_is_still_read(tmp_path: Path) -> None:
    # the failure's own words stay an error: only a request aborted is routine
    classify_as(
        tmp_path,
        ["Failed to retrieve error logs: The user aborted a request."],
        "unknown",
        "unknown",
    )
