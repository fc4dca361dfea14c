"""Mechanisms of the eighty-first round, tuned on half of the fourteenth batch (``fresh344/``,
``fresh346/``, ``fresh348/``, ``fresh350/``, measured before reading with round 79);
``fresh313/``, ``fresh315/``, ``fresh333/``, ``fresh335/``, ``fresh337/``, ``fresh339/`` and the
other half (``fresh345/``, ``fresh347/``, ``fresh349/``, ``fresh351/``) stay unread.

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # a parallel configuration asking for more GPUs than there are, checked at start
        (
            ["RuntimeError: Only 4 GPUs are available, but 8 are required."],
            "unsupported_config",
            "startup",
        ),
        (
            [
                "ValueError: The number of required GPUs exceeds the total number of available "
                "GPUs in the placement group."
            ],
            "unsupported_config",
            "startup",
        ),
        # a checkpoint without a tensor the model asks for, outside the layers too
        (
            [
                "Traceback (most recent call last):",
                '  File "/x/convert.py", line 9, in get_weight',
                "    if named_params[prefix + '.weight'].dtype != dtype:",
                "KeyError: 'lm_head.weight'",
            ],
            "unsupported_config",
            "loading",
        ),
        # (TensorRT-LLM's model given weights without some of its tensors)
        (
            [
                "RuntimeError: Required but not provided tensors:{'transformer.layers.0.mlp.fc."
                "per_channel_scale'}"
            ],
            "unsupported_config",
            "loading",
        ),
        # TensorRT's runtime naming cudaErrorMemoryAllocation by its number only
        (
            ["[TensorRT] ERROR: runtime.cpp (24) - Cuda Error in allocate: 2"],
            "device_oom",
            "unknown",
        ),
        # a transfer library the installation lacks
        (["RuntimeError: NIXL is not available"], "env_mismatch", "unknown"),
        # ninja's failed edge, indented by the build tool that ran it
        (
            [
                "[36/104] Building CUDA object CMakeFiles/_C.dir/csrc/kernel.cu.o",
                "  FAILED: CMakeFiles/_C.dir/csrc/kernel.cu.o",
            ],
            "env_mismatch",
            "compile",
        ),
        # Aphrodite's report of the weights in place: the profiling run is next
        (
            [
                "INFO:     Model weights loaded. Memory usage: 14.96 GiB x 1 = 14.96 GiB",
                "ERROR: Exception in the profiling run",
            ],
            "unknown",
            "profile",
        ),
        # an engine that says it cannot start is starting
        (
            [
                "ValueError: Current node has no GPU available. vLLM engine cannot start without "
                "GPU."
            ],
            "env_mismatch",
            "startup",
        ),
        # Ray folding the same waiting line of many processes into one: a wait repeated, no
        # progress (its autoscaler's report after it is none either)
        (
            [
                "(run pid=1) INFO 01-01 10:00:00 ray_utils.py:183] Waiting for creating a "
                "placement group of specs for 30 seconds. [repeated 8x across cluster]",
                "(autoscaler +2m) Tip: use `ray status` to view detailed cluster status.",
            ],
            "timeout",
            "startup",
        ),
        # TensorRT-LLM's build announced in its words
        (
            [
                "[TRT-LLM] [I] [MemUsage] Rank 0 Engine build starts - Allocated Memory: Host 8.5 "
                "(GiB)",
                "Traceback (most recent call last):",
                '  File "build.py", line 9, in <module>',
                "    build(0, args)",
                "RuntimeError: the network could not be built",
            ],
            "unknown",
            "compile",
        ),
        # Torch-TensorRT converting a module: its frames are a compile
        (
            [
                "Traceback (most recent call last):",
                '  File "run.py", line 5, in <module>',
                "    trt_mod = torch_tensorrt.compile(mod, inputs=inputs)",
                '  File "/x/site-packages/torch_tensorrt/ts/_compiler.py", line 119, in compile',
                "    compiled = _C.compile_graph(module._c, spec)",
                "RuntimeError: [Error thrown at core/conversion/var/Var.cpp:",
            ],
            "unknown",
            "compile",
        ),
        # ptxas reporting the kernel it compiles: the latest work before the error
        (
            [
                "  0%|          | 0/40 [00:00<?, ?it/s]ptxas info    : 0 bytes gmem",
                "ptxas info    : Compiling entry function 'quant_kernel' for 'sm_61'",
                "ptxas info    : Used 80 registers, used 1 barriers, 384 bytes cmem[0]",
                "main.c",
                'loc(callsite("C:\\\\x\\\\kernel.py":18:23 at "C:\\\\x\\\\kernel.py":78:55)): '
                "error: 'tt.fp_",
            ],
            "unknown",
            "compile",
        ),
    ],
)
def test_round81_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    "lines",
    [
        # cuDNN's execution plan refused, without the warning's prefix: torch tries the next one
        [
            "Plan failed with a cudnnException: CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR: "
            "cudnnFinalize Descriptor Failed cudnn_status: CUDNN_STATUS_NOT_SUPPORTED "
            "(Triggered internally at ../aten/src/ATen/native/cudnn/Conv_v8.cpp:919.)",
            "  return F.conv2d(input, weight, bias, self.stride,",
        ],
        # a wait that Ray folded but that is followed by the program's own progress
        [
            "(run pid=1) INFO ray_utils.py:183] Waiting for creating a placement group of specs "
            "for 30 seconds. [repeated 2x across cluster]",
            "(run pid=1) INFO Loading model weights took 1.2 GiB",
        ],
    ],
)
def test_round81_healthy(tmp_path: Path, lines: list[str]) -> None:
    assert classify_both(tmp_path, lines) is None


def test_round81_a_module_looked_up_by_name_is_no_missing_tensor(tmp_path: Path) -> None:
    # (round 79's guard holds with the wider tensor-name rule)
    classify_as(tmp_path, ["KeyError: 'model.layers.20.self_attn.attn'"], "unknown", "unknown")
