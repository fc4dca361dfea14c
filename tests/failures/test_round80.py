"""Mechanisms of the eightieth round, tuned on the thirteenth batch (``fresh340/`` to
``fresh343/``, kept unread through rounds 77 to 79); ``fresh313/``, ``fresh315/``,
``fresh333/``, ``fresh335/``, ``fresh337/``, ``fresh339/`` and the fourteenth batch
(``fresh344/`` to ``fresh351/``) stay unread.

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both

from pytest_blackwell.failures.normalize import strip_ansi


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # the driver's management library that cannot be loaded or set up, as a tool starts
        (
            [
                "2026/01/01 10:00:00 Loading NVML",
                "2026/01/01 10:00:00 Failed to initialize NVML: could not load NVML library.",
            ],
            "env_mismatch",
            "startup",
        ),
        (
            [
                'time=2026-01-01T10:00:00Z level=ERROR msg="Cannot init NVML library; err: '
                'ERROR_LIBRARY_NOT_FOUND"'
            ],
            "env_mismatch",
            "startup",
        ),
        (["Error: Failed to initialize NVML"], "env_mismatch", "startup"),
        # (its version mismatch keeps its rule and is read at start-up too)
        (["Failed to initialize NVML: Driver/library version mismatch"], "env_mismatch", "startup"),
        # an Xid relayed by Kubernetes' device plugin, read by the Xid's number
        (
            ["XidCriticalError: Xid=31 on Device=GPU-0000, the device will go unhealthy."],
            "illegal_memory_access",
            "unknown",
        ),
        (
            ["XidCriticalError: Xid=79 on Device=GPU-0000, the device will go unhealthy."],
            "unknown",
            "unknown",
        ),
        # the kernel module that cannot be loaded as the driver is installed
        (
            [
                "ERROR: Unable to load the kernel module 'nvidia.ko'.  This happens most often "
                "when the module was built for another kernel."
            ],
            "env_mismatch",
            "unknown",
        ),
        (
            ["modprobe: ERROR: could not insert 'nvidia_uvm': Operation not permitted"],
            "env_mismatch",
            "unknown",
        ),
        # a collective library the package was installed without
        (
            ["RuntimeError: NCCL is not available. Please confirm that NCCL is enabled in CuPy."],
            "env_mismatch",
            "unknown",
        ),
        # TensorRT: an engine using a plugin whose library was not loaded
        (
            [
                "[TRT] [E] 1: [pluginV2Runner.cpp::load::300] Error Code 1: Serialization "
                "(Serialization assertion creator failed.Cannot deserialize plugin since "
                "corresponding IPluginCreator not found in Plugin Registry)"
            ],
            "env_mismatch",
            "unknown",
        ),
        # its ONNX parser's notice that it tries a plugin for an op is no error; the plugin
        # that cannot be found is
        (
            [
                "[I] [TRT] No importer registered for op: MyOp. Attempting to import as plugin.",
                "[I] [TRT] Searching for plugin: MyOp, plugin_version: 1, plugin_namespace: ",
                "[E] [TRT] 3: getPluginCreator could not find plugin: MyOp version: 1",
            ],
            "env_mismatch",
            "unknown",
        ),
        # (an op with no importer at all is still a model the parser refuses)
        (["[E] [TRT] No importer registered for op: MyOp"], "unsupported_config", "compile"),
        # torch's memory-efficient attention kernels checking their architecture
        (
            [
                "FATAL: kernel 'fmha_cutlassF_f16_aligned_64x64_rf_sm80' is for sm80-sm100, but "
                "was built for sm120"
            ],
            "dispatch_failure",
            "unknown",
        ),
        # Triton refusing a block larger than it builds, under its compiler's error
        (
            [
                "triton.compiler.errors.CompilationError: at 10:4:",
                "    offs = tl.arange(0, BLOCK)",
                "    ^",
                "ValueError('numel (2097152) exceeds triton maximum tensor numel (1048576)')",
            ],
            "dispatch_failure",
            "compile",
        ),
        # a program's check of the CUDA version it found
        (
            ["RuntimeError: Tool only supports CUDA 11.0 or higher, but got CUDA version: 10.2"],
            "env_mismatch",
            "unknown",
        ),
        # Gloo's error in torch, cut right after its source path
        (["RuntimeError: [/pytorch/third_party/gloo/gl"], "nccl_error", "unknown"),
        # (its timeout, whole, is a timeout)
        (
            [
                "RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] "
                "Timed out waiting 1800000ms for recv operation to complete"
            ],
            "timeout",
            "unknown",
        ),
        # systemd's word for a unit whose process returned an error status is no death; the
        # unit starting tells the stage
        (
            [
                "Job for demo.service failed because the control process exited with error code.",
                'See "systemctl status demo.service" and "journalctl -xe" for details.',
                "Jan 01 10:00:00 host systemd[1]: Starting Demo GPU service...",
                "Jan 01 10:00:00 host demo[100]: request to query the device failed with error: "
                "nothing to do",
                "Jan 01 10:00:00 host systemd[1]: demo.service: Control process exited, "
                "code=exited, status=1/FAILURE",
            ],
            "unknown",
            "startup",
        ),
        # (a unit whose process a signal killed is still a death)
        (
            [
                "Jan 01 10:00:00 host systemd[1]: demo.service: Main process exited, code=killed, "
                "status=9/KILL"
            ],
            "engine_died",
            "unknown",
        ),
        # a plugin or a container that could not be started: start-up
        (
            ["2026/01/01 10:00:00 Could not start device plugin: context deadline exceeded"],
            "timeout",
            "startup",
        ),
        (
            [
                "slurmstepd: error: pyxis: container start failed with error code: 1",
                "slurmstepd: error: pyxis: couldn't start container",
            ],
            "unknown",
            "startup",
        ),
        # a notebook's kernel process gone, as the notebook says it
        (
            [
                "Mounting Google Drive... external_polymer_binary.js:1928:55",
                "Your session crashed. Automatically restarting. external_polymer_binary.js:1:1",
                "Ignoring benign restart error: CustomError: Runtime restarted at: ",
                " O7@https://colab.research.google.com/v2/external/external_polymer_binary.js:5:2",
                "k.execute@https://colab.research.google.com/v2/external/external_polymer_binary.js:4:6",
            ],
            "engine_died",
            "unknown",
        ),
        (
            [
                "Kernel Restarting",
                "The kernel for train.ipynb appears to have died. It will restart automatically.",
            ],
            "engine_died",
            "unknown",
        ),
        # a pipe colour-coded in a terminal's copy ("ESC[...m"): the vLLM record under it is read
        (
            [
                "ESC[1;36m(VllmWorker pid=62)ESC[0;0m ERROR 01-01 10:00:00 [core.py:1] "
                "Traceback (most recent call last):",
                "ESC[1;36m(VllmWorker pid=62)ESC[0;0m ERROR 01-01 10:00:00 [core.py:1]   File "
                '"/x/vllm/worker/gpu_worker.py", line 9, in load_model',
                "ESC[1;36m(VllmWorker pid=62)ESC[0;0m ERROR 01-01 10:00:00 [core.py:1]     "
                "self.model_runner.load_model()",
                "ESC[1;36m(VllmWorker pid=62)ESC[0;0m ERROR 01-01 10:00:00 [core.py:1] "
                "RuntimeError: CUDA error: out of memory",
            ],
            "device_oom",
            "loading",
        ),
    ],
)
def test_round80_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    "lines",
    [
        # a tuned kernel configuration missing: a default is taken and its cost foretold
        [
            "[2026-01-01 10:00:00 TP0] Using default W8A8 Block FP8 kernel config. Performance "
            "might be sub-optimal! Config file not found at /x/configs/N=2560,K=128.json",
            "100%|##########| 8/8 [00:10<00:00,  1.20s/it]",
        ],
        # (vLLM's, at WARNING)
        [
            "WARNING 01-01 10:00:00 [fused_moe.py:1] Using default MoE config. Performance might "
            "be sub-optimal! Config file not found at /x/configs/E=8,N=512.json",
        ],
    ],
)
def test_round80_healthy(tmp_path: Path, lines: list[str]) -> None:
    assert classify_both(tmp_path, lines) is None


@pytest.mark.parametrize(
    ("text", "clean"),
    [
        ("ESC[1;36m(APIServer pid=1)ESC[0;0m INFO ready", "(APIServer pid=1) INFO ready"),
        ("\\x1b[41m\\x1b[30mfail\\x1b[39m: service", "fail: service"),
        ("\\u001b[31mERROR\\u001b[0m x", "ERROR x"),
        # a Windows path with brackets is left alone
        ("C:\\data\\[set]\\x.log", "C:\\data\\[set]\\x.log"),
    ],
)
def test_round80_colour_codes_named_or_escaped(text: str, clean: str) -> None:
    assert strip_ansi(text) == clean


def test_round80_nvml_unknown_error_is_no_startup_phrase(tmp_path: Path) -> None:
    classify_as(
        tmp_path,
        [
            "Failed to initialize NVML: Unknown Error",
            "[100.0] NVRM: Xid (PCI:0000:00:0e): 31, pid=1, name=python, channel 0x1, intr 0. "
            "MMU Fault: ENGINE GRAPHICS faulted @ 0x7f00_00000000.",
        ],
        "illegal_memory_access",
        "unknown",
    )
