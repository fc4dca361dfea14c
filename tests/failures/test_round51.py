"""Mechanisms of the fifty-first round, tuned on the whole corpus.

A named activity of a later stage shown after the last stage marker says the marked stage is
over (llama.cpp's context is made, then Ollama says ``llama runner started``; vLLM's KV cache is
sized, then FlashInfer's autotuner reports its warm-up), unless the traceback's frames say where
it failed; a bare progress bar, which any stage shows, does not. A remote call named for a load
(LM Studio's ``[Endpoint=loadModel]``, a gRPC server's ``Method LoadAdapter``) tells loading.
The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        (  # the context is made, the runner has started: the error is the work's
            [
                "llama_new_context_with_model: graph splits = 2",
                'time=2024-11-17T18:03:24.575Z level=INFO source=server.go:601 msg="llama runner '
                'started in 1.76 seconds"',
                "CUDA error: out of memory",
                "  current device: 0, in function alloc at ggml-cuda.cu:406",
            ],
            "device_oom",
            "execute",
        ),
        (  # without the runner's line, the context's marker still tells
            [
                "llama_new_context_with_model: graph splits = 2",
                "CUDA error: out of memory",
                "  current device: 0, in function alloc at ggml-cuda.cu:406",
            ],
            "device_oom",
            "kv_alloc",
        ),
        (  # the KV cache is sized, then the autotuner times its kernels on dummy inputs
            [
                "INFO 12-01 10:00:00 [gpu_worker.py:298] Available KV cache memory: 20.1 GiB",
                "INFO 12-01 10:00:00 [kv_cache_utils.py:1087] GPU KV cache size: 658,000 tokens",
                "[Autotuner]: Autotuning process starts ...",
                "RuntimeError: bmm_fp8_internal_cublaslt failed: an internal error",
            ],
            "unknown",
            "warmup",
        ),
        (  # a bare progress bar after the capture marker is the capture's own
            [
                "[2025-06-19 15:12:27] Capture cuda graph begin. This can take up to several "
                "minutes. avail mem=2.85 GB",
                "  0%|          | 0/4 [00:00<?, ?it/s]",
                "RuntimeError: CUDA error: an illegal memory access was encountered",
            ],
            "illegal_memory_access",
            "graph_capture",
        ),
        (  # frames say more than an activity after the marker
            [
                "INFO 12-01 10:00:00 [gpu_model_runner.py:1595] Starting to load model m...",
                "INFO 12-01 10:00:09 [default_loader.py:262] Loading weights took 8.95 seconds",
                "Traceback (most recent call last):",
                '  File "/v/vllm/model_executor/model_loader/base_loader.py", line 45, '
                "in load_model",
                "    model = initialize_model(vllm_config=vllm_config)",
                "ValueError: Model architectures ['LlamaModel'] are not supported for now.",
            ],
            "unsupported_config",
            "loading",
        ),
        (
            [
                "[2025-03-02 10:11:12][INFO][LM STUDIO SERVER] Success! HTTP server listening",
                "[2025-03-02 10:11:14][ERROR] [LMSInternal][Client=LM Studio][Endpoint=loadModel] "
                "Error in channel handler: Error: Received load-err",
            ],
            "unknown",
            "loading",
        ),
        (
            [
                "2024-06-10T08:00:00.000Z ERROR lorax_launcher: interceptor.py:41 Method "
                "LoadAdapter encountered an error.",
                "Traceback (most recent call last):",
                '  File "/opt/conda/bin/lorax-server", line 8, in <module>',
                "    sys.exit(app())",
            ],
            "unknown",
            "loading",
        ),
    ],
)
def test_round51_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)
