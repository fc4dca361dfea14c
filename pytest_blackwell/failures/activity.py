"""What a log shows happening right before its first error: activity evidence for the stage.

Pasted excerpts often keep, above the error, a few lines of what the program was doing: a
server answering requests, checkpoint shards being read, an engine being built, a library
setting itself up while it is imported. When neither markers, rule hints, frames nor the error
message itself tell the stage, the nearest such line among the ``RING_LINES`` lines before the
error does (``evidence["stage"]`` is ``activity '<words>'``).

The table (:mod:`.activity_words`) is general: each pattern is an activity, in the libraries'
documented wording, not the wording of one log. Precedence (see ``evidence.decide``): events
and markers, rule hints and frames (the latest of them) > the error's own words (phrases) >
activity before the error > priors.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import TypeGuard

from pytest_blackwell.failures.activity_words import ACTIVITY, BAR_BLOCKS
from pytest_blackwell.failures.candidates import RING_LINES
from pytest_blackwell.failures.lineshapes import IPYTHON_ARROW, IPYTHON_CONTEXT
from pytest_blackwell.failures.normalize import logical_lines
from pytest_blackwell.failures.stages import later_stage

#: The activities that name what was done (all but the bare progress bar, which any stage shows).
_NAMED = ACTIVITY[:-1]
#: What the evidence of an activity shown after the last stage marker ends with.
AFTER_MARKER = " after the stage marker"
#: Lines whose messages and activity are kept once read: the recent lines each error line looks
#: back over (a few rings' worth), so a log with many error lines reads each line once.
_CACHED_LINES = 512


#: The words an error message starts with (or a glog record's mark): what a line shows before
#: them is not the error.
_ERROR_WORD = re.compile(
    r"rror|ERROR|xception|(?P<record>\[[EF]\d* )"
    r"|(?P<plain>Could not|Cannot|Unable to|Failed to|Assertion)\b"  # (a C assert's "Assertion `")
)


#: pip's last word on an install it finished ("Successfully installed bitsandbytes-0.45.1"): the
#: build shown before it is over, and what fails after it is another command's (also behind
#: Docker BuildKit's step and time, "#9 601.0 ", or BuildKit starting its next step); Megatron
#: done with its model, building its datasets next.
_BUILD_OVER = re.compile(
    r"^\s*(?:#\d+ [\d.]+ )?Successfully (?:installed|built) \S|^#\d+ \[[\w\s/-]*\d+/\d+\] "
    r"|^\W*building train, validation, and test datasets\b|\[after model, optimizer, and learning"
    # (or a load it says it finished: "Finished loading data in 0.05 seconds")
    r"|^(?:\[[^\]]{1,40}\] ){0,3}(?i:finished loading\b)"
)

#: A progress bar that a process printed its message into, the message right after the bar's
#: blocks (" 33%|█████Memory access fault by GPU node-3 ...").
_CUT_BAR = re.compile(BAR_BLOCKS + r"(?=[A-Za-z])")


def _before_error(text: str) -> str:
    """What ``text`` shows before its first error word, the word's whole token excluded (or the
    progress bar the message was printed into, when it has no such word)."""
    m = _ERROR_WORD.search(text)
    if m is None:
        bar = _CUT_BAR.match(text)
        return "" if bar is None else bar.group(0)
    head = text[: m.start()]
    if m.group("record") or m.group("plain"):
        return head
    return head[: max(head.rfind(" "), head.rfind("\t")) + 1]


def activity_at(
    ring: Iterable[tuple[int, str]], lineno: int, raw: str, text: str, marked: tuple[int, str]
) -> tuple[str, str] | None:
    """:func:`activity_before`, with what a later stage's activity says once a marker has spoken.

    ``marked`` is the line of the last stage marker and its stage. A named activity of a later
    stage shown after that line says the marked stage is over: the context is made and the
    runner has started (``llama runner started``), the autotuner has finished its warm-up. Its
    evidence ends with :data:`AFTER_MARKER` (see :func:`moved_on`).
    """
    recent = _recent(ring, lineno, raw, text)  # (read once for both questions)
    since, stage = marked
    if since:
        found = activity_stage((shown for n, shown in recent if n > since), _NAMED)
        if found is not None and found[0] != stage and later_stage((found[0], stage)) == found[0]:
            return found[0], found[1] + AFTER_MARKER
    return activity_stage(shown for _, shown in recent)


def moved_on(activity: tuple[str, str] | None) -> TypeGuard[tuple[str, str]]:
    """Whether ``activity`` was shown after the last stage marker, of a later stage."""
    return activity is not None and activity[1].endswith(AFTER_MARKER)


def activity_before(
    ring: Iterable[tuple[int, str]], lineno: int, raw: str, text: str
) -> tuple[str, str] | None:
    """The activity among the recent physical lines (``ring``) before an error at ``lineno``.

    ``raw`` is the physical line the error ``text`` was read from, if known: what it showed
    before the error was printed onto it (a progress bar) is the nearest activity.
    """
    return activity_stage(shown for _, shown in _recent(ring, lineno, raw, text))


def _recent(
    ring: Iterable[tuple[int, str]], lineno: int, raw: str, text: str
) -> list[tuple[int, str]]:
    """What the lines before an error at ``lineno`` showed, oldest first, each with its line
    number (see :func:`activity_before` for ``raw`` and ``text``)."""
    recent = [(n, shown) for n, line in ring if n > lineno - RING_LINES for shown in _shown(line)]
    at = raw.find(text) if raw and text else -1
    if at > 0:  # (what cleaning took off the line: "(pid=3) ")
        recent.append((lineno, raw[:at]))
    if at >= 0:  # the error read with what the line showed first ("(12 / 55 tokens)CUDA error")
        recent.append((lineno, _before_error(text)))
    return recent


@functools.lru_cache(maxsize=_CACHED_LINES)
def _shown(raw: str) -> tuple[str, ...]:
    """The messages of a physical line, after the first of them as the line showed it when
    cleaning took something off before it (a progress bar a traceback's header was printed onto,
    a report's bold label): both are read, the clean one for the patterns anchored at its start.
    (Cached: every error line reads the same recent lines again.)"""
    lines = tuple(ln.text for ln in logical_lines(raw))
    at = raw.find(lines[0]) if lines and lines[0] else -1
    return (raw[: at + len(lines[0])], *lines) if at > 0 else lines


@functools.lru_cache(maxsize=_CACHED_LINES)
def _line_activity(
    text: str, patterns: tuple[tuple[re.Pattern[str], str], ...]
) -> tuple[str, str] | None:
    """The activity one line shows, if any (cached, as :func:`_shown`)."""
    for pattern, stage in patterns:
        m = pattern.search(text)
        if m is not None:
            return stage, f"activity {m.group(0).strip()!r}"
    return None


def activity_stage(
    before: Iterable[str], patterns: tuple[tuple[re.Pattern[str], str], ...] = ACTIVITY
) -> tuple[str, str] | None:
    """``(stage, evidence)`` from the nearest activity line among ``before`` (oldest first).

    A progress bar wrapped after its bar's edge (``Loading pipeline components...: 100%|`` then
    ``| 7/7 [00:00<00:00, 9.03it/s]``) is read as one line: its words are on the first part.
    """
    lines: list[str] = []
    glued = ""
    for text in before:
        if lines and text.lstrip().startswith("|") and lines[-1].rstrip().endswith("|"):
            glued = lines[-1].rstrip() + text.lstrip()
            text = glued
        elif glued and text in glued:
            text = glued  # (what the same line shows without its edge)
        else:
            glued = ""
        lines.append(text)
    if any(IPYTHON_ARROW.match(text) for text in lines):
        # IPython's numbered lines around the arrowed one were shown, not run
        lines = [text for text in lines if not IPYTHON_CONTEXT.match(text)]
    for text in reversed(lines):
        if _BUILD_OVER.match(text):
            return None  # what was built before it is done: another command runs now
        found = _line_activity(text, patterns)
        if found is not None:
            return found
    return None
