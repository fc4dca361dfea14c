"""Mechanisms of the thirty-eighth round (tuned on the whole corpus): an application's
dispatcher (ComfyUI's executor) runs whatever node it was given, so the node an error report
names says more than its frames; vLLM V1's ``_initialize_kv_caches`` runs the profiling run,
the KV-cache allocation and the warm-up, so alone it tells none of them. The lines are of our
own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

from classify_helpers import classify_as

#: A ComfyUI error report: the node, then the executor's traceback.
_REPORT = [
    "## Error Details",
    "- **Node Type:** {node}",
    "- **Exception Type:** torch.OutOfMemoryError",
    "- **Exception Message:** Allocation on device",
    "## Stack Trace",
    "```",
    '  File "/srv/ComfyUI/execution.py", line 327, in execute',
    "    output_data, output_ui, has_subgraph = get_output_data(obj, input_data_all)",
    "",
    '  File "/srv/ComfyUI/execution.py", line 202, in get_output_data',
    "    return_values = _map_node_over_list(obj, input_data_all, obj.FUNCTION)",
    "```",
]


def _report(node: str) -> list[str]:
    return [line.replace("{node}", node) for line in _REPORT]


def test_a_loader_node_named_by_the_report_is_loading(tmp_path: Path) -> None:
    failure = classify_as(tmp_path, _report("CheckpointLoaderSimple"), "device_oom", "loading")
    assert failure.evidence["stage"].startswith("activity")


def test_another_node_under_the_same_executor_is_execute(tmp_path: Path) -> None:
    classify_as(tmp_path, _report("KSampler"), "device_oom", "execute")


def test_the_executor_alone_still_tells_execute(tmp_path: Path) -> None:
    lines = [
        "!!! Exception during processing !!! CUDA error: an illegal memory access was encountered",
        "Traceback (most recent call last):",
        '  File "/srv/ComfyUI/execution.py", line 202, in get_output_data',
        "    return_values = _map_node_over_list(obj, input_data_all, obj.FUNCTION)",
        "RuntimeError: CUDA error: an illegal memory access was encountered",
    ]
    classify_as(tmp_path, lines, "illegal_memory_access", "execute")


def test_the_engine_cores_kv_cache_set_up_alone_tells_no_stage(tmp_path: Path) -> None:
    lines = [
        "Traceback (most recent call last):",
        '  File "/env/lib/python3.12/site-packages/vllm/v1/engine/core.py", line 90, in __init__',
        "    num_gpu_blocks, num_cpu_blocks, kv_cache_config = self._initialize_kv_caches(",
        '  File "/env/lib/python3.12/site-packages/vllm/v1/engine/core.py", line 170, in '
        "_initialize_kv_caches",
        "    available_gpu_memory = self.model_executor.determine_available_memory()",
        "RuntimeError: CUDA error: an illegal memory access was encountered",
    ]
    # the call on the innermost source line names the stage; the frame alone would not
    classify_as(tmp_path, lines, "illegal_memory_access", "profile")
    classify_as(tmp_path, lines[:4] + lines[-1:], "illegal_memory_access", "unknown")
