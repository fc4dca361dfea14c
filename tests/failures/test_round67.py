"""Mechanisms of the sixty-seventh round, tuned on ``fresh250/``, ``fresh252/``, ``fresh254/``
and ``fresh256/`` (measured before reading with round 66; ``fresh251/``, ``fresh253/``,
``fresh255/`` and ``fresh257/`` were measured apart and left unread).

Categories: the HIP runtime's own log of a missing code object (``No compatible code objects
found for: gfx942``) and hipBLASLt's Tensile library that cannot be read (``dispatch_failure``);
AITER's JIT build of a module (``failed jit build [module_x]``, ``env_mismatch`` at
``compile``); a C/C++ tool's parser refusing a flag it does not know (``Unknown argument:
--x``, ``unsupported_config`` at ``startup``). Stages: Megatron's argument check against the
parallel sizes named as flags (``... divisible by the pipeline-model-parallel size``), NCCL's
bootstrap finding no network interface and its socket set-up failing, vLLM's engine arguments
refusing a keyword (``startup``); the model's own check as its blocks are built
(``num_layers should be divisible by pipeline_model_parallel_size``) is not argument checking.
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
                ":3:hip_fatbin.cpp           :537 : 2500 us:  Device name: gfx942",
                ":1:hip_fatbin.cpp           :694 : 2500 us:  No compatible code objects found "
                "for: gfx942:sramecc+:xnack-, value of HIP_FORCE_SPIRV_CODEOBJECT: 0",
            ],
            "dispatch_failure",
            "unknown",
        ),
        (
            [
                'rocblaslt error: Cannot read "TensileLibrary_lazy_gfx906.dat" (or .zlib '
                "variant): No such file or directory",
            ],
            "dispatch_failure",
            "unknown",
        ),
        (
            [
                "[aiter] start build [module_norm] under /opt/aiter/jit/build/module_norm",
                "[aiter] failed jit build [module_norm]",
            ],
            "env_mismatch",
            "compile",
        ),
        (
            ["Unknown argument: --rpc-server-main-gpu"],
            "unsupported_config",
            "startup",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "pretrain.py", line 9, in <module>',
                "    validate_args(args)",
                "AssertionError: Number of layers should be divisible by the "
                "pipeline-model-parallel size",
            ],
            "unsupported_config",
            "startup",
        ),
        (
            [
                "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1201, internal error, NCCL "
                "version 2.14.3",
                "ncclInternalError: Internal check failed.",
                "Last error:",
                "Bootstrap : no socket interface found",
            ],
            "nccl_error",
            "startup",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "serve.py", line 238, in main',
                "    llm = LLM(model=args.model, worker_extension_cls=ext)",
                "TypeError: EngineArgs.__init__() got an unexpected keyword argument "
                "'worker_extension_cls'",
            ],
            "unknown",
            "startup",
        ),
    ],
)
def test_round67_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_a_model_checking_its_blocks_is_no_argument_check(tmp_path: Path) -> None:
    """The model's own check, named by its attributes, tells no stage of its own."""
    lines = [
        "Traceback (most recent call last):",
        '  File "megatron/core/transformer/transformer_block.py", line 110, in build_layers',
        "    num_layers % config.pipeline_model_parallel_size == 0",
        "AssertionError: num_layers should be divisible by pipeline_model_parallel_size",
    ]
    failure = classify_as(tmp_path, lines, "unsupported_config", "unknown")
    assert failure.evidence["stage"] == "none"
