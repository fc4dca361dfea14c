"""Mechanisms of the thirteenth round (tuned on the whole corpus): the caller's traceback below an
error's advice lines, the same error re-raised with its loop's frames, private helpers named after
a stage, a KV cache being allocated, libraries loaded on first use, and FlashAttention's launch
template refusing a shared-memory size. The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as

CUDA_FAULT = [
    "RuntimeError: CUDA error: an illegal memory access was encountered",
    "CUDA kernel errors might be asynchronously reported at some other API call, so the "
    "stacktrace below might be incorrect.",
    "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
    "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
    "",
    "",
]

#: A scheduler's traceback of the same failure, cut before its exception line.
LOOP_TRACEBACK = [
    "[2026-01-02 10:00:00 TP0] Scheduler hit an exception: Traceback (most recent call last):",
    '  File "/srv/foo/scheduler.py", line 10, in event_loop_normal',
    "    result = self.run_batch(batch)",
    '  File "/srv/foo/scheduler.py", line 20, in run_batch',
    "    out = self.worker.forward_batch_generation(batch)",
]


def test_the_callers_traceback_below_the_advice_tells_the_stage(tmp_path: Path) -> None:
    failure = classify_as(
        tmp_path, [*CUDA_FAULT, *LOOP_TRACEBACK], "illegal_memory_access", "execute"
    )
    assert failure.evidence["stage"].endswith("(traceback after the error)")


def test_a_traceback_far_below_the_error_is_not_its_own(tmp_path: Path) -> None:
    filler = [f"INFO step {i} done" for i in range(12)]
    classify_as(
        tmp_path, [*CUDA_FAULT, *filler, *LOOP_TRACEBACK], "illegal_memory_access", "unknown"
    )


def test_the_same_error_reraised_by_its_loop_tells_the_stage(tmp_path: Path) -> None:
    lines = [
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
        *[f"INFO worker {i} still alive" for i in range(6)],
        "ERROR engine loop failed: Traceback (most recent call last):",
        '  File "/srv/foo/engine.py", line 5, in run_engine_loop',
        "    self.step()",
        '  File "/srv/foo/engine.py", line 9, in step',
        "    raise err",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
    ]
    failure = classify_as(tmp_path, lines, "device_oom", "execute")
    assert "the same error reported again" in failure.evidence["stage"]


@pytest.mark.parametrize(("func", "stage"), [("_warmup", "warmup"), ("__warmup", "warmup")])
def test_a_private_helper_tells_the_stage_of_its_public_name(
    tmp_path: Path, func: str, stage: str
) -> None:
    lines = [
        "Traceback (most recent call last):",
        '  File "/srv/foo/kernels.py", line 3, in run_all',
        f"    {func}(n)",
        f'  File "/srv/foo/kernels.py", line 7, in {func}',
        "    out = torch.empty(n, device='cuda')",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 666.00 MiB.",
    ]
    classify_as(tmp_path, lines, "device_oom", stage)


def test_a_dunder_method_is_no_private_helper(tmp_path: Path) -> None:
    lines = [
        "Traceback (most recent call last):",
        '  File "/srv/foo/thing.py", line 7, in __warmup__',
        "    out = torch.empty(n, device='cuda')",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 666.00 MiB.",
    ]
    classify_as(tmp_path, lines, "device_oom", "unknown")


@pytest.mark.parametrize(
    "line",
    [
        "RuntimeError: Failed to allocate memory for the KV cache",
        "foo_init: error: could not allocate 3 blocks for kv-cache",
    ],
)
def test_allocating_the_kv_cache_is_its_stage(tmp_path: Path, line: str) -> None:
    lines = ["alloc_buffer: allocating 204800.00 MiB on device 0: cudaMalloc failed: out of memory"]
    failure = classify_as(tmp_path, [*lines, line], "device_oom", "kv_alloc")
    assert failure.line == 1


def test_a_library_loaded_on_first_use_is_no_startup_prior(tmp_path: Path) -> None:
    lines = [
        "Could not load library libcudnn_foo.so.8. Error: libcudnn_foo.so.8: cannot open shared "
        "object file: No such file or directory",
        "Aborted (core dumped)",
    ]
    classify_as(tmp_path, lines, "env_mismatch", "unknown")


def test_an_import_that_fails_at_start_keeps_its_prior(tmp_path: Path) -> None:
    lines = [
        "Traceback (most recent call last):",
        '  File "/srv/foo/serve.py", line 1, in <module>',
        "    import foo_ops",
        "ImportError: libfoo.so.12: cannot open shared object file: No such file or directory",
    ]
    classify_as(tmp_path, lines, "env_mismatch", "startup")


def test_an_import_inside_a_layers_forward_is_no_startup(tmp_path: Path) -> None:
    lines = [
        "Traceback (most recent call last):",
        '  File "/srv/foo/model/layers/rotary.py", line 40, in forward_cuda',
        "    from foo_attn.rotary import apply_rotary",
        '  File "/srv/foo_attn/__init__.py", line 3, in <module>',
        "    raise ImportError(",
        "ImportError: foo_attn needs its compiled extension (_foo_C)",
    ]
    classify_as(tmp_path, lines, "env_mismatch", "unknown")


def test_cuda_in_a_forked_process_is_no_environment_mismatch(tmp_path: Path) -> None:
    lines = [
        "RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with "
        "multiprocessing, you must use the 'spawn' start method"
    ]
    # (a forked child refuses CUDA as it sets it up: startup, round 73)
    classify_as(tmp_path, lines, "unknown", "startup")


@pytest.mark.parametrize(
    ("line", "category"),
    [
        (
            "CUDA error (/src/fa/hopper/flash_fwd_launch_template.h:188): invalid argument",
            "smem_limit",
        ),
        (
            "CUDA error (C:/a/fa/hopper\\flash_bwd_launch_template.h:90): invalid argument",
            "smem_limit",
        ),
        ("CUDA error (/src/foo/launch.h:88): invalid argument", "unknown"),
    ],
)
def test_flash_attentions_launch_template_refusing_an_argument_is_shared_memory(
    tmp_path: Path, line: str, category: str
) -> None:
    classify_as(tmp_path, [line], category, "unknown")


def test_a_routers_warmup_span_tells_the_stage(tmp_path: Path) -> None:
    lines = [
        *CUDA_FAULT,
        "2026-01-02T10:00:00.000Z ERROR warmup{max_input_length=128}:warmup: foo_client: "
        "src/lib.rs:34: Server error: CUDA error: an illegal memory access was encountered",
    ]
    classify_as(tmp_path, lines, "illegal_memory_access", "warmup")
