"""Mechanisms of the eighty-seventh round, tuned on half of the twentieth batch (``fresh392/``,
``fresh394/``, ``fresh396/``, ``fresh398/``, measured before reading with round 86); the other
half (``fresh393/``, ``fresh395/``, ``fresh397/``, ``fresh399/``) and the older unread sets stay
unread.

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # a shell's report of a death in the system's language (glibc's Chinese), after the
        # model was being built module by module
        (
            [
                "Injecting model as kt.operators.models . KModel",
                "Injecting model.layers.0.mlp as kt.operators.experts . KExperts",
                "非法指令 (核心已转储)",
            ],
            "engine_died",
            "loading",
        ),
        (["Abgebrochen (Speicherabzug geschrieben)"], "engine_died", "unknown"),
        # an offline quantizer's own status line, its code in brackets (a measured error figure
        # above it is no error)
        (
            [
                " -- Layer 3 done, exp. error: 0.00185775",
                " -- Quantizing...",
                " -- Linear: model.layers.0.mlp.up_proj -> 4.13 bpw",
                " ## Quantization error (2)",
            ],
            "unknown",
            "execute",
        ),
        # a model that is not where it was looked for
        (
            ["FileNotFoundError: Cannot find the model folder. We searched these paths:"],
            "unsupported_config",
            "unknown",
        ),
        # a model's configuration file missing, by any of its formats
        (
            ["FileNotFoundError: [Errno 2] No such file or directory: '/m/unet-config.yaml'"],
            "unsupported_config",
            "unknown",
        ),
        # a bare KeyError whose traceback shows the configuration it was looked up in
        (
            [
                "Traceback (most recent call last):",
                '  File "/x/convert.py", line 9, in <module>',
                "    cfg.prepare()",
                '  File "/x/lib/cfg.py", line 50, in prepare',
                "    self.eps = model_config[self.keys.eps]",
                "KeyError: 'layer_norm_epsilon'",
            ],
            "unsupported_config",
            "unknown",
        ),
        # a watchdog's word for a wait that hangs
        (
            [
                "2024-07-29 17:14:59.920189: E external/xla/service/rendezvous.cc:38] This thread "
                "has been waiting for `join group 1` for 20 seconds and may be stuck."
            ],
            "timeout",
            "unknown",
        ),
        # a device binary made by a newer toolkit than the one linking it (the linker: compile)
        (
            [
                "XlaRuntimeError: INTERNAL: nvlink exited with non-zero error code 256, output: "
                "nvlink fatal   : Input file '/tmp/a.cubin' newer than toolkit (124 vs 122)"
            ],
            "env_mismatch",
            "compile",
        ),
        # a lowering rule's frames: the program was being compiled
        (
            [
                "Traceback (most recent call last):",
                '  File "/x/pallas/lowering.py", line 212, in lower_jaxpr_to_mosaic',
                "    outvals = rule(ctx, *invals)",
                '  File "/x/pallas/lowering.py", line 640, in _dot_lowering',
                "    return op(a, b)",
                "RuntimeError: Cannot call this outside of a kernel",
            ],
            "unknown",
            "compile",
        ),
        # frames named for loading a model, the traceback cut
        (
            [
                "Traceback (most recent call last):",
                '  File "/x/server/model.py", line 40, in load_model_stream',
                "    async for part in parts:",
                '  File "/x/asyncio/threads.py", line 25, in to_thread',
            ],
            "unknown",
            "loading",
        ),
        # the tag in front of each line cut before it closed, right after a cut traceback
        (
            [
                "Sampling 51 steps:  98%|█████████▊| 50/51 [43:58<00:52, 52.76s/it]",
                "[rank0]: Traceback (most recent call last):",
                '[rank0]:   File "/x/sample.py", line 262, in <module>',
                "[rank0]:     main(args)",
                '[rank0]:   File "/x/sample.py", line 236, in main',
                "[rank0]:     x = model.decode(z)",
                "[ra",
            ],
            "unknown",
            "execute",
        ),
        # a traceback's header the last line of a paste
        (
            ["Exporting the model...", "Traceback (most recent call last):"],
            "unknown",
            "unknown",
        ),
        # AOTInductor reading a compiled package: loading, though under torch/_inductor/
        (
            [
                "Traceback (most recent call last):",
                '  File "/x/torch/_inductor/__init__.py", line 257, in aoti_load_package',
                "    return load_package(path)",
                '  File "/x/torch/_inductor/package/package.py", line 307, in load_package',
                "    loader = torch._C._aoti.AOTIModelPackageLoader(",
                "RuntimeError: Expected extern kernel x to have serialized argument type y",
            ],
            "unknown",
            "loading",
        ),
        # a quantized layer's kernel choice, its reasons alone
        (
            [
                "ERROR 12-05 19:08:53 [core.py:718]  MarlinLinearKernel cannot implement due to: "
                "Group size (32) not supported by MarlinLinearKernel"
            ],
            "dispatch_failure",
            "unknown",
        ),
        # a build without GPU support as the last word, at a logger's warning level, the time
        # column left blank by Rich's handler (said as it is imported: `startup` since round 110)
        (
            [
                "2025-10-01 23:23:28 WARNING  Could not find the bitsandbytes CUDA binary at x",
                "                    WARNING  The installed version of bitsandbytes was compiled "
                "without GPU support.",
            ],
            "env_mismatch",
            "startup",
        ),
        # what was built before pip's last word is over: an error after it is not compiling
        (
            [
                "[ 71%] Building CUDA object CMakeFiles/x.dir/kernels.cu.o",
                "Successfully installed x-0.45.1",
                "/x/torch/cuda/__init__.py:235: UserWarning:",
                "NVIDIA T4G with CUDA capability sm_75 is not compatible with the current PyTorch "
                "installation.",
            ],
            "env_mismatch",
            "startup",
        ),
    ],
)
def test_round87_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_jax_note_on_filtered_frames_is_not_the_error(tmp_path: Path) -> None:
    # JAX prints its note as the cause of the exception that follows: that exception is first
    lines = [
        "jax.errors.SimplifiedTraceback: For simplicity, JAX has removed its internal frames "
        "from the traceback of the following exception. Set JAX_TRACEBACK_FILTERING=off to "
        "include these.",
        "",
        "The above exception was the direct cause of the following exception:",
        "",
        "Traceback (most recent call last):",
        '  File "/x/run.py", line 5, in <module>',
        "    main()",
        "RuntimeError: Invalid opaque object size",
    ]
    failure = classify_as(tmp_path, lines, "unknown", "unknown")
    assert failure.first_error == "RuntimeError: Invalid opaque object size"


@pytest.mark.parametrize(
    "lines",
    [
        # an error that names the default put in its place
        [
            "[16:19:39] llvm_instance.cc:226: Error: Using LLVM 19.1.2 with `-mcpu=x` is not "
            "valid in `-mtriple=arm64-apple-macos`, using default `-mcpu=generic`",
            "INFO auto_device.py:79: Found device: vulkan:0",
        ],
        # an optional part that failed to import, said so
        [
            "Warning: failed to import the Foo backend. Check if Foo is correctly installed if "
            "you want to use the foo backend.",
            "Loading the model ...",
        ],
        # a build without GPU support that the program goes on after
        [
            "2025-08-03 16:25:57 WARNING  The installed version of bitsandbytes was compiled "
            "without GPU support.",
            "                             8-bit optimizers and GPU quantization are unavailable.",
            "model_names=['a', 'b']",
        ],
        # a quantizer's measured error
        [" -- Quantizing...", " -- Linear: model.layers.0.q_proj -> 4.1 bpw, error: 0.0123"],
    ],
)
def test_round87_healthy(tmp_path: Path, lines: list[str]) -> None:
    assert classify_both(tmp_path, lines) is None
