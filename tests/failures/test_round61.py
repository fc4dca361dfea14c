"""Mechanisms of the sixty-first round, tuned on ``fresh210/`` to ``fresh213/`` and the corpus.

Categories: TensorFlow's ``DNN library is not found`` (``env_mismatch``) and its ``N root
error(s) found`` summary (never no failure); a refusal worded ``only work with``; a Windows
crash handler naming the exception (``Error   : EXCEPTION_ACCESS_VIOLATION``) and a Windows
stack walk through ``abort()`` (``engine_died``); ggml's flash attention finding no block that
fits an SM (``GGML_ASSERT(max_blocks_per_sm > 0)``, ``smem_limit``); a model directory without
any of the files listed (``no file named a, b or c found in directory``); a CLI's input file that
is not there (``unsupported_config``).
Stages: llama.cpp's KV cache lines (``llama_kv_cache_unified:``, ``kv_alloc``); diffusers'
``Loading pipeline components`` and a loader's ``Loading partial weights`` (``loading``); c10d's
older ``connect() timed out`` (``startup``); ComfyUI's ``!!! Exception during processing !!!`` is
its executor speaking for any node, read after what ran before it (a loader's weights).
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
                "Node: 'model/conv1/Conv2D'",
                "2 root error(s) found.",
                "  (0) UNIMPLEMENTED:  DNN library is not found.",
                "         [[{{node model/conv1/Conv2D}}]]",
                "0 successful operations.",
            ],
            "env_mismatch",
            "unknown",
        ),
        (
            [
                "AssertionError: DistributedDataParallel device_ids and output_device arguments "
                "only work with single-device CUDA modules, but got device_ids [1]",
            ],
            "unsupported_config",
            "unknown",
        ),
        (
            [
                "Loading pipeline components...:  83%|████████▎ | 5/6 [00:35<00:07,  7.47s/it]"
                "Error   : EXCEPTION_ACCESS_VIOLATION",
                "Address : 0x00007FFA14226EDB",
                "Module  : torch_cpu.dll",
            ],
            "engine_died",
            "loading",
        ),
        (
            [
                " 25%|██▌       | 1/4 [00:12<00:36, 12.00s/it]",
                "0x00007FFA908B1989, C:\\WINDOWS\\System32\\ucrtbase.dll(0x00007FFA907F0000) + "
                "0xC1989 byte(s), raise() + 0x1D9 byte(s)",
                "0x00007FFA90894AB1, C:\\WINDOWS\\System32\\ucrtbase.dll(0x00007FFA907F0000) + "
                "0xA4AB1 byte(s), abort() + 0x31 byte(s)",
            ],
            "engine_died",
            "execute",
        ),
        (
            [
                "/src/ggml/src/ggml-cuda/fattn-common.cuh:919: GGML_ASSERT(max_blocks_per_sm > 0) "
                "failed",
                "Aborted (core dumped)",
            ],
            "smem_limit",
            "unknown",
        ),
        (
            [
                "Error occurred when executing [Pack] Load Diffusers Pipeline:",
                "",
                "Error no file named pytorch_model.bin, tf_model.h5 or model.ckpt.index found in "
                "directory /models/encoder.",
                "",
                'File "/app/execution.py", line 151, in recursive_execute',
            ],
            "unsupported_config",
            "loading",
        ),
        (
            ["Stderr: error: input file not found 'true'"],
            "unsupported_config",
            "unknown",
        ),
        (
            [
                "llama_kv_cache_unified:    Vulkan1 KV buffer size =     6.25 MiB",
                "ggml_vulkan: Device memory allocation of size 2221155856 failed.",
                "ggml_vulkan: Requested buffer size exceeds device memory allocation limit: "
                "ErrorOutOfDeviceMemory",
                "graph_reserve: failed to allocate compute buffers",
            ],
            "device_oom",
            "kv_alloc",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "/x/torch/distributed/elastic/rendezvous/c10d_rendezvous_backend.py", '
                "line 155, in _create_tcp_store",
                "    store = TCPStore(",
                "RuntimeError: connect() timed out. Original timeout was 60000 ms.",
            ],
            "timeout",
            "startup",
        ),
        (
            [
                "[2025-05-10 19:45:47.960] [info] Loading partial weights from pytorch",
                "!!! Exception during processing !!! CUDA error: out of memory (at src/T.h:393)",
            ],
            "device_oom",
            "loading",
        ),
    ],
)
def test_round61_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_comfyui_processing_words_yield_to_the_frames_after_them(tmp_path: Path) -> None:
    """The traceback printed after ComfyUI's words shows which node's code ran (a loader)."""
    lines = [
        "2024-12-05T05:51:01.414955 - !!! Exception during processing !!! Allocation on device ",
        "2024-12-05T05:51:01.416983 - Traceback (most recent call last):",
        '  File "/srv/app/execution.py", line 159, in process_inputs',
        "    results.append(getattr(obj, func)(**inputs))",
        '  File "/srv/app/nodes.py", line 10, in load_checkpoint',
        "    model = load(path)",
    ]
    failure = classify_as(tmp_path, lines, "device_oom", "loading")
    assert failure.evidence["stage"] == "frame load_checkpoint (traceback after the error)"


def test_comfyui_processing_words_alone_still_tell_execute(tmp_path: Path) -> None:
    """With nothing else before it, ComfyUI's executor still says a node was running."""
    lines = ["!!! Exception during processing !!! CUDA error: out of memory"]
    classify_as(tmp_path, lines, "device_oom", "execute")


@pytest.mark.parametrize(
    ("before", "stage"),
    [
        ([], "execute"),
        (["Loading checkpoint shards:  50%|█████     | 1/2 [00:03<00:03,  3.10s/it]"], "loading"),
    ],
)
def test_a_prompt_reported_executed_after_the_error_tells_execute_only_alone(
    tmp_path: Path, before: list[str], stage: str
) -> None:
    """ComfyUI reports the prompt as executed after a node's exception: the error happened while
    the prompt ran, unless what was shown before the error says more."""
    lines = [
        *before,
        "RuntimeError: CUDA error: no kernel image is available for execution on the device",
        "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
        "",
        "Prompt executed in 7.13 seconds",
    ]
    classify_as(tmp_path, lines, "dispatch_failure", stage)


def test_a_runtime_that_cannot_reach_its_coordination_service_fails_at_startup(
    tmp_path: Path,
) -> None:
    lines = [
        "2025-04-01T10:00:00Z INFO runtime: starting worker",
        "Exception: Failed to connect to etcd server with config ClientOptions { etcd_url: "
        '["http://localhost:2379"] }',
    ]
    classify_as(tmp_path, lines, "unknown", "startup")
