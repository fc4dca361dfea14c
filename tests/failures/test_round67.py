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
from classify_helpers import classify_as, classify_both


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


@pytest.mark.parametrize(
    "lines",
    [
        ["Checkpoint Failure: none", "step 10 done"],
        ["Last Failure: n/a"],
        ["gemm check: cuBLAS error = 3.1e-06 (max abs diff)", "PASSED"],
        ["start", "Unable to load libtcmalloc.so.4, continuing with default allocator", "ready"],
        ["start", "Note: the --legacy-cache flag is no longer supported."],
        [
            "ggml_vulkan: Failed to allocate pinned memory.",
            "ggml_vulkan: Requested buffer size exceeds device memory allocation limit: "
            "ErrorOutOfDeviceMemory",
            "llama_kv_cache_init:        CPU KV buffer size =  3979.63 MiB",
            "generate: n_ctx = 4096",
        ],
    ],
)
def test_status_fields_figures_and_notices_are_no_failure(tmp_path: Path, lines: list[str]) -> None:
    """A field that says there was no failure, a difference an accuracy check prints, a program
    that goes on without a library, a note about an option, host memory that could not be
    pinned (its detail on the next line): none is a failure."""
    assert classify_both(tmp_path, lines) is None


@pytest.mark.parametrize(
    ("lines", "stage"),
    [
        (  # a tombstone's frame as Android prints it: address, library, function and offset
            [
                "signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0",
                "#00 pc 00000000000a1b2c  /data/app/x/lib/arm64/libggml.so (ggml_abort+40)",
                "#01 pc 00000000001c3a5c  /data/app/x/lib/arm64/libllama.so "
                "(llama_init_from_model+832) (BuildId: 1a2b)",
            ],
            "kv_alloc",
        ),
        (  # lldb's stop location first, then the whole backtrace: a new "#0" starts it
            [
                "/src/ggml/ggml-backend.cpp:1552: GGML_ASSERT(!sched->is_alloc) failed",
                "    frame #0: 0x000000018a651204 libsystem_kernel.dylib`__wait4 + 8",
                "->  0x18a651204 <+8>:  b.lo   0x18a651224",
                "(lldb) bt",
                "  * frame #0: 0x000000018a651204 libsystem_kernel.dylib`__wait4 + 8",
                "    frame #1: 0x0000000104f3546c libggml-base.dylib`ggml_abort + 156",
                "    frame #2: 0x0000000104b3c70c libwhisper.dylib`whisper_full + 92",
            ],
            "execute",
        ),
        (  # an adapter read under llama.cpp's common set-up is no warm-up
            [
                "Segmentation fault (core dumped)",
                "#0  0x00005555559a0af2 in ggml_nbytes ()",
                "#1  0x00005555555eb689 in llama_adapter_lora_init(llama_model*, char const*) ()",
                "#2  0x00005555556bf935 in common_init_from_params(common_params&) ()",
            ],
            "loading",
        ),
        (  # the error's own words say more than a backtrace printed after it
            [
                "Error: failed to load model weights from disk",
                "#3  0x00007f00ac0b1a8f in init_cuda () from /opt/lib/libx.so",
            ],
            "loading",
        ),
    ],
)
def test_native_backtraces(tmp_path: Path, lines: list[str], stage: str) -> None:
    failure = classify_both(tmp_path, lines)
    assert failure is not None
    assert failure.stage == stage, failure


def test_android_header_alone_is_the_error(tmp_path: Path) -> None:
    """An excerpt that ends at the header keeps the header as its error."""
    failure = classify_both(tmp_path, ["I/app: started", "FATAL EXCEPTION: main"])
    assert failure is not None
    assert failure.first_error == "FATAL EXCEPTION: main"


def test_a_comment_after_an_assertion_is_not_its_message(tmp_path: Path) -> None:
    lines = [
        "Traceback (most recent call last):",
        '  File "model.py", line 12, in check',
        "    assert not out.isnan().any()  # head_dim not supported yet",
        "AssertionError",
    ]
    failure = classify_as(tmp_path, lines, "unknown", "unknown")
    assert failure.evidence["category"] == "rule exception"


def test_a_stream_label_after_the_time_is_the_platforms(tmp_path: Path) -> None:
    """A platform's export that names the stream (and its level) before each line: the
    traceback under it is read as one."""
    lines = [
        "2025-06-11 11:01:08\tstdout Traceback (most recent call last):",
        '2025-06-11 11:01:08\tstdout  File "/app/pipeline.py", line 58, in __call__',
        "2025-06-11 11:01:08\tstdout    wav = self.model.generate(text=text)",
        '2025-06-11 11:01:08\tstdout  File "/app/tts.py", line 205, in generate',
        "2025-06-11 11:01:08\tstdout    if x != self.conds[0, 0]:",
        "2025-06-11 11:01:08    error stdout RuntimeError: CUDA error: device-side assert "
        "triggered",
    ]
    failure = classify_as(tmp_path, lines, "illegal_memory_access", "execute")
    assert failure.evidence["stage"] == "frame generate"


def test_a_notebook_cells_frame_is_a_frame(tmp_path: Path) -> None:
    """IPython's frame of a cell (Databricks names it by its command) keeps the traceback open:
    the library frame below it tells the stage."""
    lines = [
        "AssertionError                            Traceback (most recent call last)",
        "File <command-2469377940857761>, line 10",
        '      3 llm = LLM("org/model-7b", tensor_parallel_size=4)',
        "      5 params = SamplingParams(",
        "      6     temperature=0.1,",
        "      7     top_p=0.95,",
        "      8     max_tokens=400",
        "      9 )",
        "---> 10 output = llm.generate(prompts, sampling_params=params)",
        "",
        "File /local_disk0/.ephemeral_nfs/envs/pythonEnv-0123/lib/python3.10/site-packages/"
        "vllm/entrypoints/llm.py:157, in LLM.generate(self, prompts, sampling_params, "
        "prompt_token_ids, use_tqdm)",
        "    155         token_ids = prompt_token_ids[i]",
        "    156     self._add_request(prompt, sampling_params, token_ids)",
        "--> 157 return self._run_engine(use_tqdm)",
    ]
    failure = classify_both(tmp_path, lines)
    assert failure is not None
    assert failure.stage == "execute", failure
