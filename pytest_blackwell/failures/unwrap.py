"""Undo what a paste did to a log's lines as a whole: a common indentation, a fixed-width wrap,
the right border of a terminal pane.

A log pasted into Markdown as an indented code block has every line indented by four spaces
(or a tab): :func:`dedented` takes that indentation off again, so that traceback frames are
told from messages. Only an indentation of four spaces or a tab shared by every non-blank line
counts (an excerpt of bare traceback frames shares two spaces and is left alone).

A log copied out of a terminal, an e-mail or some CI viewers arrives hard-wrapped: every line
longer than the width ``W`` is cut into pieces of exactly ``W`` characters, the last one shorter
(or padded with spaces up to ``W``). The cut lands anywhere, inside an error word or a function
name, so the pieces are joined back, without a separator, before the log is classified.

A log is taken as wrapped only with evidence: at least two different lines of the greatest
length ``W`` (60 or more), no longer line, and most of them (two at least) followed by a line
that continues them rather than starts a new record. A piece is joined to the next line only
when that line does not start a record (a bracket, a process tag, a level word, a date, an
indented frame, source line or table row) and the piece does not end in padding. Lines drawn
in boxes (Rich tracebacks) have one width by design and are left alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from pytest_blackwell.failures.frames import FRAME_HEAD

MIN_WIDTH = 60
#: Lines of a drawn box (Rich tracebacks, tables): all of one width by design, not wrapped; and
#: a rule drawn across it (IPython's dashes above the exception's header, which it pads to the
#: same width: "RuntimeError      Traceback (most recent call last)").
_BOX = re.compile(r"[│┃╭╰╮╯]|^\s*\||^[-=_*~]{20,}\s*$")
#: How a new log record starts (a continuation piece starts anywhere else); an indented line is
#: a frame, a source line or a table row, never the middle of a cut word.
_RECORD = re.compile(
    r"^(?:\[|\(|[A-Z]{3,}\b|\d{4}-\d\d-\d\d|\s{2}|Traceback |During handling|The above"
    # (a glog or absl record: "I0414 11:11:52.502198 4757 f.cc:473] ...")
    r"|[IWEF]\d{4} \d\d:\d\d:\d\d"
    # (NCCL's: "host:248281:248306 [1] NCCL INFO ...")
    r"|[\w.\-]+:\d+:\d+ \[\d+\] "
    # (a docker-compose service's gutter: "vllm-server  | ...")
    r"|[\w.\-]{1,40}\s+\| )"
)


def dedented(lines: Sequence[str]) -> list[str] | None:
    """``lines`` without the indentation all of them share, or ``None`` when there is none."""
    common: str | None = None
    for line in lines:
        if not line.strip():
            continue
        indent = line[: len(line) - len(line.lstrip())]
        if common is None:
            common = indent
        else:
            while not indent.startswith(common):
                common = common[:-1]
        if not common.startswith(("    ", "\t")):
            return None
    if not common:
        return None
    flat = [line[len(common) :] if line.strip() else "" for line in lines]
    return _frames_reindented(flat)


#: A Python traceback's frame line, flush with the margin once a paste's indentation is gone.
_FLUSH_FRAME = re.compile(FRAME_HEAD)


def _frames_reindented(lines: list[str]) -> list[str]:
    """``lines`` with the frames of a Python traceback given back the two spaces Python prints
    them with, and their source and caret lines below them two more: a paste that indented the
    whole traceback (kubectl's ``describe``, a nested list) did not make its frames flush. The
    other lines stay as they are."""
    out: list[str] = []
    in_frame = False
    for line in lines:
        if _FLUSH_FRAME.match(line):
            in_frame = True
        elif not (in_frame and line.startswith(" ")):
            in_frame = False
        out.append("  " + line if in_frame else line)
    return out


#: The right border of a terminal pane or window a paste was copied from, after padding: an
#: ``x`` where the terminal drew line-drawing characters as plain letters, or the bar itself.
_BARS = ("x", "│", "┃", "|")


def _right_border(line: str) -> str | None:
    """The bar that ends ``line`` after two blanks or more (:data:`_BARS`), else ``None``
    (looked at from the end: a long run of blanks costs one pass)."""
    body = line.rstrip()
    return body[-1] if body.endswith(_BARS) and body[-3:-1].isspace() else None


def unbordered(lines: Sequence[str]) -> list[str] | None:
    """``lines`` without the right border of the pane they were copied from, or ``None`` when
    there is none: at least three lines, and nine in ten of the non-blank ones, end in padding and
    the same bar, and none starts with one (a box drawn on both sides is a Rich traceback)."""
    filled = [line for line in lines if line.strip()]
    bars = [bar for bar in map(_right_border, filled) if bar is not None]
    if len(bars) < 3 or 10 * len(bars) < 9 * len(filled) or len(set(bars)) != 1:
        return None
    if any(line.lstrip()[:1] in ("│", "┃", "|") for line in filled):
        return None
    return [line.rstrip()[:-1].rstrip() if _right_border(line) else line for line in lines]


def _continues(piece: str, following: str, width: int) -> bool:
    """Whether ``following`` is the rest of ``piece``, cut at ``width``."""
    return (
        len(piece) == width
        and not piece.endswith("  ")  # padded up to the width: the line ended there
        and _BOX.search(piece) is None
        and bool(following.strip())
        and _RECORD.match(following) is None
        # (a line that starts as this one does is the next record of a program's own, of the
        # same length by chance: "bench 6 out of resource: ..." then "bench 7 ...")
        and following.split(maxsplit=1)[0] != piece.split(maxsplit=1)[0]
    )


def wrap_width(lines: Sequence[str]) -> int | None:
    """The width ``lines`` were hard-wrapped at, or ``None`` when they were not."""
    plain = [line for line in lines if _BOX.search(line) is None]
    width = max((len(line) for line in plain), default=0)
    if width < MIN_WIDTH:
        return None
    at_width = [i for i, line in enumerate(lines[:-1]) if len(line) == width]
    if len({lines[i] for i in at_width}) < 2:
        return None
    continued = sum(_continues(lines[i], lines[i + 1], width) for i in at_width)
    return width if continued >= 2 and 2 * continued >= len(at_width) else None


def _open_header(piece: str, following: str) -> bool:
    """Whether ``piece`` is a record header cut before its bracket closes (``[W:onnxruntime:
    Default, f.cc:`` with the rest on the next line), wherever a wrapped paste cut it."""
    return (
        piece.startswith("[")
        and piece.count("[") > piece.count("]")
        and bool(following.strip())
        and _RECORD.match(following) is None
    )


def unwrapped(lines: Sequence[str], width: int) -> Iterator[tuple[str, int]]:
    """``(line, pieces)``: each logical line of ``lines`` wrapped at ``width``, put back
    together, with the number of physical lines it took. (In a wrapped paste, a record header
    whose bracket is still open goes on on the next line too, wherever the line was cut.)"""
    i = 0
    while i < len(lines):
        joined, count = lines[i], 1
        while i + count < len(lines) and (
            _continues(lines[i + count - 1], lines[i + count], width)
            or _open_header(joined, lines[i + count])
        ):
            joined += lines[i + count]
            count += 1
        yield joined, count
        i += count
