"""Error words: which lines the classifier looks at closely, and which say they are errors.

The fast scan only looks closely at lines containing a trigger (or a rule keyword, or a live stage
marker); a line no rule knows is still an error (``unknown``, never "no failure") when it is
logged at an error level or says so in words (:data:`ERRORISH`).
"""

from __future__ import annotations

import re

#: Literal strings found in (nearly) every error line; lines without any of them (and without a
#: rule keyword or live stage marker) are skipped unless an error block is open.
TRIGGERS: tuple[str, ...] = ("rror", "ERROR")
#: Further words of error lines that carry neither (``FATAL``, TensorRT's ``[E]``, ``NCCL WARN``,
#: ``NVRM: Xid``, a Rust panic, a bare ``Exception``). A ``quick`` classifier leaves them and the
#: rules' own keywords out; :func:`classify_stream` then reads the log again in full when the
#: quick pass found no known cause, so none of these lines can be missed.
#: ``[E`` and ``[F`` find glog-style records (``[E0429 13:55:49 f.cc:1]``, c10's ``[E429 ...``).
MORE_TRIGGERS: tuple[str, ...] = ("FATAL", "CRITICAL", "[E", "[F", "xception", "panicked", "ERR ")
ERROR_LEVELS = ("ERROR", "CRITICAL")
#: A line logged at one of these levels is not an error by its wording alone ("Failed to create
#: oneDNN linear, fallback to torch linear. Exception: ..." is a warning); only a rule, or an
#: explicit error word, makes it one.
QUIET_LEVELS = ("WARNING", "INFO", "DEBUG")
LOUD = re.compile(r"\b(?:FATAL|ERROR)\b|\[(?:E|F|ERROR|FATAL|CRITICAL)\]")
#: A line that says it is an error although no rule knows it: never "no failure".
ERRORISH = re.compile(
    r"\b(?:FATAL|Fatal error|fatal error|ERROR)\b|\[(?:E|F|ERROR|FATAL|CRITICAL)\]"
    r"|^(?:[\w.:]+: )?(?:error|Error|fatal)(?:\[\w+\])?:|panicked at|\bExceptions?: \S"
    r"|^(?:[\d:.]+ )?[EF] \w+|\bERR\b|^[\w .\-]{0,40}\berror\s*:|^\w+: (?:error|failed to)\b"
)
