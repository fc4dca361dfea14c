"""Mechanisms of the hundred-and-fourteenth round, tuned on the read half of the forty-fourth
batch (RL post-training stacks, NeMo and Megatron-Core, hybrid and state-space models, CUDA
Python libraries).

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # a traceback whose indentation a paste halved (frames at one space, source at two),
        # cut at its last source line: never silent, its frames still tell the stage
        (
            [
                ' File "/opt/app/train.py", line 10, in resume',
                "  self.model.load_state_dict(state)",
                ' File "/opt/app/optim.py", line 20, in load_state_dict',
                "  assert state.dtype == torch.int16",
            ],
            "unknown",
            "loading",
        ),
        # a rank's bare number in front of each line of its traceback
        (
            [
                "[1]: Traceback (most recent call last):",
                '[1]:   File "/srv/run.py", line 5, in main',
                "[1]:     model = load_checkpoint(path)",
                '[1]:   File "/srv/ckpt.py", line 9, in load_checkpoint',
                "[1]:     validate(shards)",
            ],
            "unknown",
            "loading",
        ),
        # torch's distributed checkpoint read back
        (
            [
                "Traceback (most recent call last):",
                '  File "/usr/lib/python3/site-packages/torch/distributed/checkpoint/'
                'state_dict_loader.py", line 200, in local_step',
                "    local_plan = planner.create_local_plan()",
                "RuntimeError: Missing key in checkpoint state_dict: model.layers.0.weight",
            ],
            "unsupported_config",
            "loading",
        ),
        # uv's and a legacy setup.py's failed builds, as pip's failed wheel already was
        (["  \u00d7 Failed to build `flash-attn==2.8.0`"], "env_mismatch", "compile"),
        (
            ["\u00d7 python setup.py bdist_wheel did not run successfully.", "│ exit code: 1"],
            "env_mismatch",
            "compile",
        ),
        # an error in the output of pip's build of a package is the build's
        (
            [
                "  Getting requirements to build wheel ... error",
                "  error: subprocess-exited-with-error",
                "  ╰─> [9 lines of output]",
                "      ModuleNotFoundError: No module named 'torch'",
            ],
            "env_mismatch",
            "compile",
        ),
        # Transformer Engine's older words for no attention backend for the inputs
        (
            ["ValueError: No dot product attention support for the provided inputs!"],
            "dispatch_failure",
            "unknown",
        ),
        # a check that asks for a command-line switch
        (
            [
                "ValueError: The connector does not support this cache layout. Please set "
                "`--disable-some-feature`."
            ],
            "unsupported_config",
            "startup",
        ),
        # a function that restores what a checkpoint holds
        (
            [
                "Traceback (most recent call last):",
                '  File "/srv/api.py", line 9, in train',
                "    resume.setup(trainer)",
                '  File "/srv/resume.py", line 45, in _try_restore_tokenizer',
                "    tokenizer = load_context(path)",
            ],
            "unknown",
            "loading",
        ),
        # a loader saying it reads a distributed checkpoint, then a job runner's error
        (
            [
                "Loading distributed checkpoint with TensorStoreLoadShardedStrategy",
                "Error executing job with overrides: ['trainer.devices=1']",
            ],
            "unknown",
            "loading",
        ),
    ],
)
def test_round114_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    "lines",
    [
        # a list printed with its indices is no rank's output
        ["Failures:", "[0]:", "  time      : 2026-01-01_10:00:00", "done"],
        # pip building a wheel that succeeds
        [
            "  Building wheel for causal-conv1d (pyproject.toml) ... done",
            "Successfully built causal-conv1d",
            "Successfully installed causal-conv1d-1.5.0",
        ],
    ],
)
def test_the_new_words_raise_no_false_alarm(tmp_path: Path, lines: list[str]) -> None:
    assert classify_both(tmp_path, lines) is None


def test_a_source_line_at_two_spaces_needs_its_frame_at_one(tmp_path: Path) -> None:
    """Two-space lines are a halved traceback's source lines only under a one-space frame line;
    under a flush frame line the next lines are not taken as its source."""
    failure = classify_both(
        tmp_path,
        [
            'File "/srv/app.py", line 3, in main',
            "  run()",
            "RuntimeError: CUDA error: an illegal memory access was encountered",
        ],
    )
    assert failure is not None
    assert failure.category == "illegal_memory_access"


# --- the review of round 114: what the new words must not read ---


def test_a_finished_build_is_no_compile_for_a_later_step(tmp_path: Path) -> None:
    """A wheel built and installed under Docker BuildKit, then another step's error: the build
    is over, whether BuildKit's step prefix stays on the lines or the excerpt cut pip's last
    word."""
    classify_as(
        tmp_path,
        [
            "#9 9.301   Building wheel for flash-attn (setup.py): started",
            "#9 600.1   Building wheel for flash-attn (setup.py): finished with status 'done'",
            "#9 601.0 Successfully installed flash-attn-2.7.4",
            "#9 DONE 601.5s",
            "#10 [6/7] RUN python /app/smoke_test.py",
            "#10 2.130 RuntimeError: CUDA error: an illegal memory access was encountered",
        ],
        "illegal_memory_access",
        "unknown",
    )


def test_pip_s_metadata_step_is_no_build(tmp_path: Path) -> None:
    """A resolver's error after pip prepared a package's metadata is no compile."""
    failure = classify_both(
        tmp_path,
        [
            "  Preparing metadata (pyproject.toml) ... done",
            "ERROR: Could not find a version that satisfies the requirement torch==9.9.9",
        ],
    )
    assert failure is not None
    assert failure.stage != "compile"


def test_a_switch_a_request_needs_is_no_startup(tmp_path: Path) -> None:
    """vLLM's refusal of a request's input names the switch it needs ("You must set
    `--enable-prompt-embeds` to input `prompt_embeds`"): found as the request is served."""
    failure = classify_both(
        tmp_path, ["ValueError: You must set `--enable-prompt-embeds` to input `prompt_embeds`."]
    )
    assert failure is not None
    assert failure.stage != "startup"


def test_a_file_missing_from_a_folder_of_presets_is_a_setting(tmp_path: Path) -> None:
    """A settings file missing from its folder of presets or configs is a configuration that
    cannot be read, as a missing config.json is; a missing data file is not."""
    classify_as(
        tmp_path,
        ["FileNotFoundError: [Errno 2] No such file or directory: 'training_presets/#.json'"],
        "unsupported_config",
        "unknown",
    )
    failure = classify_both(
        tmp_path, ["FileNotFoundError: [Errno 2] No such file or directory: 'data/train.json'"]
    )
    assert failure is not None
    assert failure.category != "unsupported_config"
