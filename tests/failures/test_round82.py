"""Mechanisms of the eighty-second round, tuned on half of the fifteenth batch (``fresh352/``,
``fresh354/``, ``fresh356/``, ``fresh358/``, measured before reading with round 81);
``fresh313/``, ``fresh315/``, ``fresh333/``, ``fresh335/``, ``fresh337/``, ``fresh339/``,
``fresh345/``, ``fresh347/``, ``fresh349/``, ``fresh351/`` and the other half (``fresh353/``,
``fresh355/``, ``fresh357/``, ``fresh359/``) stay unread.

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # a feature the hardware lacks, in a builder's words
        (
            [
                "[E] Error[9]: IBuilder::buildSerializedNetwork: Error Code 9: API Usage Error "
                "(Networks with FP8 Q/DQ layers require hardware with FP8 support.)"
            ],
            "dispatch_failure",
            "compile",
        ),
        # a capability as an integer, in a backend's refusal
        (
            [
                "flashinfer.utils.BackendSupportedError: mm_fp4 does not support backend "
                "'cute-dsl' with capability 120"
            ],
            "dispatch_failure",
            "unknown",
        ),
        (
            [
                "ValueError: Marlin does not support weight_bits = uint8b128. Only types = [] are "
                "supported (for group_size = 128, min_capability = 70, zp = False)"
            ],
            "dispatch_failure",
            "unknown",
        ),
        # a GEMM kernel named with its prefix, not implemented for a dtype
        (
            ["RuntimeError: \"_tunable_scaled_gemm\" not implemented for 'Float8_e4m3fn'"],
            "dispatch_failure",
            "unknown",
        ),
        # vLLM finding no kernel for a quantized layer: the candidates' reasons below are its own
        (
            [
                "ValueError: Failed to find a kernel that can implement the WNA16 linear layer. "
                "Reasons:",
                "MacheteLinearKernel requires capability 90, current compute capability is 86",
                "ConchLinearKernel cannot implement due to: conch-triton-kernels is not installed, "
                "please install it via pip install conch-triton-kernels",
            ],
            "dispatch_failure",
            "unknown",
        ),
        # the runtime's words for an illegal address cut in the middle of the last one
        (
            ["torch.AcceleratorError: CUDA error: an illegal memory access was encount"],
            "illegal_memory_access",
            "unknown",
        ),
        # newer torch's words for a GPU its build has no kernels for
        (
            [
                "/x/torch/cuda/__init__.py:422: UserWarning: Found GPU0 NVIDIA GeForce RTX 5060 Ti "
                "which is of compute capability (CC) 12.0.",
                "Your installed torch==2.13.0+cu126 does not include kernels for this GPU.",
            ],
            "env_mismatch",
            "startup",
        ),
        # an error said to have happened during the work itself
        (
            [
                "An error occurred during inference: CUDA error: no kernel image is available for "
                "execution on the device"
            ],
            "dispatch_failure",
            "execute",
        ),
        # Podman's Container Device Interface without the GPUs asked for
        (
            ["Error: setting up CDI devices: unresolvable CDI devices nvidia.com/gpu=all"],
            "env_mismatch",
            "startup",
        ),
        # the container runtime's CUDA check, in lower case
        (
            [
                "Error: failed to start container: OCI runtime create failed: nvidia-container-cli:"
                " initialization error: cuda error: no cuda-capable device is detected: unknown"
            ],
            "env_mismatch",
            "startup",
        ),
        # a shell that cannot run the program is never silent
        (["/bin/sh: 1: vllm: Permission denied"], "unknown", "unknown"),
        # a container that could not be created: start-up
        (
            ['Error: container create failed (no logs from conmon): conmon bytes "": bad data'],
            "unknown",
            "startup",
        ),
        # Fooocus working on the prompts of its task
        (
            [
                "Loading 1 new model",
                "[Fooocus] Processing prompts ...",
                "[Fooocus] Encoding positive #1 ...",
                "Traceback (most recent call last):",
                '  File "/x/modules/async_worker.py", line 1471, in worker',
                "    handler(task)",
                "RuntimeError: something went wrong in the worker",
            ],
            "unknown",
            "execute",
        ),
        # a configuration file's entry refused by a scheduler
        (
            ["error: _node_config_validate: gres/gpu: invalid GRES core specification (48-63)"],
            "unsupported_config",
            "unknown",
        ),
        (
            ["slurmd[1]: fatal: gres.conf duplicate records for gpu"],
            "unsupported_config",
            "unknown",
        ),
    ],
)
def test_round82_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_round82_a_setting_shown_is_no_failure(tmp_path: Path) -> None:
    # ("Permission denied" and "not found" are looked at closely now; a listing that holds them
    # without an error's shape stays quiet)
    lines = [
        "Checking files:",
        "  config.json: found",
        "  tokenizer.model: not found, using tokenizer.json",
        "Server ready on port 8000",
    ]
    assert classify_both(tmp_path, lines) is None


def test_round82_a_cancelled_task_gives_way_to_the_failure_it_was_cancelled_for(
    tmp_path: Path,
) -> None:
    # asyncio's CancelledError ends the traceback of a server's lifespan task; the server's own
    # record right below says why it stopped (the engine never came up)
    classify_as(
        tmp_path,
        [
            '  File "/x/starlette/routing.py", line 699, in lifespan',
            "    await receive()",
            '  File "/usr/lib/python3.12/asyncio/queues.py", line 158, in get',
            "    await getter",
            "asyncio.exceptions.CancelledError",
            "2026-01-01 10:00:00.000 1 kserve ERROR [__main__.py:<module>():337] Failed to start "
            "model server: Engine core initialization failed. See root cause above.",
        ],
        "engine_died",
        "startup",
    )


def test_round82_a_cancelled_task_alone_stays_unknown(tmp_path: Path) -> None:
    classify_as(
        tmp_path,
        [
            "Traceback (most recent call last):",
            '  File "/usr/lib/python3.12/asyncio/queues.py", line 158, in get',
            "    await getter",
            "asyncio.exceptions.CancelledError",
        ],
        "unknown",
        "unknown",
    )
