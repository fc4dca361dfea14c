"""Mechanisms of the forty-first round (tuned on fresh134-fresh137): IPython 8's frames (also as
JupyterLab links), a value checked against a listed set, TensorRT's SM-version assertion, a
CTranslate2 model directory without its file, a web UI's report of a failed API request, a C
program's own assert() before the abort it causes, TensorRT's weights outside the fp16 range,
llama.cpp's main starting to generate; activity lines: TensorRT-LLM reading its engine, the
latent-diffusion code building a checkpoint's model, llama.cpp's perplexity tool, a speech
recogniser's transcript and OpenMMLab's runner starting its training workflow.
The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both

SITE = "~/env/lib/python3.11/site-packages/vllm/worker"


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        (
            [
                f"File {SITE}/cache_engine.py:64, in CacheEngine._allocate_kv_cache(self, n, d)",
                "     63 for _ in range(self.num_layers):",
                "---> 64     kv_cache.append(torch.empty(shape, device=device))",
                "",
                "OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB.",
            ],
            "kv_cache_oom",
            "kv_alloc",
        ),
        (
            [
                f"File [{SITE}/model_runner.py:900](http://localhost:8888/lab/tree/model_runner.py"
                "#line=899), in ModelRunner.load_model(self)",
                "--> 900 self.model = get_model(self.model_config)",
                "",
                "RuntimeError: CUDA error: no kernel image is available for execution on the "
                "device",
            ],
            "dispatch_failure",
            "loading",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "/srv/convert.py", line 10, in main',
                "    assert fmt in FORMATS",
                "AssertionError: the model format should be in ['hf', 'awq', None]",
            ],
            "unsupported_config",
            "unknown",
        ),
        (
            [
                "[E] [TRT] 2: [helpers.h::nvinfer1::smVerHex2Dig::694] Error Code 2: Internal "
                "Error (Assertion major >= 0 && major < 10 failed. )"
            ],
            "dispatch_failure",
            "unknown",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "/srv/app.py", line 5, in load',
                "    model = WhisperModel(path)",
                "RuntimeError: Unable to open file 'model.bin' in model '/models/whisper-small'",
            ],
            "unsupported_config",
            "loading",
        ),
        (
            [
                "*** API error: POST: http://127.0.0.1:7860/sdapi/v1/txt2img {'error': "
                "'RuntimeError', 'errors': 'CUDA error: an illegal memory access was encountered'}"
            ],
            "illegal_memory_access",
            "execute",
        ),
        (
            [
                "[W] [TRT] CUDA initialization failure with error: 35.",
                "infer: /src/model.cpp:32: void Model::build(): Assertion `builder != nullptr' "
                "failed.",
                "Aborted (core dumped)",
            ],
            "unknown",
            "unknown",
        ),
        (
            [
                "Building engine, please wait for a while...",
                "[E] [TRT] ../builder/cudnnBuilderWeightConverters.cpp (555) - Misc Error in "
                "operator(): 1 (Weights are outside of fp16 range. A possible fix is to retrain)",
                "app: /src/app.cpp:94: void build(): Assertion `engine != nullptr' failed.",
                "Aborted (core dumped)",
            ],
            "unsupported_config",
            "compile",
        ),
        (
            [
                "llama_new_context_with_model: n_ctx      = 4096",
                "generate: n_ctx = 4096, n_batch = 512, n_predict = -1, n_keep = 0",
                "cuBLAS error 15 at ggml-cuda.cu:7956: the requested functionality is not "
                "supported",
            ],
            "dispatch_failure",
            "execute",
        ),
        (
            [
                "[TensorRT-LLM][INFO] Loaded engine size: 68370 MiB",
                "[TensorRT-LLM][ERROR] [defaultAllocator.cpp::allocate::31] Error Code 1: Cuda "
                "Runtime (out of memory)",
            ],
            "device_oom",
            "loading",
        ),
        (
            [
                "LatentDiffusion: Running in eps-prediction mode",
                "DiffusionWrapper has 859.52 M params.",
                "Working with z of shape (1, 4, 32, 32) = 4096 dimensions.",
                "Killed",
            ],
            "engine_died",
            "loading",
        ),
        (
            [
                "perplexity: calculating perplexity over 565 chunks, n_ctx=512, batch_size=2048",
                "CUDA error: out of memory",
            ],
            "device_oom",
            "execute",
        ),
        (
            [
                "[00:06:04.000 --> 00:06:11.000]   Guten Tag.",
                "whisper_full_with_state: failed to decode",
            ],
            "unknown",
            "execute",
        ),
        (
            [
                "2022-10-23 14:27:35,879 - INFO - Start running, host: root@host, work_dir: /w",
                "2022-10-23 14:27:35,880 - INFO - workflow: [('train', 1)], max: 20 epochs",
                "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -11) "
                "local_rank: 0 (pid: 4) of binary: /usr/bin/python",
            ],
            "engine_died",
            "execute",
        ),
    ],
)
def test_round41_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_a_python_file_named_in_prose_is_no_frame(tmp_path: Path) -> None:
    # (only "path.py:N, in f(" is IPython's frame; a sentence naming a file tells no stage)
    lines = [
        "see model_runner.py in load_model(...) for the details",
        "RuntimeError: CUDA error: an illegal memory access was encountered",
    ]
    failure = classify_both(tmp_path, lines)
    assert failure is not None
    assert (failure.category, failure.stage) == ("illegal_memory_access", "unknown"), failure


def test_should_be_without_a_list_is_no_refusal(tmp_path: Path) -> None:
    failure = classify_both(tmp_path, ["AssertionError: tensors should be in the same device"])
    assert failure is not None
    assert failure.category == "unknown", failure


@pytest.mark.parametrize(
    ("line", "stage"),
    [
        (
            "thread 'tokio-runtime-worker' panicked at src/worker.rs:247:17: Failed to import "
            "python 'vllm' module. Are we running in the correct venv?",
            "startup",
        ),
        (
            "E0101 10:00:00.000 1 model_lifecycle.cc:1] failed to stat file "
            "/opt/tritonserver/backends/python",
            "unknown",
        ),
        ('12:00:01 ERROR Backend not found backend="llama-cpp"', "unknown"),
        ("RuntimeError: UVA is not available", "unknown"),
    ],
)
def test_a_missing_part_of_the_installation(tmp_path: Path, line: str, stage: str) -> None:
    classify_as(tmp_path, [line], "env_mismatch", stage)


def test_a_missing_model_file_is_no_missing_backend(tmp_path: Path) -> None:
    line = "E0101 model_repository_manager.cc:1] failed to stat file /models/m/1/model.onnx"
    failure = classify_both(tmp_path, [line])
    assert failure is not None
    assert failure.category != "env_mismatch", failure


def test_a_tensor_missing_from_the_model_file_is_found_while_loading(tmp_path: Path) -> None:
    names = ("shared.weight", "final_layer_norm.weight", "block.9.layer.1.DenseReluDense.wo.weight")
    lines = [f"model.cpp:1729 - tensor 'text_encoders.t5xxl.{n}' not in model file" for n in names]
    lines.append("stable-diffusion.cpp:420  - load tensors from model loader failed")
    classify_as(tmp_path, lines, "unsupported_config", "loading")


def test_a_backend_not_found_at_a_warning_level_is_no_failure(tmp_path: Path) -> None:
    lines = [
        "WARNING 03-10 15:07:09 [x.py:1] TensorRT backend not found, falling back to CUDA",
        "INFO 03-10 15:07:10 [x.py:2] Application startup complete.",
    ]
    assert classify_both(tmp_path, lines) is None
