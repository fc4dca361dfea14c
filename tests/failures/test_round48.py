"""Mechanisms of the forty-eighth round, tuned on ``fresh170/`` to ``fresh173/``.

Pasting damage: a whole line in Markdown's bold (and italic) is read without it. Wordings: an op
missing from any torch.ops namespace (vLLM's ``_moe_C`` as its ``_C``) is the extension's; .NET's
``AccessViolationException`` and Intel Fortran's ``forrtl: severe (174): SIGSEGV`` are deaths by
signal; ProcessGroupNCCL's heartbeat monitor timing out is NCCL's watchdog (``nccl_error``, as its
collective timeouts); TensorRT's ``Target GPU SM 120 is not supported`` names an architecture (a
missing kernel, not a refused configuration); Windows' ``bad allocation`` is std::bad_alloc;
the CUDA runtime's ``invalid configuration argument`` has two readings (a launch beyond the
device's limits, an empty grid) and refuses no configuration of the user's: ``unknown``; a
converter that cannot find a model's tokenizer or config file is a missing model file. Stages:
nnU-Net's ``Epoch 0`` header and llama.cpp server's older ``[ update_slots]`` records are work
being done.
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
                'ERROR 11-25 06:52:24 engine.py:366]   File "/env/vllm/model_executor/models/'
                'utils.py", line 229, in load_weights',
                "**_ERROR 11-25 06:52:24 engine.py:366] ValueError: There is no module or "
                "parameter named 'lm_head' in LlamaEmbeddingModel_**",
            ],
            "unsupported_config",
            "loading",
        ),
        (
            [
                "ERROR 08-13 22:40:00 [core.py:683] RuntimeError: Worker failed with error "
                "''_OpNamespace' '_moe_C' object has no attribute 'topk_softmax''",
            ],
            "env_mismatch",
            "unknown",
        ),
        (
            [
                "Fatal error. System.AccessViolationException: Attempted to read or write "
                "protected memory. This is often an indication that other memory is corrupt.",
                "   at Native.Handle.llama_init(System.String)",
            ],
            "engine_died",
            "unknown",
        ),
        (
            [
                "forrtl: severe (174): SIGSEGV, segmentation fault occurred",
                "*** longjmp causes uninitialized stack frame ***: /opt/md/bin/dynamic terminated",
                "forrtl: severe (174): SIGSEGV, segmentation fault occurred",
                "======= Backtrace: =========",
                "srun: error: node12: task 0: Exited with exit code 174",
            ],
            "engine_died",
            "unknown",
        ),
        (
            [
                "2024-06-12 08:33:54.403819: Epoch 0",
                "2024-06-12 08:33:54.405996: Current learning rate: 0.01",
                "[rank1]:[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank 1] Heartbeat monitor timed out! "
                "Process will be terminated after dumping debug info. workMetaList_.size()=2",
            ],
            "nccl_error",
            "execute",
        ),
        (
            [
                "[04/01/2025-10:00:00] [TRT] [E] IBuilder::buildSerializedNetwork: Error Code 9: "
                "API Usage Error (Target GPU SM 120 is not supported by this TensorRT release.)",
            ],
            "dispatch_failure",
            "compile",
        ),
        (
            [
                "onnxruntime.capi.onnxruntime_pybind11_state.RuntimeException: [ONNXRuntimeError] "
                ": 6 : RUNTIME_EXCEPTION : Exception during initialization: bad allocation",
            ],
            "device_oom",
            "startup",
        ),
        (
            [
                "epoch 1/10",
                "Error invalid configuration argument at line 233 in file /src/csrc/ops.cu",
            ],
            "unknown",
            "execute",
        ),
        (
            [
                "FileNotFoundError: Could not find tokenizer.model in models/merge or its parent; "
                "if it's in another directory, pass the directory as --vocab-dir",
            ],
            "unsupported_config",
            "unknown",
        ),
        (
            [
                'INFO [            update_slots] kv cache rm [p0, end) | tid="1404" id_slot=0 p0=0',
                "src/llama.cpp:3504: GGML_ASSERT(cell.has_seq_id(seq_id)) failed",
            ],
            "unknown",
            "execute",
        ),
    ],
)
def test_round48_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)
