"""Literal text a regular expression cannot match without: a cheap test before the search.

Most lines a classifier looks at match none of its rules, and most rules need some literal word
("out of memory", "NCCL", "Required: "). ``needles(pattern)`` reads the pattern's parse tree and
returns such words as alternatives, one of which is in every string the pattern matches;
:meth:`Needles.admits` then rules a line out with a few substring tests instead of a regular
expression search. Reading is conservative: a construct it does not follow contributes no
literal, and a pattern it cannot read has no needles (every line is searched).

Words under a case-insensitive flag are compared with the line lowered, and only on ASCII lines:
Unicode case-insensitive matching also pairs characters that ``str.lower`` keeps apart (the
Kelvin sign and ``k``), so a non-ASCII line is always searched in full.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

try:  # the standard library's own regular-expression parser (3.11+; 3.10 names it sre_parse)
    _PARSER: Any = importlib.import_module("re._parser")
except ImportError:  # pragma: no cover - Python 3.10
    _PARSER = importlib.import_module("sre_parse")

#: A requirement: one of these ``(word, case-insensitive)`` pairs is in every match.
Requirement = tuple[tuple[str, bool], ...]
_REPEATS = ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")


@dataclass(frozen=True)
class Needles:
    """Alternatives of which one is in every string the pattern matches (see module doc)."""

    words: tuple[str, ...] = ()  # compared as they are
    folded: tuple[str, ...] = ()  # compared with the line lowered (ASCII lines only)

    def admits(self, text: str, lowered: str | None = None) -> bool:
        """Whether ``text`` may match: it holds one of the words (or cannot be ruled out).

        ``lowered`` is ``text.lower()`` when the caller has it already.
        """
        if not self.words and not self.folded:
            return True
        for word in self.words:  # a plain loop: cheaper than any() over a generator
            if word in text:
                return True
        if not self.folded:
            return False
        if not text.isascii():
            return True
        low = text.lower() if lowered is None else lowered
        for word in self.folded:  # noqa: SIM110 (as above)
            if word in low:
                return True
        return False


NO_NEEDLES = Needles()


def needles(pattern: str, flags: int = 0) -> Needles:
    """The needles of ``pattern`` compiled with ``flags`` (:data:`NO_NEEDLES` if none are known)."""
    try:
        parsed = _PARSER.parse(pattern, flags)
    except (re.error, TypeError, AttributeError, ValueError):
        return NO_NEEDLES
    state = getattr(parsed, "state", None)
    global_flags = getattr(state, "flags", flags)
    try:
        found = _requirement(list(parsed), bool(global_flags & re.IGNORECASE))
    except (TypeError, ValueError, AttributeError, IndexError):  # a tree shape not followed
        return NO_NEEDLES
    if not found:
        return NO_NEEDLES
    words = tuple(dict.fromkeys(w for w, icase in found if not icase))
    folded = tuple(dict.fromkeys(w.lower() for w, icase in found if icase))
    return Needles(words, folded)


def _score(req: Requirement) -> tuple[int, int]:
    """Longer shortest word first, then fewer alternatives."""
    return (min(len(w) for w, _ in req), -len(req))


def _requirement(items: Sequence[Any], icase: bool) -> Requirement | None:
    """The most selective requirement of a sequence of parsed items, or ``None``."""
    found: list[Requirement] = []
    run: list[str] = []

    def flush() -> None:
        if run:
            found.append((("".join(run), icase),))
            run.clear()

    for op, av in items:
        name = str(op)
        if name == "LITERAL":
            run.append(chr(av))
            continue
        flush()
        sub: Requirement | None = None
        if name == "SUBPATTERN":
            _group, add_flags, del_flags, body = av
            inner = (icase or bool(add_flags & re.IGNORECASE)) and not del_flags & re.IGNORECASE
            sub = _requirement(list(body), inner)
        elif name in _REPEATS and av[0] >= 1:
            sub = _requirement(list(av[2]), icase)
        elif name == "ATOMIC_GROUP":
            sub = _requirement(list(av), icase)
        elif name == "BRANCH":
            branches = [_requirement(list(b), icase) for b in av[1]]
            if all(b is not None for b in branches):
                sub = tuple(dict.fromkeys(alt for b in branches if b for alt in b))
        if sub:
            found.append(sub)
    flush()
    return max(found, key=_score) if found else None
