"""Mechanisms of the ninety-seventh round, tuned on the read half of the twenty-eighth batch
(vLLM V1's engine core, Triton and torch.compile, LMDeploy and DeepSpeed, Blackwell GPUs).

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both, classify_mid_log

_CORE = "/usr/lib/python3.12/site-packages/vllm/v1/engine/core.py"


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # a supervisor relaying its child's output behind its own label, cut inside a frame
        (
            [
                "[/bin/sh]: Process EngineCore_0:",
                "[/bin/sh]: Traceback (most recent call last):",
                f'[/bin/sh]:   File "{_CORE}", line 90, in __init__',
                "[/bin/sh]:     num_gpu_blocks = self._initialize_kv_caches(vllm_config)",
                f'[/bin/sh]:   File "{_CORE}", line 150, in _initialize_kv_caches',
                "[/bin/sh]:     kv_cache_configs = get_kv_cache_config(",
            ],
            "unknown",
            "kv_alloc",
        ),
        # a wrapper's error told of one request being served
        (
            [
                "ERROR 02-27 03:29:31 [omni.py:963] [Orchestrator] Stage 0 error on request "
                "7_ab12: EngineCore encountered an issue. See stack trace (above) for the root "
                "cause."
            ],
            "engine_died",
            "execute",
        ),
        # an RL trainer pushing new weights into its rollout engine, the traceback cut
        (
            [
                "(RolloutWorker pid=7) Traceback (most recent call last):",
                '(RolloutWorker pid=7)   File "/app/rl/rollout.py", line 80, in '
                "update_weights_from_tensor",
                "(RolloutWorker pid=7)     self.engine.collective_rpc(",
                '(RolloutWorker pid=7)   File "/app/rl/rollout.py", line 90, in coll',
            ],
            "unknown",
            "loading",
        ),
        # Triton's ptxas run failing without a word of its own: a JIT build failing
        (["RuntimeError: `ptxas` failed with error code 4294967295:"], "env_mismatch", "compile"),
        # an MLIR diagnostic at a kernel's Python source, indented by the paste
        (
            [
                "  /opt/venv/lib/python3.12/site-packages/x/kernels/moe.py:574:24: error: operand "
                "#0 does not dominate this use"
            ],
            "unknown",
            "compile",
        ),
        # Inductor's autotuner recording a kernel choice that does not fit
        (
            [
                "[rank1]:E1012 00:28:45.382967 507 site-packages/torch/_inductor/"
                "select_algorithm.py:1322] [0/0] Exception out of resource: shared memory, "
                "Required: 163840, Hardware limit: 101376. Reducing block sizes or `num_stages` "
                "may help. for benchmark choice TritonTemplateCaller(/tmp/x.py, ACC_TYPE='f32')"
            ],
            "smem_limit",
            "compile",
        ),
        # AOTAutograd tracing a graph for torch.compile's backend
        (
            [
                "Traceback (most recent call last):",
                '  File "/env/lib/python3.10/site-packages/functorch/_src/aot_autograd.py", '
                "line 579, in create_aot_dispatcher_function",
                "    return aot_dispatch_base(flat_fn, args, aot_config)",
                '  File "/env/lib/python3.10/site-packages/torch/cuda/random.py", line 64, in '
                "set_rng_state",
                "    _lazy_call(cb)",
                "RuntimeError: something internal went wrong",
            ],
            "unknown",
            "compile",
        ),
        # DeepSpeed's op builder left without an architecture to build for on this GPU
        (
            [
                "RuntimeError: Unable to load fused_ops op due to no compute capabilities "
                "remaining after filtering"
            ],
            "dispatch_failure",
            "unknown",
        ),
        # a model refusing a dtype, with the plural verb
        (["AssertionError: Falcon models only support bf16"], "unsupported_config", "unknown"),
        # (an architecture named stays a missing kernel)
        (["RuntimeError: This kernel only supports Hopper GPUs"], "dispatch_failure", "unknown"),
    ],
)
def test_round97_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_a_rank_tag_is_still_the_process_not_a_label(tmp_path: Path) -> None:
    lines = [
        "[rank3]: Traceback (most recent call last):",
        '[rank3]:   File "/x/train.py", line 3, in main',
        "[rank3]:     f()",
        "[rank3]: RuntimeError: boom",
    ]
    failure = classify_as(tmp_path, lines, "unknown", "unknown")
    assert failure.detail["process"] == "rank3"


def test_a_bracketed_level_is_no_label(tmp_path: Path) -> None:
    assert classify_both(tmp_path, ["[WARNING]: could not load plugin x, error 3"]) is None


def test_an_optimizer_updating_weights_is_no_loading(tmp_path: Path) -> None:
    lines = [
        "Traceback (most recent call last):",
        '  File "/x/optim.py", line 3, in update_weights',
        "    w -= lr * g",
        "RuntimeError: boom",
    ]
    classify_as(tmp_path, lines, "unknown", "unknown")


@pytest.mark.parametrize(
    ("line", "category"),
    [
        ("RuntimeError: `ptxas` failed with error code 4294967295:", "env_mismatch"),
        (
            "RuntimeError: Unable to load x op due to no compute capabilities remaining after "
            "filtering",
            "dispatch_failure",
        ),
    ],
)
def test_a_round97_line_is_found_mid_log(tmp_path: Path, line: str, category: str) -> None:
    classify_mid_log(tmp_path, line, category)
