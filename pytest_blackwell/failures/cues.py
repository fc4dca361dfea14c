"""What an unrecognised error says in general words: the last evidence for a category.

Rules match the wordings libraries are known to print. A failure log of a library no rule knows
still says what went wrong in the words of the domain: memory that could not be allocated, a
kernel that is not implemented for an architecture, a field missing from a config, a process
killed by a signal. When no rule, frame or relay names the category of the first error (or
only a generic rule read any ``ValueError`` as a configuration's), its own words are read
against the table of :mod:`.cue_words` (``evidence["category"]`` is ``cue '<words>'``).

Each cue is a category's vocabulary, not the wording of one log: a shortage of memory, a
refusal naming an architecture or a kernel, a missing or invalid setting. Cues are tried from
the most specific category to the most general one, and a cue only reads the error's own
message, never the lines around it: a warning that mentions memory elsewhere in the log names
nothing. Errors a rule deliberately leaves ``unknown`` (a capture that failed for a reason not
shown, a lost GPU) are not read again.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from pytest_blackwell.failures.cue_words import CUES, SHORTAGE

#: The runtime's documented strings with two honest readings ("Documented error strings read
#: whole"): an error that says one of them stays ``unknown``, whatever frame raised it (Triton's
#: launcher checking shared memory also raises a kernel image the driver cannot load).
TWO_READINGS = re.compile(
    r"\binvalid device ordinal\b|\bpeer access is not supported between these two devices\b"
    r"|\bdevice kernel image is invalid\b|\ba PTX JIT compilation failed\b"
    r"|\bGET was unable to find an engine\b"
)

#: Rules that only name an exception type or an error shape: their text may be read for cues
#: (``value_error`` reads any refusal as a configuration's; one naming an architecture is a
#: missing kernel). Other rules of category ``unknown`` leave it so on purpose (see
#: docs/failures.md).
READABLE_RULES = frozenset(
    {
        "",
        "exception",
        "value_error",
        "fatal_python",
        "cpp_exception_what",
        "cpp_uncaught",  # (libc++'s "terminating ... uncaught exception of type T: message")
        "library_status_error",
        "model_unavailable",
        "worker_wrapper",  # (vLLM's relay carries the worker's message: "... method x: <message>")
    }
)
#: The CUDA and HIP runtimes' own error strings are a closed list that rules already read; in
#: them "operation not supported" or "peer access is not supported" is no configuration refusal.
_RUNTIME_ERROR = re.compile(r"\b(?:CUDA|HIP|cuda|hip) error\b|\b(?:cuda|hip)Error[A-Z]\w*")
#: What such a line may still say in general words: memory a program could not have ("CUDA error
#: - cannot allocate big buffer for DAG"), which no runtime string words as a refusal.
_RUNTIME_READABLE = frozenset({"kv_cache_oom", "device_oom"})


#: Where a message turns to guessing at its cause ("Unable to compute the prediction ... It can be
#: an invalid input data or broken/unsupported model", CoreML's): the words after it are no cue.
_HEDGE = re.compile(
    r"\b(?:It|This|That) (?:can|could|may|might) be\b|\b(?:Maybe|Perhaps|Possibly)\b"
)


def cue_category(texts: Iterable[str]) -> tuple[str, str] | None:
    """``(category, evidence)`` from the general words of the first text that has any."""
    for said in texts:
        text = _HEDGE.split(said, 1)[0]  # (what a message only guesses at names nothing)
        runtime = _RUNTIME_ERROR.search(text) is not None
        for category, patterns in CUES:
            if runtime and category not in _RUNTIME_READABLE:
                continue
            found = [p.search(text) for p in patterns]
            if all(found):
                words = " + ".join(m.group(0).strip()[:40] for m in found if m is not None)
                return category, f"cue {words!r}"
    return None


_SHORT_OF_MEMORY = re.compile(SHORTAGE, re.IGNORECASE)


def says_shortage(text: str) -> bool:
    """Whether an error's own words say that memory could not be had."""
    return _SHORT_OF_MEMORY.search(text) is not None
