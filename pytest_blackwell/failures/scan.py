"""``classify_log``: classify a whole log (a file, a binary stream, or lines).

Files are read in large binary chunks. Between error blocks only lines containing one of the
classifier's keywords matter, so each chunk is searched for the keywords with ``bytes.find``
(C speed) and only those lines, with a few lines of context before them, are decoded and fed to
the :class:`StreamClassifier`; while an error block is open every line is fed. The result is the
same as feeding every line. Reading stops as soon as the classifier is done.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterable, Sequence
from typing import BinaryIO

from pytest_blackwell.failures.classify import RING_LINES, StreamClassifier
from pytest_blackwell.failures.model import Failure
from pytest_blackwell.failures.rules import Rule
from pytest_blackwell.failures.stages import HANG_TAIL_LINES

CHUNK_BYTES = 1 << 22
MAX_LINE_BYTES = 1 << 24  # a "line" longer than this is cut (binary data or a runaway paste)


class LogReadError(ValueError):
    """A log that cannot be read as text (binary data, invalid UTF-8)."""


def classify_log(
    source: str | os.PathLike[str] | Iterable[str], *, rules: Sequence[Rule] | None = None
) -> Failure | None:
    """The first error of a log, or ``None`` when it has none.

    ``source`` is a path (``str`` or path-like) or an iterable of lines. Raises ``OSError`` when
    the file cannot be opened and :class:`LogReadError` when it is not UTF-8 text.
    """
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as stream:
            return classify_stream(stream, rules=rules, name=os.fspath(source))
    if isinstance(source, (bytes, bytearray)):
        raise TypeError("classify_log() takes a path or an iterable of str lines, not bytes")
    classifier = StreamClassifier(rules)
    for line in source:
        if not isinstance(line, str):
            raise TypeError(
                f"classify_log() expects lines of str, got {type(line).__name__} at line "
                f"{classifier.line_count + 1}"
            )
        classifier.feed(line)
        if classifier.done:
            break
    return classifier.result()


def classify_stream(
    stream: BinaryIO, *, rules: Sequence[Rule] | None = None, name: str = "<stream>"
) -> Failure | None:
    """Like :func:`classify_log` for an open binary stream (a file or standard input)."""
    classifier = StreamClassifier(rules)
    tail: deque[bytes] = deque(maxlen=HANG_TAIL_LINES)
    carry = b""
    base = 0  # lines before the current chunk
    while not classifier.done:
        block = stream.read(CHUNK_BYTES)
        if not block:
            break
        data = carry + block if carry else block
        cut = data.rfind(b"\n") + 1
        if cut == 0 and len(data) < MAX_LINE_BYTES:
            carry = data
            continue
        if cut == 0:
            cut = len(data)
        body, carry = data[:cut], data[cut:]
        _check_text(body, name, base)
        _scan(classifier, body, base)
        base += body.count(b"\n") if body.endswith(b"\n") else body.count(b"\n") + 1
        _remember_tail(tail, body)
    if carry and not classifier.done:
        _check_text(carry, name, base)
        _scan(classifier, carry, base)
        _remember_tail(tail, carry)
    if not classifier.done:
        first = base - len(tail) + (1 if carry else 0) + 1
        classifier.set_tail(
            [(first + i, raw.decode("utf-8")) for i, raw in enumerate(tail)]
        )
    return classifier.result()


def _remember_tail(tail: deque[bytes], body: bytes) -> None:
    lines = body.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    tail.extend(lines[-HANG_TAIL_LINES:])


def _check_text(body: bytes, name: str, base: int) -> None:
    nul = body.find(b"\x00")
    if nul != -1:
        line = base + body.count(b"\n", 0, nul) + 1
        raise LogReadError(
            f"{name}: not a text log: NUL byte at line {line} (binary data?); "
            "expected a UTF-8 engine log"
        )
    if not body.isascii():
        try:
            body.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = base + body.count(b"\n", 0, exc.start) + 1
            raise LogReadError(
                f"{name}: invalid UTF-8 at line {line} (byte offset {exc.start} of that chunk): "
                f"{exc.reason}; expected a UTF-8 engine log"
            ) from None


def _scan(classifier: StreamClassifier, body: bytes, base: int) -> None:
    """Feed ``body`` (whole lines) to ``classifier``, skipping lines no keyword can touch."""
    pos = 0
    end = len(body)
    lineno = base  # lines of this body consumed so far, as a count from the log start
    keywords: tuple[str, ...] = ()
    needles: list[bytes] = []
    nexts: list[int] = []
    while pos < end and not classifier.done:
        if classifier.collecting:
            stop = body.find(b"\n", pos)
            stop = end if stop == -1 else stop
            classifier.feed(body[pos:stop].decode("utf-8"))
            lineno += 1
            pos = stop + 1
            continue
        if classifier.keywords != keywords:  # stage markers switch on and off
            keywords = classifier.keywords
            needles = [k.encode("utf-8") for k in keywords]
            nexts = [-2] * len(needles)
        hit = end
        for i, needle in enumerate(needles):
            at = nexts[i]
            if at < pos:
                at = body.find(needle, pos)
                nexts[i] = end if at == -1 else at
                at = nexts[i]
            hit = min(hit, at)
        if hit >= end:
            classifier.skip(body.count(b"\n", pos) + (0 if body.endswith(b"\n") else 1))
            return
        line_start = body.rfind(b"\n", pos, hit) + 1
        ctx_start = line_start
        for _ in range(RING_LINES):  # context for headless tracebacks
            if ctx_start <= pos:
                break
            ctx_start = body.rfind(b"\n", pos, ctx_start - 1) + 1
        ctx_start = max(ctx_start, pos)
        skipped = body.count(b"\n", pos, ctx_start)
        classifier.skip(skipped)
        lineno += skipped
        pos = ctx_start
        # Feed the context lines and the hit line itself.
        while pos <= line_start and pos < end and not classifier.done:
            stop = body.find(b"\n", pos)
            stop = end if stop == -1 else stop
            classifier.feed(body[pos:stop].decode("utf-8"))
            lineno += 1
            pos = stop + 1
