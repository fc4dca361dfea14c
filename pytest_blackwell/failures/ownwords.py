"""An error's own words: which texts of a printed error are its message.

An error's category is read from its own message only (:mod:`.cues`), never from the lines around
it. Most messages are the error's line; some tools put the message on the line below (a heading
that ends in a colon, a level word alone, the signature of the C++ function that threw), or
print it apart from the error's type (an exception-details dump, an assertion that shows only
its condition).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pytest_blackwell.failures.errorwords import DEBUGGER_EXCEPTION, MATLAB_HEADING

#: Visual Studio's exception details give the message a line of its own below the type
#: (``System.XException was unhandled``, then ``  Message=...``): the error's own words all the
#: same.
_DETAILS_HEAD = re.compile(r"\bwas (?:unhandled|caught|thrown)\s*$")
_DETAILS_MESSAGE = re.compile(r"^\s*Message\s*=\s*(\S.*)$")


#: A line that ends with a C++ function's signature: ONNX Runtime's errors name the function
#: that threw before its message, which a paste may put on the next line.
_SIGNATURE_END = re.compile(r"\w::~?\w+\([^()]*\)(?: const)?\s*$")


#: A labelled detail of the message on the line right below it (NVIDIA's codec SDK samples:
#: "... returned error 8", then "Description: Older presets ... are not supported with ...").
_DETAIL = re.compile(r"^\s*(?:Description|Details?|Cause)\s*:\s*\S")

#: Python's assertion that failed without a message.
_BARE_ASSERT = re.compile(r"^\s*(?:\w+\.)*AssertionError\s*$")
#: A ``KeyError`` that names only its key ("KeyError: 'rms_norm_eps'"): the source line above it
#: says what was looked up ("norm_eps = read_config[self.arch.norm_eps_key]").
_BARE_KEY = re.compile(r"^\s*(?:\w+\.)*KeyError: (?:'[^']*'|\"[^\"]*\")\s*$")


#: A level word alone on its line ("  ERROR", "FATAL:"), as a console prints a heading over the
#: message: the message is the next line.
_LEVEL_ALONE = re.compile(r"^\W*(?:ERROR|FATAL|CRITICAL|Error|Fatal)\W*$")
_MATLAB_HEAD = re.compile(MATLAB_HEADING)
#: A line whose message is the next line: an exception as a debugger shows it, vLLM's worker
#: relay that a paste broke before its quoted message ("Worker failed with error" / "'Page size
#: mismatch ...'").
MESSAGE_BELOW = re.compile(rf"^{DEBUGGER_EXCEPTION}[\w.]+\s*$|\bWorker failed with error\s*$")


def heads_its_message(text: str) -> bool:
    """Whether a printed error line's message is on the line below it: the line ends in a colon,
    or is a level word alone, or is a table's last cell that goes on in the next row (Triton's
    model table wraps a status at its width: "UNAVAILABLE: ... CUDA runtime error |")."""
    text = text.rstrip()
    return (
        text.endswith(":")
        or _LEVEL_ALONE.match(text) is not None
        or _MATLAB_HEAD.search(text) is not None
        or MESSAGE_BELOW.search(text) is not None
        or (text.endswith(" |") and "|" not in text[:-1])
    )


def own_words(text: str, traceback: Sequence[str]) -> list[str]:
    """The texts that are an error's own message: its line, the message line of an
    exception-details dump, the condition a bare ``AssertionError`` shows, and the line after
    one that ends in a colon or is a level word alone (a C++ exception's ``what():
    file.hpp(42):`` whose message, ``error: out of memory``, is on the next line) or in the
    signature of the C++ function that threw."""
    if _DETAILS_HEAD.search(text):
        for line in traceback:
            found = _DETAILS_MESSAGE.match(line)
            if found is not None:
                return [text, found.group(1)]
    key = _BARE_KEY.match(text) is not None
    if key or _BARE_ASSERT.match(text):
        # an assertion without a message: the condition its traceback shows is its message (a
        # key looked up: the lookup its traceback shows)
        end = next((i for i, line in enumerate(traceback) if line == text), len(traceback))
        shown = [t.strip() for t in traceback[:end] if t.strip() and t.strip()[0] not in "^~"]
        said = shown[-1] if shown else ""
        if said.startswith("assert ") or (key and said and not said.startswith('File "')):
            return [text, said.split("  #", 1)[0]]  # (not a comment after it)
    at = next((i for i, line in enumerate(traceback) if line == text), None)
    if heads_its_message(text) or _SIGNATURE_END.search(text):
        below = [] if at is None else _message_lines(traceback[at + 1 :])
        if below:
            return [text, " ".join(below)]
    if at is not None and at + 1 < len(traceback) and _DETAIL.match(traceback[at + 1]):
        return [text, traceback[at + 1].strip()]
    return [text]


#: How many indented lines below its heading a message may run on (FlashInfer's "Buffer
#: overflow when allocating memory for tmp_v" / "with size 536346624 and alignment 16," / "but
#: only 413138944 bytes available in AlignedAllocator.").
_MESSAGE_LINES = 4


def _message_lines(after: Sequence[str]) -> list[str]:
    """The message below a heading: the first line with words, and when it is indented the lines
    right after it indented as it is (one message wrapped over a few lines)."""
    first = next((i for i, line in enumerate(after) if line.strip()), None)
    if first is None:
        return []
    head = after[first]
    indent = head[: len(head) - len(head.lstrip())]
    lines = [head.strip()]
    if indent:
        for line in after[first + 1 : first + _MESSAGE_LINES]:
            if not line.startswith(indent) or not line.strip() or line[len(indent)] in " \t":
                break
            lines.append(line.strip())
    return lines
