"""Mechanisms of the fifteenth round (tuned on fresh28-fresh31): an xFormers install without
working CUDA kernels, a negative KV-cache budget, TensorRT reading a plan of another size,
cuDNN failing to initialise, Triton relaying CUDA's out of memory, ComfyUI running a workflow,
JAX's compile and a model load reporting its error. The lines are of our own, in the shapes the
tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both

NO_OPERATOR = [
    "NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:",
    "     query       : shape=(1, 2, 1, 40) (torch.float32)",
    "`fooF` is not supported because:",
]


def test_an_xformers_build_without_cuda_is_the_environment(tmp_path: Path) -> None:
    lines = [*NO_OPERATOR, "    xFormers wasn't build with CUDA support", "    dtype=torch.float32"]
    classify_as(tmp_path, lines, "env_mismatch", "unknown")


def test_no_operator_for_a_dtype_stays_a_dispatch_failure(tmp_path: Path) -> None:
    lines = [*NO_OPERATOR, "    dtype=torch.float32 (supported: {torch.float16})"]
    classify_as(tmp_path, lines, "dispatch_failure", "unknown")


@pytest.mark.parametrize(
    ("line", "category", "stage"),
    [
        (
            "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:",
            "env_mismatch",
            "startup",
        ),
        (
            "INFO 01-02 10:00:00 [gpu_worker.py:1] Available KV cache memory: -3.86 GiB",
            "kv_cache_oom",
            "kv_alloc",
        ),
        (
            "[E] [TRT] 1: [engine.cpp::deserialize::1] Error Code 1: Serialization (Mismatch "
            "between allocated memory size and expected size of serialized engine.)",
            "env_mismatch",
            "loading",
        ),
        (
            "jaxlib.xla_extension.XlaRuntimeError: FAILED_PRECONDITION: DNN library "
            "initialization failed. Look at the errors above for more details.",
            "env_mismatch",
            "unknown",
        ),
        ("RuntimeError('Triton Error [CUDA]: out of memory')", "device_oom", "unknown"),
        (
            "load model error: CUDA out of memory. Tried to allocate 938.00 MiB.",
            "device_oom",
            "loading",
        ),
        (
            "CUDA Setup failed despite GPU being available. CUDA runtime files not found in any "
            "environmental path.",
            "env_mismatch",
            "startup",
        ),
    ],
)
def test_library_words_of_round_15(tmp_path: Path, line: str, category: str, stage: str) -> None:
    classify_as(tmp_path, [line], category, stage)


@pytest.mark.parametrize("func", ["recursive_execute", "get_output_data", "map_node_over_list"])
def test_comfyui_running_a_workflow_is_execute(tmp_path: Path, func: str) -> None:
    lines = [
        "!!! Exception during processing !!! CUDA error: no kernel image is available for "
        "execution on the device",
        "Traceback (most recent call last):",
        f'  File "C:\\\\Comfy\\\\execution.py", line 3, in {func}',
        "    output_data = node_fn(**inputs)",
        "RuntimeError: CUDA error: no kernel image is available for execution on the device",
    ]
    classify_as(tmp_path, lines, "dispatch_failure", "execute")


def test_xla_compiling_is_compile(tmp_path: Path) -> None:
    lines = [
        "Traceback (most recent call last):",
        '  File "/srv/jax/_src/dispatch.py", line 9, in backend_compile',
        "    return backend.compile(module)",
        "jaxlib.xla_extension.XlaRuntimeError: FAILED_PRECONDITION: DNN library initialization "
        "failed.",
    ]
    classify_as(tmp_path, lines, "env_mismatch", "compile")


def test_cudnn_loaded_under_a_progress_bar_is_no_startup_prior(tmp_path: Path) -> None:
    """(Round 78 reads a bar's own unit of work, seconds of audio here: the work had started,
    as the labels of faster-whisper's lazily loaded cuDNN read it.)"""
    line = (
        "Working:   0%|          | 0/12.5 [00:00<?, ?sec/s]Could not load library "
        "libcudnn_foo.so.8. Error: libcudnn_foo.so.8: cannot open shared object file"
    )
    classify_as(tmp_path, [line], "env_mismatch", "execute")


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        (
            [
                "CUDA error: invalid argument",
                "  current device: 1, in function foo_graph_compute at foo.cu:2694",
                "  cudaGraphKernelNodeSetParams(graph->nodes[i], &graph->params[i])",
            ],
            "stream_capture",  # round 16: the failing graph API call names the category too
            "graph_capture",
        ),
        (["ERROR Decode cuda graph warmup failed: boom"], "unknown", "graph_capture"),
        (
            [
                "[FOO] [I] Creating CUDA graph instances for 196 batch sizes.",
                "RuntimeError: CUDA error: an illegal memory access was encountered",
            ],
            "illegal_memory_access",
            "graph_capture",
        ),
        (
            [
                '    output = self.collective_rpc("determine_available_memory")',
                '  File "/srv/foo/executor.py", line 243, in collective_rpc',
                "    result = get_response(w)",
                "RuntimeError: CUDA error: an illegal memory access was encountered",
            ],
            "illegal_memory_access",
            "profile",
        ),
        (
            [
                "ptxas /tmp/k.ptx, line 1008; error   : Unexpected instruction types specified for "
                "'_mma'"
            ],
            "dispatch_failure",
            "compile",
        ),
        (
            [
                "ERROR 07-31 11:57:33 foo.py:1] Engine iteration timed out. This should never "
                "happen!"
            ],
            "timeout",
            "execute",
        ),
    ],
)
def test_graph_rpc_ptxas_and_engine_words(
    tmp_path: Path, lines: list[str], category: str, stage: str
) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_torch_naming_its_graphs_is_no_graph_api_call(tmp_path: Path) -> None:
    line = (
        "RuntimeError: Error: accessing tensor output of CUDAGraphs that has been overwritten by "
        "a subsequent run."
    )
    classify_as(tmp_path, [line], "unknown", "unknown")


def test_a_warning_message_going_on_past_its_colon_is_no_failure(tmp_path: Path) -> None:
    lines = [
        "/srv/foo/connections.py:8: RuntimeWarning: Failed to read commit hash:",
        "No module named 'foo._version'",
        "  from foo.version import __version__",
        "INFO 09-25 19:05:46 api_server.py:526] Foo API server version dev",
    ]
    assert classify_both(tmp_path, lines) is None


def test_an_import_failing_after_a_finished_warning_is_read(tmp_path: Path) -> None:
    lines = [
        "/srv/foo/connections.py:8: RuntimeWarning: Failed to read commit hash.",
        "ModuleNotFoundError: No module named 'foo._C'",
    ]
    classify_as(tmp_path, lines, "env_mismatch", "startup")
