"""A warning that mentions an exception is not a failure; an error line still is."""

from __future__ import annotations

from pytest_blackwell.failures import classify_log

FALLBACK = (
    "(MainProcess pid=15350) WARNING 12-02 20:06:27 [utils.py:597] Failed to create oneDNN "
    "linear, fallback to torch linear. Exception: could not create a primitive descriptor for "
    "the matmul primitive."
)


def test_a_fallback_warning_quoting_an_exception_is_no_failure() -> None:
    assert classify_log(["INFO 12-02 20:06:20 [core.py:1] starting", FALLBACK]) is None


def test_the_same_words_at_error_level_are_a_failure() -> None:
    failure = classify_log([FALLBACK.replace(" WARNING ", " ERROR ")])
    assert failure is not None
    # (oneDNN's own words: no primitive for these inputs, a missing kernel since round 102)
    assert failure.category == "dispatch_failure"
    assert "oneDNN" in failure.first_error


def test_a_later_engine_death_is_not_hidden_by_the_warning() -> None:
    failure = classify_log(
        [
            FALLBACK,
            "(EngineCore_DP0 pid=15400) ERROR 12-02 20:07:00 [multiproc_executor.py:150] Worker "
            "proc VllmWorker-0 died unexpectedly (exit code: -9)",
        ]
    )
    assert failure is not None
    assert failure.category == "engine_died"
    assert failure.detail.get("signal") == "SIGKILL"
