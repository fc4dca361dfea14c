"""Mechanisms of the fifty-second round, tuned on ``fresh178/`` to ``fresh181/``.

Stacks of other runtimes are frames: a JVM's or .NET's (``at ai.mlc.ChatModule.decode(
ChatModule.java:74)``, ``at LLama.LLamaWeights.LoadFromFile(...)``), innermost first below the
exception, their names read as Python spells them. Categories: Docker without the NVIDIA
runtime registered; Ray's worker crash and an actor killed; llamafile asked for a GPU it does
not find; rocBLAS finding no device, or not loading this architecture's Tensile library; a
model file whisper.cpp cannot open; a TORCH_CHECK on the device's major version; TensorRT's
older ONNX parser. Stages: vLLM's KV connector registering the caches (``kv_alloc``); an MLIR
diagnostic printed right against a progress bar (``compile``).
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
                "Starting the containerdocker: Error response from daemon: unknown or invalid "
                "runtime name: nvidia.",
                "See 'docker run --help'.",
            ],
            "env_mismatch",
            "startup",
        ),
        (
            [
                "(raylet) A worker died or was killed while executing a task by an unexpected "
                "system error. To troubleshoot the problem, check the logs for the dead worker.",
                "RayTask ID: ffffffffffffffff2fd9fbb937c0aaf08388726901000000",
            ],
            "engine_died",
            "unknown",
        ),
        (
            [
                "    death_cause:",
                "        actor_died_error_context:",
                "            error_message: The actor is dead because it was killed by `ray.kill`.",
            ],
            "engine_died",
            "unknown",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "/venv/vllm/distributed/kv_transfer/kv_connector/v1/nixl_connector.py", '
                "line 601, in register_kv_caches",
                "    self.src_xfer_side_handle = self.nixl_wrapper.prep_xfer_dlist(",
                "nixl._bindings.nixlNotFoundError: NIXL_ERR_NOT_FOUND",
            ],
            "nccl_error",
            "kv_alloc",
        ),
        (
            [
                "link_cuda_dso: GPU support not possible",
                "fatal error: support for --gpu nvidia was explicitly requested, but it wasn't "
                "available",
            ],
            "env_mismatch",
            "startup",
        ),
        (
            [
                "rocBLAS error: Could not initialize Tensile host: No devices found",
                "Aborted (core dumped)",
            ],
            "env_mismatch",
            "unknown",
        ),
        (
            [
                r"rocBLAS error: Could not load C:\Program Files\AMD\ROCm\6.1\bin\/rocblas/library/"
                "TensileLibrary_lazy_gfx1103.dat",
                "rocBLAS error: Could not initialize Tensile library",
            ],
            "dispatch_failure",
            "unknown",
        ),
        (
            [
                "whisper_model_load: loading model from 'models/ggml-base.en.bin'",
                "whisper_model_load: failed to open 'models/ggml-base.en.bin'",
                "error: failed to initialize whisper context",
            ],
            "unsupported_config",
            "loading",
        ),
        (
            [
                "RuntimeError: Expected (dprops->major == 8 && dprops->minor == 0) || "
                "(dprops->major == 9 && dprops->minor == 0) to be true, but got false.",
            ],
            "dispatch_failure",
            "unknown",
        ),
        (
            [
                "  0%|" + " " * 240 + '| 0/1250 [00:00<?, ?it/s]loc("/x/ops/fused.py":105:22): '
                "error: 'arith.addf' op requires the same encoding for all operands and results",
                "Traceback (most recent call last):",
                '  File "train.py", line 325, in <module>',
                "    loss.backward()",
            ],
            "unknown",
            "compile",
        ),
        (
            [
                "[06/09/2023-10:44:46] [W] [TRT] onnx2trt_utils.cpp:198: Your ONNX model has been "
                "generated with INT64 weights. Attempting to cast down to INT32.",
                "ERROR: ModelImporter.cpp:92 In function parseGraph:",
                "[8] Assertion failed: convertOnnxWeights(initializer, &weights, ctx)",
            ],
            "unsupported_config",
            "compile",
        ),
        (  # a .NET stack below the exception, innermost first; "Repeat 2 times" blocks
            [
                "Fatal error. System.AccessViolationException: Attempted to read or write "
                "protected memory. This is often an indication that other memory is corrupt.",
                "Repeat 2 times:",
                "--------------------------------",
                "   at LLama.Native.SafeLlamaModelHandle.llama_load_model_from_file(System.String,"
                " LLama.Native.LLamaModelParams)",
                "--------------------------------",
                "   at LLama.LLamaWeights.LoadFromFile(LLama.Abstractions.IModelParams)",
                "   at App.Program.Main(System.String[])",
            ],
            "engine_died",
            "loading",
        ),
        (  # a JVM stack below the exception: the app's decode call ran it
            [
                "java.lang.RuntimeException: CUDA error: out of memory",
                "\tat ai.mlc.mlcllm.ChatModule.decode(ChatModule.java:74)",
                "\tat ai.mlc.mlcchat.AppViewModel$ChatState.callBackend(AppViewModel.kt:548)",
                "\tat java.lang.Thread.run(Thread.java:1012)",
            ],
            "device_oom",
            "execute",
        ),
        (  # a JavaScript frame (a space before its parenthesis) says nothing of the kind
            [
                "Error: CUDA error: out of memory",
                "    at decode (/app/node_modules/llm/index.js:74:11)",
            ],
            "device_oom",
            "unknown",
        ),
    ],
)
def test_round52_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)
