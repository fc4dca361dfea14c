"""What an error message says was being done: the weakest stage evidence but one.

Pasted excerpts without frames or markers still say, in the error message itself, what the
program was doing when it failed ("error loading model", "while capturing CUDA graphs",
"failed to compile", "your request has N input tokens"). The table maps such wording, in the
libraries' own words, to a stage; :func:`phrase_stage` reads it (see ``evidence.decide`` for
its place among the other evidence).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pytest_blackwell.failures.phrase_words import ANSWERS, PHRASES
from pytest_blackwell.failures.stages import later_stage

#: ComfyUI's executor reporting an exception of whatever node it ran (a loader too): a dispatcher
#: in words, read after every other sign of the stage, as its frames are.
_DISPATCHER_WORDS = re.compile(r"!!! Exception during processing !!!")


def dispatcher_words(lines: Sequence[str]) -> tuple[str, str] | None:
    """``("execute", evidence)`` when ``lines`` show an application's dispatcher reporting the
    error of the work it ran (:data:`_DISPATCHER_WORDS`), else ``None``."""
    for text in lines:
        m = _DISPATCHER_WORDS.search(text)
        if m is not None:
            return "execute", f"phrase {m.group(0)!r}"
    return None


def phrase_stage(lines: Sequence[str]) -> tuple[str, str] | None:
    """``(stage, evidence)`` from what the error lines say was being done, else ``None``.

    Each line tells at most one stage; when several lines tell one, the latest stage wins (a
    heading "Failed to load the model" over "Failed to initialize the context: ...": the
    step that failed inside the loading is the context's). A request answered with an error
    (:data:`ANSWERS`) counts only when no other line tells a stage."""
    found: list[tuple[str, str]] = []
    answered: list[tuple[str, str]] = []
    for text in lines:
        for pattern, stage in PHRASES:
            m = pattern.search(text)
            if m is None:
                continue
            if pattern is ANSWERS:  # (the answer may relay what failed, said on the same line)
                answered.append((stage, f"phrase {m.group(0)!r}"))
                continue
            found.append((stage, f"phrase {m.group(0)!r}"))
            break
    found = found or answered
    if not found:
        return None
    latest = later_stage(stage for stage, _ in found)
    return next(item for item in found if item[0] == latest)
