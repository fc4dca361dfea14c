"""Mechanisms of the twenty-fourth round (tuned on fresh64-fresh67): allocators' own words
(RAPIDS, llama.cpp's compute buffers, an uncaught bad_alloc, TensorFlow's exception), cut or
numbered kernel faults, what a line says a program was loading, launching or registering, the
nodes of a ComfyUI error report, Keras' epochs, TensorRT-LLM's paged KV cache and a rule's own
shape as a start-up prior. The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # the library that cannot be opened is named below a panic's header: still an import
        # or a library load, so start-up
        (
            [
                "thread 'main' panicked at src/main.rs:6:8:",
                "called `Result::unwrap()` on an `Err` value: Failed to load library "
                "libprovider.so with error: libcublasLt.so.12: cannot open shared object file",
            ],
            "env_mismatch",
            "startup",
        ),
        # llama.cpp's compute buffers, while the context is made
        (
            ["Failed to initialize the context: failed to allocate compute pp buffers"],
            "device_oom",
            "kv_alloc",
        ),
        # allocators' own words
        (
            ["MemoryError: std::bad_alloc: out_of_memory: CUDA error at: /x/memory_resource.hpp"],
            "device_oom",
            "unknown",
        ),
        (
            ["terminate called after throwing an instance of 'paddle::memory::BadAlloc'"],
            "device_oom",
            "unknown",
        ),
        # Keras' epoch header before TensorFlow's allocation exception
        (
            ["Epoch 1/1", "tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM"],
            "device_oom",
            "execute",
        ),
        # the runtime's message cut at the end of a pasted line; CUDA's number for it
        (["RuntimeError: CUDA error: an illegal memory"], "illegal_memory_access", "unknown"),
        (
            ["PhysX Internal CUDA error. Simulation can not continue! Error code 700!"],
            "illegal_memory_access",
            "unknown",
        ),
        # a destructor's report in Cython's words
        (
            [
                "Exception ignored in: 'cupy.cuda.function.Module.__dealloc__'",
                "Traceback (most recent call last):",
                '  File "driver.pyx", line 217, in cupy_backends.cuda.api.driver.moduleUnload',
                "cupy_backends.cuda.api.driver.CUDADriverError: CUDA_ERROR_ILLEGAL_ADDRESS: an "
                "illegal memory access was encountered",
            ],
            "illegal_memory_access",
            "shutdown",
        ),
        # the driver loading (JIT-compiling) a module
        (
            ["Error loading CUDA module: CUDA_ERROR_UNSUPPORTED_PTX_VERSION (222)"],
            "env_mismatch",
            "compile",
        ),
        # what a message says was being loaded
        (
            [
                'While copying the parameter named "blocks.6.weight", an exception occurred: '
                "('CUDA error: no kernel image is available for execution on the device',)."
            ],
            "dispatch_failure",
            "loading",
        ),
        (
            ["safetensors_rust.SafetensorError: Error while deserializing header: HeaderTooLarge"],
            "unsupported_config",
            "loading",
        ),
        (
            ["OSError: Can't load tokenizer for 'bert-base-uncased'. If you were trying to load"],
            "unsupported_config",
            "loading",
        ),
        (
            ["RuntimeError: Failed to launch model, detail: [address=0.0.0.0:1, pid=2] 'x'"],
            "unknown",
            "loading",
        ),
        # XLA loading a cuDNN older than its build, a JAX process registering with its peers
        (
            [
                "2023-03-28 20:24:31.407336: E external/xla/cuda_dnn.cc:417] Loaded runtime CuDNN "
                "library: 8.5.0 but source was compiled with: 8.6.0."
            ],
            "env_mismatch",
            "unknown",
        ),
        (
            [
                "GRPC error while calling /tensorflow.CoordinationService/RegisterTask:",
                "E0412 23:39:41.656900 1 client.cc:96] Coordination service agent in error "
                "status: DEADLINE_EXCEEDED: Deadline Exceeded",
            ],
            "timeout",
            "startup",
        ),
        # a ComfyUI error report's node: a sampler runs the workflow, a loader loads weights
        (
            [
                "## Error Details",
                "- **Node Type:** WanVideoSampler",
                "- **Exception Type:** torch.OutOfMemoryError",
            ],
            "device_oom",
            "execute",
        ),
        (
            [
                "## Error Details",
                "- **Node Type:** CheckpointLoaderSimple",
                "- **Exception Type:** torch.OutOfMemoryError",
            ],
            "device_oom",
            "loading",
        ),
        # TensorRT-LLM sizing its paged KV cache; torch's CUDA graph waiting for NCCL
        (
            [
                "[TensorRT-LLM][INFO] Max tokens in paged KV cache: 128000. Allocating 8 GiB",
                "20240806 09:33:16 ERROR Unhandled exception, what(): Assertion failed: maxTo",
            ],
            "unknown",
            "kv_alloc",
        ),
        (
            [
                "Waiting for pending NCCL work to finish before starting graph capture.",
                "terminate called after throwing an instance of 'NCCL Error 5: invalid usage'",
            ],
            "nccl_error",
            "graph_capture",
        ),
        # llama.cpp's warm-up after its context lines
        (
            [
                "llama_context: CUDA0 compute buffer size = 300.00 MiB",
                "common_init_from_params: warming up the model with an empty run - please wait",
                "CUDA error: an illegal memory access was encountered",
            ],
            "illegal_memory_access",
            "warmup",
        ),
    ],
)
def test_round24_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_a_shape_rule_is_no_prior_for_a_library_loaded_on_first_use(tmp_path: Path) -> None:
    lines = [
        "Traceback (most recent call last):",
        '  File "/x/model/layers/attention.py", line 9, in forward',
        "    import flash_attn_2_cuda",
        "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory",
    ]
    # a kernel package imported by a layer's forward is loaded when the model first runs
    classify_as(tmp_path, lines, "env_mismatch", "unknown")


def test_an_activity_anchored_at_a_line_start_is_read_after_a_stripped_prefix(
    tmp_path: Path,
) -> None:
    # ComfyUI's "got prompt" under a timestamp, then an error: the clean line is read too
    lines = ["2024-05-11 14:10:52.224 got prompt", "RuntimeError: CUDA error: out of memory"]
    classify_as(tmp_path, lines, "device_oom", "execute")


def test_the_quick_scan_rereads_when_a_wrapper_follows_its_cause(tmp_path: Path) -> None:
    # the cause is found among the last lines; the thread's wrapper and its cut traceback right
    # after it hold only keywords the quick pass leaves out: the file is read again, so both
    # reads give the same evidence
    lines = [
        "/x/sampling.py:70: UserWarning: HIP warning: an illegal memory access was encountered",
        "  sigma_up = min(sigma_to, eta)",
        " 47%|#########           | 14/30 [00:10<00:11,  1.40it/s]",
        "Exception in thread Thread-3 (prompt_worker):",
        "Traceback (most recent call last):",
        '  File "/x/execution.py", line 496, in execute',
        "    output_data = await get_output_data(prompt_id, unique_id)",
    ]
    classify_as(tmp_path, lines, "illegal_memory_access", "execute")
