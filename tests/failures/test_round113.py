"""Mechanisms of the hundred-and-thirteenth round, tuned on the read half of the forty-first
batch (SGLang 2025-26, TensorRT-LLM and Torch-TensorRT, ggml runners, Blackwell GPUs).

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # a shortage raised by SGLang's KV cache manager, in words of its own: the pool is full
        (
            [
                "[2026-01-01 10:00:00 TP0] Scheduler hit an exception: Traceback (most recent "
                "call last):",
                '  File "/srv/sglang/srt/managers/scheduler.py", line 10, in get_new_batch_prefill',
                "    req.init_next_round_input(self.tree_cache)",
                '  File "/srv/sglang/srt/mem_cache/hiradix_cache.py", line 20, in match_prefix',
                '    raise RuntimeError("Failed to allocate host indices for the prefix")',
                "RuntimeError: Failed to allocate host indices for the prefix",
            ],
            "kv_cache_oom",
            "execute",
        ),
        # a runtime's lone report that it finds no GPU it can use
        (["No compatible CUDA GPUs found"], "env_mismatch", "startup"),
        (["error: no supported ROCm devices were found"], "env_mismatch", "startup"),
        # SGLang's scheduler setting its memory pools up, the traceback cut below the call
        (
            [
                "[2026-01-01 10:00:00] Scheduler hit an exception: Traceback (most recent call "
                "last):",
                '  File "/srv/sglang/srt/managers/scheduler.py", line 4, in __init__',
                "    self.init_memory_pool_and_cache()",
                '  File "/srv/sglang/srt/managers/sche',
            ],
            "unknown",
            "kv_alloc",
        ),
        # Ollama's server asking its runner to complete a prompt, the runner gone
        (
            ['Error: POST predict: Post "http://127.0.0.1:41000/completion": EOF'],
            "engine_died",
            "execute",
        ),
        # Ollama's scheduler reporting that a model load failed, the runner killed by a signal
        (
            [
                'time=2026-01-01T10:00:00.000Z level=INFO source=sched.go:600 msg="Load failed" '
                'model=/models/blobs/sha256-ab error="llama runner process has terminated: '
                'signal: segmentation fault (core dumped)"'
            ],
            "engine_died",
            "loading",
        ),
        # ComfyUI's executor relaying a node's exception message without its type
        (
            [
                "!!! Exception during processing !!! cannot import name 'fused_op' from "
                "'some_kernels' (/opt/site-packages/some_kernels/__init__.py)"
            ],
            "env_mismatch",
            "startup",
        ),
        # Torch-TensorRT logging TensorRT's builder while it converts a module
        (
            [
                "2026-01-01 10:00:00,000 - torch_tensorrt [TensorRT Conversion Context] - ERROR - "
                "[virtualMemoryBuffer.cpp::resizePhysical::100] Error Code 2: OutOfMemory "
                "(Requested size was 8589934592 bytes.)"
            ],
            "device_oom",
            "compile",
        ),
        # a request over a length the engine was set up with, refused by its executor
        (
            [
                "tensorrt_llm.executor.utils.RequestError: The prompt length (9000) exceeds the "
                "maximum supported length (8192)."
            ],
            "unsupported_config",
            "execute",
        ),
        # TensorRT-LLM's generation session faulting in one decoding step
        (
            [
                "Traceback (most recent call last):",
                '  File "/srv/tensorrt_llm/runtime/generation.py", line 10, in handle_per_step',
                "    self.step_lengths.item()",
                "RuntimeError: CUDA error: an illegal memory access was encountered",
            ],
            "illegal_memory_access",
            "execute",
        ),
    ],
)
def test_round113_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    "lines",
    [
        # ggml's loader probing libraries that are built into the program, then its version
        [
            "load_backend: failed to find ggml_backend_init in /opt/llama/bin/libggml-cuda.so",
            "load_backend: failed to find ggml_backend_init in /opt/llama/bin/libggml-cpu.so",
            "version: 6000 (abcdef12)",
        ],
        # a step a program says it skipped, and why
        [
            "app: GPU direct storage skipped: operation not supported",
            "app: model ready on cuda:0",
        ],
    ],
)
def test_the_new_words_raise_no_false_alarm(tmp_path: Path, lines: list[str]) -> None:
    assert classify_both(tmp_path, lines) is None


def test_a_chained_call_names_no_frame(tmp_path: Path) -> None:
    """A cut frame below ``get_backend().forward(`` is not named ``get_backend``: the frame it
    cut may be either call's, so the stage stays unknown."""
    classify_as(
        tmp_path,
        [
            "Traceback (most recent call last):",
            '  File "/srv/sglang/srt/layers/radix_attention.py", line 9, in forward',
            "    return get_attn_backend().forward(q, k, v, self)",
            '  File "/srv/sglang/srt/layers/attention/flashinfer_b',
        ],
        "unknown",
        "unknown",
    )


def test_a_shortage_of_the_device_stays_the_device_s(tmp_path: Path) -> None:
    """An allocation raised outside a KV cache manager keeps ``device_oom``."""
    classify_as(
        tmp_path,
        [
            "Traceback (most recent call last):",
            '  File "/srv/app/buffers.py", line 9, in grow',
            '    raise RuntimeError("Failed to allocate staging buffer")',
            "RuntimeError: Failed to allocate staging buffer",
        ],
        "device_oom",
        "unknown",
    )


# --- the review of round 113: what the new words must not read ---


def test_an_error_a_skipped_step_caught_is_read(tmp_path: Path) -> None:
    """Only a step skipped for a feature that is not there is routine, not one skipped because
    of an error it caught."""
    classify_as(
        tmp_path,
        [
            "ERROR 05-01 10:00:00 [runner.py:9] CUDA graph capture skipped: CUDA error: an "
            "illegal memory access was encountered"
        ],
        "illegal_memory_access",
        "graph_capture",
    )


def test_a_torch_oom_in_the_cache_package_stays_the_device_s(tmp_path: Path) -> None:
    """torch's own out-of-memory raised while a forward pass writes into the KV pool is a
    temporary tensor that does not fit, not the pool that is full."""
    failure = classify_as(
        tmp_path,
        [
            "Traceback (most recent call last):",
            '  File "/srv/sglang/srt/managers/scheduler.py", line 10, in run_batch',
            "    self.tp_worker.forward_batch_generation(batch)",
            '  File "/srv/sglang/srt/mem_cache/memory_pool.py", line 20, in set_kv_buffer',
            "    cache_k = (cache_k / k_scale).to(self.dtype)",
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a "
            "total capacity of 79.10 GiB of which 1.00 GiB is free.",
        ],
        "device_oom",
        "execute",
    )
    assert failure.evidence["category"].startswith("rule ")


def test_a_model_built_and_moved_still_names_its_class(tmp_path: Path) -> None:
    """``Model(config).to("cuda")`` runs the constructor first: the frame below is its own."""
    classify_as(
        tmp_path,
        [
            "Traceback (most recent call last):",
            '  File "/app/run.py", line 5, in main',
            '    model = LlamaForCausalLM(config).to("cuda")',
            '  File "/app/modeling.py", line 700, in __init__',
            '    self.w = torch.empty(n, device="cuda")',
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
        ],
        "device_oom",
        "loading",
    )


@pytest.mark.parametrize(
    "line",
    [
        "RuntimeError: The allocation exceeds the maximum allowed memory (80 GiB)",
        "RuntimeError: The requested KV cache (20.5 GiB) exceeds the maximum allowed by "
        "available GPU memory",
        "RuntimeError: Requested allocation of 6442450944 bytes exceeds the maximum allowed size "
        "of a single device allocation",
    ],
)
def test_a_limit_of_memory_is_no_refused_setting(tmp_path: Path, line: str) -> None:
    """A maximum of memory exceeded is a shortage, not a refused setting."""
    failure = classify_both(tmp_path, [line])
    assert failure is not None
    assert failure.category != "unsupported_config"
