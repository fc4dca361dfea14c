"""Mechanisms of the hundred-and-eleventh round, tuned on the read half of the forty-first batch
(vLLM, attention kernel libraries, the Triton compiler and torch.compile, distributed training).

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # a traceback indented two more spaces by the paste (kubectl's describe), cut inside
        # its frames: never silent, and its frames still tell the stage
        (
            [
                "    State:       Waiting",
                "      Reason:    CrashLoopBackOff",
                "    Last State:  Terminated",
                "      Message:    12, in main",
                '    File "/srv/app/server.py", line 40, in start',
                "      engine = build_async_engine_client_from_engine_args(args)",
                '    File "/srv/venv/lib/python3.12/site-packages/vllm/v1/engine/async_llm.py", '
                "line 99, in __init__",
                "      self.engine_core = EngineCoreClient.make_async_mp_client(",
            ],
            "unknown",
            "startup",
        ),
        # more registers than a thread may have, as ptxas says it
        (
            [
                "ptxas fatal   : (C7600) Register allocation failed with register count of "
                "'128'. Compile the program with a higher register target"
            ],
            "smem_limit",
            "compile",
        ),
        # Triton's wrapper of ptxas' output: the words below it name the cause
        (
            [
                "triton.runtime.errors.PTXASError: PTXAS error: Internal Triton PTX codegen error",
                "`ptxas` stderr:",
                "ptxas fatal   : (C7600) Register allocation failed with register count of '255'.",
            ],
            "smem_limit",
            "compile",
        ),
        # a program of nvcc's toolchain that crashed is no engine that died
        (
            ["nvcc error   : 'ptxas' died due to signal 11 (Invalid memory reference)"],
            "unknown",
            "compile",
        ),
        # a compiler's own crash on a source line
        (
            [
                "/src/kernels/attn_fwd.sm80.cu:62:385: internal compiler error: in "
                "maybe_undo_parenthesized_ref, at cp/semantics.c:1740"
            ],
            "unknown",
            "compile",
        ),
        # Inductor's own exceptions, raised as it lowers or caches a graph
        (
            [
                "torch._inductor.exc.LoweringException: NoValidChoicesError: No choices to "
                "select, please consider adding ATEN into max_autotune_gemm_backends config"
            ],
            "unknown",
            "compile",
        ),
        # clang's linker failing, as collect2's would
        (
            ["clang: error: linker command failed with exit code 1 (use -v to see invocation)"],
            "env_mismatch",
            "compile",
        ),
        # the C compiler unable to build the helper Triton generates
        (
            [
                "C:\\Users\\user\\AppData\\Local\\Temp\\tmpab12\\__triton_launcher.c(88): error "
                "C2059: syntax error: ')'"
            ],
            "env_mismatch",
            "compile",
        ),
        # a check's verdict naming the exception it caught
        (
            ["Device: cuda", "  float8_e5m2fnuz: FAIL InductorError: CompilationError: at 1:0:"],
            "unknown",
            "compile",
        ),
        # Megatron's word as its training loop starts
        (
            [
                "done with setup ...",
                "training ...",
                "Traceback (most recent call last):",
                '  File "pretrain_gpt.py", line 150, in <module>',
                "RuntimeError: shape '[4, 1024, 16, 64]' is invalid for input of size 1000",
            ],
            "unknown",
            "execute",
        ),
    ],
)
def test_round111_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_ptxas_naming_an_architecture_under_tritons_wrapper_stays_a_dispatch(
    tmp_path: Path,
) -> None:
    """Under the same wrapper, ptxas naming a target it does not know is still no kernel for it."""
    classify_as(
        tmp_path,
        [
            "triton.runtime.errors.PTXASError: PTXAS error: Internal Triton PTX codegen error",
            "`ptxas` stderr:",
            "ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'",
        ],
        "dispatch_failure",
        "compile",
    )


def test_a_paste_indented_whole_still_reads_its_exception(tmp_path: Path) -> None:
    """Keeping a traceback's two spaces when a paste is dedented changes nothing for a traceback
    that ends in its exception."""
    classify_as(
        tmp_path,
        [
            "    Traceback (most recent call last):",
            '      File "/srv/app.py", line 3, in <module>',
            "        main()",
            "    torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
        ],
        "device_oom",
        "unknown",
    )


def test_training_inside_a_sentence_is_no_activity(tmp_path: Path) -> None:
    """Only the word alone on its line is Megatron's start of training."""
    classify_as(
        tmp_path,
        [
            "resuming training ... from iteration 10",
            "RuntimeError: shape '[4, 1024, 16, 64]' is invalid for input of size 1000",
        ],
        "unknown",
        "unknown",
    )


def test_a_toolchain_program_killed_is_still_a_death(tmp_path: Path) -> None:
    """Only a crash of nvcc's tool is its own bug: one killed from outside (the OOM killer's
    signal 9) is a death, as round 20 reads it."""
    classify_as(
        tmp_path,
        ["nvcc error   : 'cicc' died due to signal 9 (Kill signal)"],
        "engine_died",
        "compile",
    )
