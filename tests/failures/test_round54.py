"""Mechanisms of the fifty-fourth round, tuned on ``fresh186/`` to ``fresh189/``.

Categories: cuBLAS' allocation status in its own words (``the resource allocation failed``);
TensorFlow's convolution without cuDNN (``because cuDNN failed to initialize``); llama.cpp's
decode finding no KV-cache slot, as its bindings name it (``NoKvSlot``, ``NoKvCacheSlot``:
``kv_cache_oom`` at ``execute``); a vLLM kernel extension whose build was skipped for the
architecture; a size checked against the world size; Lightning's Trainer with no GPU backend.
A JVM stack is read wherever it starts below its error (its frames are looked at like error
lines: ``\\tat``).
The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        (
            [
                "CUDA error: the resource allocation failed",
                "  current device: 0, in function cublas_handle at ggml-cuda/common.cuh:826",
            ],
            "device_oom",
            "unknown",
        ),
        (
            [
                "tensorflow.python.framework.errors_impl.UnknownError: 2 root error(s) found.",
                "  (0) Unknown: Failed to get convolution algorithm. This is probably because "
                "cuDNN failed to initialize, so try looking to see if a warning log message was "
                "printed above.",
            ],
            "env_mismatch",
            "unknown",
        ),
        (
            [
                "Unhandled exception. LLama.Exceptions.LLamaDecodeError: llama_decode failed: "
                "'NoKvSlot'",
            ],
            "kv_cache_oom",
            "execute",
        ),
        (
            [
                "Model worker crashed: Llama.cpp failed decoding: Decode Error 1: NoKvCacheSlot",
            ],
            "kv_cache_oom",
            "execute",
        ),
        (
            [
                "RuntimeError: vllm_flashmla_C is not available, likely was not compiled due to "
                "insufficient nvcc version or a supported arch was not in the list of target "
                "arches to compile for.",
            ],
            "dispatch_failure",
            "unknown",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "/w/generate.py", line 120, in main',
                '    assert args.ulysses_size == world_size, "..."',
                "AssertionError: The number of ulysses_size should be equal to the world size.",
            ],
            "unsupported_config",
            "unknown",
        ),
        (
            [
                "Error executing job with overrides: ['data_module=mp_20']",
                "Error in call to target 'pytorch_lightning.trainer.trainer.Trainer':",
                "MisconfigurationException('No supported gpu backend found!')",
            ],
            "env_mismatch",
            "startup",  # (round 62: Lightning's check as the Trainer is built)
        ),
        (  # the stack starts beyond the lines read after the error: its frames are looked at
            [
                "MLCChat failed",
                "",
                "Stack trace:",
                "",
                "org.apache.tvm.Base$TVMError: InternalError: Check failed: (e == CL_SUCCESS) "
                "is false: OpenCL Error, code=-54: CL_INVALID_WORK_GROUP_SIZE",
                "",
                "Stack trace not available when DMLC_LOG_STACK_TRACE is disabled at compile time.",
                "",
                "\tat org.apache.tvm.Base.checkCall(Base.java:173)",
                "",
                "\tat ai.mlc.mlcllm.ChatModule.prefill(ChatModule.java:54)",
                "",
                "\tat ai.mlc.mlcchat.AppViewModel$ChatState.callBackend(AppViewModel.kt:548)",
            ],
            "unknown",
            "execute",
        ),
    ],
)
def test_round54_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)
