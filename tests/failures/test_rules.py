"""The rule table as data, downstream rules, detail typing and line cleaning."""

from __future__ import annotations

import pickle

import pytest

from pytest_blackwell.failures import CATEGORIES, DEFAULT_RULES, STAGES, Rule, classify_log
from pytest_blackwell.failures.detail import convert_groups, normalize_capability
from pytest_blackwell.failures.normalize import logical_lines, unflatten


def test_default_rules_use_the_public_vocabulary() -> None:
    names = [r.name for r in DEFAULT_RULES]
    assert len(names) == len(set(names)), "rule names are unique"
    for rule in DEFAULT_RULES:
        assert rule.category in CATEGORIES, rule
        assert rule.stage_hint is None or rule.stage_hint in STAGES, rule
    assert {r.category for r in DEFAULT_RULES} == set(CATEGORIES)


def test_wrappers_come_after_every_cause() -> None:
    first_wrapper = min(i for i, r in enumerate(DEFAULT_RULES) if r.wrapper)
    causes = [i for i, r in enumerate(DEFAULT_RULES) if not r.wrapper and r.category != "unknown"]
    assert max(causes) < first_wrapper


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"name": "x", "category": "Bad Name", "pattern": "x"}, "lower_snake"),
        ({"name": "x", "category": "ok", "pattern": "("}, "not a valid regular expression"),
        ({"name": "x", "category": "ok", "pattern": "x", "stage_hint": "boot"}, "stage_hint"),
        ({"name": "", "category": "ok", "pattern": "x"}, "non-empty"),
        ({"name": "x", "category": "ok", "pattern": "x", "keywords": "abc"}, "keywords"),
    ],
)
def test_bad_rules_are_rejected_with_a_clear_message(kwargs: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Rule(**kwargs)  # type: ignore[arg-type]


def test_rules_are_frozen_and_picklable() -> None:
    rule = DEFAULT_RULES[0]
    with pytest.raises(AttributeError):
        rule.category = "other"  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(rule)) == rule


def test_downstream_rule_with_a_new_category_wins_when_prepended() -> None:
    mine = Rule(
        "flashinfer_jit",
        "jit_failure",
        r"FlashInfer JIT build of (?P<kernel>\w+) failed",
        stage_hint="compile",
        keywords=("FlashInfer JIT",),
    )
    log = [
        "INFO 01-01 00:00:00 [x.py:1] Starting to load model m...",
        "WARNING 01-01 00:00:01 [x.py:1] FlashInfer JIT build of batch_decode failed",
        "RuntimeError: CUDA error: an illegal memory access was encountered",
    ]
    failure = classify_log(log, rules=(mine, *DEFAULT_RULES))
    assert failure is not None
    assert (failure.category, failure.stage) == ("jit_failure", "compile")
    assert failure.detail == {"kernel": "batch_decode"}
    assert failure.line == 2
    # Without the rule the later CUDA fault is the first error it knows.
    plain = classify_log(log)
    assert plain is not None
    assert plain.category == "illegal_memory_access"


def test_rules_must_be_rule_objects() -> None:
    with pytest.raises(TypeError, match="rules must be Rule objects"):
        classify_log(["x"], rules=["not a rule"])  # type: ignore[list-item]


def test_rule_ignored_at_quiet_levels() -> None:
    warning = (
        "WARNING 04-09 14:02:11 [__init__.py:26] Failed to import from vllm._C with "
        "ImportError('/x/_C.abi3.so: undefined symbol: _ZN3c10')"
    )
    # vLLM goes on after this warning: a later cause wins; alone, it is the answer.
    alone = classify_log([warning])
    assert alone is not None
    assert alone.category == "env_mismatch"
    assert alone.evidence["category"] == "rule extension_import_failed"
    later = classify_log(
        [warning, "RuntimeError: CUDA error: an illegal memory access was encountered"]
    )
    assert later is not None
    assert later.category == "illegal_memory_access"
    failure = classify_log(["ImportError: /x/_C.abi3.so: undefined symbol: _ZN3c10"])
    assert failure is not None
    assert failure.category == "env_mismatch"
    assert failure.detail["symbol"] == "_ZN3c10"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("120", "12.0"),
        ("sm_120a", "12.0"),
        ("90", "9.0"),
        ("8.9", "8.9"),
        ("(12, 0)", "12.0"),
        ("7", "7.0"),
    ],
)
def test_compute_capability_is_normalised(text: str, expected: str) -> None:
    assert normalize_capability(text) == expected


def test_detail_conversion_conventions() -> None:
    detail = convert_groups(
        {
            "free_gib": "2.5",
            "tried_bytes": "1.00 KiB",
            "signal": "11",
            "exit_code": "-6",
            "exit_code__2": "-9",
            "count": "42",
            "ratio": "0.5",
            "name": "x",
            "missing": None,
        }
    )
    assert detail == {
        "free_bytes": int(2.5 * 1024**3),
        "tried_bytes": 1024,
        "signal": "SIGSEGV",
        "exit_code": -6,
        "count": 42,
        "ratio": 0.5,
        "name": "x",
    }
    assert convert_groups({"exit_code": "139"}) == {"exit_code": 139, "signal": "SIGSEGV"}
    assert convert_groups({"signal": "Killed"}) == {"signal": "SIGKILL"}


def test_lines_are_cleaned_of_noise() -> None:
    raw = (
        "2025-03-10T15:07:20.8815301Z \x1b[31m(EngineCore_DP0 pid=7)\x1b[0m ERROR 03-10 "
        '15:07:20 [core.py:708]   File "x.py", line 3, in f'
    )
    (line,) = logical_lines(raw)
    assert line.text == '  File "x.py", line 3, in f'
    assert (line.tag, line.level) == ("EngineCore_DP0 pid=7", "ERROR")
    (line,) = logical_lines("[2025-03-10T15:07:20Z] | vllm-1  | WARNING: slow")
    assert (line.text, line.level) == ("slow", "WARNING")
    (line,) = logical_lines("(VllmWorker rank=1 pid=9) [rank1]:[E814 02:13:05.481 9 x.cc:1] boom")
    assert (line.text, line.tag, line.level) == ("boom", "VllmWorker rank=1 pid=9", "ERROR")
    (line,) = logical_lines("[2025-03-10 15:07:20 TP0] Scheduler hit an exception")
    assert (line.text, line.tag) == ("Scheduler hit an exception", "TP0")


def test_carriage_returns_split_progress_bars() -> None:
    lines = logical_lines("Loading:  10%\rLoading:  50%\rRuntimeError: boom\n")
    assert [x.text for x in lines] == ["Loading:  10%", "Loading:  50%", "RuntimeError: boom"]


def test_flattened_text_is_split_back_into_lines() -> None:
    flat = (
        "INFO 05-20 10:11:31 [loader.py:458] Loading weights took 20.91 seconds "
        "ERROR 05-20 10:11:49 [core.py:396] Traceback (most recent call last): "
        'File "/x/kv_cache_utils.py", line 543, in check    raise ValueError( '
        "ValueError: No available memory for the cache blocks. " + "x" * 200
    )
    pieces = unflatten(flat)
    assert pieces[0].startswith("INFO 05-20")
    assert "Traceback (most recent call last):" in pieces[1]
    assert pieces[2] == '  File "/x/kv_cache_utils.py", line 543, in check'
    assert pieces[3] == "    raise ValueError("
    assert pieces[4].startswith("ValueError: No available memory")
    assert unflatten("short line") == ["short line"]
