"""Mechanisms of the sixty-fourth round, tuned on ``fresh218/`` to ``fresh225/``.

Formats: Rockchip's runtimes' ``E RKNN: ...`` (a level letter before the logger's tag); an ONNX
Runtime record cut before its bracket closes keeps its level (an error, never silence); a
markdown section title of a report (``## Recent failed boot attempts``) is no error.
Categories: the exception a wrapper names (Ray's ``RayTaskError(AssertionError)``) is read from
its own line at the end of the remote traceback; Vulkan's lost device (``vk::DeviceLostError``)
is a lost GPU (``unknown``), not the abort it causes; a model file with another format's magic
(``invalid rknn llm model magic``), a checkpoint file not found (``No such file or directory:
'x.safetensors'``), an invalid tag or tensor name, a value over a setting's limit (``should not
exceed max_num_tokens``), Click's ``No such command`` and ONNX Runtime refusing graph capture
for a model (``unsupported_config``); cuDNN's frontend with no plan for the graph
(``dispatch_failure``); a heartbeat that timed out (``timeout``); a Windows crash status shown
in hex beside a sign-less exit code (``engine_died``); a GPU kernel's source refusing a case
(``prefill.cuh:2215: Unsupported max_mma_kv``) and a model that requires FlashAttention
(``dispatch_failure``); MLC's ``Cannot estimate KV cache capacity`` and a device allocation
while the log says the KV caches are allocated (``kv_cache_oom``); an op of the ``c10d``
namespace (``c10d.broadcast_.default``) is no collective failure; a console script's ``from x
import main``, shown as a rich traceback's context, is no import at start-up.
Stages: a ggml backend's device set-up (``ggml_metal_init``), a program's own ``Initialization
failed.`` and a function named for reading its arguments (``get_train_args``) (``startup``); an
adapter's weights read (``Loading LoRA``, ``loading``); a GPU program built at run time
(``OpenCL build error``, ``compile``); KV caches being allocated (``kv_alloc``); the traceback
of the same error raised again right after it, a camelCase frame read by its words
(``trainBatch``), an input counted as processed, a training announced with its iterations,
Lightning's progress bar, ONNX Runtime's executor (``execute``); a gRPC status ``UNAVAILABLE:``
inside a message is no Triton model table.
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
                "ray.exceptions.RayTaskError(AssertionError): ray::RayWorker.execute_method() "
                "(pid=4242, ip=10.0.0.2)",
                '  File "/opt/vllm/model_executor/weight_utils.py", line 105, in '
                "load_tensor_parallel_weights",
                "    assert param.shape == loaded_weight.shape",
                "",
                "AssertionError: lm_head.weight shape mismatch between model and checkpoint",
            ],
            "unsupported_config",
            "loading",
        ),
        (
            [
                "ggml_metal_init: allocating",
                "ggml_metal_init: loading '(null)'",
                'ggml_metal_init: error: Error Domain=NSCocoaErrorDomain Code=260 "missing"',
            ],
            "env_mismatch",  # (round 69: the Metal backend failing to set up, as labels read it)
            "startup",
        ),
        (
            [
                "Abort message: 'terminating due to uncaught exception of type "
                "vk::DeviceLostError: vk::Queue::submit: ErrorDeviceLost'",
                "#00 pc 000000000007160c  /apex/com.android.runtime/lib64/bionic/libc.so "
                "(abort+160)",
            ],
            "unknown",
            "unknown",
        ),
        (
            [
                "I rkllm: rkllm-runtime version: 1.2.0",
                "E RKNN: [10:11:12.131] invalid rknn llm model magic",
                "E RKNN: [10:11:12.131] load model file error!",
            ],
            "unsupported_config",
            "loading",
        ),
        (
            [
                "THCudaCheck FAIL file=/tmp/THC/generic/THCStorage.cu line=66 error=2 : out of "
                "memory",
                "Traceback (most recent call last):",
                '  File "main.py", line 40, in <module>',
                "    loss = runBatch(model, batch)",
                '  File "main.py", line 22, in trainBatch',
                "    loss.backward()",
                "RuntimeError: cuda runtime error (2) : out of memory at THCStorage.cu:66",
            ],
            "device_oom",
            "execute",
        ),
        (
            [
                "Processed image 12.jpg (3 / 500) of split 0",
                "THCudaCheck FAIL file=/tmp/THC/THCTensorSort.cu line=153 error=7 : too many "
                "resources requested for launch",
            ],
            "smem_limit",
            "execute",
        ),
        (
            ["Usage: tune [OPTIONS] COMMAND", "Error: No such command 'ran'."],
            "unsupported_config",
            "startup",
        ),
        (
            [
                "RuntimeError: cuDNN Frontend error: [cudnn_frontend] Error: No execution plans "
                "support the graph.",
            ],
            "dispatch_failure",
            "unknown",
        ),
        (
            [
                "Loading LoRA: styles/ink-wash with strength: 0.8",
                "!!! Exception during processing !!! 'NoneType' object has no attribute 'strip'",
            ],
            "unknown",
            "loading",
        ),
        (
            [
                "RuntimeError: Initialization failed. router_init_state: Traceback (most recent "
                "call last):"
            ],
            "unknown",
            "startup",
        ),
        (
            [
                "Failed to process the request(s) for model 'chat', message: ValueError: The "
                "prompt length (9000) should not exceed max_num_tokens (8192)",
            ],
            "unsupported_config",
            "execute",
        ),
        (
            [
                "OpenCL build error for device=0x7f00aa10",
                "    Error: CL_OUT_OF_HOST_MEMORY",
            ],
            "device_oom",
            "compile",
        ),
        (
            [
                "2024-08-28 12:12:57.6011809 [E:onnxruntime:genai, sequential_executor.cc:516 "
                "onnxruntime::Exe",
            ],
            "unknown",
            "execute",
        ),
        (
            [
                "E coordination_service.cc:954] /job:worker/replica:0/task:3 has been set to "
                "ERROR in coordination service: UNAVAILABLE: Task /job:worker/replica:0/task:3 "
                "heartbeat timeout. The remote task has failed or crashed.",
            ],
            "timeout",
            "unknown",
        ),
        (
            ["Error: [Errno 2] No such file or directory: 'flux-dev-fp8.safetensors'"],
            "unsupported_config",
            "unknown",
        ),
        (
            ["Transcribing chunk 3", "Exit code: 1073741819 (0xC0000005) - Access violation"],
            "engine_died",
            "unknown",
        ),
        (
            [
                "Starting training..., iters: 1000",
                "libc++abi: terminating due to uncaught exception of type std::runtime_error: "
                "[METAL] Command buffer execution failed: Internal Error",
            ],
            "unknown",
            "execute",
        ),
        (
            [
                "onnxruntime.capi.onnxruntime_pybind11_state.Fail: [ONNXRuntimeError] : 1 : FAIL "
                ": This session cannot use the graph capture feature as requested by the user as "
                "the model has control flow nodes",
            ],
            "unsupported_config",
            "unknown",
        ),
        (
            ["Error: [model-cli] `serve` failed: Invalid Tag svc:latest"],
            "unsupported_config",
            "unknown",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "/env/lib/python3.10/site-packages/pytorch_lightning/callbacks/progress/'
                'base.py", line 274, in get_standard_metrics',
                "    avg_training_loss = running_train_loss.cpu().item()",
                "RuntimeError: CUDA error: an illegal memory access was encountered",
            ],
            "illegal_memory_access",
            "execute",
        ),
        (
            [
                "RuntimeError: Error in function 'PrefillDispatched' at /opt/flashinfer/include/"
                "attention/prefill.cuh:2215: Unsupported max_mma_kv: 0",
            ],
            "dispatch_failure",
            "unknown",
        ),
        (
            ["NotImplementedError: Sharded Falcon requires Flash Attention enabled models."],
            "dispatch_failure",
            "unknown",
        ),
        (
            [
                "Allocating kv caches for each layer:  40%|####      | 8/20 [00:01<00:01]",
                "Out of Memory: Not enough space to allocate 71999488 B DRAM buffer across 12 "
                "banks",
            ],
            "kv_cache_oom",
            "kv_alloc",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "/opt/trainer/tuner.py", line 40, in run_exp',
                "    args = get_train_args(args)",
                '  File "/opt/trainer/parser.py", line 90, in get_train_args',
                "    raise ValueError('Please launch distributed training with torchrun.')",
                "ValueError: Please launch distributed training with torchrun.",
            ],
            "unsupported_config",
            "startup",
        ),
        (
            [
                "AssertionError: Cannot estimate KV cache capacity. The model weight size "
                "11219714048.0 may be larger than GPU memory size 11811160064",
            ],
            "kv_cache_oom",
            "kv_alloc",
        ),
        (
            [
                "Loading checkpoint shards: 100%|##########| 61/61 [05:45<00:00,  5.66s/it]",
                " WARNING  Sending process 14 closing signal SIGTERM         api.py:699",
                " ERROR    failed (exitcode: -9) local_rank: 5 (pid: 22) of  api.py:673",
                " binary: /env/bin/python",
                "056444Z ╭──────────── Traceback (most recent call last) ────────────╮",
                "061458Z │ /env/bin/accelerate:8 in <module>                          │",
                "065546Z │   5 from accelerate.commands.accelerate_cli import main    │",
                "086718Z │ ❱ 8 │   sys.exit(main())                                   │",
            ],
            "engine_died",
            "loading",
        ),
    ],
)
def test_round64_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_a_markdown_section_title_is_no_error(tmp_path: Path) -> None:
    lines = [
        "## Recent failed boot attempts",
        "",
        "_docker not available, skipping._",
        "## Benchmark",
        "| prompt | tokens/s |",
        "| short | 95.2 |",
    ]
    assert classify_both(tmp_path, lines) is None


def test_an_error_message_made_a_heading_is_still_read(tmp_path: Path) -> None:
    """A poster's markdown heading holding the error message itself is the error."""
    classify_as(
        tmp_path,
        ["### RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB"],
        "device_oom",
        "unknown",
    )


def test_a_kernels_own_initialisation_is_no_program_start(tmp_path: Path) -> None:
    """``Initialization failed:`` with the kernel's reason after it is the kernel's set-up."""
    classify_as(
        tmp_path,
        [
            "RuntimeError: Initialization failed: Failed to set the allowed dynamic shared "
            "memory size to 331776 with error: invalid argument",
        ],
        "smem_limit",
        "unknown",
    )


def test_a_grpc_status_inside_a_message_is_no_model_table(tmp_path: Path) -> None:
    """``UNAVAILABLE:`` after other words is a gRPC status, not Triton's model table cell."""
    failure = classify_as(
        tmp_path,
        ["RuntimeError: rpc failed: UNAVAILABLE: Connection reset by peer"],
        "engine_died",
        "unknown",
    )
    assert "UNAVAILABLE" not in failure.evidence["stage"]


def test_an_op_of_the_c10d_namespace_is_no_collective_failure(tmp_path: Path) -> None:
    """A tensor subclass naming the c10d op it dispatches is no NCCL or c10d failure."""
    classify_as(
        tmp_path,
        ["AssertionError: found no DeviceMesh from dtensor args for c10d.broadcast_.default!"],
        "unknown",
        "unknown",
    )
