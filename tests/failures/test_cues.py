"""An error no rule knows is read for the general words of a category (``failures.cues``).

The lines are of our own, in the shapes libraries print errors (a Python exception, a
``name: error: ...`` line, an ``ERROR`` record), with wordings that no rule of the table names.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_both

from pytest_blackwell.failures.cues import cue_category


@pytest.mark.parametrize(
    ("line", "category"),
    [
        ("RuntimeError: libfoo failed with error out of memory", "device_oom"),
        ("ERROR: the loader ran out of host memory for the staging area", "device_oom"),
        (
            "fooserve: error: model needs 30 GiB which exceeds the available GPU memory",
            "device_oom",
        ),
        ("RuntimeError: could not reserve the kv cache: not enough memory left", "kv_cache_oom"),
        ("Exception: mamba state pool: unable to allocate 512 blocks", "kv_cache_oom"),
        (
            "RuntimeError: tile kernel wants 140000 bytes of shared memory, over the limit",
            "smem_limit",
        ),
        ("ERROR: worker 3 was killed, maybe memory", "engine_died"),
        ("RuntimeError: the child process crashed while decoding", "engine_died"),
        (
            "RuntimeError: worker hit an illegal memory access in the sampler",
            "illegal_memory_access",
        ),
        ("Exception: step 12 of the batch never finished in its window", "timeout"),
        ("RuntimeError: the reply to step 3 never completed", "timeout"),
        ("RuntimeError: ProcessGroupNCCL reports a broken communicator", "nccl_error"),
        ("RuntimeError: grouped gemm path: no support for Lovelace parts", "dispatch_failure"),
        (
            "NotImplementedError: paged attention kernel does not support fp8 on this GPU",
            "dispatch_failure",
        ),
        ("ValueError: the MoE kernel is not supported for head size 80", "dispatch_failure"),
        ("RuntimeError: no suitable kernel found for this problem", "dispatch_failure"),
        ("RuntimeError: foo setup failed, see the build notes", "env_mismatch"),
        ("RuntimeError: this build requires CUDA 12.8 or newer", "env_mismatch"),
        ("Error: missing field `num_experts` at line 12", "unsupported_config"),
        (
            "AssertionError: sliding window is only supported with the default scheduler",
            "unsupported_config",
        ),
        ("KeyError: unknown model type 'foonet'", "unsupported_config"),
        (
            "Assertion failed: the window length (mWindow) must be > 0 (foo.h:12)",
            "unsupported_config",
        ),
        ("RuntimeError: PagedPrefill failed to dispatch with dtype Float8", "dispatch_failure"),
        (
            '{"error":"Server error: Expected head_size <= 256 to be true, but got false."}',
            "dispatch_failure",
        ),
        (
            "Current device can not allocate a block larger than 4GB! Tried to allocate 6 GiB",
            "device_oom",
        ),
        ("foo.go:12: error starting runner: runner process has terminated", "engine_died"),
        ('Error: Post "http://127.0.0.1:9000/api/run": EOF', "engine_died"),
        (
            'level=ERROR msg="unable to load the cuda driver library" error="symbol lookup failed"',
            "env_mismatch",
        ),
        ("Exception: the model server not ready within 600 s", "timeout"),
    ],
)
def test_an_unknown_error_is_read_for_the_words_of_a_category(
    tmp_path: Path, line: str, category: str
) -> None:
    failure = classify_both(tmp_path, ["starting", line])
    assert failure is not None
    assert failure.category == category, failure
    assert failure.evidence["category"].startswith("cue "), failure.evidence


@pytest.mark.parametrize(
    "line",
    [
        # a CUDA runtime error string: its wording is the runtime's, "not supported" is no refusal
        "RuntimeError: CUDA error: invalid configuration, not supported on this device",
        "foo.cu:12: CUDA error 217: peer access is not supported between these two devices",
        # an error without the words of any category
        "RuntimeError: expected the queue to be empty",
        "AssertionError",
    ],
)
def test_an_error_without_the_words_of_a_category_stays_unknown(tmp_path: Path, line: str) -> None:
    failure = classify_both(tmp_path, [line])
    assert failure is not None
    assert failure.category == "unknown", failure


def test_cues_read_only_the_error_itself(tmp_path: Path) -> None:
    lines = [
        "WARNING: preview cache left off: it ran out of host memory in the last run",
        "RuntimeError: expected the queue to be empty",
    ]
    failure = classify_both(tmp_path, lines)
    assert failure is not None
    assert (failure.category, failure.first_error) == ("unknown", lines[1]), failure


def test_a_known_signature_is_not_read_again(tmp_path: Path) -> None:
    # a rule names it: the cue words ("not supported") do not change the rule's category
    line = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (not supported)"
    failure = classify_both(tmp_path, [line])
    assert failure is not None
    assert failure.category == "device_oom"
    assert failure.evidence["category"].startswith("rule "), failure.evidence


@pytest.mark.parametrize(
    ("text", "category"),
    [
        # a signal is the verdict, whatever the killed process was short of
        ("worker was sent SIGKILL! Perhaps out of memory?", "engine_died"),
        # the KV cache is the more specific shortage
        ("failed to allocate the KV cache blocks", "kv_cache_oom"),
        # a refusal naming an architecture is a missing kernel, a plain refusal a configuration's
        ("fused MoE not supported on sm_120", "dispatch_failure"),
        ("speculative decoding not supported with pipeline parallelism", "unsupported_config"),
    ],
)
def test_the_more_specific_category_wins(text: str, category: str) -> None:
    found = cue_category([text])
    assert found is not None
    assert found[0] == category, found


@pytest.mark.parametrize(
    "last",
    [
        [
            "loader 0.4.1",
            'model "foo-27b" requires more system memory (20 GiB) than is free (4 GiB)',
        ],
        ["serving on :8080", "  x request 3: OOM while decoding the 25K-token prompt", "bye"],
    ],
)
def test_an_excerpt_ending_in_a_failure_told_in_plain_words_is_no_healthy_log(
    tmp_path: Path, last: list[str]
) -> None:
    failure = classify_both(tmp_path, last)
    assert failure is not None, last
    assert failure.category == "device_oom", failure
    assert failure.first_error in last


@pytest.mark.parametrize(
    "lines",
    [
        # at a quiet level it is the program's own notice
        ['INFO 01-01 00:00:00 model "foo" requires more system memory than is free, using disk'],
        # routine: a scheduler taking requests back to run them later
        ["Decode out of memory happened. #retracted_reqs: 2, #new_token_ratio: 0.1 -> 0.3"],
        # plain words far from the end of the excerpt are no failure of it
        ["the cache ran out of memory once and was resized", *[f"step {i} done" for i in range(5)]],
    ],
)
def test_plain_words_elsewhere_are_no_failure(tmp_path: Path, lines: list[str]) -> None:
    assert classify_both(tmp_path, lines) is None
