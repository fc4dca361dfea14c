"""Mechanisms of the eighty-fifth round, tuned on half of the eighteenth batch (``fresh376/``,
``fresh378/``, ``fresh380/``, ``fresh382/``, measured before reading with round 84); the other
half (``fresh377/``, ``fresh379/``, ``fresh381/``, ``fresh383/``) and the older unread sets stay
unread.

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both

from pytest_blackwell.failures.normalize import logical_lines


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # a colour code whose escape and reset the paste lost, before a Ray process tag: the
        # traceback behind it is read
        (
            [
                "`[36m(main_task pid=4242) Traceback (most recent call last):",
                '`[36m(main_task pid=4242)   File "/x/vllm/worker/model_runner.py", line 10, in '
                "load_model",
                "`[36m(main_task pid=4242)     self.model = get_model()",
                "`[36m(main_task pid=4242) RuntimeError: boom",
            ],
            "unknown",
            "loading",
        ),
        # a key a configuration must hold, asserted, in a settings module's check
        (
            [
                "Traceback (most recent call last):",
                '  File "/x/vllm/config.py", line 1764, in _get_and_verify_max_len',
                '    assert "factor" in rope_scaling',
                "AssertionError",
            ],
            "unsupported_config",
            "startup",
        ),
        # a program's own words for VRAM that ran short, misspelt as non-native writers do
        (
            ["Error: the render failed: you probably have unsufficient VRAM for this resolution"],
            "device_oom",
            "unknown",
        ),
        # an import of a name the installed package lacks, relayed by a plugin loader
        (
            [
                "Cannot import /x/custom_nodes/some-node module for custom nodes: cannot import "
                "name '_fused_op' from 'torch.utils.checkpoint' (/x/torch/utils/checkpoint.py)"
            ],
            "env_mismatch",
            "startup",
        ),
        # Inductor's check of the C++ compiler it was told to use
        (["RuntimeError: Compiler: cl is not found."], "env_mismatch", "compile"),
        # torch's expand refusing the sizes a model file gave
        (
            [
                "RuntimeError: The expanded size of the tensor (1024) must match the existing "
                "size (1056) at non-singleton dimension 1.  Target sizes: [1024, 1024]."
            ],
            "unsupported_config",
            "unknown",
        ),
        # Triton's CompilationError flattened onto one line
        (
            [
                'CompilationError: at 1:0: def _kernel( ^ ValueError("type fp8e4nv not supported '
                "in this architecture. The supported fp8 dtypes are ('fp8e4b15', 'fp8e5')\")"
            ],
            "dispatch_failure",
            "compile",
        ),
        # Inductor's record of a kernel that did not compile
        (
            [
                "E0101 10:00:00.000000 4242 torch/_inductor/runtime/triton_heuristics.py:445] "
                "[2/0] Triton compilation failed: triton_poi_fused_add_0"
            ],
            "unknown",
            "compile",
        ),
        # a build that failed, in a tool's own words
        (["Error in Build, Please check the log in: /x/models/"], "unknown", "compile"),
        # a program announcing its own start, Rich's padded level and a time with a dash
        (
            [
                "10:00:01-152772 INFO     Starting InvokeAI",
                "10:00:01-168563 INFO     Python: version=3.10.9",
                "10:00:01-326615 ERROR    Git: None / rev-parse HEAD",
            ],
            "unknown",
            "startup",
        ),
        # a model file its hub does not have
        (
            [
                "requests.exceptions.HTTPError: 404 Client Error: Not Found for url: "
                "https://huggingface.co/org/model/resolve/main/model_index.json"
            ],
            "unsupported_config",
            "unknown",
        ),
        # transformers asking for support of a model's architecture: no GPU is named
        (
            [
                "ValueError: FooForCausalLM does not support Flash Attention 2.0 yet. Please "
                "request to add support where the model is hosted, or request the support for "
                "this architecture: https://github.com/x/y/issues/1"
            ],
            "unsupported_config",
            "unknown",
        ),
        # a logger's record that ends in a colon, its message on an unprefixed line below
        (
            [
                "INFO     [agent] Step 1",
                "ERROR    [agent] Result failed 1/3 times:",
                " Internal Server Error",
            ],
            "unknown",
            "execute",
        ),
    ],
)
def test_round85_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    "lines",
    [
        # a harmless warning whose path an editor made a link, its message on the next line
        [
            "(pid=7) [/x/vllm/connections.py:8](https://vscode-remote+ssh.vscode-cdn.net/x/vllm/"
            "connections.py:8): RuntimeWarning: Failed to read commit hash:",
            "(pid=7) No module named 'vllm._version'",
        ],
        # a report of what is available, an import error kept as the reason a part is not
        [
            "Found backend triton: {'available': False, 'disabled': True, 'unavailable_reason': "
            "\"ImportError: No module named 'triton'\", 'capabilities': []}"
        ],
    ],
)
def test_round85_no_failure(tmp_path: Path, lines: list[str]) -> None:
    assert classify_both(tmp_path, lines) is None


def test_round85_ipython_context_lines_are_no_activity(tmp_path: Path) -> None:
    # the numbered lines Colab shows around the arrowed one did not run: no weights were read
    classify_as(
        tmp_path,
        [
            "ValueError                                Traceback (most recent call last)",
            "[<ipython-input-15-4feb>](https://localhost:8080/#) in <cell line: 21>()",
            '     20 print("=> Creating model")',
            "---> 21 model = Recap(args)",
            "     22 model = model.cuda()",
            "     23 model.load_state_dict(state_dict, strict=True)",
            "",
            "5 frames",
            "[/x/site-packages/x/modeling_utils.py](https://localhost:8080/#) in _check(cls, cfg)",
            "   1730             if not cls._ok:",
            "-> 1731                 raise ValueError(",
            "",
            "ValueError: something the constructor refused",
        ],
        "unsupported_config",
        "unknown",
    )


def test_round85_a_flattened_ray_dump_splits_at_a_tag_with_the_node_address() -> None:
    line = (
        "The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR "
        "Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of "
        "file. There are some potential root causes. (1) The process is killed by SIGKILL by OOM "
        "killer due to high memory usage. (Trainer pid=77, ip=10.0.0.1) [rank3]:[E416 "
        "13:21:26.967375581 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective "
        "operation timeout: WorkNCCL(SeqNum=8, OpType=BROADCAST) ran for 600089 milliseconds."
    )
    pieces = logical_lines(line)
    assert [p.tag for p in pieces] == ["", "Trainer pid=77"]
    assert pieces[1].text.startswith("[Rank 1] Watchdog caught collective operation timeout")
