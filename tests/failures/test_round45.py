"""Mechanisms of the forty-fifth round: tracebacks a paste flattened. A whole traceback on one
line, with no header before its frames (the paste began inside it), still tells its stage by
its frames; so do frames pasted two to a line, each followed by its source. A tensor that
torch's ``load_state_dict`` could not copy from a checkpoint is ``loading``, like the message's
header. An engine function on the stack (SGLang's warm-up request) beats a marker that came
before it; a function named for creating what serves (``_create_inference_session``) does not
serve. A report that gives an exception's type and its message on two lines is read as one
message. Lines that only say the program goes on with a substitute (``resorting to``) or that a
check passed (``[PASS]``) are none; a program's check of its own bookkeeping (``memory leak
detected``) is a bug, no refused configuration. Wordings: a compiler the program cannot find
(``Cannot find ptxas.exe``), DeepSpeed's check of each batch size, ONNX Runtime's missing model
file, DeepSpeed setting up its optimizer (``startup``), Triton server creating a model's
instance (``loading``), LLVM's crash report naming a linker or compiler it ran (``compile``).
Tuned on ``fresh150/`` to ``fresh153/``: an unparsed ``CRITICAL:`` is an error level; a package
that cannot load any build of its own kernels library is the environment at start-up, so is a
torch without the collective backend asked for; a progress bar cut by a Windows launcher's
``Press any key to continue`` is the program's end; JAX's ``jax.distributed.initialize`` is
start-up; TensorRT's ``executionContext.cpp`` is loading; a hub file's URL in an HTTP client's
log is a download (``loading``), not a request served; whisper's ``Detected language`` and a
speech synthesiser's ``tts`` frame run the model. Tuned on ``fresh154/`` to ``fresh157/``: Rust's
serde refusing a configuration file's shape; Slurm's task labels and Rust's download bars taken
off; a size that ``should be divisible``; a setting ``not specified``; ggml-cuda's ``unsupported
type``; cuTENSOR's ``NOT_SUPPORTED``; systemd's ``oom-kill``; Windows' ``procedure could not be
found``; a cause after a precursor warning takes the stage the markers since give. Then, on
``fresh158/`` to ``fresh161/``: a host name in front of a torch rank's tag is taken off (so a
traceback it cut is one), DeepSpeed setting up its model is ``startup``, and faster-whisper's
``WhisperModel`` being built (an ``__init__`` in its ``transcribe`` module, printed without
source lines by a frozen app) is ``loading``.
The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both

_ONE_LINE = (
    'r = self.engine.step()  File "/srv/vllm/worker/worker.py", line 40, in warm_up  '
    'self.model_runner.capture_model(self.gpu_cache)  File "/srv/vllm/worker/model_runner.py", '
    "line 1200, in capture_model  graph_runner.capture(**capture_inputs)  File "
    '"/srv/vllm/worker/model_runner.py", line 1500, in capture  self.model(input_ids, positions) '
    "RuntimeError: CUDA error: an illegal memory access was encountered Compile with "
    "TORCH_USE_CUDA_DSA to enable device-side assertions."
)


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        ([_ONE_LINE], "illegal_memory_access", "graph_capture"),
        (
            [
                "Traceback (most recent call last):",
                '  File "run.py", line 20, in <module>    main()',
                '  File "run.py", line 9, in main    x = x.cuda()  File '
                '"/env/torch/cuda/__init__.py", line 178, in _lazy_init    _check_driver()',
                '  File "/env/torch/cuda/__init__.py", line 108, in _check_driver',
                "    raise AssertionError(",
                "AssertionError: The NVIDIA driver on your system is too old (found version 9000).",
            ],
            "env_mismatch",
            "startup",
        ),
        (
            [
                "\tsize mismatch for blocks.0.attn.qkv.weight: copying a param with shape "
                "torch.Size([96, 32]) from checkpoint, the shape in current model is "
                "torch.Size([48, 32]).",
            ],
            "unsupported_config",
            "loading",
        ),
        (
            [
                "INFO:     Application startup complete.",
                "Traceback (most recent call last):",
                '  File "/srv/sglang/srt/server.py", line 990, in _wait_and_warmup',
                "    res = requests.post(url + '/generate', json=payload)",
                "requests.exceptions.ConnectionError: ('Connection aborted.', "
                "RemoteDisconnected('Remote end closed connection without response'))",
            ],
            "unknown",
            "warmup",
        ),
        (["RuntimeError: Cannot find nvcc"], "env_mismatch", "compile"),
        (
            ["AssertionError: Gradient accumulation steps: 0 has to be greater than 0"],
            "unsupported_config",
            "startup",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "/env/onnxruntime/capi/onnxruntime_inference_collection.py", line 419, in '
                "__init__",
                "    self._create_inference_session(providers, provider_options)",
                '  File "/env/onnxruntime/capi/onnxruntime_inference_collection.py", line 452, in '
                "_create_inference_session",
                "    sess = C.InferenceSession(session_options, self._model_path, True)",
                "onnxruntime.capi.onnxruntime_pybind11_state.NoSuchFile: [ONNXRuntimeError] : 3 : "
                "NO_SUCHFILE : Load model from unet.onnx failed:Load model unet.onnx failed. File "
                "doesn't exist",
            ],
            "unsupported_config",
            "loading",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "/env/onnxruntime/capi/onnxruntime_inference_collection.py", line 452, in '
                "_create_inference_session",
                "    sess = C.InferenceSession(session_options, self._model_path, True)",
                "RuntimeError: bad things happened",
            ],
            "unknown",
            "unknown",
        ),
        (
            ["ValueError: req_to_token_pool memory leak detected! available_size=12, size=16"],
            "unknown",
            "unknown",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "/env/deepspeed/runtime/engine.py", line 1201, in _configure_optimizer',
                "    self.optimizer = self._configure_zero_optimizer(basic_optimizer)",
                '  File "/env/deepspeed/runtime/zero/stage_1_and_2.py", line 530, in '
                "initialize_optimizer_states",
                "    self.optimizer.step()",
                '  File "/env/torch/optim/adam.py", line 140, in step',
                "    state['exp_avg'] = torch.zeros_like(p)",
                "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB",
            ],
            "device_oom",
            "startup",
        ),
        (
            [
                "## Error Details",
                "- **Node Type:** VAEDecode",
                "- **Exception Type:** RuntimeError",
                "- **Exception Message:** the selected attention kernel does not yet support "
                "masks of this shape",
            ],
            "unsupported_config",
            "execute",
        ),
        (
            [
                'I1216 02:12:33.624737 179 model_lifecycle.cc:473] "loading: llm:1"',
                'I1216 02:12:42.654863 179 python_be.cc:2289] "'
                'TRITONBACKEND_ModelInstanceInitialize: llm_0_0 (GPU device 0)"',
                "INFO 12-16 10:12:47 [__init__.py:216] Automatically detected platform cuda.",
                'E1216 02:12:49.624646 179 model.py:248] "[llm] Failed to start engine"',
            ],
            "unknown",
            "loading",
        ),
        (
            [
                "terminate called after throwing an instance of 'std::system_error'",
                "  what():  Resource temporarily unavailable",
                "Stack dump:",
                "0.\tProgram arguments: /opt/rocm/llvm/bin/ld.lld -flavor gnu -shared /tmp/a -o "
                "/tmp/b",
            ],
            "unknown",
            "compile",
        ),
        (
            ["[kernels] CRITICAL: Could not load any fused_ops library!"],
            "env_mismatch",
            "startup",
        ),
        (["[loader] CRITICAL: the weights index is empty"], "unknown", "unknown"),
        (
            ["RuntimeError: Distributed package doesn't have NCCL built in"],
            "env_mismatch",
            "startup",  # (since round 65: torch raises it only while the process group is set up)
        ),
        (
            [
                "Fetching 4 files: 100%|##########| 4/4 [00:00<00:00, 12.1it/s]",
                "Loading checkpoint shards:  25%|##5       | 1/4 [00:02<00:07, 2.51s/it]Press any "
                "key to continue . . .",
            ],
            "engine_died",
            "loading",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "/env/jax/_src/distributed.py", line 95, in initialize',
                "    self.client.connect()",
                "jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. "
                "Barrier_id: PjRT_Client_Connect.",
            ],
            "timeout",
            "startup",
        ),
        (
            [
                "[12/01/2024-10:00:00] [E] [TRT] 2: [executionContext.cpp::nvinfer1::rt::"
                "ExecutionContext::ExecutionContext::470] Error Code 2: OutOfMemory (no further "
                "information)"
            ],
            "device_oom",
            "loading",
        ),
        (
            [
                'DEBUG:urllib3.connectionpool:https://hub.example:443 "GET /org/asr/resolve/main/'
                'model.bin HTTP/1.1" 302 0',
                "TimeoutError: timed out",
            ],
            "timeout",
            "loading",
        ),
        (
            [
                "Detected language 'de' with probability 0.91",
                "Unable to load any of {libcudnn_cnn.so.9.1.0, libcudnn_cnn.so.9}",
            ],
            "env_mismatch",
            "execute",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "/env/speech/api.py", line 40, in tts',
                "    wav = self.synthesizer.run(text)",
                "TypeError: can't convert cuda:0 device type tensor to numpy.",
            ],
            "unknown",
            "execute",
        ),
        (
            [
                "config.json [00:00:01] [########################################] 2 KiB/2 KiB "
                '1.2 KiB/s (0s)Error: invalid type: string "x", expected u32 at line 7 column 18'
            ],
            "unsupported_config",
            "unknown",
        ),
        (
            [
                "3: [rank3]: Traceback (most recent call last):",
                '3: [rank3]:   File "/env/core/transformer_block.py", line 110, in n_layers',
                "3: [rank3]:     assert layers % config.pp == 0",
                "3: [rank3]: AssertionError: layers should be divisible by the pipeline size",
            ],
            "unsupported_config",
            "unknown",
        ),
        (
            ["Error: the model path was not specified. Perhaps you forgot `--model`?"],
            "unsupported_config",
            "unknown",
        ),
        (
            [
                "/src/ggml/src/ggml-cuda/convert.cu:612: ggml_get_to_fp16_cuda: unsupported "
                "type: iq4_nl",
            ],
            "dispatch_failure",
            "unknown",
        ),
        (
            ["cupy_backends.cuda.libs.cutensor.CuTensorError: CUTENSOR_STATUS_NOT_SUPPORTED"],
            "dispatch_failure",
            "unknown",
        ),
        (
            ["llama-server.service: Failed with result 'oom-kill'."],
            "engine_died",
            "unknown",
        ),
        (
            [
                "OSError: [WinError 127] The specified procedure could not be found. Error "
                'loading "C:\\app\\torch\\lib\\fuser.dll" or one of its dependencies.',
            ],
            "env_mismatch",
            "startup",
        ),
        (
            [
                "UserWarning:",
                "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the "
                "current PyTorch installation.",
                "INFO 08-13 04:39:39 model_runner.py:1110] Starting to load model /m/...",
                "ERROR 08-13 04:39:39 engine.py:400] CUDA error: no kernel image is available for "
                "execution on the device",
            ],
            "dispatch_failure",
            "loading",
        ),
        (
            [
                'gpu-node: [rank3]:   File "/work/train.py", line 242, in train',
                "gpu-node: [rank3]:     engine, opt, _, _ = deepspeed.initialize(model=model)",
                'gpu-node: [rank3]:   File "/env/deepspeed/runtime/engine.py", line 1103, in '
                "_configure_distributed_model",
                "gpu-node: [rank3]:     self.module.to(self.device)",
            ],
            "unknown",
            "startup",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "app\\cli.py", line 529, in cli',
                '  File "faster_whisper\\transcribe.py", line 125, in __init__',
                "RuntimeError: CUDA failed with error out of memory",
            ],
            "device_oom",
            "loading",
        ),
    ],
)
def test_round45_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    "lines",
    [
        [
            'Failed to align segment ("?"): no characters in this segment found in model '
            "dictionary, resorting to original...",
        ],
        ["[PASS] GPU 0: compute 8.6 - Flash Attn v2 yes, v3 no (requires Hopper/Compute 9.0)"],
        [
            "Loading checkpoint shards: 100%|##########| 4/4 [00:09<00:00, 2.31s/it]Press any key "
            "to continue . . .",
        ],
    ],
)
def test_round45_not_failures(tmp_path: Path, lines: list[str]) -> None:
    """A program going on with a substitute it names, and a check a diagnostic tool passed."""
    assert classify_both(tmp_path, lines) is None
