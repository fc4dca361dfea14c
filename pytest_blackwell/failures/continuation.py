"""Lines a paste broke apart: a traceback above an exception line, a message wrapped in two.

People paste logs from terminals that wrap lines at a fixed width (sometimes mid-word), through
tools that lose the indentation of traceback frames. These helpers put such pieces back together
for the classifier (private to it).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any

from pytest_blackwell.failures.candidates import (
    CHAIN,
    LEVEL_ONLY,
    STRONG,
    WEAK,
    WRAPPER,
    Candidate,
)
from pytest_blackwell.failures.errorwords import SOURCE_AT_LINE
from pytest_blackwell.failures.evidence import GENERIC_RULES
from pytest_blackwell.failures.frames import IPYTHON_FRAME
from pytest_blackwell.failures.lineshapes import EXCEPTION_TYPE, is_frame, is_header
from pytest_blackwell.failures.normalize import LogicalLine, logical_lines
from pytest_blackwell.failures.rule import Rule

#: ``text -> (rule, detail)`` of the first rule matching ``text``, else ``None``.
MatchFn = Callable[[str], "tuple[Rule, dict[str, Any]] | None"]

#: Headers that name where a program stopped, with the message on the next line: a Rust panic's
#: since Rust 1.73, a native abort at its source line that names only the kind of error (ggml's
#: "ggml-cann.cpp:67: CANN error", then "CANN error: EZ9903: ... is not implemented").
_PANIC_AT = re.compile(
    r"\bpanicked at [^\s']+:\d+:\d+:$"
    r"|" + SOURCE_AT_LINE + r" (?:[A-Za-z]\w* )?(?:error|Error|ERROR)$"
    r"|^(?:[Ee]rror|ERROR)$"  # (or the word alone)
)
#: Lines after an exception line that may continue its wrapped message.
MAX_WRAPPED = 3
#: An exception's type with no message.
_BARE_TYPE = re.compile(r"^\s*" + EXCEPTION_TYPE + r"(?:Error|Exception)\s*$")
#: A line that starts a new error rather than continuing the message above it.
_NEW_ERROR = re.compile("^" + EXCEPTION_TYPE + r"(?:Error|Exception|Warning)\b:?")
#: Python's multiprocessing announcing the traceback of a child process that raised ("Process
#: SpawnProcess-1:"): the start of a report of its own.
_PROCESS_BANNER = re.compile(r"^Process [\w\-]+:$")


#: An exception whose message is a native library's traceback (TVM's FFI: "ValueError:
#: Traceback (most recent call last):", the C++ frames below): the Python frames above are its own.
_RAISED_TRACEBACK = re.compile("^" + EXCEPTION_TYPE + r"(?:Error|Exception): Traceback \(most")


def own_frames(
    ring: Iterable[tuple[int, str]], lineno: int, before: Sequence[LogicalLine], line: LogicalLine
) -> list[str]:
    """The frames above ``line``, an exception whose message opens a traceback (see
    :data:`_RAISED_TRACEBACK`), as :func:`lookback` reads them; none for any other header."""
    if _RAISED_TRACEBACK.match(line.text) is None:
        return []
    return [text for _, text in lookback(ring, lineno, before, line.tag)]


def lookback(
    ring: Iterable[tuple[int, str]], lineno: int, before: Sequence[LogicalLine], tag: str
) -> list[tuple[int, str]]:
    """The traceback right before the current line (same process ``tag``), read back from ``ring``.

    A paste that flattened a traceback onto one line (``lineno``) may have put its frames before
    the exception on that very line: ``before``, its logical lines read so far.

    Tracebacks printed without a logger prefix only reveal themselves at their exception line
    (the one with the error word), so their header and frames are recovered here. A paste that
    lost its indentation leaves source lines (``raise ValueError(``) between the frames, also
    right above the exception line: up to two such lines at a time still belong.
    """
    frames: list[tuple[int, str]] = []
    stray: list[tuple[int, str]] = []  # unindented source lines, interleaved lines
    for lineno, raw in reversed(list(ring)):
        # An untagged exception line may end a tagged traceback (the paste lost its prefix).
        pieces = [p for p in logical_lines(raw) if p.tag == tag or not tag]
        if not raw.strip():
            continue  # some servers print blank lines between frames
        if pieces and is_header(pieces[-1].text):
            frames[:0] = [(lineno, pieces[-1].text)]
            break
        if not pieces or not all(is_frame(p.text) for p in pieces):
            if len(stray) < 2:
                stray[:0] = [(lineno, p.text) for p in pieces]
                continue
            break
        frames[:0] = [(lineno, p.text) for p in pieces] + stray
        stray = []
    inline = [(lineno, p.text) for p in before if p.tag == tag or not tag]
    if any(is_frame(t) for _, t in inline):
        frames = [*frames, *inline]
    framed = any(t.lstrip().startswith('File "') or IPYTHON_FRAME.match(t) for _, t in frames)
    return frames if framed else []


def is_wrapped(line: LogicalLine) -> bool:
    """Whether ``line`` may be the rest of a message wrapped onto a new line.

    Not a log record of its own (no level), not a traceback header, chain marker, frame or a
    new exception line.
    """
    text = line.text.strip()
    return bool(
        text
        and not line.level
        and not is_header(text)
        and not text.startswith(CHAIN)
        and not text.startswith(("File ", "^", "~"))
        and not _NEW_ERROR.match(text)
        and not _PROCESS_BANNER.match(text)
    )


def restates(head: str, rest: str) -> bool:
    """Whether ``rest`` is the message of ``head``, an exception's type alone, that names the
    type again (ComfyUI's report: "Exception Type: RuntimeError", then "Exception Message:
    RuntimeError: ...")."""
    return bool(_BARE_TYPE.match(head)) and rest.strip().startswith(f"{head.strip()}:")


def continues(head: str, line: LogicalLine) -> bool:
    """Whether ``line`` may go on with the message ``head``: wrapped, or its type restated."""
    return is_wrapped(line) or restates(head, line.text)


def joins(head: str, rest: str) -> list[str]:
    """``head`` continued by ``rest``: cut mid-word, or cut at a space."""
    rest = rest.strip()
    return [head.rstrip() + rest, head.rstrip() + " " + rest]


def wrapped_cause(
    said: Candidate | None, lineno: int, line: LogicalLine, match: MatchFn
) -> Candidate | None:
    """``said`` (an error line no rule knew) read again with ``line``, the rest of its message
    wrapped onto the next line, when together they name a known cause; else ``None``.

    A Rust panic's header names only where it panicked (a native abort's, where it stopped and
    the kind of error): the next line is its message, whatever it looks like, and is read with it
    even when no rule knows it (its words may still tell)."""
    if said is None or said.rank != LEVEL_ONLY or said.line != lineno - 1:
        return None
    panic = _PANIC_AT.search(said.text) is not None and bool(line.text.strip())
    if not panic and not is_wrapped(line):
        return None
    found = rejoin([said.text], line.text, match, alone=False)
    if found is None:
        if not panic:
            return None
        rest = line.text.strip()
        return replace(said, text=f"{said.text} {rest}", traceback=[*said.traceback, rest])
    text, rule, detail = found
    return replace(reread(said, text, rule, {**said.detail, **detail}),
                   rank=WEAK if rule.weak else STRONG)  # fmt: skip


def message_below(said: Candidate | None, lineno: int, line: LogicalLine) -> Candidate | None:
    """``said`` (a printed error line that ends in a colon, ``message_below``) with ``line``, the
    next line (after one blank line at most), kept as its message for its words; else ``None``.
    The line is still read for itself: it may be an error of its own."""
    if said is None or not said.message_below or not line.text.strip() or line.level:
        return None  # (a logger's record of its own is no message of the line above)
    # (any other line in between has been read as the message already)
    if lineno - said.line not in (1, 2):
        return None
    return replace(said, traceback=[*said.traceback, line.text.strip()], message_below=False)


#: The heading of an error's causes in Rust's anyhow report ("Error: Could not create backend",
#: a blank line, "Caused by:", then each cause indented, numbered when there are several).
_CAUSED_BY = re.compile(r"(?:^|[|\s])Caused by:\s*$")  # (also behind a gutter: "svc-1  | ")
#: How many lines below its error anyhow's heading of the causes may be (a blank between).
_CAUSES_GAP = 3
#: A cause's indentation and its number in anyhow's list ("    0: ").
_CAUSE_NUMBER = re.compile(r"^\s*(?:\d+: )?")


def first_cause(
    said: Candidate | None,
    lineno: int,
    line: LogicalLine,
    cand: Candidate | None,
    ring: Sequence[tuple[int, str]],
) -> Candidate | None:
    """The error when ``line`` is the first cause that an anyhow report lists under ``said``, an
    error line no rule knows: the cause (``cand`` if the line is an error of its own) says what
    failed, the line above it only what was being done ("Could not create backend"). A cause
    that is no error line of its own is read as the rest of the error's message, as anyhow
    prints the chain on one line ("Could not create backend: Could not start backend: ...").
    Else ``None``."""
    if said is None or said.rank not in (LEVEL_ONLY, WRAPPER) or said.category != "unknown":
        return None
    if not ring or not 0 < lineno - said.line <= _CAUSES_GAP + 1:
        return None
    heading, raw = ring[-1]  # (the line right above: the heading, a cause right below it)
    if heading != lineno - 1 or heading == said.line or not _CAUSED_BY.search(raw):
        return None
    text = _CAUSE_NUMBER.sub("", line.text)
    if not text:
        return None
    traceback = [*said.traceback, "Caused by:", text]
    if cand is None:
        return replace(said, text=f"{said.text}: {text}", traceback=traceback)
    return replace(cand, text=text, start=said.start, traceback=traceback)


def reread(cand: Candidate, text: str, rule: Rule, detail: dict[str, Any]) -> Candidate:
    """``cand`` read again as ``text``, the whole message, which ``rule`` knows."""
    hint_from = f"rule {rule.name}" if rule.stage_hint else ""
    return replace(cand, category=rule.category, text=text, detail=detail,
                   hint=rule.stage_hint, rule=rule.name, hint_from=hint_from)  # fmt: skip


def rejoin(
    heads: list[str], rest: str, match: MatchFn, alone: bool, adjacent: bool = False
) -> tuple[str, Rule, dict[str, Any]] | None:
    """A known cause in one of ``heads`` continued by ``rest`` (or in ``rest`` when ``alone``).

    ``heads`` are the readings of the message so far (each earlier break cut mid-word or at a
    space). Only a specific cause counts: not a relay, a wrapper, an unknown or a generic rule;
    except after an exception's type alone when ``rest`` is the line right after it
    (``adjacent``): that is its message, whatever it says.
    """
    readings = [text for head in heads for text in joins(head, rest)]
    for text in [*readings, rest.strip()] if alone else readings:
        found = match(text)
        if found is not None:
            rule, detail = found
            generic = rule.weak or rule.wrapper or rule.category == "unknown"
            if not generic and rule.name not in GENERIC_RULES:
                return text, rule, detail
    if adjacent and len(heads) == 1 and _BARE_TYPE.match(heads[0]):
        # an exception's type alone, its message on the next line (ComfyUI's error report:
        # "Exception Type: RuntimeError", "Exception Message: ..."): one message, whatever it says
        # (the message may name the type again: "RuntimeError: RuntimeError: ...")
        text = rest.strip() if restates(heads[0], rest) else f"{heads[0].strip()}: {rest.strip()}"
        found = match(text)
        return None if found is None else (text, *found)
    return None
