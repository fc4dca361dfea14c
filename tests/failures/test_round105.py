"""Mechanisms of the hundred-and-fifth round, tuned on the read half of the thirty-sixth batch
(vLLM LoRA serving, Rust and C++ engines, TensorFlow, MoE offload to the CPU).

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both

from pytest_blackwell.failures.native_stacks import debugger_frame, demangled

_SITE = "/opt/venv/lib/python3.11/site-packages"
_LIB = "/opt/app/lib"


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # a notebook's traceback pasted from below its header: IPython frames, then cut
        (
            [
                f"File {_SITE}/fastlib/loader.py:120, in Model.from_pretrained(name, dtype)",
                "    118 pass",
                "--> 120 model = build(",
                "    121     name = name,",
                "    122     dt",
            ],
            "unknown",
            "loading",
        ),
        # a native backtrace ends the log under the abort that printed it
        (
            [
                "main: server is listening on 127.0.0.1:8080",
                "/src/ggml/src/ggml-cuda/pad.cu:40:",
                'GGML_ABORT("bad pad: %d", p)',
                "#3 ggml_cuda_op_pad(ggml_backend_cuda_context&, ggml_tensor*)",
                "#4 ggml_cuda_compute_forward(ggml_backend_cuda_context&, ggml_tensor*)",
                "#5 llama_context::graph_compute(ggml_cgraph*, bool)",
                "#6 llama_decode()",
            ],
            "unknown",
            "execute",
        ),
        # a tool killed before the build script that ran it panics over its failure
        (
            [
                "Killed",
                "  thread 'main' panicked at /build/src/lib.rs:80:9:",
                '  nvcc error while executing compiling: "nvcc" "-c" "kernels/gemm.cu"',
            ],
            "engine_died",
            "compile",
        ),
        # (a death printed after the panic is still its doing)
        (
            [
                "thread 'main' panicked at src/main.rs:12:5:",
                "index out of bounds: the len is 3 but the index is 7",
                "Aborted (core dumped)",
            ],
            "unknown",
            "unknown",
        ),
        # a model's configuration file that cannot be opened
        (
            [r"RuntimeError: Error opening C:\models\m\cuda\genai_config.json"],
            "unsupported_config",
            "loading",
        ),
        # TensorRT refusing a layer's input of fewer dimensions, while TF-TRT builds an engine
        (
            [
                "I trt_engine_op.cc:632] Building a new TensorRT engine for TRTEngineOp_0 input "
                "shapes: [[1,64,64]]",
                "E trt_logger.cc:41] DefaultLogger (Unnamed Layer* 2) [Pooling]: at least two "
                "spatial dimensions are required for input",
            ],
            "unsupported_config",
            "compile",
        ),
        # a GPU backend loaded as the program starts, then a crash
        (
            [
                "AMD ROCm GPU support successfully loaded",
                "error: Uncaught SIGSEGV (SEGV_MAPERR) at 0x10 on host pid 12 tid 12",
            ],
            "engine_died",
            "startup",
        ),
        # (a launcher's own step and a function's set-up message say the same)
        (
            [
                "launching server...",
                "error: Uncaught SIGSEGV (SEGV_MAPERR) at 0x10 on host pid 12 tid 12",
            ],
            "engine_died",
            "startup",
        ),
        (
            [
                "init_gpu: initializing gpu module...",
                "app: /src/rt/os.cpp:32: void f(): Assertion `ok' failed.",
            ],
            "unknown",
            "startup",
        ),
        # a checkpoint's tensors read onto the GPU, then the process dies
        (
            [
                "loading blk.0.attn_norm.weight to cuda:0",
                "loading blk.0.ffn_up.weight to cuda:0",
                "Illegal instruction (core dumped)",
            ],
            "engine_died",
            "loading",
        ),
        # Ollama's runner asked to load a model, its weights then not fitting
        (
            [
                "time=2025-01-01T10:00:00.000Z level=INFO source=runner.go:900 msg=load "
                'request="{Operation:alloc BatchSize:512}"',
                "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 9000.00 MiB on device 0: "
                "cudaMalloc failed: out of memory",
            ],
            "device_oom",
            "loading",
        ),
        # gdb's stack of a llama.cpp server sampling a token, above the shell's report
        (
            [
                "#4  0x00007f in llama_sampler_apply(llama_sampler*) () from libllama.so",
                "#5  0x00005e in common_sampler_sample(common_sampler*, int) ()",
                "#6  0x000049 in server_context::update_slots() ()",
                "[Inferior 1 (process 4242) detached]",
                "Aborted (core dumped)",
            ],
            "engine_died",
            "execute",
        ),
        # glibc's backtrace of a context reserving its graph, mangled C++ names
        (
            [
                "/src/ggml/src/ggml.c:900: GGML_ASSERT(t->op == GGML_OP_ADD) failed",
                f"{_LIB}/libggml-base.so(ggml_abort+0x152)[0x7f5f4e61ed32]",
                f"{_LIB}/libggml-cuda.so(+0x181425)[0x7f5f3293b425]",
                f"{_LIB}/libllama.so(_ZN13llama_context13graph_reserveEjjPKvbPm+0x608)[0x7f01]",
                f"{_LIB}/libllama.so(_ZN13llama_contextC2ERK11llama_model+0xb19)[0x7f02]",
            ],
            "unknown",
            "kv_alloc",
        ),
        # a checkpoint read under its files' progress bar
        (
            [
                "Loading checkpoint files:   0%|          | 0/32 [00:00<?, ?it/s]",
                "RuntimeError                              Traceback (most recent call last)",
                f"{_SITE}/offload/runtime.py in from_pretrained_offload(cls, path)",
            ],
            "unknown",
            "loading",
        ),
        # an interactive chat answering its prompt
        (
            [
                "Chat: hello there",
                "Traceback (most recent call last):",
                f'  File "{_SITE}/chatlib/util.py", line 20, in stream_reply',
            ],
            "unknown",
            "execute",
        ),
        # TensorFlow's CUDA runtime failing to initialise
        (
            [
                "E session.cc:100] Failed to create session: Internal: CUDA runtime implicit "
                "initialization on GPU:0 failed. Status: out of memory"
            ],
            "device_oom",
            "startup",
        ),
    ],
)
def test_round105_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_a_stack_shown_for_a_note_is_no_failure(tmp_path: Path) -> None:
    """A compiler's note with the frames it was found from is no cut traceback."""
    lines = [
        "skipping cudagraphs due to cpu device (arg0_1). Found from : ",
        f'   File "{_SITE}/detlib/loss.py", line 262, in __call__',
        "    targets = torch.cat((a, b), 1)",
    ]
    assert classify_both(tmp_path, lines) is None


def test_indented_lines_alone_are_no_stack(tmp_path: Path) -> None:
    """A table's indented rows end many healthy logs: no frame among them, no failure."""
    lines = ["Benchmark results:", "    batch 1: 20 tok/s", "    batch 8: 120 tok/s"]
    assert classify_both(tmp_path, lines) is None


def test_a_c_plus_plus_scope_in_a_frame_is_no_log_prefix(tmp_path: Path) -> None:
    """``llama_context::decode`` in a backtrace is no ``llama_context:`` record (kv_alloc)."""
    classify_as(
        tmp_path,
        [
            "/src/ggml/src/ggml-cuda/mmq.cu:90: CUDA error",
            "#3 llama_context::graph_compute(ggml_cgraph*, bool)",
            "#4 llama_context::decode(llama_batch const&)",
        ],
        "unknown",
        "execute",
    )


@pytest.mark.parametrize(
    ("mangled", "name"),
    [
        ("_ZN13llama_context13graph_reserveEjj", "graph_reserve"),
        ("_ZN13llama_contextC2ERK11llama_model", "llama_context"),
        ("_Z20ggml_print_backtracev", "ggml_print_backtrace"),
        ("ggml_abort", "ggml_abort"),
    ],
)
def test_mangled_names_are_read_by_their_innermost_part(mangled: str, name: str) -> None:
    assert demangled(mangled) == name


def test_glibc_frames_with_and_without_a_name() -> None:
    assert debugger_frame("/x/libllama.so(llama_decode+0x20)[0x7f00]") == (
        "/x/libllama.so",
        "llama_decode",
    )
    assert debugger_frame("/x/libggml-cuda.so(+0x181425)[0x7f00]") == ("/x/libggml-cuda.so", "")
    assert debugger_frame("see the manual (section 2)") is None
