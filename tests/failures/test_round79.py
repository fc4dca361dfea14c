"""Mechanisms of the seventy-ninth round, tuned on the logs of rounds 1 to 77 that the
classifier still misread (the read sets only; ``fresh313/``, ``fresh315/``, ``fresh333/``,
``fresh335/``, ``fresh337/``, ``fresh339/`` and the thirteenth batch, ``fresh340/`` to
``fresh343/``, stay unread).

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as

_OOM = "RuntimeError: CUDA error: out of memory"
_NO_KERNEL = "RuntimeError: CUDA error: no kernel image is available for execution on the device"


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # a logger's level letter and tag in front of each line of a traceback it logs: the
        # traceback is read as one, its frames too
        (
            [
                "E load: Traceback (most recent call last):",
                'E load:   File "toolkit/api/base.py", line 88, in load_model',
                "E load: Exception: could not read the weights file",
            ],
            "unknown",
            "loading",
        ),
        # glog's stack after a failed CHECK, innermost first
        (
            [
                "F0101 10:00:00.000000  1234 common.cpp:152] Check failed: error == cudaSuccess "
                "(35 vs. 0)  CUDA driver version is insufficient for CUDA runtime version",
                "*** Check failure stack trace: ***",
                "    @     0x7f0000000001  google::LogMessage::Fail()",
                "    @     0x7f0000000002  google::LogMessageFatal::~LogMessageFatal()",
                "    @     0x7f0000000003  engine::Context<>::SetDevice()",
                "    @     0x7f0000000004  main",
            ],
            "env_mismatch",
            "startup",
        ),
        # a traceback cut at the program's entry: what the entry's last shown line calls ran
        (
            [
                "THCudaCheck FAIL file=/src/THC/generic/THCStorage.cu line=66 error=2 : "
                "out of memory",
                "Traceback (most recent call last):",
                '  File "translate.py", line 116, in <module>',
                "    main()",
                '  File "translate.py", line 77, in main',
                "    hyps = translator.translate(batch)",
            ],
            "device_oom",
            "execute",
        ),
        # TensorRT refusing the parameters of a call
        (
            [
                "[E] [TRT] INetworkDefinition::addInput: Error Code 3: API Usage Error "
                "(Parameter check failed, condition: isValidDims(dims). )"
            ],
            "unsupported_config",
            "unknown",
        ),
        (
            [
                "ERROR: [TRT]: Parameter check failed at: ../builder/Network.cpp::addInput::992, "
                "condition: isValidDims(dims)"
            ],
            "unsupported_config",
            "unknown",
        ),
        # a workflow refused before it runs: its node's input missing, a value out of its list
        (
            [
                "got prompt",
                "Failed to validate prompt for output 9:",
                "* SaveImage 9:",
                "  - Required input is missing: images",
                "Output will be ignored",
            ],
            "unsupported_config",
            "execute",
        ),
        (
            [
                "Failed to validate prompt for output 3:",
                "* CheckpointLoaderSimple 4:",
                "  - Value not in list: ckpt_name: 'model.safetensors' not in []",
            ],
            "unsupported_config",
            "unknown",
        ),
        # a command line (or a file of arguments) that cannot be split into words
        ([">> An exception has occurred: No closing quotation"], "unsupported_config", "unknown"),
        # an extension's op registered without an implementation for the device
        (
            ["RuntimeError: roi_align_impl: implementation for device cuda:0 not found."],
            "env_mismatch",
            "unknown",
        ),
        # a GPU shader the device's driver does not compile
        (
            [
                "E/tflite: TfLiteGpuDelegate Prepare: Shader compilation failed: ERROR: 0:12: "
                "'x' : undeclared identifier"
            ],
            "dispatch_failure",
            "compile",
        ),
        # a delegate without a kernel for ops of the model, as an Android app starts
        (
            [
                "E/AndroidRuntime: FATAL EXCEPTION: main",
                "    java.lang.RuntimeException: Unable to start activity ComponentInfo{org.demo/"
                "org.demo.Main}: java.lang.IllegalArgumentException: Internal error: Failed to "
                "apply delegate: Next operations are not supported by GPU delegate:",
            ],
            "dispatch_failure",
            "startup",
        ),
        # an NPU's graph preparation without a kernel for an op
        (
            ["graph_prepare.cc:210:ERROR:could not create op: q::Conv2d_valid"],
            "dispatch_failure",
            "compile",
        ),
        # an NPU runtime asking for its kernel module
        (
            ["E NPU: failed to open npu device, need to insmod the npu driver!"],
            "env_mismatch",
            "unknown",
        ),
        # a model status table's last cell wrapped onto the next row
        (
            [
                "| llm   | 1       | UNAVAILABLE: Internal: unexpected error when creating "
                "modelInstanceState: CUDA runtime error |",
                "|       |         |  in ::cudaMalloc(ptr, n): out of memory (buffers.h:12 |",
                "|       |         | 0)                                                    |",
            ],
            "device_oom",
            "loading",
        ),
        # Ollama's runner that died on a CUDA error whose kind is not printed
        (
            ["Error: llama runner process has terminated: CUDA error"],
            "engine_died",
            "unknown",
        ),
        # ... but not when the runner's line names the CUDA error: that error is read
        (
            [
                "Error: llama runner process has terminated: signal: aborted (core dumped) CUDA "
                "error: CUBLAS_STATUS_EXECUTION_FAILED"
            ],
            "unknown",
            "unknown",
        ),
        # a child's negative return code (a signal), and Ray's dashboard failing to start
        (
            [
                "2024-01-01 10:00:00,000\tERROR services.py:1207 -- Failed to start the dashboard, "
                "return code -11"
            ],
            "engine_died",
            "startup",
        ),
        # a Windows crash status raised by ctypes, signed
        (
            ["OSError: [WinError -1073741819] Windows Error 0xc0000005"],
            "engine_died",
            "unknown",
        ),
        # IPython's lines of context around the one that ran did not run ("import" above it)
        (
            [
                "AttributeError                            Traceback (most recent call last)",
                "<ipython-input-3-0a1b2c3d> in <cell line: 3>()",
                "      1 from toolkit.export import export_checkpoint",
                "      2 ",
                "----> 3 export_checkpoint(model, out_dir)",
                "/venv/lib/python3.10/site-packages/toolkit/export.py in export_checkpoint(model, "
                "out_dir)",
                "--> 120         raise e",
            ],
            "unknown",
            "unknown",
        ),
        # the function a thread ran, named by Python's report of its uncaught exception
        (
            [
                _NO_KERNEL,
                "",
                "Exception in thread Thread-2 (load_model):",
                "Traceback (most recent call last):",
                '  File "/usr/lib/python3.10/threading.py", line 1016, in _bootstrap_inner',
            ],
            "dispatch_failure",
            "loading",
        ),
        # the program's report right below the error that its model failed to load
        (
            [
                _NO_KERNEL,
                "CUDA kernel errors might be asynchronously reported at some other API call, so "
                "the stacktrace below might be incorrect.",
                "For debugging consider passing CUDA_LAUNCH_BLOCKING=1.",
                "",
                "",
                "Diffusion model failed to load",
            ],
            "dispatch_failure",
            "loading",
        ),
        # a KeyError on a checkpoint tensor's name (bitsandbytes' quantization state too) ...
        (
            ["KeyError: 'layers.3.mlp.up_proj.weight.absmax'"],
            "unsupported_config",
            "loading",
        ),
        # ... but not on a layer's module looked up by name: the program's own lookup
        (["KeyError: 'model.layers.7.self_attn.attn'"], "unknown", "unknown"),
        # the runtime's hardware fault relayed by NCCL's watchdog stays unknown
        (
            [
                "[Rank 3] NCCL watchdog thread terminated with exception: CUDA error: "
                "uncorrectable ECC error encountered"
            ],
            "unknown",
            "unknown",
        ),
        # vLLM's worker error printed as a tuple, its format string unformatted: the message
        (
            [
                "RuntimeError: ('Worker failed with error %s, please check the stack trace above "
                "for the root cause', \"'NoneType' object has no attribute 'shape'\")",
                "Killed",
            ],
            "unknown",
            "unknown",
        ),
        # a frame line the paste's end cut to its first letter
        (
            [
                "OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
                "Traceback:",
                'File "/app/demo.py", line 254, in <module>',
                "    out = do_sample(model, cond)",
                'File "/app/helpers.py", line 610, in do_sample',
                "    x = model.decode_first_stage(z)",
                "F",
            ],
            "device_oom",
            "execute",
        ),
        # a program's own check printing cudaMalloc's status number (2: out of memory)
        (
            ["RuntimeError: Cuda error: 2[cudaMalloc(&ptr, bytes);]"],
            "device_oom",
            "unknown",
        ),
        # a safetensors checkpoint read: Candle's reader in a Rust backtrace
        (
            [
                'Error: DriverError(CUDA_ERROR_OUT_OF_MEMORY, "out of memory")',
                "   0: candle_core::error::Error::bt",
                "   1: candle_core::tensor::Tensor::from_slice",
                "   2: candle_core::safetensors::MmapedSafetensors::load",
                "   3: candle_transformers::models::llama::Llama::load",
            ],
            "device_oom",
            "loading",
        ),
        # a chat module reloading its model library and weights
        (
            [
                "InternalError: Check failed: (e == cudaSuccess) is false: CUDA: out of memory",
                "Traceback (most recent call last):",
                '  File "chat.py", line 8, in <module>',
                '    cm = ChatModule(model="m")',
                '  File "/venv/mlc_chat/chat_module.py", line 713, in __init__',
                "    self._reload(lib, path)",
                '  File "/venv/mlc_chat/chat_module.py", line 927, in _reload',
                "    self._reload_func(lib, path)",
            ],
            "device_oom",
            "loading",
        ),
        # ... whose message names the later stage it was in: creating the KV cache
        (
            [
                "Traceback (most recent call last):",
                '  File "/venv/mlc_chat/chat_module.py", line 927, in _reload',
                "    self._reload_func(lib, path)",
                "TVMError: Function vm.builtin.paged_attention_kv_cache_create(...) expects 12 "
                "arguments, but 11 were provided.",
            ],
            "unknown",
            "kv_alloc",
        ),
        # CUDA failing as torch counts the devices: no kernel was looked up, whatever the error
        (
            [
                "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda "
                "functions before calling NumCudaDevices() that might have already set an error? "
                "Error 500: named symbol not found"
            ],
            "env_mismatch",
            "startup",
        ),
        # guards: an entry calling the program's whole job stays unread when it is not the
        # innermost frame shown
        (
            [
                _OOM,
                "Traceback (most recent call last):",
                '  File "run.py", line 9, in <module>',
                "    main()",
                '  File "run.py", line 5, in main',
                "    run_job(cfg)",
                '  File "run.py", line 2, in run_job',
                "    model = build(cfg)",
            ],
            "device_oom",
            "unknown",
        ),
        # a thread's target that names no stage tells none
        (
            [
                _NO_KERNEL,
                "Exception in thread Thread-1 (worker_fn):",
                "Traceback (most recent call last):",
                '  File "/usr/lib/python3.10/threading.py", line 1016, in _bootstrap_inner',
            ],
            "dispatch_failure",
            "unknown",
        ),
        # Ollama's runner that exited with a status is still a death
        (["Error: llama runner process has terminated: exit status 2"], "engine_died", "unknown"),
    ],
)
def test_round79_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)
