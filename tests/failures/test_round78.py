"""Mechanisms of the seventy-eighth round, tuned again on the twenty sets of the tenth to twelfth
batches that rounds 76 and 77 read (``fresh316/`` to ``fresh338/``); ``fresh313/``,
``fresh315/``, ``fresh333/``, ``fresh335/``, ``fresh337/``, ``fresh339/`` and the thirteenth
batch (``fresh340/`` to ``fresh343/``) stay unread.

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as

_CUDA_IMA = "RuntimeError: CUDA error: an illegal memory access was encountered"


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # a progress bar counting its own unit of work (reads, files, pages), not bytes
        (
            ["> basecalling: 12 reads [00:03, 3.91 reads/s]", _CUDA_IMA],
            "illegal_memory_access",
            "execute",
        ),
        # gradient boosting's evaluation records: CatBoost's, XGBoost's, LightGBM's
        (
            ["0:\tlearn: 0.6812043\ttest: 0.6820111\tbest: 0.6820111 (0)\ttotal: 9ms", _CUDA_IMA],
            "illegal_memory_access",
            "execute",
        ),
        (
            ["[12]\ttrain-logloss:0.41220\teval-logloss:0.43891", _CUDA_IMA],
            "illegal_memory_access",
            "execute",
        ),
        (["[25]\tvalid_0's auc: 0.871", _CUDA_IMA], "illegal_memory_access", "execute"),
        # PETSc's solver monitor, one line per iteration
        (["  3 KSP Residual norm 1.204e-03", _CUDA_IMA], "illegal_memory_access", "execute"),
        # a program announcing that it sets its runtime up
        (
            ["--> Init runtime environment", "E RKNN: failed to submit! op id: 3, ret = -1"],
            "unknown",
            "startup",
        ),
        # OpenVINO compiling a model for its GPU plugin
        (
            [
                "Traceback (most recent call last):",
                '  File "run.py", line 9, in <module>',
                '    compiled = core.compile_model(model, "GPU")',
                '  File "/venv/lib/python3.11/site-packages/openvino/runtime/ie_api.py", line 543,'
                " in compile_model",
                "    super().compile_model(model, device_name, {} if config is None else config),",
                "RuntimeError: Exception from src/inference/src/cpp/core.cpp:104:",
            ],
            "unknown",
            "compile",
        ),
        # PyTorch's MPS backend refusing a dtype
        (
            [
                "TypeError: Cannot convert a MPS Tensor to float64 dtype as the MPS framework "
                "doesn't support float64. Please use float32 instead."
            ],
            "dispatch_failure",
            "unknown",
        ),
        # a ggml backend's graph encoder without the op (its function named with underscores)
        (
            ["ggml_vulkan_compute_forward: error: unsupported op 'CONV_TRANSPOSE_2D'"],
            "dispatch_failure",
            "unknown",
        ),
        # the OpenAI SDK's status error for a refused request
        (
            [
                "openai.NotFoundError: Error code: 404 - {'object': 'error', 'message': 'The model "
                "`qwen` does not exist.', 'type': 'NotFoundError', 'code': 404}"
            ],
            "unsupported_config",
            "execute",
        ),
        # an application's client reporting a refused API request
        (
            [
                'Error: API request failed with status code 400: {"error":"model '
                '\\"llama3:70b\\" not found, try pulling it first"}'
            ],
            "unsupported_config",
            "execute",
        ),
        # anyhow's report: the first cause under "Caused by:" says what failed
        (
            [
                "Error: Could not create backend",
                "",
                "Caused by:",
                "    Could not start backend: Runtime compute cap 61 is not compatible with "
                "compile time compute cap 89",
            ],
            "dispatch_failure",
            "loading",
        ),
        # (numbered, when there are several causes, and behind a compose service's gutter)
        (
            [
                "embed-1  | Error: Failed to start the router",
                "embed-1  | ",
                "embed-1  | Caused by:",
                "embed-1  |     0: Backend is not healthy",
                "embed-1  |     1: channel closed",
            ],
            "engine_died",
            "unknown",
        ),
        # a training loop's epoch header with its count in brackets
        (["Epoch: [3 | 120] LR: 0.010000", _CUDA_IMA], "illegal_memory_access", "execute"),
        # an application's error report showing the server's status
        (
            [
                "Status Code: 502",
                "",
                '"llama runner process has terminated: exit status 2"',
            ],
            "engine_died",
            "execute",
        ),
        # a request's error whose message below it is the HTTP reason phrase alone
        (["ERROR    [agent] Step 4 failed:", " Internal Server Error"], "unknown", "execute"),
        # text-generation-webui's report of the generation, printed after it failed
        (
            [
                "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB",
                "Output generated in 0.31 seconds (0.00 tokens/s, 0 tokens, context 812, seed 7)",
            ],
            "device_oom",
            "execute",
        ),
        # what an error says was being run: a model during inference, a circuit, a prompt
        (
            ['\tdetails = "Error: Triton model failed during inference."'],
            "unknown",
            "execute",
        ),
        (
            ["QiskitError: 'Circuit execution failed: ERROR: [Experiment 0] out of range'"],
            "unknown",
            "execute",
        ),
        (["gptj_eval: failed to eval"], "unknown", "execute"),
        # a configuration refused by its own words: a parameter, a size, a value out of a list of
        # names, a setting asked for
        (
            ["MilvusException: (code=1100, message=invalid parameter[expected=valid metric])"],
            "unsupported_config",
            "unknown",
        ),
        (["error: Picture size 0x1080 is invalid"], "unsupported_config", "unknown"),
        (
            [
                "Error processing split 1: RAFT failure at file=ivf_pq.cuh line=214: The metric "
                "for IVF-PQ should be L2Expanded, CosineExpanded or InnerProduct"
            ],
            "unsupported_config",
            "unknown",
        ),
        (
            ["AssertionError: You must have one dataset stage starting at step 1"],
            "unsupported_config",
            "unknown",
        ),
        # (torch's check of an index's dtype lists lowercase types: a program's error)
        (
            ["IndexError: tensors used as indices must be long, int, byte or bool tensors"],
            "unknown",
            "unknown",
        ),
        # a process ending itself right after an error line no rule knows: that error's doing
        (
            [
                "Failed to create encoder: NvEncodeAPIGetMaxSupportedVersion returned error -3",
                "Segmentation fault (core dumped)",
            ],
            "unknown",
            "unknown",
        ),
        # (not after an error the program went on from: a probe, then a success line)
        (
            [
                "library not found: failed to load library",
                "dynamically linking ggml-cuda.so",
                "GPU support successfully linked and loaded",
                "Segmentation fault (core dumped)",
            ],
            "engine_died",
            "unknown",
        ),
        # (not after a server's access record of a failed request: the death is what failed)
        (
            [
                '[INFO] Request 10.0.0.2 "POST /v1/completions HTTP/1.1" 502 41 12.2ms',
                "cmd.Wait() returned error: signal: aborted (core dumped)",
            ],
            "engine_died",
            "execute",
        ),
        # a model said to have failed to load, the model named first
        (["Stable diffusion model failed to load"], "unknown", "loading"),
        # a device, its command queue or an encode session set up as the program starts
        (
            ["ERROR: Can't initialize device [ID=1, GPU #1], cuda exception: out of memory"],
            "device_oom",
            "startup",
        ),
        (
            ["[ERROR] Couldn't create OpenCL command queue (error: -5)!"],
            "unknown",
            "startup",
        ),
        (
            ["nvenc : Error on nvEncOpenEncodeSessionEx: 15 (the call failed: invalid version)"],
            "unknown",
            "startup",
        ),
        # CUDA creating a device's primary context (the first CUDA call)
        (
            ["ERROR: CUDA error in cuDevicePrimaryCtxRetain: CUDA_ERROR_ECC_UNCORRECTABLE"],
            "unknown",
            "startup",
        ),
        # a fat binary's module loaded by the driver
        (
            ["[app/error] LoadModuleFromFatbin: loading fatbin kernels.fatbin failed: 209"],
            "unknown",
            "compile",
        ),
        # a work loop's progress bar drawn right below the error (tqdm, as the loop is left)
        (
            [
                "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
                "Epoch 0:   3%|▎         | 12/400 [00:09<05:01,  1.29it/s, loss=0.71]",
            ],
            "device_oom",
            "execute",
        ),
        # (its words say what it counts: a checkpoint's shards being read)
        (
            [
                "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 80.00 MiB",
                "Loading checkpoint shards:  25%|██▌       | 1/4 [00:03<00:09,  3.10s/it]",
            ],
            "device_oom",
            "loading",
        ),
        # a bare assertion on a size that must split over the parallel ranks
        (
            [
                "Traceback (most recent call last):",
                '  File "/srv/model/attention.py", line 88, in __init__',
                "    assert self.num_heads % tensor_parallel_size == 0",
                "AssertionError",
            ],
            "unsupported_config",
            "unknown",
        ),
        # (or on a multiple of a kernel's tile size)
        (
            [
                "Traceback (most recent call last):",
                '  File "/srv/kernels/gemm.py", line 41, in grouped_gemm',
                "    assert k % 128 == 0",
                "AssertionError",
            ],
            "dispatch_failure",
            "unknown",
        ),
        # a program announcing a part it sets up
        (
            ["Initializing the linear solver...", _CUDA_IMA],
            "illegal_memory_access",
            "startup",
        ),
        # (not a model it reads: the loading activity's words decide)
        (
            ["Initializing model weights from ./ckpt/pretrained...", _CUDA_IMA],
            "illegal_memory_access",
            "loading",
        ),
        # macOS' loader naming the library that lacks a symbol, its report's last line
        (
            [
                "Backend quit unexpectedly.",
                "Referenced from: /Applications/App.app/Contents/Resources/lib/_ext.so",
                "Expected in: /usr/lib/libc++.1.dylib",
            ],
            "env_mismatch",
            "startup",
        ),
        # Riva's server without the model a request asks for
        (
            ["RPC failed: Error: Unavailable model requested. Lang: de-DE, Type: online"],
            "unsupported_config",
            "unknown",
        ),
        # a worker, a daemon or a server that could not be started or set up
        (
            ["distributed.nanny - ERROR - Failed to restart worker on tcp://127.0.0.1:40231"],
            "unknown",
            "startup",
        ),
        (["P2PDaemonError: Daemon failed to start: no bootstrap peers"], "unknown", "startup"),
        (
            ["[app/error] Error initialising inference server using port: 5555. Aborting."],
            "unknown",
            "startup",
        ),
        # the devices queried through NVML, or a list of them that cannot be had
        (
            ["Exception: Failed to query NVML device info: an internal driver error occured"],
            "unknown",
            "startup",
        ),
        (
            ["ValueError: Unable to retrieve list of all GPU devices"],
            "env_mismatch",
            "startup",
        ),
        # ggml's Metal backend setting its device up
        (
            ["ggml_metal_init: allocating", "signal arrived during cgo execution"],
            "engine_died",
            "startup",
        ),
        # TVM's runtime creating a paged KV cache; Core ML running a model on its input
        (
            [
                "TVMError: Function vm.builtin.paged_attention_kv_cache_create(...) expects 12 "
                "arguments, but 11 were provided."
            ],
            "unknown",
            "kv_alloc",
        ),
        (
            [
                "Execution of the command buffer was aborted due to an error during execution. "
                "Caused GPU Timeout Error (00000002:kIOGPUCommandBufferCallbackErrorTimeout)",
                "fatal error: 'try!' expression unexpectedly raised an error: Error "
                'Domain=com.apple.CoreML Code=0 "Error computing NN outputs."',
            ],
            "timeout",
            "execute",
        ),
    ],
)
def test_round78_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)
