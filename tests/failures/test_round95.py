"""Mechanisms of the ninety-fifth round, tuned on the read half of the twenty-sixth batch
(attention kernel libraries, quantized kernels, other LLM servers, GPU driver and system logs).

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both, classify_mid_log

_RELAY = "api-1  | 9:47AM DBG GRPC(model-10.0.0.1:4000): stderr "


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # the kernel module and the user-space driver of two releases
        (
            [
                "Jun 30 11:07:05 host kernel: NVRM: API mismatch: the client has the version "
                "550.54.14, but#012NVRM: this kernel module has the version 545.23.08."
            ],
            "env_mismatch",
            "unknown",
        ),
        # the host's IOMMU refusing a device's access (AMD's and Intel's words)
        (
            [
                "Sep 21 09:59:59 host kernel: nvidia 0000:07:00.0: AMD-Vi: Event logged "
                "[IO_PAGE_FAULT domain=0x0003 address=0x80000040 flags=0x0020]"
            ],
            "illegal_memory_access",
            "unknown",
        ),
        (
            [
                "[  12.5] DMAR: [DMA Read NO_PASID] Request device [41:00.0] fault addr "
                "0x9e139000 [fault reason 0x06] PTE Read access is not set"
            ],
            "illegal_memory_access",
            "unknown",
        ),
        # the driver's module finding no GPU it may own
        (
            [
                "[188497.595099] NVRM: No NVIDIA graphics adapter probed!",
                "[188497.595838] nvidia-nvlink: Unregistered the Nvlink Core, major device 239",
            ],
            "env_mismatch",
            "unknown",
        ),
        # logrus' logfmt record at error level, its message split by escaped line breaks
        (
            [
                'time="2025-01-02T10:00:00Z" level=error msg="\\nThe following GPUs could not '
                'be reset:\\n  GPU 00000000:00:06.0: In use by another client\\n"'
            ],
            "unknown",
            "unknown",
        ),
        # a Go supervisor relaying its child's traceback at debug level, cut inside a record
        (
            [
                _RELAY + "Traceback (most recent call last):",
                _RELAY + '  File "/build/backend.py", line 13, in <module>',
                _RELAY + "    helper()",
                _RELAY + '  File "/build/backend.py", line 3, in helper',
                "api-1  | 9:47AM DBG GRPC(model-10",
            ],
            "unknown",
            "unknown",
        ),
        # an attention library with no backend for the inputs
        (
            [
                "ValueError: No dot product attention backend is available for the provided "
                "inputs. Please run with NVTE_DEBUG=1 to find out the reasons."
            ],
            "dispatch_failure",
            "unknown",
        ),
        (
            ["Error encoding image: NATTEN could not find a suitable backend for this use case."],
            "dispatch_failure",
            "unknown",
        ),
        # a refusal by compute capability in the words "only allowed"
        (
            [
                "NotImplementedError: Model X is only allowed on devices with the following "
                "compute capabilities: [90, 100], got 86."
            ],
            "dispatch_failure",
            "unknown",
        ),
        # vLLM's worker relay carries the worker's message: its words are read
        (
            [
                "(VllmWorkerProcess pid=7) ERROR 01-02 10:00:00 multiproc_worker_utils.py:226] "
                "Exception in worker VllmWorkerProcess while processing method load_model: "
                "Weight output_size = 7000 is not divisible by min_thread_n = 64., Traceback "
                "(most recent call last):",
                "(VllmWorkerProcess pid=7) ERROR 01-02 10:00:00 multiproc_worker_utils.py:226]   "
                'File "/env/vllm/worker/worker.py", line 122, in load_model',
            ],
            "unsupported_config",
            "loading",
        ),
        # a package the program needs, in the words "is needed to be installed"
        (
            ["ValueError: foo kernels is needed to be installed to use `.backward()`."],
            "env_mismatch",
            "unknown",
        ),
        # a checkpoint whose tensors are not the ones the engine expects
        (
            [
                "RuntimeError: Provided tensor names are different from those expected by the "
                "engine.",
            ],
            "unsupported_config",
            "unknown",
        ),
        # torch's own collective without a kernel for the backend (not an extension's op)
        (
            [
                "NotImplementedError: Could not run 'c10d::allreduce_' with arguments from the "
                "'Meta' backend."
            ],
            "dispatch_failure",
            "unknown",
        ),
        # a kernel built without this GPU's architecture-specific instructions
        (
            [
                "/src/util/cast.cuh:234 in function cvt_fp4 (thread (95,0,0), block (2,2,0)): "
                "FP4 cvt PTX instructions are architecture-specific. Try recompiling with sm_XXXa."
            ],
            "dispatch_failure",
            "unknown",
        ),
        # TGI's quantized layers' weight loaders
        (
            [
                "Traceback (most recent call last):",
                '  File "/env/text_generation_server/layers/gptq.py", line 220, in get_weights_row',
                "    return repack(w)",
                "ValueError: Number of input features (192) not divisible by group size (128)",
            ],
            "unsupported_config",
            "loading",
        ),
    ],
)
def test_round95_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    "lines",
    [
        # logrus at info and warning levels
        [
            'time="2025-01-02T10:00:00Z" level=info msg="Applying MIG config"',
            'time="2025-01-02T10:00:01Z" level=warning msg="error counting devices, retrying"',
            'time="2025-01-02T10:00:02Z" level=info msg="MIG configuration applied"',
        ],
        # an extension's op is still the extension's (a build without it), not a missing kernel
        # of torch's: guarded in the next test
    ],
)
def test_round95_no_failure(tmp_path: Path, lines: list[str]) -> None:
    assert classify_both(tmp_path, lines) is None


def test_an_extensions_op_without_a_kernel_stays_its_build(tmp_path: Path) -> None:
    line = (
        "NotImplementedError: Could not run 'torchvision::nms' with arguments from the 'CUDA' "
        "backend."
    )
    classify_as(tmp_path, [line], "env_mismatch", "unknown")


@pytest.mark.parametrize(
    ("line", "category"),
    [
        ("kernel: NVRM: API mismatch: the client has the version 550, but", "env_mismatch"),
        ("nvidia 0000:07:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT]", "illegal_memory_access"),
        ("[1.0] NVRM: No NVIDIA graphics adapter probed!", "env_mismatch"),
        ("f.cuh:1 in g: cvt PTX instructions are architecture-specific.", "dispatch_failure"),
    ],
)
def test_a_round95_line_is_found_mid_log(tmp_path: Path, line: str, category: str) -> None:
    classify_mid_log(tmp_path, line, category)
