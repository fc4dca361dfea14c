"""Mechanisms of the seventy-fifth round, tuned on ``fresh305/``, ``fresh307/``, ``fresh309/``,
``fresh311/`` (kept unread through round 74) and ``fresh312/``, ``fresh314/`` (measured before
reading with round 74); ``fresh313/`` stays unread.

The runtime's strings with two honest readings (``device kernel image is invalid``) stay
``unknown`` whatever frame raised them; torch's ``Error(s) in loading state_dict`` heading is a
relay of the reason listed under it. The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # Triton's launcher raising a kernel image the driver rejects: two readings, no smem
        (
            [
                '  File "/env/triton/compiler/compiler.py", line 390, in _init_handles',
                "    self.module, self.function, self.n_regs, self.n_spills = load_binary(",
                "RuntimeError: Triton Error [CUDA]: device kernel image is invalid.",
            ],
            "unknown",
            "compile",
        ),
        # cuDNN's frontend finding no engine for an attention graph
        (
            [
                "RuntimeError: cuDNN Frontend error: No valid engine configs for "
                "Matmul_MUL_Reduction_SUB_EXP_Matmul_"
            ],
            "dispatch_failure",
            "unknown",
        ),
        # the state_dict heading, then the parameter that could not be copied and why
        (
            [
                '  File "/env/torch/nn/modules/module.py", line 1497, in load_state_dict',
                "RuntimeError: Error(s) in loading state_dict for Whisper:",
                '\tWhile copying the parameter named "encoder.conv1.weight", whose dimensions '
                "in the model are torch.Size([8]) and whose dimensions in the checkpoint are "
                "torch.Size([8]), an exception occurred : ('CUDA error: no kernel image is "
                "available for execution on the device",
            ],
            "dispatch_failure",
            "loading",
        ),
        # ... and the heading alone, its list cut off: a configuration refused
        (
            ["RuntimeError: Error(s) in loading state_dict for SAM2Base:"],
            "unsupported_config",
            "loading",
        ),
        # TensorRT finding CUDA unusable, then the crash it leads to
        (
            [
                "ERROR: Cuda initialization failure with error 2. Please check cuda installation:",
                "Segmentation fault (core dumped)",
            ],
            "env_mismatch",
            "startup",
        ),
        # MediaPipe's graph naming calculators the linked framework does not hold
        (
            [
                "E0000 00:00:1716588635.537158 9824 llm_engine.cc:68] NOT_FOUND: "
                "ValidatedGraphConfig Initialization failed.",
                "No registered object with name: TokenizerCalculator; Unable to find Calculator "
                '"TokenizerCalculator"',
            ],
            "env_mismatch",
            "startup",
        ),
        # Lightning asked for GPUs it cannot find, its second line cut off
        (
            [
                "pytorch_lightning.utilities.exceptions.MisconfigurationException: You requested "
                "GPUs: [0, 1]"
            ],
            "env_mismatch",
            "startup",
        ),
        # rustc's own error record
        (
            [
                "   Compiling candle-core v0.3.1 (/src/candle/candle-core)",
                "error[E0432]: unresolved import `metal_backend`",
            ],
            "unknown",
            "compile",
        ),
        # a syslog line whose month is in a CJK locale's words (Ollama's Gin access log)
        (
            [
                "9月 29 00:10:02 host ollama[27605]: [GIN] 2024/09/29 - 00:10:02 | 500 |       "
                ' 32m31s |   10.0.0.1 | POST     "/api/generate"'
            ],
            "unknown",
            "execute",
        ),
        # ExecuTorch's Vulkan backend without the shader of an op for this dtype
        (
            [
                "RuntimeError: Exception raised from get_shader_info at ShaderRegistry.cpp:51: "
                "(it != listings_.end()) is false! Could not find ShaderInfo with name add_uint8"
            ],
            "dispatch_failure",
            "unknown",
        ),
        # a build that needs a plugin it was not given
        (
            [
                "ERROR: Failed to create instance: unexpected error when creating "
                "modelInstanceState: TrtGptModelInflightBatching requires GPT attention plugin "
                "with packed input and paged KV cache."
            ],
            "unsupported_config",
            "loading",
        ),
        # a server that cannot listen on its port
        (
            [
                "[server] [ERROR] [http_server.cpp:163] : [endpoint] Failed to listen "
                "10.0.0.3:40032, please check if business ip and port are legal."
            ],
            "unknown",
            "startup",
        ),
    ],
)
def test_round75_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)
