"""The literal pre-test of a rule: never rules out a line its pattern matches."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_blackwell.failures.needles import NO_NEEDLES, Needles, needles
from pytest_blackwell.failures.normalize import logical_lines
from pytest_blackwell.failures.rule import Rule, checked_rules
from pytest_blackwell.failures.rules import DEFAULT_RULES

HERE = Path(__file__).parent


@pytest.mark.parametrize(
    ("pattern", "words", "folded"),
    [
        (r"out of memory", ("out of memory",), ()),
        # the longest word wins; alternatives all count
        (r"CUDA error: (?:an )?illegal memory access", ("illegal memory access",), ()),
        (r"NCCL WARN|ncclSystemError", ("NCCL WARN", "ncclSystemError"), ()),
        (r"(?i)shared memory", (), ("shared memory",)),
        (r"Required: (?i:Shared Memory)", (), ("shared memory",)),
        (r"(?i)x(?-i:Killed)", ("Killed",), ()),
        # a group repeated at least once must appear; named groups are followed
        (r"(?:Xid )+\d+ (?P<what>MMU Fault)", ("MMU Fault",), ()),
        (r"(?>atomic group)", ("atomic group",), ()),
    ],
)
def test_needles_are_the_words_every_match_holds(
    pattern: str, words: tuple[str, ...], folded: tuple[str, ...]
) -> None:
    assert needles(pattern) == Needles(words, folded)


@pytest.mark.parametrize(
    "pattern",
    [
        r"\d+\s\w+",  # no literal at all
        r"(?:foo)?bar|\w+",  # one alternative needs nothing
        r"(?:out of memory)*",  # may match the empty string
        r"(?=lookahead)\d",  # what a lookahead asserts is not followed
        r"[",  # not a pattern: no needles (compiling it reports the error)
    ],
)
def test_patterns_without_a_common_word_rule_nothing_out(pattern: str) -> None:
    assert needles(pattern) == NO_NEEDLES
    assert NO_NEEDLES.admits("nothing in common here")


def test_folded_words_are_compared_on_ascii_lines_only() -> None:
    found = needles(r"(?i)kill")
    assert found.admits("the process was KILLED")
    assert not found.admits("the process exited")
    # Unicode case folding pairs the Kelvin sign with k, which str.lower() keeps apart
    assert found.admits("\u212aill")


def test_rule_match_skips_lines_without_its_words() -> None:
    rule = Rule("r", "device_oom", r"(?i)out of (?P<what>memory)")
    assert rule.match("CUDA Out Of Memory") == {"what": "Memory"}
    assert rule.match("all good") is None


def test_checked_rules_says_what_is_not_a_rule() -> None:
    with pytest.raises(TypeError, match=r"rules must be Rule objects, got str: 'oom'"):
        checked_rules([*DEFAULT_RULES[:2], "oom"])


def _real_lines() -> list[str]:
    logs = sorted((HERE / "corpus").glob("*/*.log")) + sorted((HERE / "logs").rglob("*.log"))
    return [
        line.text
        for path in logs
        for raw in path.read_text(encoding="utf-8").splitlines()
        for line in logical_lines(raw)
        if line.text.strip()
    ]


def test_no_rule_rules_out_a_real_line_it_matches() -> None:
    """Soundness on every line of the corpus and of the engine logs: pre-test, then regex."""
    lines = _real_lines()
    assert len(lines) > 10_000
    unsound = [
        (rule.name, line[:160])
        for rule in DEFAULT_RULES
        for line in lines
        if rule.regex.search(line) and not rule.needles.admits(line)
    ]
    assert not unsound
    assert all(rule.needles != NO_NEEDLES for rule in DEFAULT_RULES), "every rule has a word"
