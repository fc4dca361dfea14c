"""Mechanisms of the seventieth round, tuned on ``fresh267/``, ``fresh269/``, ``fresh271/``,
``fresh273/`` and ``fresh274/`` to ``fresh276/`` (each measured before reading) and on
``fresh278/``, ``fresh280/``, ``fresh282/``, ``fresh284/`` (measured before reading with round
69); ``fresh277/``, ``fresh279/``, ``fresh281/`` and ``fresh283/`` were measured apart and left
unread.

Never "no failure": Triton Inference Server's ``Signal (11) received.``. Categories: torch's
``Error(s) in loading state_dict for X:`` cut before its list, TGI's ``weight X does not exist``
and a config without ``model_type`` are model files the loader rejects (``unsupported_config``);
a setting that another one needs (``... has to be built with ...``) and a request too long for
the context are configurations refused; a float type in ggml's and candle's spelling (``F16``)
and a GPU backend named (Metal, Vulkan) make a refusal a missing kernel; a program's own check
that finds no GPU and a Vulkan driver without an extension are the environment's; an NCCL
setting named in c10d's error is NCCL's; DirectX's device hung (``887A0006``) is a hang; a level
word alone on its line has its message below it. Stages: Triton's backend initialisation is
loading; InvokeAI's node invocation, a chat's ``execute_prompt``, a generator's
``compute_logits``, vLLM's sampling parameters and a program starting its inference are
execute; a trainer named for its model (``TrainTransformer``) builds no model; a server that
cannot bind its port is starting. The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both

_SITE = "/usr/lib/python3.10/site-packages"


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        (
            [
                "Traceback (most recent call last):",
                '  File "run.py", line 12, in <module>',
                "    model.load_state_dict(sd)",
                f'  File "{_SITE}/torch/nn/modules/module.py", line 2215, in load_state_dict',
                "    raise RuntimeError('Error(s) in loading state_dict for {}:'.format(",
                "RuntimeError: Error(s) in loading state_dict for UNet2DModel:",
            ],
            "unsupported_config",
            "loading",
        ),
        (
            ["RuntimeError: weight model.embed_tokens.weight does not exist"],
            "unsupported_config",
            "unknown",
        ),
        (
            ["Signal (6) received.", " 0# 0x000055D1 in /opt/tritonserver/bin/tritonserver"],
            "engine_died",
            "unknown",
        ),
        (
            [
                "I0101 10:00:00.000000 1 model_lifecycle.cc:461] loading: resnet:1",
                "I0101 10:00:00.000100 1 backend.cc:63] TRITONBACKEND_Initialize: onnxruntime",
                "Segmentation fault (core dumped)",
            ],
            "engine_died",
            "loading",
        ),
        (
            [
                "Traceback (most recent call last):",
                f'  File "{_SITE}/invokeai/app/invocations/baseinvocation.py", line 9, in '
                "invoke_internal",
                "    output = self.invoke(context)",
                f'  File "{_SITE}/invokeai/app/invocations/denoise.py", line 80, in invoke',
                "    latents = latents.to('cpu')",
                "RuntimeError: CUDA error: unspecified launch failure",
            ],
            "illegal_memory_access",
            "execute",
        ),
        (["Error: Metal conv2d F16 not implemented"], "dispatch_failure", "unknown"),
        (["Error: vulkan conv1d F32 not supported"], "dispatch_failure", "unknown"),
        (
            ["NotImplementedError: MyTrainer: No NVIDIA GPU found? Only GPUs are supported!"],
            "env_mismatch",
            "unknown",
        ),
        (
            [
                "E0101 backend_model.cc:634] ERROR: Failed to create instance: [TensorRT-LLM]"
                "[ERROR] Assertion failed: When chunked context is enabled, the model has to be "
                "built with paged KV cache support",
            ],
            "unsupported_config",
            "unknown",
        ),
        (
            ["[E ProcessGroupNCCL.cpp:900] Failed to dump NCCL_DEBUG_FILE contents. Please"],
            "nccl_error",
            "unknown",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "main.py", line 40, in <module>',
                "    trainer = TrainTransformer(args)",
                '  File "main.py", line 12, in __init__',
                "    self.train(args)",
                '  File "main.py", line 20, in train',
                "    loss.backward()",
                "RuntimeError: CUDA error: an illegal memory access was encountered",
            ],
            "illegal_memory_access",
            "execute",
        ),
        (
            ["", "  ERROR", "", "  GPU memory allocation failed while loading the weights", ""],
            "device_oom",
            "loading",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "chat.py", line 30, in <module>',
                "    generator.compute_logits()",
                "RuntimeError: dml_command_recorder.cpp(143) Exception(1) 887A0006 The GPU will "
                "not respond to more commands, most likely because of an invalid command passed "
                "by the calling application.",
            ],
            "timeout",
            "execute",
        ),
        (
            [
                "12:00:01-000001 ERROR    Failed to build the chat prompt. The prompt is too long "
                "for the model's context length."
            ],
            "unsupported_config",
            "unknown",
        ),
        (
            ["E llama_model_load: error loading model: vk::Device: ErrorExtensionNotPresent"],
            "env_mismatch",
            "loading",
        ),
        # (the instance created as the backend sets its device up: start-up since round 120)
        (
            ["ggml_vulkan: vkCreateInstance failed: VK_ERROR_INCOMPATIBLE_DRIVER"],
            "env_mismatch",
            "startup",
        ),
        (
            [
                "Traceback (most recent call last):",
                f'  File "{_SITE}/vllm/sampling_params.py", line 351, in __post_init__',
                "    self._verify_args()",
                f'  File "{_SITE}/vllm/sampling_params.py", line 416, in _verify_args',
                '    raise ValueError(f"max_tokens must be at least 1, got {self.max_tokens}.")',
                "ValueError: max_tokens must be at least 1, got -12.",
            ],
            "unsupported_config",
            "execute",
        ),
        (
            [
                "Starting batched inference to transcribe: talk.wav",
                "RuntimeError: cuBLAS failed with status CUBLAS_STATUS_NOT_SUPPORTED",
            ],
            "dispatch_failure",
            "execute",
        ),
        (["  KeyError: 'model_type'"], "unsupported_config", "unknown"),
        (
            [
                "thread 'main' panicked at src/server.rs:69:33: could not bind to address: "
                "0.0.0.0:8000"
            ],
            "unknown",
            "startup",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "cli.py", line 90, in run',
                "    _execute_prompt(state, runner, prompt)",
                '  File "cli.py", line 40, in _execute_prompt',
                "    for chunk in stream:",
                "RuntimeError: ABORTED: the timeout was reached while reading back data.",
            ],
            "timeout",
            "execute",
        ),
    ],
)
def test_round70_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_a_notice_of_running_without_a_gpu_is_no_failure(tmp_path: Path) -> None:
    """Only an exception that says no GPU was found is one: a notice at WARNING level of a
    program going on without one is not."""
    lines = ["WARNING: No NVIDIA GPU found, running on the CPU", "Loaded model in 2.1s"]
    assert classify_both(tmp_path, lines) is None


def test_prose_that_calls_an_application_names_no_frame(tmp_path: Path) -> None:
    """``calling X`` names a method a worker ran only as a wrapper says it: in an error's prose
    (``passed by the calling application``) it is no frame, and the frame above still tells."""
    lines = [
        "Traceback (most recent call last):",
        '  File "run.py", line 18, in <module>',
        "    generator.compute_logits()",
        "RuntimeError: invalid command passed by the calling application",
    ]
    failure = classify_both(tmp_path, lines)
    assert failure is not None
    assert failure.stage == "execute"
    assert failure.evidence["stage"] == "frame compute_logits"


def test_a_level_word_alone_keeps_the_line_below_as_its_message(tmp_path: Path) -> None:
    """The message below a level word alone is read for its category; a line further down is
    not its message."""
    below = classify_both(tmp_path, ["ERROR", "CUDA memory allocation error detected"])
    assert below is not None
    assert below.category == "device_oom"
    far = classify_both(tmp_path, ["ERROR", "", "", "", "CUDA memory allocation error detected"])
    assert far is not None
    assert far.first_error == "ERROR"
    assert far.category == "unknown"


@pytest.mark.parametrize(
    "lines",
    [
        [
            "2024-01-01 10:00:00.000001: E external/local_xla/xla/stream_executor/cuda/"
            "cuda_fft.cc:607] Unable to register cuFFT factory: Attempting to register factory "
            "for plugin cuFFT when one has already been registered",
            "2024-01-01 10:00:00.000002: I tensorflow/core/platform/cpu_feature_guard.cc:182] "
            "This TensorFlow binary is optimized to use available CPU instructions.",
        ],
        [
            "/opt/app/video_predictor.py:786: UserWarning: /opt/app/_C.so: undefined symbol: "
            "_ZN3c104cuda9SetDeviceEi",
            "Skipping the post-processing step due to the error above.",
        ],
    ],
)
def test_notices_a_program_goes_on_after_are_no_failure(tmp_path: Path, lines: list[str]) -> None:
    """TensorFlow registering its plugins a second time, and a warning that an extension could
    not be imported, are printed by programs that go on."""
    assert classify_both(tmp_path, lines) is None


@pytest.mark.parametrize(
    ("line", "stage"),
    [
        (
            "2024-01-01 10:00:00.000001: E tensorflow/core/kernels/x.cc:12] Something went on",
            "unknown",
        ),
        ("E0000 00:00:1730948968.001130   14809 engine.cc:68] Graph config not valid", "unknown"),
        (
            'INFO:     10.0.0.1:5000 - "POST /v1/completions HTTP/1.1" 503 Service Unavailable',
            "execute",
        ),
        (
            "2023-07-20 17:06:22.164 12 root INFO [timing():49] predict 0.0017, "
            "['http_status:500']",
            "execute",
        ),
    ],
)
def test_error_records_without_error_words_are_never_silent(
    tmp_path: Path, line: str, stage: str
) -> None:
    """TensorFlow's and absl's records at error level (absl's date before its set-up counts from
    the epoch), and a server's access log answering with a server error, are errors whatever
    their words; the answer tells that a request was being served."""
    failure = classify_as(tmp_path, [line], "unknown", stage)
    assert failure.evidence["category"] == "error line without a known signature"


def test_an_extensions_warning_does_not_hide_the_error_after_it(tmp_path: Path) -> None:
    lines = [
        "/opt/app/predictor.py:786: UserWarning: /opt/app/_C.so: undefined symbol: _ZN3c10",
        "Traceback (most recent call last):",
        '  File "run.py", line 3, in <module>',
        "    out = model(x)",
        "RuntimeError: CUDA error: out of memory",
    ]
    failure = classify_as(tmp_path, lines, "device_oom", "unknown")
    assert failure.line == 5


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        (
            [
                "Traceback (most recent call last):",
                f'  File "{_SITE}/xinference/core/worker.py", line 1156, in wait_for_load',
                "    await model_ref.wait_for_load()",
                "RuntimeError: NCCL error: unhandled system error",
            ],
            "nccl_error",
            "loading",
        ),
        (
            [
                "ERROR 06-13 13:24:49 worker_base.py:148] Error executing method update_weight. "
                "This might cause deadlock in distributed execution.",
                "host:1:2 [0] proxy.cc:1336 NCCL WARN Cuda failure 1 'invalid argument'",
            ],
            "nccl_error",
            "loading",
        ),
        (
            [
                "Failed to initialize MediaPipe model.",
                "java.lang.IllegalStateException: Failed to initialize engine: UNKNOWN: Unable to "
                "open zip archive.",
            ],
            # (a model bundle that is no zip archive is a malformed model since round 91)
            "unsupported_config",
            "loading",
        ),
        (
            [
                "Loading pipeline components...: 100%|",
                "| 7/7 [00:00<00:00,  9.03it/s]",
                "Segmentation fault (core dumped)",
            ],
            "engine_died",
            "loading",
        ),
        (
            [
                "W0101 10:00:00.000001 1 pinned_memory_manager.cc:271] Unable to allocate pinned "
                "system memory, pinned memory pool will not be available: CUDA driver version is "
                "insufficient for CUDA runtime version",
                "I0101 10:00:00.000002 1 cuda_memory_manager.cc:117] CUDA memory pool disabled",
            ],
            "env_mismatch",
            "startup",
        ),
        (
            [
                "W0101 10:00:00.000001 1 pinned_memory_manager.cc:271] Unable to allocate pinned "
                "system memory, pinned memory pool will not be available: no CUDA-capable device "
                "is detected",
                "E0101 10:00:00.000009 1 model_repository_manager.cc:1186] failed to load 'm' "
                "version 1: Internal: CUDA out of memory. Tried to allocate 2.00 GiB",
            ],
            "device_oom",
            "loading",
        ),
        (
            [
                "ggml_cuda_init: failed to initialize CUDA: unknown error",
                "llm_load_tensors: offloading 0 repeating layers to GPU",
            ],
            "env_mismatch",
            "startup",
        ),
        (
            [
                '{"error":{"message":"timed out waiting for llama runner to start: CUDA error: '
                'uncorrectable ECC error encountered"}}'
            ],
            "unknown",
            "loading",
        ),
        (
            [
                "I1115 16:00:39.451253 1404 trainer.py:501] Training: step 198",
                "E1115 16:03:15.140058 1404 coordination_service.cc:954] Heartbeat timed out",
            ],
            "timeout",
            "execute",
        ),
        (
            [
                "[rank0]: torch.distributed.DistBackendError: NCCL error in: NCCLUtils.cpp:77, "
                "unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.25.1",
                "[rank0]: ncclUnhandledCudaError: Call to CUDA function failed.",
                "[rank0]: Last error:",
                "[rank0]: Cuda failure 802 'system not yet initialized'",
            ],
            "nccl_error",
            "unknown",
        ),
    ],
)
def test_round70_second_part(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_the_pinned_pool_notice_alone_is_no_failure(tmp_path: Path) -> None:
    """Without a driver or a device named, the server going on without pinned memory is a
    notice (its pool is an optimisation)."""
    lines = [
        "W0101 10:00:00.000001 1 pinned_memory_manager.cc:271] Unable to allocate pinned system "
        "memory, pinned memory pool will not be available: operation not supported",
        "I0101 10:00:00.000002 1 server.cc:592] Started GRPCInferenceService at 0.0.0.0:8001",
    ]
    assert classify_both(tmp_path, lines) is None


def test_a_timeout_that_names_no_error_stays_a_timeout(tmp_path: Path) -> None:
    lines = ['{"error":"timed out waiting for llama runner to start: context canceled"}']
    classify_as(tmp_path, lines, "timeout", "loading")
