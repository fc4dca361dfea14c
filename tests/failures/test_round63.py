"""Mechanisms of the sixty-third round, tuned on ``fresh214/`` to ``fresh217/`` and the corpus.

Formats: a serverless worker's id glued to the level of the stream it captured (``<id>[info]``)
is the platform's prefix, not the program's level; ggml's assertion glued to the text a model
was generating is still an assertion.
Categories: a GPU backend's own source refusing an op (``ggml-metal.m:539: false && "not
implemented"``: ``dispatch_failure``); Vulkan results printed as numbers (``vkAllocateMemory
failed -2``: ``device_oom``); ncnn's ``parse magic failed`` (``unsupported_config`` at
``loading``); more threads per threadgroup than a pipeline allows (``smem_limit``); the library
NCCL's ``Last error:`` says it could not open (``env_mismatch``); TensorRT's profile that leaves
a dynamic input without dimensions (``unsupported_config``); Android's tombstone signal line
(``engine_died``); a timeout said with the noun (``transfer timeout``) and a service not ready
after a time it no longer waits (``timeout``); a state named for a wait, repeated to the end of
an excerpt with the poster's elision after it (a hang).
Stages: a dataclass of arguments or settings checking itself as it is built
(``TrainingArguments.__post_init__`` in ``training_args.py``) is ``startup``; an error's own
message is read for what was being done where its traceback does not hold it (a Rust panic);
a layer's module imported at start-up is no first use (``startup``); vLLM reading the tokenizer
(``get_tokenizer``), a request to a runner's load route (``do load request``), an autoencoder
built (``AE working on z of shape``) are ``loading``; DeepSpeed building an op just in time
(``jit_load``) is ``compile``; a request named by its OpenAI-style id is ``execute``; an error
found among the last lines takes a later stage's activity after the last marker, as any other.
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
                "Traceback (most recent call last):",
                '  File "/srv/app/finetune.py", line 40, in <module>',
                "    args = TrainingArguments(output_dir='out', bf16=True)",
                '  File "<string>", line 118, in __init__',
                '  File "/opt/venv/lib/python3.10/site-packages/transformers/training_args.py", '
                "line 1390, in __post_init__",
                "    raise ValueError(",
                "ValueError: Your setup doesn't support bf16/gpu. You need torch>=1.10, using "
                "Ampere GPU with cuda>=11.0",
            ],
            "dispatch_failure",
            "startup",
        ),
        (
            [
                "thread 'main' panicked at engine-core/src/lib.rs:120:33:",
                "called `Result::unwrap()` on an `Err` value: "
                'Cuda(DriverError(CUDA_ERROR_NO_DEVICE, "no CUDA-capable device is detected"))',
                "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
            ],
            "env_mismatch",
            "startup",
        ),
        (
            [
                "a1b2c3d4e5f6g7[info]Traceback (most recent call last):",
                'a1b2c3d4e5f6g7[info]  File "/app/handler.py", line 9, in <module>',
                "a1b2c3d4e5f6g7[info]    engine = build()",
                'a1b2c3d4e5f6g7[info]  File "/usr/lib/python3/dist-packages/vllm/'
                'transformers_utils/tokenizer.py", line 250, in get_tokenizer',
                "a1b2c3d4e5f6g7[info]    tokenizer.all_special_tokens_extended)",
                "a1b2c3d4e5f6g7[info]AttributeError: FastTokenizer has no attribute "
                "all_special_tokens_extended",
            ],
            "unknown",
            "loading",
        ),
        (
            [
                "INFO 01-02 03:04:05 [scheduler.py:300] Added request cmpl-0a1b2c3d4e5f6071.",
                "DEBUG 01-02 03:04:06 [scheduler.py:345] cmpl-0a1b2c3d4e5f6071-0 is still in "
                "WAITING_FOR_REMOTE_KVS state.",
                "DEBUG 01-02 03:04:07 [scheduler.py:345] cmpl-0a1b2c3d4e5f6071-0 is still in "
                "WAITING_FOR_REMOTE_KVS state.",
                "...",
            ],
            "timeout",
            "execute",
        ),
        (
            ["Batch data transfer timeout", "Session 10.0.0.2:17001 failed"],
            "timeout",
            "unknown",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "/opt/vllm/model_executor/layers/quantization/fp8.py", line 30, '
                "in <module>",
                "    import ep_kernels",
                "ImportError: libcudart.so.13: cannot open shared object file: No such file or "
                "directory",
            ],
            "env_mismatch",
            "startup",
        ),
        (
            [
                "main: prompt: 'Once upon a time'",
                "generate: n_ctx = 512, n_batch = 512, n_predict = -1",
                ' Once upon a time theGGML_ASSERT: ggml-metal.m:1021: false && "not implemented"',
                "zsh: abort      ./main -m model.bin",
            ],
            "dispatch_failure",
            "execute",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "/app/chat.py", line 12, in <module>',
                "    ollama.chat(model='m', messages=msgs)",
                "ollama._types.ResponseError: do load request: Post "
                '"http://127.0.0.1:40001/load": EOF (status code: 500)',
            ],
            "engine_died",
            "loading",
        ),
        (["vae tile size = 256 x 256", "vkAllocateMemory failed -2"], "device_oom", "unknown"),
        (["parse magic failed", "network graph not ready"], "unsupported_config", "loading"),
        (
            [
                "Traceback (most recent call last):",
                '  File "/srv/mlx_server/engine.py", line 88, in _step',
                "    out = kernel(inputs, grid=grid, threadgroup=(1024, 1, 1))",
                "ValueError: Thread group size (1024) is greater than the maximum allowed "
                "threads per threadgroup (896).",
            ],
            "smem_limit",
            "execute",
        ),
        (
            [
                "[rank0]: torch.distributed.DistBackendError: NCCL error in: "
                "/pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:317, unhandled system error",
                "[rank0]: ncclSystemError: System call (e.g. socket, malloc) or external library "
                "call failed or device error.",
                "[rank0]: Last error:",
                "[rank0]: Failed to open libnvidia-ml.so.1",
            ],
            "env_mismatch",
            "unknown",
        ),
        (
            [
                "Traceback (most recent call last):",
                '  File "/opt/conda/lib/python3.10/site-packages/deepspeed/ops/op_builder/'
                'builder.py", line 460, in jit_load',
                "    assert_no_cuda_mismatch(self.name)",
                "Exception: Installed CUDA version 12.4 does not match the version torch was "
                "compiled with 12.1",
            ],
            "env_mismatch",
            "compile",
        ),
        (
            ["AE working on z of shape (1, 4, 32, 32) = 4096 dimensions.", "Killed"],
            "engine_died",
            "loading",
        ),
        (
            [
                "[TRT] [E] 4: [network.cpp::validate::3550] Error Code 4: Internal Error "
                "(decoder_cache: dynamic input is missing dimensions in profile 0.)",
            ],
            "unsupported_config",
            "compile",
        ),
        (
            [
                "1700000000.101 4100-4100/? A/DEBUG: pid: 4242, tid: 4250, name: worker",
                "1700000000.102 4100-4100/? A/DEBUG: signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), "
                "fault addr 0x7d53355000",
            ],
            "engine_died",
            "unknown",
        ),
        (
            [
                "INFO 01-02 03:04:05 [arg_utils.py:100] non-default args: {'model': 'm'}",
                "  Loading model... [12m 10s elapsed]",
                "",
                "  Server not ready after 30 minutes",
                "",
                "  Check the server's log for details.",
            ],
            "timeout",
            "loading",
        ),
    ],
)
def test_round63_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_a_model_class_post_init_is_no_argument_check(tmp_path: Path) -> None:
    """A ``__post_init__`` outside a module of arguments or settings says nothing of the stage."""
    classify_as(
        tmp_path,
        [
            "Traceback (most recent call last):",
            '  File "/srv/app/run.py", line 12, in <module>',
            "    out = Sampler(temperature=0.0)",
            '  File "/srv/app/sampling.py", line 30, in __post_init__',
            "    raise ValueError('temperature must be positive')",
            "ValueError: temperature must be positive",
        ],
        "unsupported_config",
        "unknown",
    )


def test_an_nccl_warning_about_an_optional_transport_stays_nccl(tmp_path: Path) -> None:
    """NCCL's WARN that it cannot open an optional transport's library is no library missing
    from the installation (the issue's rule: an ``NCCL WARN`` is never "no failure")."""
    classify_as(
        tmp_path,
        [
            "host:1:1 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.2<0>",
            "host:1:1 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]",
            "host:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.2<0>",
        ],
        "nccl_error",
        "unknown",
    )


def test_a_wait_that_says_it_goes_on_is_no_timeout(tmp_path: Path) -> None:
    lines = [
        "Waiting for the service to become healthy",
        "Service not ready after 30.0s, waiting 10.0s before polling (timeout: 600.0s)",
        "Service is healthy",
    ]
    assert classify_both(tmp_path, lines) is None
