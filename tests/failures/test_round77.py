"""Mechanisms of the seventy-seventh round, tuned on the halves of the tenth and eleventh batches
that round 76 left unread (``fresh317/`` to ``fresh331/``, odd) and on half of the twelfth
(``fresh332/``, ``fresh334/``, ``fresh336/``, ``fresh338/``, measured before reading with round
76); ``fresh333/``, ``fresh335/``, ``fresh337/``, ``fresh339/``, ``fresh313/`` and ``fresh315/``
stay unread.

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # a devices' check in torch's words, and a tool's bracketed label ending in its level
        (
            ["[2024-01-19 11:49:04.147] [error] No CUDA GPUs are available"],
            "env_mismatch",
            "startup",
        ),
        # (torch's own exception: round 17 read its category; the devices counted at CUDA's
        # set-up now tell its stage too)
        (
            ["RuntimeError: No CUDA GPUs are available"],
            "env_mismatch",
            "startup",
        ),
        (
            ["[Tool Options Error]: Could not find accessible GPUs. Please check the options"],
            "env_mismatch",
            "startup",
        ),
        # Omniverse Kit's record at error level
        (
            [
                "2026-08-24T16:00:30Z [18,596ms] [Error] [gpu.foundation.plugin] No device "
                "could be created. Some known system issues:"
            ],
            "env_mismatch",
            "startup",
        ),
        # a job killed by its scheduler's watchdog
        (
            [
                "ERROR: No Heartbeat",
                "This job was killed because a heartbeat was not received for 30 seconds.",
            ],
            "timeout",
            "unknown",
        ),
        # a program running one of its models, then a kernel fault
        (
            [
                "2022-06-21 22:18:56,408 Running model_4",
                "E external/xla/pjrt/client.cc:2141] Execution of replica 0 failed: INTERNAL: "
                "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered",
            ],
            "illegal_memory_access",
            "execute",
        ),
        # a molecular-dynamics run being set up, then a kernel fault
        (
            [
                "Setting up Verlet run ...",
                "  Unit style    : real",
                "cudaStreamSynchronize(stream) error( cudaErrorIllegalAddress): an illegal memory "
                "access was encountered /src/kokkos/Kokkos_Cuda_Instance.cpp:172",
            ],
            "illegal_memory_access",
            "execute",
        ),
        # the GPU runtime reported set up, then an arena allocation failing
        (
            [
                "CUDA initialized with 1 device.",
                "amrex::Abort::0::CUDA error 2 in file Src/Base/AMReX_Arena.cpp line 173: out of "
                "memory !!!",
            ],
            "device_oom",
            "startup",
        ),
        # an exception told with what was being done, and a private exception class
        (
            [
                "Exception initializing accelerator: Accelerator.__init__() got an unexpected "
                "keyword argument 'project_dir'"
            ],
            "unknown",
            "unknown",
        ),
        (
            [
                "torch._C._LinAlgError: linalg.cholesky: The factorization could not be completed "
                "because the input is not positive-definite."
            ],
            "unknown",
            "unknown",
        ),
        # Rich's logging handler: the record's source at the right edge
        (
            [
                "2025-07-08 10:39:40 ERROR    !!! Exception during processing !!! Allocation on "
                "device                   execution.py:430"
            ],
            "device_oom",
            "execute",
        ),
        # torch's check that a graph capture ends where it began
        (
            ["RuntimeError: Capture must end on the same stream it began on."],
            "stream_capture",
            "graph_capture",
        ),
        # Ollama's answer once its runner died, with no cause shown
        (
            [
                '"model runner has unexpectedly stopped, this may be due to resource limitations '
                'or an internal error, check ollama server logs for details"'
            ],
            "engine_died",
            "unknown",
        ),
        # an exception's repr inside a message
        (
            ["reason=<ServiceException: (code=1100, message=collection not loaded)>"],
            "unknown",
            "unknown",
        ),
        # a Java server relaying its worker's stream at INFO: the worker's words count
        (
            [
                "2020-02-26 02:46:38,735 [INFO ] W-9001-m_1.0-stdout org.pytorch.serve.wlm."
                "WorkerLifeCycle - Traceback (most recent call last):",
                "2020-02-26 02:46:38,735 [INFO ] W-9001-m_1.0-stdout org.pytorch.serve.wlm."
                "WorkerLifeCycle - KeyError: 'model'",
            ],
            "unknown",
            "unknown",
        ),
        # a request longer than the context the server has, vLLM's and llama.cpp's words
        (
            [
                "openai.BadRequestError: Error code: 400 - {'object': 'error', 'message': "
                "\"This model's maximum context length is 4096 tokens. However, you requested "
                '5000 tokens (904 in the messages, 4096 in the completion)."}'
            ],
            "unsupported_config",
            "execute",
        ),
        (
            [
                "srv    send_error: task id = 0, error: request (9000 tokens) exceeds the "
                "available context size (8192 tokens), try increasing it"
            ],
            "unsupported_config",
            "execute",
        ),
        # the loader out of room for a library's thread-local storage: a library load
        (
            [
                "OSError: /env/torch/lib/libgomp-d22c30c5.so.1: cannot allocate memory in "
                "static TLS block"
            ],
            "env_mismatch",
            "startup",
        ),
        # a function named for validating the arguments, and an argument not given
        (
            [
                '  File "/src/megatron/initialize.py", line 51, in initialize_megatron',
                "    validate_args(args, args_defaults)",
                '  File "/src/megatron/arguments.py", line 340, in validate_args',
                "    assert args.max_position_embeddings is not None",
                "AssertionError: max_position_embeddings argument is None",
            ],
            "unsupported_config",
            "startup",
        ),
        # a wait for a node to start up that timed out
        (
            [
                "TimeoutError: Timed out after 30 seconds while waiting for node to startup. "
                "Did not find socket name /tmp/ray/plasma_store"
            ],
            "timeout",
            "startup",
        ),
        # a model the server does not have; a flag a request needs
        (
            ['Error: model "llama3:70b" not found, try pulling it first'],
            "unsupported_config",
            "unknown",
        ),
        # (round 78: the OpenAI SDK's status error is the answer to a request, execute)
        (
            [
                "openai.BadRequestError: Error code: 400 - {'object': 'error', 'message': "
                "'\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser'"
            ],
            "unsupported_config",
            "execute",
        ),
        # a runtime's status for a device it cannot reach
        (
            ["Exception: RKNN init failed. error code: RKNN_ERR_DEVICE_UNAVAILABLE"],
            "env_mismatch",
            "startup",
        ),
        # the driver API's initialization error after the call that returned it
        (
            ["pycuda._driver.LogicError: cuModuleLoadDataEx failed: initialization error -"],
            "env_mismatch",
            "startup",
        ),
        # an architecture that is needed, said as "or higher required"
        (
            ["AssertionError: Device compute capability 8.9 or higher required for FP8 execution."],
            "dispatch_failure",
            "unknown",
        ),
        # CUTLASS device code built without the architecture its instruction needs
        (
            [
                "ERROR : Arch conditional MMA instruction used without targeting appropriate "
                "compute capability. Aborting."
            ],
            "dispatch_failure",
            "unknown",
        ),
    ],
)
def test_round77_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_round77_a_fallback_said_with_a_capital_is_no_failure(tmp_path: Path) -> None:
    """A program going on with its reference implementation, however it capitalises it."""
    lines = [
        "/app/attention.py:266: UserWarning: transformer_engine is not installed. Please install "
        "it to use NVIDIA's optimized fused attention.. Falling back to the reference "
        "implementation."
    ]
    assert classify_both(tmp_path, lines) is None
