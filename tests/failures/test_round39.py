"""Mechanisms of the thirty-ninth round (tuned on fresh122-fresh125): a native crash that ctypes
raises as ``OSError`` on Windows, a GGUF file whose hyperparameters or vocabulary llama.cpp cannot
take, a communication backend the engine does not know, a compiled extension that was never
bound, the work an error says it broke (an ASGI application answering a request, an audio
generation), TGI's launcher refusing its arguments and a launcher's own check that torch can use
the GPU. The lines are of our own, in the shapes the tools print.
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
                "Traceback (most recent call last):",
                '  File "C:\\koboldcpp\\koboldcpp.py", line 328, in load_model',
                "    ret = handle.load_model(inputs)",
                "OSError: exception: access violation reading 0x0000000000000000",
            ],
            "engine_died",
            "loading",
        ),
        (
            [
                "llama_model_load: error loading model: error loading model vocabulary: invalid "
                "gguf type for tokenizer.ggml.scores",
            ],
            "unsupported_config",
            "loading",
        ),
        (
            [
                "llama_model_load: error loading model: error loading model hyperparameters: key "
                "not found in model: llama.context_length",
            ],
            "unsupported_config",
            "loading",
        ),
        (
            [
                "[TM][FATAL] comm/device_comm.cc(28): Check failed: 0 Unknown communication "
                "backend: x"
            ],
            "unsupported_config",
            "startup",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "/srv/app/ext.py", line 12, in <module>',
                "    ext_c = exllamav2_ext",
                "NameError: name 'exllamav2_ext' is not defined",
            ],
            "env_mismatch",
            "unknown",  # raised where the extension is used: at start-up or while serving
        ),
        (
            [
                "ERROR:    Exception in ASGI application",
                "Traceback (most recent call last):",
                '  File "/venv/lib/python3.10/site-packages/starlette/middleware/errors.py", line '
                "165, in __call__",
                "    await self.app(scope, receive, _send)",
                "KeyError: 'choices'",
            ],
            "unknown",
            "execute",
        ),
        (
            ["Error during audio generation: CUDA error: device-side assert triggered"],
            "illegal_memory_access",
            "execute",
        ),
        (
            [
                'Error: ArgumentValidation("`max_input_tokens`(9) must be < '
                '`max_total_tokens`(8)")',
            ],
            "unsupported_config",
            "startup",
        ),
        (
            [
                "RuntimeError: Torch is not able to use GPU; add --skip-torch-cuda-test to "
                "COMMANDLINE_ARGS variable to disable this check",
            ],
            "env_mismatch",
            "startup",
        ),
    ],
)
def test_round39_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_a_name_that_is_no_compiled_extension_stays_unknown(tmp_path: Path) -> None:
    failure = classify_both(tmp_path, ["NameError: name 'model' is not defined"])
    assert failure is not None
    assert failure.category == "unknown"


def test_an_access_violation_that_ctypes_did_not_raise_is_no_death(tmp_path: Path) -> None:
    # a program's own words about an address it refused, with no native crash
    failure = classify_both(tmp_path, ["ERROR: access violation check failed for the user token"])
    assert failure is not None
    assert failure.category != "engine_died"


def test_a_generation_mentioned_without_an_error_tells_nothing(tmp_path: Path) -> None:
    lines = [
        "INFO: starting audio generation for 3 prompts",
        "RuntimeError: CUDA error: device-side assert triggered",
    ]
    failure = classify_both(tmp_path, lines)
    assert failure is not None
    assert failure.category == "illegal_memory_access"
    assert failure.stage == "unknown"


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # the web UI's launcher has handed over, no model yet
        (
            [
                "Launching Web UI with arguments: --xformers",
                "Segmentation fault (core dumped)",
            ],
            "engine_died",
            "startup",
        ),
        # Dynamo's advice: the error came out of torch.compile
        (
            [
                "RuntimeError: Found Tesla P40 which is too old to be supported by the triton GPU "
                "compiler, which is used as the backend. Triton only supports devices of CUDA "
                "Capability >= 7.0, but your device is of CUDA capability 6.1",
                "",
                "You can suppress this exception and fall back to eager by setting:",
                "    import torch._dynamo",
                "    torch._dynamo.config.suppress_errors = True",
            ],
            "dispatch_failure",
            "compile",
        ),
        # ComfyUI's model management moving a model's weights onto the GPU
        (
            [
                "Traceback (most recent call last):",
                '  File "/srv/ComfyUI/comfy/model_management.py", line 500, in load_models_gpu',
                "    loaded_model.model_load(lowvram_model_memory)",
                '  File "/srv/ComfyUI/comfy/model_management.py", line 300, in cast_to_device',
                "    return tensor.to(device)",
                "RuntimeError: CUDA error: an illegal memory access was encountered",
            ],
            "illegal_memory_access",
            "loading",
        ),
    ],
)
def test_round39_stage_readings(
    tmp_path: Path, lines: list[str], category: str, stage: str
) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # an extension's op without a kernel for the backend: the extension was built without it
        (
            [
                "NotImplementedError: Could not run '_C::rms_norm' with arguments from the 'CUDA' "
                "backend. This could be because the operator doesn't exist for this backend",
            ],
            "env_mismatch",
            "unknown",
        ),
        # a Rust panic's message on the line after its location
        (
            [
                "thread 'main' panicked at src/main.rs:406:19:",
                'APIError { data: "missing field `vocab_size` at line 46 column 1" }',
                "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
            ],
            "unsupported_config",
            "unknown",
        ),
        # ggml's assertion in its newer wording, then the crash it causes
        (
            [
                "ggml-cpu.c:8456: GGML_ASSERT(i01 >= 0 && i01 < ne01) failed",
                "SIGSEGV: segmentation violation",
                "PC=0x7f27a8e24c47 m=0 sigcode=1 addr=0x206a03fb4",
            ],
            "unknown",
            "unknown",
        ),
        (["cuBLAS API failed with status 15", "error detectected"], "dispatch_failure", "unknown"),
        (
            [
                "/venv/lib/python3.10/site-packages/torch/cuda/__init__.py:83: UserWarning: HIP "
                "initialization: Unexpected error from hipGetDeviceCount(). Did you run some cuda "
                "functions before calling NumHipDevices() that might have already set an error? "
                "Error 101: hipErrorInvalidDevice",
                "Killed",
            ],
            "env_mismatch",
            "startup",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "/srv/train.py", line 40, in <module>',
                "    model.fit(x, y, epochs=3)",
                '  File "/venv/lib/python3.8/site-packages/keras/engine/training.py", line 1184, '
                "in fit",
                "    tmp_logs = self.run_function(iterator)",
                "tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when "
                "allocating tensor with shape[123008,500]",
            ],
            "device_oom",
            "execute",
        ),
        (
            [
                "E   numba.cuda.cudadrv.error.NvvmSupportError: No supported GPU compute "
                "capabilities found. Please check your cudatoolkit version matches your CUDA "
                "version.",
            ],
            "env_mismatch",
            "compile",
        ),
        # an interactive prompt answered before the error: the program works on it
        (
            [
                ">>> Enter your negative prompt (press Enter to skip):",
                "mmq.cuh:2589: ERROR: CUDA kernel mul_mat_q has no device code compatible with "
                "CUDA arch 520.",
            ],
            "dispatch_failure",
            "execute",
        ),
        (
            [
                "Error: Ollama call failed with status code 500: llama runner process has "
                "terminated",
            ],
            "engine_died",
            "execute",
        ),
        (
            [
                "      error: subprocess-exited-with-error",
                "  x Getting requirements to build wheel did not run successfully.",
            ],
            "env_mismatch",
            "compile",  # (since round 44: a package build is a compilation)
        ),
    ],
)
def test_round39_readings_of_fresh126_to_fresh129(
    tmp_path: Path, lines: list[str], category: str, stage: str
) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_nccls_informational_lines_stay_quiet_also_without_their_prefix(tmp_path: Path) -> None:
    lines = [
        "NCCL INFO NET/Plugin : Plugin load (libnccl-net.so) returned 2 : libnccl-net.so: cannot "
        "open shared object file: No such file or directory",
        "NCCL INFO NET/Plugin : No plugin found, using internal implementation",
    ]
    assert classify_both(tmp_path, lines) is None


def test_torchs_own_op_without_a_kernel_stays_a_dispatch_failure(tmp_path: Path) -> None:
    lines = [
        "NotImplementedError: Could not run 'aten::_fused_moe' with arguments from the 'CUDA' "
        "backend.",
    ]
    failure = classify_both(tmp_path, lines)
    assert failure is not None
    assert failure.category == "dispatch_failure"


def test_a_panic_whose_message_names_nothing_stays_unknown(tmp_path: Path) -> None:
    lines = [
        "thread 'tokio-runtime-worker' panicked at src/lib.rs:12:5:",
        "index out of bounds: the len is 3 but the index is 7",
    ]
    failure = classify_both(tmp_path, lines)
    assert failure is not None
    assert failure.category == "unknown"
    assert "index out of bounds" in failure.first_error


@pytest.mark.parametrize(
    ("before", "stage"),
    [
        (["epoch : 5, avg train loss : 6.3944", "epoch : 5, avg val loss : 6.3922"], "execute"),
        (["[before the start of training step] datetime: 2024-01-01 10:00:00"], "execute"),
        (["<epoch:  5, iter:  10,100, lr:(1.000e-04,)] l_pix: 1.2e-02"], "execute"),
        (["sampling completed, taking 12.31s", "decoding 1 latents"], "execute"),
        (["Building TRT engine."], "compile"),
    ],
)
def test_round39_activity_before_a_death(tmp_path: Path, before: list[str], stage: str) -> None:
    failure = classify_as(
        tmp_path, [*before, "Segmentation fault (core dumped)"], "engine_died", stage
    )
    assert failure.evidence["stage"].startswith("activity")
