"""The shapes of traceback lines: headers, frames and their source lines, as printed and pasted.

A traceback is read by the shape of its lines before their words: where one opens (Python's
header, IPython's, a Go or JVM stack), which lines are its frames (also in IPython's, Go's and a
managed runtime's forms, or cut by a paste), and which line is a frame's source that a paste set
at the margin. The classifier's candidates and blocks (:mod:`.candidates`, :mod:`.classify`)
and the readers of a log's end (:mod:`.tail`, :mod:`.continuation`) share these predicates.
"""

from __future__ import annotations

import re

from pytest_blackwell.failures.frames import CUT_HEAD, IPYTHON_FRAME
from pytest_blackwell.failures.native_stacks import GO_FRAME, GO_GOROUTINE, MANAGED_FRAME

HEADERS = ("Traceback (most recent call last)", "Exception Group Traceback")
#: Python's report of an exception a destructor raised, which the garbage collector prints.
DESTRUCTOR_REPORT = "Exception ignored in"
#: A Python exception's type as printed, qualified by its module (``torch.OutOfMemoryError``).
EXCEPTION_TYPE = r"(?:[A-Za-z_]\w*\.)*[A-Z]\w*"


def is_header(text: str) -> bool:
    """A traceback header, also at the end of a message (``EngineCore hit an exception: ...``),
    or Python's report of an exception a destructor raised (``Exception ignored in: ...``): a
    report of its own, never the rest of the error above it."""
    return (
        # (and Android's runtime announcing a thread's uncaught exception: the exception follows,
        # the header itself the error when the excerpt ends there)
        text.startswith((*HEADERS, DESTRUCTOR_REPORT, "FATAL EXCEPTION: "))
        or text.endswith(HEADERS[0] + ":")
        or _IPYTHON_HEADER.match(text) is not None
        or GO_GOROUTINE.match(text) is not None  # a Go crash dump's stack (Ollama's runner)
        # a JVM or .NET stack, which opens below the exception it belongs to
        or MANAGED_FRAME.match(text) is not None
    )


#: A frame line whose start a paste cut, from inside its path on.
_HEAD_CUT = re.compile("^" + CUT_HEAD + r", in [\w<>.]+\s*$")
#: What people put where they cut lines out of a traceback.
ELISIONS = ("...", "\u2026", "[...]", "(...)", "<snip>", "[snip]")


#: IPython's and Jupyter's traceback: its header names the exception first ("CalledProcessError
#: <padding> Traceback (most recent call last)"), its frames are "path.py in func(args)"
#: (:data:`.frames.IPYTHON_FRAME`), and an arrow marks the line that ran ("--> 1673 env=env)").
_IPYTHON_HEADER = re.compile(r"^[\w.]+ {2,}Traceback \(most recent call last\)")
IPYTHON_ARROW = re.compile(r"^-*> ?\d+\s")
#: IPython's numbered lines of context around the arrowed one: shown, but they did not run.
IPYTHON_CONTEXT = re.compile(r"^ +\d+ ")
#: IPython's frame of a notebook cell ("Cell In[4], line 29", older "<ipython-input-3-a1b2>",
#: Databricks' "File <command-2469377940857761>, line 10"), indented in IPython's plain mode.
CELL_FRAME = re.compile(
    r"^\s*(?:Cell In ?\[\d+\]|(?:File )?<(?:ipython-input|command)-[\w\-]+>),? "
)


def _caret_marks(text: str) -> bool:
    """Whether ``text`` (stripped on the left) starts as a traceback's caret marks do."""
    return text.startswith("~") or (text.startswith("^") and not text[1:2].isalpha())


def is_frame(text: str) -> bool:
    """A traceback frame line, its source line or caret marks, or an elision mark in a traceback."""
    return (
        # (also a traceback a paste took one space off: ' File "x.py"', its source at three)
        text.startswith(("  File ", "    ", "\t", 'File "', ' File "', "   "))
        # (caret marks, not a terminal's echo of a control key: "^C")
        or _caret_marks(text.lstrip())
        or text.strip() in ELISIONS
        or (text != "" and 'File "'.startswith(text))  # (a frame line the paste's end cut: "F")
        or _HEAD_CUT.match(text) is not None  # (or its start: 'x/args.py", line 5, in f')
        or IPYTHON_FRAME.match(text) is not None
        or IPYTHON_ARROW.match(text) is not None
        or CELL_FRAME.match(text) is not None
        or GO_FRAME.match(text) is not None
        or MANAGED_FRAME.match(text) is not None  # a JVM or .NET stack's
    )


#: A Python warning record (``site-packages/torch/cuda/__init__.py:63: FutureWarning: ...``, or
#: cut right after its class's first word) amid a traceback's frames: another thread's or
#: process's output written between them, which ends no traceback.
INTERLEAVED_WARNING = re.compile(
    r"^\S+\.py:\d+: (?:\w*Warning\b|(?:Future|Deprecation|User|Runtime|Resource)(?:W\w*)?\s*$)"
)
