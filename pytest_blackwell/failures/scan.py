"""``classify_log``: classify a whole log (a file, a binary stream, or lines).

Files are read in large binary chunks. Between error blocks only lines containing one of the
classifier's keywords matter, so each chunk is searched for the keywords with ``bytes.find``
(C speed) and only those lines, with a few lines of context before them, are decoded and fed to
the :class:`StreamClassifier`; while an error block is open every line is fed. The result is the
same as feeding every line. Reading stops as soon as the classifier is done.

A seekable file is first read with the common error words only (a *quick* pass). Its answer is
kept only when no line it skipped around its error block could have changed it: the
``VERIFY_LINES`` lines before that block are searched for the keywords the quick pass left out (a
precursor warning that would have opened the block earlier, a traceback header, a cause without an
error word), and, when its stage rests on weaker evidence than a marker, a rule or the error's
own frames, the ``RING_LINES`` after the error (a wrapper there may name its stage).
If one is there, or the quick pass found no known cause, the file is read again with every
keyword.
"""

from __future__ import annotations

import functools
import importlib
import os
import sys
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import BinaryIO

from pytest_blackwell.failures.candidates import RING_LINES, SOFT_WINDOW
from pytest_blackwell.failures.classify import STALE_LINES, StreamClassifier
from pytest_blackwell.failures.model import Failure
from pytest_blackwell.failures.rules import Rule
from pytest_blackwell.failures.stages import HANG_TAIL_LINES
from pytest_blackwell.failures.unwrap import dedented, unbordered, unwrapped, wrap_width

CHUNK_BYTES = 1 << 22
WINDOW_BYTES = 1 << 17  # searched by all keywords in turn while it sits in the CPU cache
MAX_LINE_BYTES = 1 << 24  # a "line" longer than this is cut (binary data or a runaway paste)
#: Lines before the quick pass's error block that could still have opened a block reaching it.
VERIFY_LINES = STALE_LINES + RING_LINES + SOFT_WINDOW
#: The head of a file looked at for a paste indented or wrapped as a whole; such a paste no
#: larger than ``MAX_PASTE_BYTES`` is read whole and repaired first (see :mod:`.unwrap`).
PASTE_PEEK_BYTES = 1 << 18
MAX_PASTE_BYTES = 1 << 26
#: Past this many bytes of one log, the line breaks of the windows no keyword touches are counted
#: with numpy when it is installed (and from the start when something imported it already):
#: ``bytes.count`` reads a byte at a time, numpy about four times faster, which repays importing
#: it (some 50 ms) on logs of a few hundred megabytes.
NUMPY_COUNT_AFTER_BYTES = 1 << 26

#: ``count(body, lo, hi)``: the line breaks in ``body[lo:hi]``.
Counter = Callable[[bytes, int, int], int]


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
    if isinstance(source, Sequence):  # lines at hand: a paste may have been wrapped
        for number, line in enumerate(source, 1):
            _check_line(line, number)
        repaired = _repaired([line.rstrip("\r\n") for line in source])
        if repaired is not None:
            return _classify_repaired(classifier, *repaired)
    for line in source:
        _check_line(line, classifier.line_count + 1)
        classifier.feed(line)
        if classifier.done:
            break
    return classifier.result()


def _check_line(line: object, number: int) -> None:
    if not isinstance(line, str):
        raise TypeError(
            f"classify_log() expects lines of str, got {type(line).__name__} at line {number}"
        )


def _repaired(lines: list[str]) -> tuple[list[str], int | None] | None:
    """``(lines, wrap width)`` of a paste bordered, indented or wrapped as a whole, else
    ``None``."""
    unframed = unbordered(lines) or lines
    plain = dedented(unframed) or unframed
    width = wrap_width(plain)
    return (plain, width) if width is not None or plain is not lines else None


def _classify_repaired(
    classifier: StreamClassifier, lines: Sequence[str], width: int | None
) -> Failure | None:
    """Feed the lines of a repaired paste, those wrapped at ``width`` joined back together; line
    numbers stay those of the paste (a joined line counts as the physical lines it took)."""
    pieces_of = unwrapped(lines, width) if width is not None else ((ln, 1) for ln in lines)
    for line, pieces in pieces_of:
        classifier.feed(line)
        classifier.skip(pieces - 1)
        if classifier.done:
            break
    return classifier.result()


def classify_stream(
    stream: BinaryIO, *, rules: Sequence[Rule] | None = None, name: str = "<stream>"
) -> Failure | None:
    """Like :func:`classify_log` for an open binary stream (a file or standard input).

    A seekable stream is first scanned quickly for the common error words only; unless that
    finds a known cause, it is scanned again with every error word and rule keyword. The answer
    is the same as one thorough scan; the quick one just spares it on most failure logs. A
    seekable paste indented or hard-wrapped as a whole is repaired first and read line by line
    (:mod:`.unwrap`), as :func:`classify_log` does with a list of lines.
    """
    thorough = StreamClassifier(rules)
    if stream.seekable():
        start = stream.tell()
        wrapped = _repaired_paste(stream, name)
        if wrapped is not None:
            return _classify_repaired(thorough, *wrapped)
        stream.seek(start)
        quick = StreamClassifier(rules, quick=True)
        chunks: list[tuple[int, int]] = []
        failure = _classify(quick, stream, name, chunks)
        if quick.known_cause:
            quick_words = StreamClassifier(rules, quick=True).keywords  # before any marker
            extra = tuple(k for k in thorough.keywords if k not in quick_words)
            first = max(1, quick.cause_start - VERIFY_LINES)
            # (a wrapper right after the error may still name the stage the quick pass could
            # only guess: then the lines after the error are searched too)
            after = failure.line if failure is not None and not _settled(failure) else 0
            if not (
                _mentions(stream, chunks, first, quick.cause_start - 1, extra)
                or (after and _mentions(stream, chunks, after + 1, after + RING_LINES, extra))
            ):
                return failure
        stream.seek(start)
    return _classify(thorough, stream, name)


def _settled(failure: Failure) -> bool:
    """Whether the stage of ``failure`` comes from evidence that a wrapper after the error does
    not refine: a marker, an explicit event, a rule's hint or the error's own frames."""
    why = failure.evidence.get("stage", "")
    own_frame = why.startswith("frame ") and not why.endswith(")")
    return own_frame or why.startswith(("marker ", "stage event ", "rule "))


def _repaired_paste(stream: BinaryIO, name: str) -> tuple[list[str], int | None] | None:
    """``(lines, wrap width)`` of ``stream`` if it is a paste indented or wrapped as a whole,
    else ``None`` (its head is looked at first; a file too large for a paste is read as it is)."""
    head = stream.read(PASTE_PEEK_BYTES)
    peek = head.decode("utf-8", errors="replace").split("\n")
    if len(head) == PASTE_PEEK_BYTES or (peek and not peek[-1]):
        peek.pop()  # the last line may go on, or is the empty rest after the final newline
    if _repaired([line.rstrip("\r") for line in peek]) is None:
        return None
    body = head + stream.read(MAX_PASTE_BYTES - len(head) + 1)
    if len(body) > MAX_PASTE_BYTES:
        return None
    _check_text(body, name, 0)
    lines = [line.rstrip("\r") for line in body.decode("utf-8").split("\n")]
    if lines and not lines[-1]:
        lines.pop()
    return _repaired(lines)


def _mentions(
    stream: BinaryIO, chunks: list[tuple[int, int]], first: int, last: int, words: Sequence[str]
) -> bool:
    """Whether lines ``first`` to ``last`` of ``stream`` contain one of ``words``.

    ``chunks`` holds ``(lines before the chunk, offset)`` of each chunk read by :func:`_classify`.
    """
    lines_before, offset = next((c for c in reversed(chunks) if c[0] < first), (0, 0))
    stream.seek(offset)
    body = b""
    if last < first:
        return False
    while lines_before + body.count(b"\n") < last:
        more = stream.read(CHUNK_BYTES)
        if not more:
            break
        body += more
    lo = 0
    for _ in range(first - 1 - lines_before):
        lo = body.find(b"\n", lo) + 1
        if lo == 0:
            return False  # (the stream ends before line ``first``: its last line has no newline)
    hi = lo
    for _ in range(last - first + 1):
        hi = body.find(b"\n", hi) + 1
        if hi == 0:
            hi = len(body)
            break
    needles = [w.encode("utf-8") for w in words]
    return any(body.find(needle, lo, hi) != -1 for needle in needles)


def _classify(
    classifier: StreamClassifier,
    stream: BinaryIO,
    name: str,
    chunks: list[tuple[int, int]] | None = None,
) -> Failure | None:
    tail: deque[bytes] = deque(maxlen=HANG_TAIL_LINES)
    carry = b""
    scanned = 0
    count: Counter = _plain_newlines
    while not classifier.done:
        if chunks is not None:  # where each chunk starts, for a second look at some lines
            chunks.append((classifier.line_count, stream.tell() - len(carry)))
        block = _read_block(stream)
        if not block:
            break
        if len(block) < CHUNK_BYTES and not block.endswith(b"\n"):
            # the stream's last line, ended by the stream: read with the lines before it
            block += b"\n"
        if count is _plain_newlines and (scanned >= NUMPY_COUNT_AFTER_BYTES or _numpy_imported()):
            count = _numpy_newlines() or _plain_newlines
        scanned += len(block)
        cut = block.rfind(b"\n") + 1
        if cut == 0:  # no line ends in this block
            carry += block
            if len(carry) >= MAX_LINE_BYTES:
                _check_text(carry, name, classifier.line_count)
                _scan(classifier, carry, 0, len(carry), count)
                _remember_tail(tail, carry, 0, len(carry))
                carry = b""
            continue
        lo = 0
        if carry:  # finish the line begun in the previous block
            lo = block.find(b"\n") + 1
            line = carry + block[:lo]
            _check_text(line, name, classifier.line_count)
            _scan(classifier, line, 0, len(line), count)
            _remember_tail(tail, line, 0, len(line))
        _check_text(block, name, classifier.line_count, lo, cut)
        _scan(classifier, block, lo, cut, count)
        _remember_tail(tail, block, lo, cut)
        carry = block[cut:]
    if carry and not classifier.done:
        _check_text(carry, name, classifier.line_count)
        _scan(classifier, carry, 0, len(carry), count)
        _remember_tail(tail, carry, 0, len(carry))
    if not classifier.done:
        first = classifier.line_count - len(tail) + 1
        classifier.set_tail([(first + i, raw.decode("utf-8")) for i, raw in enumerate(tail)])
    return classifier.result()


def _read_block(stream: BinaryIO) -> bytes:
    """The next ``CHUNK_BYTES`` of ``stream``, fewer only at its end (a pipe may return less)."""
    block = stream.read(CHUNK_BYTES)
    while block and len(block) < CHUNK_BYTES:
        more = stream.read(CHUNK_BYTES - len(block))
        if not more:
            break
        block += more
    return block


def _remember_tail(tail: deque[bytes], body: bytes, lo: int, hi: int) -> None:
    """Keep the last lines of ``body[lo:hi]`` (whole lines) in ``tail``."""
    start = hi - 1 if body.endswith(b"\n", lo, hi) else hi
    for _ in range(HANG_TAIL_LINES):
        start = body.rfind(b"\n", lo, start)
        if start == -1:
            start = lo - 1
            break
    lines = body[start + 1 : hi].split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    tail.extend(lines)


def _check_text(body: bytes, name: str, before: int, lo: int = 0, hi: int | None = None) -> None:
    """Raise :class:`LogReadError` unless ``body[lo:hi]`` is UTF-8 text."""
    hi = len(body) if hi is None else hi
    nul = body.find(b"\x00", lo, hi)
    if nul != -1:
        line = before + body.count(b"\n", lo, nul) + 1
        raise LogReadError(
            f"{name}: not a text log: NUL byte at line {line} (binary data?); "
            "expected a UTF-8 engine log"
        )
    if not body.isascii():  # the whole buffer: cheaper than copying the part out
        part = body if (lo == 0 and hi == len(body)) else body[lo:hi]
        try:
            part.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = before + part.count(b"\n", 0, exc.start) + 1
            raise LogReadError(
                f"{name}: invalid UTF-8 at line {line}: {exc.reason}; expected a UTF-8 engine log"
            ) from None


def _feed_line(classifier: StreamClassifier, body: bytes, pos: int, hi: int) -> int:
    stop = body.find(b"\n", pos, hi)
    stop = hi if stop == -1 else stop
    classifier.feed(body[pos:stop].decode("utf-8"))
    return stop + 1


def _find(body: bytes, needle: bytes, pos: int, end: int) -> int:
    """Where ``needle`` is in ``body[pos:end]`` (``end`` if nowhere). A needle that starts with
    a line break finds the line after it, the line starting at ``pos`` included."""
    if needle[:1] != b"\n":
        at = body.find(needle, pos, end)
        return end if at == -1 else at
    if body.startswith(needle[1:], pos) and (pos == 0 or body[pos - 1 : pos] == b"\n"):
        return pos
    at = body.find(needle, pos, end)
    return end if at == -1 else at + 1


def _plain_newlines(body: bytes, lo: int, hi: int) -> int:
    return body.count(b"\n", lo, hi)


def _numpy_imported() -> bool:
    return "numpy" in sys.modules


@functools.cache
def _numpy_newlines() -> Counter | None:
    """A :data:`Counter` that uses numpy, or ``None`` when numpy cannot be imported (not
    installed, or an installation that fails as it loads: then ``bytes.count`` counts)."""
    try:
        np = importlib.import_module("numpy")
    except (ImportError, RuntimeError, OSError):
        return None
    newline, byte = ord("\n"), np.uint8

    def count(body: bytes, lo: int, hi: int) -> int:
        if hi - lo < 4096:  # not worth a view
            return body.count(b"\n", lo, hi)
        return int(np.count_nonzero(np.frombuffer(body, byte, hi - lo, lo) == newline))

    return count


def _scan(
    classifier: StreamClassifier,
    body: bytes,
    lo: int,
    hi: int,
    count: Counter,
) -> None:
    """Feed the whole lines of ``body[lo:hi]`` to ``classifier``, skipping lines no keyword can
    touch. The text is searched window by window so that the keyword passes hit the CPU cache;
    ``count`` counts the line breaks of the windows skipped whole."""
    pos = lo
    keywords: tuple[str, ...] = ()
    needles: list[bytes] = []
    nexts: list[int] = []
    win_end = lo
    while pos < hi and not classifier.done:
        if classifier.collecting:
            pos = _feed_line(classifier, body, pos, hi)
            continue
        if pos >= win_end or classifier.keywords != keywords:
            if pos >= win_end:
                win_end = min(hi, pos + WINDOW_BYTES)
                newline = body.find(b"\n", win_end, hi) if win_end < hi else -1
                win_end = hi if (newline == -1 or win_end >= hi) else newline + 1
            keywords = classifier.keywords
            needles = [k.encode("utf-8") for k in keywords]
            nexts = [-1] * len(needles)
        hit = win_end
        for i, needle in enumerate(needles):
            at = nexts[i]
            if at < pos:
                at = _find(body, needle, pos, win_end)
                nexts[i] = at
            if at < hit:
                hit = at
        if hit >= win_end:
            classifier.skip(count(body, pos, win_end))
            pos = win_end
            continue
        line_start = max(body.rfind(b"\n", pos, hit) + 1, pos)
        ctx_start = line_start
        for _ in range(RING_LINES):  # context for headless tracebacks
            if ctx_start <= pos:
                break
            ctx_start = max(body.rfind(b"\n", pos, ctx_start - 1) + 1, pos)
        classifier.skip(body.count(b"\n", pos, ctx_start))
        pos = ctx_start
        while pos <= line_start and pos < hi and not classifier.done:
            pos = _feed_line(classifier, body, pos, hi)
