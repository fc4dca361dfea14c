"""Mechanisms of the thirty-second round (tuned on fresh94-fresh97): NCCL's error in another
project's case, Ray's dead actor, a context's compute-graph reservation, a model backend that
could not start, an error raised while a file was loaded, whisper.cpp's KV cache, CUDA's number
for forward compatibility, a program's own CUDA driver error words, a wrapper right below the
error line it announces, transformers' checkpoint loading, a training loop's named losses, cupy's
module unload, PaddlePaddle's distributed start, Windows' missing module and an error status
read for its words. The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        (
            ["ExternalError:  Nccl error, unhandled cuda error  (at collective_helper.cc:83)"],
            "nccl_error",
            "unknown",
        ),
        (
            ["ray.exceptions.RayTaskError(ActorDiedError): ray::Runner.run() (pid=7, ip=10.0.0.1)"],
            "engine_died",
            "unknown",
        ),
        (["graph_reserve: failed to allocate compute buffers"], "device_oom", "kv_alloc"),
        (
            [
                '{"level":"ERROR","message":"Could not start Candle backend: Could not start '
                'backend: cannot find tensor embeddings.weight"}'
            ],
            "unsupported_config",
            "loading",
        ),
        (
            [
                "ValueError: While loading /srv/lora/checkpoint-100, expected target modules in "
                "['q_proj'] but received ['k_proj']."
            ],
            "unsupported_config",
            "loading",
        ),
        (
            [
                "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 560.00 MiB on device 0: "
                "cudaMalloc failed: out of memory",
                "whisper_kv_cache_init: failed to allocate memory for the kv cache",
            ],
            "kv_cache_oom",
            "kv_alloc",
        ),
        (
            [
                "Cuda driver error 804 in call at file 'nvd_device.h' in line 333.",
                "Abort(-1) on node 0 (rank 0 in comm 0):",
            ],
            "env_mismatch",
            "unknown",
        ),
        # an error line right above the wrapper that announces it stays the first error
        (
            [
                "[1754890927.298391] [host:270 :0] ib_md.c:1100 UCX  ERROR mlx5_7: "
                "ibv_modify_qp() failed: No such device",
                "ERROR 01-01 00:00:00 [core.py:1] EngineCore failed to start.",
            ],
            "nccl_error",  # (round 47: UCX's error records are a transport failing)
            "unknown",
        ),
        # a training loop's named losses before the fault
        (
            [
                "INFO:train:loss_disc=3.033, loss_gen=2.489, loss_mel=18.964",
                "terminate called after throwing an instance of 'c10::Error'",
                "  what():  CUDA error: an illegal instruction was encountered",
            ],
            "illegal_memory_access",
            "execute",
        ),
        # Windows' words for a DLL that cannot be loaded (since round 34 the start-up prior of
        # a shared library that cannot be opened, as on Linux)
        (
            [
                "Failed to load LLM engine from path:",
                "C:\\engines\\llm_engine_cuda12.node",
                "The specified module could not be found.",
            ],
            "env_mismatch",
            "startup",
        ),
        # ggml's assertion read for its words
        (
            [
                'GGML_ASSERT: ggml-backend.c:460: data != NULL && "failed to allocate buffer"',
            ],
            "device_oom",
            "unknown",
        ),
    ],
)
def test_round32_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    ("func", "stage"),
    [
        ("_load_state_dict_into_meta_model", "loading"),
        ("init_parallel_env", "startup"),
        ("_wait_until_server_is_live", "startup"),
    ],
)
def test_frames_of_round32(tmp_path: Path, func: str, stage: str) -> None:
    lines = [
        "Traceback (most recent call last):",
        '  File "/srv/app.py", line 1, in main',
        "    run()",
        f'  File "/srv/lib.py", line 2, in {func}',
        "    step()",
        "RuntimeError: something went wrong",
    ]
    classify_as(tmp_path, lines, "unknown", stage)


def test_a_module_unloaded_after_the_fault_is_no_shutdown(tmp_path: Path) -> None:
    """cupy frees a kernel module after an illegal access and meets the same error: its unload
    tells nothing of the stage the fault happened in; an unload that fails first is a
    shutdown."""
    error = "cupy_backends.cuda.api.driver.CUDADriverError: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal"
    frame = (
        '  File "cupy_backends/cuda/api/driver.pyx", line {}, in cupy_backends.cuda.api.driver.{}'
    )
    unload, check = frame.format(234, "moduleUnload"), frame.format(63, "check_status")
    first = ["Traceback (most recent call last):", check, f"{error} memory access was encountered"]
    again = [
        "Traceback (most recent call last):",
        unload,
        check,
        f"{error} memory access was encountered",
    ]
    classify_as(tmp_path, [*first, *again], "illegal_memory_access", "unknown")
    classify_as(tmp_path, again, "illegal_memory_access", "shutdown")
