"""Candidate first errors and the order between them (private to the classifier).

Ranks, best last: a bare ``ERROR`` line, a wrapper, an unrecognised exception, a relay (``weak``
rule) and a known cause. :func:`merged` decides which of two candidates is the first error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from pytest_blackwell.failures.cues import says_shortage
from pytest_blackwell.failures.deaths import DEATH_GAP, SELF_INFLICTED
from pytest_blackwell.failures.errorwords import MORE_TRIGGERS, TRIGGERS
from pytest_blackwell.failures.frame_words import dispatched, worded_frame
from pytest_blackwell.failures.frames import frame_stage
from pytest_blackwell.failures.lineshapes import is_frame
from pytest_blackwell.failures.phrase_words import ANSWERS
from pytest_blackwell.failures.phrases import phrase_stage
from pytest_blackwell.failures.stages import later_stage

# Ranks of candidate errors, best last.
LEVEL_ONLY, WRAPPER, UNKNOWN, WEAK, STRONG = range(5)

RING_LINES = 40  # recent lines kept to recover the frames of a headless traceback
SOFT_WINDOW = 30  # lines after a relay within which a new known cause replaces it
#: A traceback starting this few lines after an error line is that error's own (a process
#: banner such as ``Process EngineCore:`` or ``Exception in ControllerSingle:`` may sit between).
FOLLOW_GAP = 3
#: A traceback with no cause of its own starting this few lines after an error is that error's
#: caller reporting it (torch follows a CUDA error with up to four lines of advice and a blank).
AFTER_GAP = 10
#: A process death: its later reports (a faulthandler stack) may still tell its stage.
DIED = "engine_died"
#: Categories of memory that could not be had.
MEMORY = frozenset({"device_oom", "kv_cache_oom"})

CHAIN = ("The above exception was the direct cause", "During handling of the above exception")


@dataclass
class Candidate:
    """A possible first error: the line that carries it and where its block started."""

    rank: int
    category: str
    text: str
    line: int
    start: int
    stage: str
    detail: dict[str, Any]
    hint: str | None
    traceback: list[str] = field(default_factory=list)
    rule: str = ""  # the rule that named the category ("" for a bare error line)
    hint_from: str = ""  # what gave ``hint``
    #: ``(stage, evidence)`` from what the log showed happening right before the error
    activity: tuple[str, str] | None = None
    #: ``(stage, evidence)`` from what the log shows right after the error line: the frames of
    #: the traceback printed after it (``logger.exception`` prints its message, then the
    #: traceback; an engine's API server logs ``EngineDeadError``, then the engine core's
    #: traceback), the same error reported again or its caller's error (:func:`_told_later`),
    #: the activity shown before such a report, the work the error broke reported as over
    #: (:func:`~pytest_blackwell.failures.tail.work_ended`). Weaker than the error's own words.
    after: tuple[str, str] | None = None
    #: a printed error line that ends in a colon: its message is the next line
    #: (:func:`~pytest_blackwell.failures.continuation.message_below` keeps it for its words)
    message_below: bool = False
    #: the program said below the error that it went on (a success line): not its last word
    went_on: bool = False


@dataclass
class Block:
    """An error being collected for one process: a traceback, or an error and what follows."""

    tag: str
    start: int
    stage: str
    is_traceback: bool
    lines: list[str]
    best: Candidate | None = None
    hints: list[tuple[str, str]] = field(default_factory=list)  # (stage, rule name)
    exception_seen: bool = False
    deadline: int = 0
    last_seen: int = 0
    #: readings of a generic exception message joined with the lines it was wrapped onto
    wrapped: list[str] = field(default_factory=list)
    activity: tuple[str, str] | None = None  # see Candidate.activity


#: A failed CHECK: glog's ``Check failed``, and XLA's check of a status (``Non-OK-status:``);
#: a Rust panic, which aborts the process as a failed check does (``panic = "abort"``); LLVM's
#: fatal error and MLIR's translation to it failing, which LLVM ends with an abort (Triton's
#: compiler: "error: LLVM Translation failed for operation: ...", "LLVM ERROR: Failed to ...").
_CHECKED = re.compile(
    r"\bCheck failed\b|\bNon-OK-status: |\bthread '[^']*' panicked at "
    r"|\bLLVM ERROR: |\bLLVM Translation failed\b"
)


def wins(new: Candidate, cur: Candidate | None) -> bool:
    """Whether ``new`` replaces ``cur`` as the first error."""
    if cur is None:
        return True
    if new.rank == cur.rank:
        if _consequence(cur) and not _consequence(new):
            return True  # (asyncio's cancellation: another failure's consequence, never a cause)
        if (
            new.rank == WEAK
            and cur.category == "engine_died"
            and new.category != "engine_died"
            and 0 <= new.start - cur.line <= SOFT_WINDOW
        ):
            return True  # a death says less than the relay right after it that explains it
        same_cut = bool(new.detail.get("truncated") and cur.detail.get("truncated"))
        if new.start == cur.start and (new.line == cur.line or same_cut):
            # the same error (or the same cut traceback), seen with more of its frames
            return len(new.traceback) > len(cur.traceback)
        return new.start < cur.start
    if new.rank < cur.rank:
        return False
    if cur.rank == LEVEL_ONLY and new.rank == UNKNOWN and in_destructor(new.traceback):
        return False  # an unrecognised exception a destructor raised, which Python ignored
    if died_of(new, cur):
        return False  # the error's own doing (nvpipe: "Failed to create encoder: ...", a segfault)
    if (
        cur.rank == LEVEL_ONLY
        and new.category == DIED
        and new.start > cur.line
        and _CHECKED.search(cur.text)
    ):
        # a failed CHECK (glog's, TVM's, XLA's) or a Rust panic aborts the process itself: the
        # death right after it is its doing and does not replace it (one printed before it, a
        # tool it ran "Killed" as a build script panics over its failure, is first)
        return new.start - cur.line > SOFT_WINDOW
    if holds_as_shortage(cur, new):
        return False
    if (
        cur.rank == LEVEL_ONLY
        and new.rank == WRAPPER
        and new.start == new.line  # a line of its own, not a traceback's exception line
        and 0 < new.start - cur.line <= FOLLOW_GAP
        and not is_frame(cur.text)
    ):
        return False  # a wrapper right below an error line ("failed to start") announces it
    if cur.rank < UNKNOWN:
        return True
    if cur.rank == UNKNOWN:
        return new.rank == STRONG
    return new.rank == STRONG and new.start - cur.line <= SOFT_WINDOW  # cur is a relay


def died_of(death: Candidate, said: Candidate) -> bool:
    """Whether ``death``, a process ending itself (``SELF_INFLICTED``), is the doing of
    ``said``, an error line no rule knows right above it (``DEATH_GAP``, both in
    :mod:`.deaths`): the error says what went wrong, the death only that the process could
    not go on (not a server's answer to a failed request, :data:`.phrases.ANSWERS`, which
    relays whatever failed, nor an error the program went on from: ``said.went_on``)."""
    return (
        said.rank == LEVEL_ONLY
        and not said.went_on
        and death.rule == "fatal_signal"
        and 0 <= death.start - said.line <= DEATH_GAP  # (0: glued to it, split from its line)
        and SELF_INFLICTED.search(death.text) is not None
        and ANSWERS.search(said.text) is None
    )


def may_reach_first(cand: Candidate, best: Candidate | None) -> bool:
    """Whether ``cand`` can still become the first error or add to ``best`` (see ``merged``).

    What was being done before an error line (its activity) is read only for such a line: an
    error line of no higher rank than ``best``, too far below it to replace it or to be the same
    error reported again, cannot reach the answer. Lines that open a block (a relay, a wrapper)
    may still be replaced by a stronger cause inside it, unless nothing can replace ``best``.
    """
    if best is None or cand.rank > best.rank:
        return True
    if cand.rank in (WRAPPER, UNKNOWN, WEAK) and best.rank < STRONG:
        return True
    return cand.line - best.line <= RING_LINES + AFTER_GAP


def holds_as_shortage(cur: Candidate, new: Candidate) -> bool:
    """Whether ``cur``, an unrecognised error line that says memory ran out, stays the first
    error when ``new`` of another category follows: the shortage is a cause of its own, and the
    faults it leads to (an illegal access once an allocation failed) do not replace it."""
    return (
        cur.rank in (LEVEL_ONLY, UNKNOWN) and new.category not in MEMORY and says_shortage(cur.text)
    )


def _consequence(cand: Candidate) -> bool:
    """Whether ``cand`` is an error that only ever follows another (asyncio's ``CancelledError``:
    a task cancelled because something else stopped or failed)."""
    return cand.rule == "task_cancelled"


def replaces_in_block(cand: Candidate, best: Candidate | None) -> bool:
    """Whether ``cand`` replaces ``best`` as the error of their block: a higher rank does, but
    not a death right after an unrecognised error of its own (that error's doing), nor another
    category after an unrecognised error that says memory ran out (:func:`holds_as_shortage`)."""
    if best is None or _carried(best, cand):
        return True  # (the exception a wrapper named, in the wrapper's own block)
    if cand.rank == best.rank and _consequence(best) and not _consequence(cand):
        return True  # (the error below a cancelled task's traceback: what it was cancelled for)
    if cand.rank <= best.rank or holds_as_shortage(best, cand):
        return False
    if best.rank == UNKNOWN and cand.rank == WEAK and cand.hint and cand.hint == best.hint:
        return False  # a relay of the same step (ninja stopping after nvcc's own errors)
    return best.rank != UNKNOWN or cand.category != DIED


#: A wrapper that names the type of the exception it carries (Ray's "RayTaskError(
#: AssertionError): ray::RayWorker.execute_method() ..."), its remote traceback below it.
_WRAPS_TYPE = re.compile(
    r"^(?:[\w.]+\.)?\w+\((?:\w+\.)*(?P<inner>\w+)\):"
    # (asyncio's report of a task that ended in an exception, its traceback below it: "future:
    # <Task finished coro=<...> exception=RayActorError()>")
    r"|^future: <(?:Task|Future) finished\b.*? exception=(?:\w+\.)*(?P<task>[A-Z]\w*)\("
)


def _carried(best: Candidate, cand: Candidate) -> bool:
    """Whether ``cand`` is the exception line that ``best``, a wrapper naming its type, carries:
    the carried exception's own message is the error's."""
    m = _WRAPS_TYPE.match(best.text)
    return (
        m is not None
        and best.category == "unknown"
        and re.match(rf"(?:[\w.]+\.)?{m.group('inner') or m.group('task')}:", cand.text) is not None
    )


def merged(best: Candidate | None, cand: Candidate) -> Candidate:
    """The first error once ``cand`` is known too (``best`` itself is never modified)."""
    if best is None:
        return cand
    if is_cut_traceback_head(best, cand) or (
        # the remote traceback under a wrapper, ending in the exception the wrapper named
        _carried(best, cand) and 0 < cand.start - best.line <= FOLLOW_GAP
    ):
        return replace(cand, start=best.start, traceback=[best.text, *cand.traceback])
    if wins(cand, best):
        if best.rank in (LEVEL_ONLY, WRAPPER, UNKNOWN) and best.hint and cand.rank >= WEAK:
            return merged(cand, best)  # a wrapper that closed first still names the stage
        if best.rank == LEVEL_ONLY and 0 < cand.start - best.line <= FOLLOW_GAP:
            # ``logger.exception("Error in inspecting model architecture")``: the message is
            # printed right above its own traceback, and says what was being done.
            return replace(cand, traceback=[best.text, *cand.traceback])
        return _told_later(cand, best)  # ``best`` may have been read first (a quick scan)
    if is_what_failed(best, cand):
        hint, hint_from = (cand.hint, cand.hint_from) if cand.hint else (best.hint, best.hint_from)
        return replace(best, category=cand.category, rule=cand.rule, hint=hint, hint_from=hint_from)
    if (
        best.after is None
        and 0 < cand.start - best.line <= AFTER_GAP
        and (cand.rank < WEAK or (cand.category == best.category and cand.start - best.line <= 1))
        and not in_destructor(cand.traceback)
    ):
        # The traceback printed right after the error (and its advice) belongs to it, also
        # when it ends in the same error raised, on the very next line (legacy torch's
        # "THCudaCheck FAIL ... out of memory" above the RuntimeError): its frames tell the
        # stage when nothing before the error does (see ``evidence.decide``); not a
        # destructor's, which the garbage collector runs ("Exception ignored in").
        told = frame_stage(cand.traceback) or worded_frame(cand.traceback)
        if told is None and best.activity is None:
            told = dispatched(cand.traceback)  # weaker than what ran before the error
        if told is not None:
            best = replace(best, after=(told[0], f"{told[1]} (traceback after the error)"))
    if (
        best.after is None
        and cand.rank == best.rank == STRONG
        and cand.hint
        and cand.hint_from.startswith("rule ")
        and 0 < cand.start - best.line <= 2
    ):
        # the tool's next error, on one of the next two lines, names by its rule the work it was
        # doing (TensorRT's builder finding no tactic for a node right after an allocation failed)
        best = replace(best, after=(cand.hint, f"{cand.hint_from} (the next error)"))
    if (
        best.after is None
        and best.activity is None
        and cand.activity is not None
        and cand.activity[0] != "shutdown"  # (the process going down after the error: its end)
        and cand.category == best.category
        and 0 < cand.start - best.line <= AFTER_GAP
        and not _in_own_words(cand.activity[1], cand.text)
    ):
        # The same error reported again right after it (ComfyUI's error report after the
        # console's line) lends what was shown before the report (its "Node Type"): weaker
        # than anything before the first report, and never the report's own words.
        best = replace(best, after=(cand.activity[0], f"{cand.activity[1]} (reported again)"))
    best = _told_later(best, cand)
    if (
        (
            cand.rank in (LEVEL_ONLY, WRAPPER, UNKNOWN)
            # the same death reported again with its stack (faulthandler after a signal line)
            or (cand.category == best.category == DIED and cand.rank == best.rank == WEAK)
            # a relay right after a cause it does not replace (a JIT build failing after ptxas)
            or (cand.rank == WEAK and best.rank == STRONG)
        )
        and cand.hint
        and best.rank >= WEAK
        and 0 <= cand.start - best.line <= RING_LINES
        and not in_destructor(cand.traceback)
    ):
        # A wrapper right after the cause (``Capture cuda graph failed`` after a compiler
        # error) still tells the stage the cause happened in.
        if cand.detail.get("truncated") and cand.hint_from.startswith("frame "):
            # a cut traceback's own frames: the traceback after the error, as a quick scan
            # reading it apart finds it (weaker than the error's own words)
            if best.after is not None:
                return best
            why = f"{cand.hint_from} (traceback after the error)"
            return replace(best, after=(str(cand.hint), why))
        hint = later_stage((best.hint, cand.hint))
        return replace(
            best, hint=hint, hint_from=cand.hint_from if hint != best.hint else best.hint_from
        )
    return best


def _in_own_words(why: str, text: str) -> bool:
    """Whether the words an activity's evidence ``why`` quotes (``activity 'x'``) are in
    ``text``."""
    quoted = why.removeprefix("activity ")
    return quoted[:1] in ("'", '"') and quoted[1:].split(quoted[0])[0] in text


#: Frames of a destructor: Python's, Cython's, and cupy's module unload that they run.
_DESTRUCTORS = (", in __del__", "__dealloc__", ".moduleUnload")


def in_destructor(lines: list[str]) -> bool:
    """Whether a traceback runs in a destructor (:data:`_DESTRUCTORS`): the garbage collector's
    report of its own (``Exception ignored in: ...``), never the caller of an error before it."""
    return any(t.rstrip().endswith(_DESTRUCTORS) for t in lines)


def is_cut_traceback_head(first: Candidate, later: Candidate) -> bool:
    """Whether ``first`` is the head of ``later``, a traceback cut before its exception line.

    An excerpt that starts inside a traceback an engine logs at ``ERROR`` (vLLM's engine core)
    opens on a frame line: no error of its own, but the first line of the cut traceback below
    (or the same line, where that traceback starts at the frame its header was cut above).
    """
    return (
        first.rank == later.rank == LEVEL_ONLY
        and is_frame(first.text)
        and bool(later.detail.get("truncated"))
        and 0 <= later.start - first.line <= FOLLOW_GAP
    )


def is_what_failed(first: Candidate, later: Candidate) -> bool:
    """Whether ``later``, right below an allocation failure, says what that allocation was for.

    ggml logs its failing ``cudaMalloc`` and then ``llama_kv_cache_init: failed to allocate
    buffer for kv cache``: the memory that did not fit was the KV cache's.
    """
    return (
        first.category == "device_oom"
        and later.category == "kv_cache_oom"
        and later.rank == STRONG
        and 0 < later.start - first.line <= FOLLOW_GAP
    )


def _told_later(first: Candidate, later: Candidate) -> Candidate:
    """``first`` with what a later error line says was being done, when it is the same error
    reported again, or its caller's error right after it (see ``Candidate.after``).

    TensorRT-LLM's "Encountered an error in forward function: <the same CUDA error>";
    llama.cpp's "error loading model: ..." right after a cudaMalloc failure. Only lines with an
    error word count, so that a quick scan reads them too.
    """
    gap = later.start - first.line
    again = later.category == first.category != "unknown" and gap <= RING_LINES
    caller = later.rank < WEAK and gap <= FOLLOW_GAP
    if first.after is not None or gap <= 0 or not (again or caller):
        return first
    # (an unknown error is no known cause: the full read, with every error word, decides it)
    words = TRIGGERS if first.category != "unknown" else (*TRIGGERS, *MORE_TRIGGERS)
    if not any(word in later.text for word in words):
        return first
    told = phrase_stage([later.text])
    if told is None and again and not in_destructor(later.traceback):
        # the same error re-raised by the loop that ran it: that loop's frames tell the stage
        # (not a destructor's, which only met the error the fault left behind)
        told = frame_stage(later.traceback) or worded_frame(later.traceback)
    if told is None:
        return first
    why = "the same error reported again" if again else "the error its caller reported"
    return replace(first, after=(told[0], f"{told[1]} ({why})"))


def process_name(tag: str) -> str:
    """``"EngineCore_DP0 pid=12"`` -> ``"EngineCore_DP0"`` (pids differ from run to run)."""
    return tag.split(" pid=", 1)[0]


def cut_traceback(block: Block) -> Candidate:
    """A traceback cut off before its exception line: an unknown error, though one that says
    less than a wrapper naming what failed."""
    last = next((t for t in reversed(block.lines) if t.strip()), block.lines[0])
    detail: dict[str, Any] = {"truncated": True}
    return Candidate(
        LEVEL_ONLY, "unknown", last.strip(), block.last_seen, block.start, block.stage, detail, None
    )


def with_its_traceback(said: Candidate | None, start: int, lines: list[str]) -> Candidate | None:
    """``said`` with the frames of a traceback cut before its exception line, if they are its own.

    ``logger.exception("Error in ...")`` prints its message, then the traceback; a paste cut
    before the exception line leaves the frames to the message on the line right above them.
    """
    if said is None or said.rank != LEVEL_ONLY or said.line != start - 1:
        return None
    return replace(said, traceback=[*said.traceback, *lines])


def block_result(block: Block, best: Candidate | None, events: bool) -> Candidate | None:
    """The error ``block`` holds as a candidate, its whole block as its traceback (``best`` is the
    first error so far; ``events``: the stage comes from explicit events, not from frames)."""
    cand = block.best
    if cand is None and block.is_traceback:
        if (own := with_its_traceback(best, block.start, block.lines)) is not None:
            return own  # a logged message's own traceback, cut before its exception line
        cand = cut_traceback(block)
    if cand is None:
        return None
    hint: str | None = later_stage((cand.hint, *(stage for stage, _ in block.hints)))
    hint_from = cand.hint_from
    if hint == "unknown":
        hint = cand.hint
    elif hint != cand.hint:
        hint_from = next(f"rule {name}" for stage, name in block.hints if stage == hint)
    if hint is None and not events and (cand.rank < WEAK or cand.category == DIED):
        # a wrapper right after a cause tells its stage by its frames (capture_model ...)
        told = frame_stage([*block.lines, *cand.traceback])
        if told is not None:
            hint, hint_from = told
    return Candidate(
        cand.rank,
        cand.category,
        cand.text,
        cand.line,
        block.start,
        block.stage,
        cand.detail,
        hint,
        list(block.lines),
        rule=cand.rule,
        hint_from=hint_from,
        activity=block.activity or cand.activity,
        after=cand.after,
    )
