"""Streaming first-error classification: :class:`StreamClassifier`.

The classifier reads a log one line at a time and keeps only bounded state: a short ring of
recent lines (to recover the frames of a traceback whose header was cut off), the error blocks
being collected (one per process tag, so interleaved processes do not mix), the best candidate so
far and the last lines of the log (for hang detection).

Which error is "first":

- a known cause (a non-wrapper, non-relay rule) beats everything that is not an earlier cause;
- a relay (``weak`` rule: NCCL error, dead process) is replaced by a known cause in the same
  error block, or one that starts within ``SOFT_WINDOW`` lines of it;
- an unrecognised exception (``unknown``) is kept unless a known cause follows;
- wrappers and bare ``ERROR`` lines only count when nothing else is found;
- with no error at all, signs of a hang at the end of the log give ``timeout``.

Only lines containing a keyword (an error word, a live stage marker, a rule's own keywords) are
looked at closely while no error block is open; the last ``HANG_TAIL_LINES`` lines are always
matched in full, because a dead process's last words (``Killed``) carry no error word.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

from pytest_blackwell.failures import continuation as wrap
from pytest_blackwell.failures.activity import activity_at, activity_before
from pytest_blackwell.failures.candidates import (
    CHAIN,
    FOLLOW_GAP,
    LEVEL_ONLY,
    RING_LINES,
    SOFT_WINDOW,
    STRONG,
    UNKNOWN,
    WEAK,
    WRAPPER,
    Block,
    Candidate,
    block_result,
    may_reach_first,
    merged,
    process_name,
    replaces_in_block,
)
from pytest_blackwell.failures.errorwords import WENT_ON, is_aside, looked_at, says_error, triggers
from pytest_blackwell.failures.evidence import GENERIC_RULES, decide
from pytest_blackwell.failures.frames import frame_stage, is_flat_source
from pytest_blackwell.failures.lineshapes import (
    DESTRUCTOR_REPORT,
    HEADERS,
    INTERLEAVED_WARNING,
    is_frame,
    is_header,
)
from pytest_blackwell.failures.model import Failure
from pytest_blackwell.failures.normalize import LogicalLine, logical_lines
from pytest_blackwell.failures.ownwords import MESSAGE_BELOW, heads_its_message
from pytest_blackwell.failures.phrases import phrase_stage
from pytest_blackwell.failures.rule import checked_rules
from pytest_blackwell.failures.rules import DEFAULT_RULES, Rule
from pytest_blackwell.failures.stages import (
    HANG_TAIL_LINES,
    STAGE_INDEX,
    hang_evidence,
    late_marker_fragment,
    late_stage,
    later_stage,
    live_marker_keywords,
    marker_fragment,
    marker_stage,
)
from pytest_blackwell.failures.tail import stack_then, tail_candidates, unmarked_error, work_ended

FOLLOW_LINES = 8  # lines after a relay or a traceback's last line that may still refine it
STALE_LINES = 400  # an unfinished traceback that gets no line for this long is closed
MAX_TRACEBACK = 120  # traceback lines kept per error (head and tail)
MAX_LINE_CHARS = 1 << 20  # a longer physical line keeps its head and tail (a flattened paste)


class StreamClassifier:
    """Feed log lines in order; ask for the first error with :meth:`result`.

    ``rules`` replaces the built-in table (pass ``(*mine, *DEFAULT_RULES)`` to extend it).
    """

    def __init__(self, rules: Sequence[Rule] | None = None, *, quick: bool = False) -> None:
        self._rules = checked_rules(DEFAULT_RULES if rules is None else rules)
        self._hint_rules = tuple(r for r in self._rules if r.wrapper and r.stage_hint)
        self._rule_keywords = (
            () if quick else tuple(dict.fromkeys(k for r in self._rules for k in r.keywords))
        )
        self._triggers = triggers(quick)
        self.known_cause = False  # set by result(): the first error is a known cause
        self.cause_start = 0  # set by result(): the line its error block starts at
        self._stage = "unknown"
        self._floor = self._marked_at = 0  # (the line of the marker that set the stage)
        self._events = False  # explicit stage events were given: they alone decide the stage
        self._stage_sources: dict[str, str] = {}  # stage -> what last announced it
        self._lineno = 0
        self._ring: deque[tuple[int, str]] = deque(maxlen=RING_LINES)
        self._tail: deque[tuple[int, str]] = deque(maxlen=HANG_TAIL_LINES)
        self._blocks: dict[str, Block] = {}
        self._best: Candidate | None = None
        self._frozen = False
        self._recovered_upto = 0
        self._follow_until = 0  # lines up to here are read in full: a traceback may follow
        self._raw = ""  # the physical line being read
        self._before: list[LogicalLine] = []  # its logical lines read so far (a flattened paste)
        self.keywords: tuple[str, ...] = ()
        self._refresh_keywords()

    @property
    def stage(self) -> str:
        """The current stage (``unknown`` until a marker or an explicit event says otherwise)."""
        return self._stage

    @property
    def line_count(self) -> int:
        """Physical lines fed so far."""
        return self._lineno

    @property
    def collecting(self) -> bool:
        """True while an error block is open: every line matters, none may be skipped."""
        return bool(self._blocks) or self._lineno < self._follow_until

    def skip(self, count: int) -> None:
        """Count ``count`` keyword-free lines as read (fast scans; never while collecting)."""
        self._lineno += count

    def set_tail(self, tail: Sequence[tuple[int, str]]) -> None:
        """Replace the remembered last lines (fast scans feed only some lines)."""
        self._tail.clear()
        self._tail.extend(tail)

    def note_stage(self, stage: str) -> None:
        """Record an explicit stage event; log markers cannot move the stage before it."""
        if stage not in STAGE_INDEX:
            raise ValueError(f"note_stage() expects one of {', '.join(STAGE_INDEX)}, got {stage!r}")
        self._stage = stage
        self._floor = STAGE_INDEX[stage]
        self._events = True
        self._stage_sources[stage] = f"stage event {stage}"
        self._refresh_keywords()

    @property
    def done(self) -> bool:
        """True once the first error and its traceback are complete: the engine may be stopped."""
        if self._frozen:
            return True
        best = self._best
        if best is None or best.rank < WEAK:
            return False
        if any(b.start <= best.line + RING_LINES for b in self._blocks.values()):
            return False  # an earlier error, or a wrapper naming the cause's stage, may follow
        if best.rank == WEAK and self._lineno - best.line <= SOFT_WINDOW:
            return False
        if not self._events and self._lineno - best.line <= RING_LINES:
            return False  # a log read offline: a wrapper that follows may still name the stage
        self._frozen = True
        return True

    def feed(self, line: str) -> None:
        """Consume one physical log line (a trailing newline is ignored)."""
        self._lineno += 1
        if self._frozen:
            return
        if len(line) > MAX_LINE_CHARS:
            half = MAX_LINE_CHARS // 2
            line = f"{line[:half]} ... {line[-half:]}"
        lineno = self._lineno
        self._raw = line
        self._tail.append((lineno, line))
        if self._blocks:
            self._expire(lineno)
        if self._blocks or lineno <= self._follow_until or looked_at(line, self.keywords):
            for i, logical in enumerate(pieces := logical_lines(line)):
                self._before = pieces[:i]
                self._process(lineno, logical)
        self._ring.append((lineno, line))

    def result(self) -> Failure | None:
        """The first error so far (``None`` if there is none: the caller decides, e.g. timeout)."""
        best = self._best
        for block in self._blocks.values():  # provisional: blocks still being collected
            cand = block_result(block, self._best, self._events)
            if cand is not None:
                best = merged(best, cand)
        marked = (self._marked_at, self._stage)
        from_tail = tail_candidates(
            self._tail, self._candidate, self._error_stage(), self.keywords, marked
        )
        for cand in from_tail:
            best = merged(best, cand)
        best = work_ended(best, self._tail)
        # A cause found only among the last lines may lack what a full read would add to it.
        self.known_cause = (
            best is not None and best.rank == STRONG and all(best is not c for c in from_tail)
        )
        self.cause_start = best.start if best is not None else 0
        if best is not None and best.rank >= WRAPPER:
            return self._failure(best)
        hang = hang_evidence(self._tail)
        if hang is None:
            if best is None:  # at worst an excerpt ends in a failure told in plain words
                best = unmarked_error(self._tail, self._error_stage(), marked)
            return self._failure(best) if best is not None else None
        lineno, raw, reason = hang
        text = next((ln.text for ln in reversed(logical_lines(raw)) if ln.text), raw.strip())
        late = late_stage(raw for _, raw in self._tail)
        stage = late or self._stage
        stage_from = "marker 'Shutting down'" if late else self._stage_sources.get(stage, "none")
        if not self._events and stage == "unknown":  # or a stack dumped after the sign tells
            dump = list(self._lines_after(lineno))
            before = [(n, r) for n, r in self._tail if n < lineno]  # what ran until the sign
            stage, stage_from = (
                phrase_stage([text])
                or frame_stage(dump)
                or activity_before(before, lineno, "", text)
                or (stage, stage_from)
            )
        evidence = {"category": f"hang: {reason}", "stage": stage_from}
        return Failure("timeout", stage, text, lineno, {"evidence": reason}, (text,), evidence)

    def _refresh_keywords(self) -> None:
        markers = live_marker_keywords(self._stage, self._floor)
        self.keywords = tuple(dict.fromkeys((*self._triggers, *self._rule_keywords, *markers)))

    def _error_stage(self) -> str:
        """The stage of an error starting now: the current one, or shutdown if it just began."""
        if STAGE_INDEX.get(self._stage, 0) < STAGE_INDEX["shutdown"]:
            late = late_stage(raw for _, raw in self._ring)
            if late is not None:
                self._stage_sources[late] = f"marker {late_marker_fragment(late)!r}"
                return late
        return self._stage

    def _failure(self, cand: Candidate) -> Failure:
        # (read only when nothing else tells the stage: a debugger's backtrace after the error)
        after = self._lines_after(cand.line)
        # (and the stack an aborting process printed right above: ggml's, before "Aborted")
        after = stack_then(self._tail, cand.line, after)
        return decide(cand, self._stage_sources, frames=not self._events, after=after)

    def _lines_after(self, lineno: int) -> Iterator[str]:
        """The logical lines the tail holds after line ``lineno``, read as they are asked for."""
        return (ln.text for n, raw in self._tail if n > lineno for ln in logical_lines(raw))

    def _match(self, line: LogicalLine) -> tuple[Rule, dict[str, Any]] | None:
        lowered = line.text.lower()
        for rule in self._rules:
            detail = rule.match(line.text, line.level, lowered)
            if detail is not None:
                if line.tag:
                    detail.setdefault("process", process_name(line.tag))
                return rule, detail
        return None

    def _matcher(self, tag: str) -> wrap.MatchFn:  # the rules on a message of process ``tag``
        return lambda text: self._match(LogicalLine(text, tag, ""))

    def _candidate(
        self, lineno: int, line: LogicalLine, start: int, stage: str
    ) -> Candidate | None:
        if is_aside(line.text, lineno, self._tail):  # (the tail holds every line the ring does)
            return None
        found = self._match(line)
        if found is None:
            if says_error(line.text, line.level):
                detail = {"process": process_name(line.tag)} if line.tag else {}
                # (a printed line whose message is below it; a logger's record at an error level
                # takes only a line of no record of its own: see ``message_below``)
                below = heads_its_message(line.text)
                return Candidate(
                    LEVEL_ONLY,
                    "unknown",
                    line.text,
                    lineno,
                    start,
                    stage,
                    detail,
                    None,
                    message_below=below,
                )
            return None
        rule, detail = found
        rank = WRAPPER if rule.wrapper else WEAK if rule.weak else STRONG
        if rank == STRONG and rule.category == "unknown":
            rank = UNKNOWN
        return Candidate(
            rank,
            rule.category,
            line.text,
            lineno,
            start,
            stage,
            detail,
            rule.stage_hint,
            rule=rule.name,
            hint_from=f"rule {rule.name}" if rule.stage_hint else "",
            message_below=MESSAGE_BELOW.search(line.text) is not None,
        )

    def _process(self, lineno: int, line: LogicalLine) -> None:
        self._best = wrap.message_below(self._best, lineno, line) or self._best
        best = self._best
        if best and not best.went_on and best.line < lineno and WENT_ON.search(line.text):
            self._best = replace(best, went_on=True)  # (see candidates.died_of)
        rejoined = wrap.wrapped_cause(self._best, lineno, line, self._matcher(line.tag))
        if rejoined is not None:
            self._best = rejoined
            return
        block = self._blocks.get(line.tag)
        if block is None and not line.tag and wrap.is_wrapped(line):  # a tag a terminal lost
            last = [b for b in self._blocks.values() if b.last_seen == lineno - 1 and b.best]
            block = next((b for b in last if b.best and b.best.rule in GENERIC_RULES), None)
        if block is not None:
            if self._extend(block, lineno, line):
                return
            self._close(block)
        text = line.text
        if is_header(text):
            block = Block(line.tag, lineno, self._error_stage(), True, [text], last_seen=lineno)
            block.activity = self._activity(lineno, text)
            if not text.startswith(HEADERS):  # "Exception in worker ...: <error>, Traceback ...:"
                block.best = self._candidate(lineno, line, lineno, block.stage)
                if block.best is not None:
                    block.lines[:0] = wrap.own_frames(self._ring, lineno, self._before, line)
                    block.best.traceback = block.lines
            self._blocks[line.tag] = block
            return
        cand = self._candidate(lineno, line, lineno, self._stage)
        cause = wrap.first_cause(self._best, lineno, line, cand, self._ring)
        if cause is not None:  # (anyhow's "Caused by:" under an error no rule knows)
            self._best = cand = cause
        if cand is None:
            self._note_marker(text)
            return
        cand.stage = self._error_stage()
        cand.activity = self._activity(lineno, text) if may_reach_first(cand, self._best) else None
        if cand.rank in (WRAPPER, UNKNOWN, WEAK) and (self._best is None or self._best.rank < WEAK):
            self._recover_quiet_causes(cand.hint, cand.hint_from)
        framed = cand.rank >= WRAPPER  # not a bare ERROR line
        frames = wrap.lookback(self._ring, lineno, self._before, line.tag) if framed else []
        if frames:
            cand.start = min(n for n, _ in frames)
        cand.traceback = [t for _, t in frames] + [text]
        if cand.rank in (WRAPPER, UNKNOWN, WEAK) or cand.rule in GENERIC_RULES:
            # Not a known cause yet: the next lines of this process may name it.
            block = Block(line.tag, cand.start, cand.stage, False, cand.traceback, cand)
            block.activity = cand.activity
            block.deadline = lineno + FOLLOW_LINES
            block.last_seen = lineno
            self._note_hints(block, line)
            self._blocks[line.tag] = block
            return
        self._offer(cand)

    def _extend(self, block: Block, lineno: int, line: LogicalLine) -> bool:
        """Add ``line`` to ``block`` if it belongs there; False means the block is over."""
        text = line.text
        block.last_seen = lineno
        if block.is_traceback and not block.exception_seen:
            if is_frame(text) or not text.strip() or is_flat_source(text, block.lines[-1]):
                self._keep(block, text)
                return True
            if INTERLEAVED_WARNING.match(text):
                return True  # another process's warning between the frames
            block.exception_seen = True
            block.deadline = lineno + FOLLOW_LINES
        elif text.startswith(DESTRUCTOR_REPORT):
            return False  # the garbage collector's own report (see ``candidates.in_destructor``)
        elif is_header(text) or text.startswith(CHAIN):
            if not block.is_traceback and (block.best is None or block.best.rank <= WRAPPER):
                block.lines = []  # the traceback a wrapper announced: keep only the traceback
                block.stage = self._error_stage()  # markers may have come since the wrapper
            block.is_traceback = True
            block.exception_seen = False
            self._keep(block, text)
            return True
        elif lineno > block.deadline:
            return False
        elif self._continued(block, line):
            return True
        elif (
            text.strip()
            and not text.startswith((" ", "\t"))
            and block.best is not None
            and (
                block.best.rank == STRONG
                or (block.is_traceback and block.best.rank < WEAK and block.best.rank != UNKNOWN)
            )
        ):
            # After an exception line only its indented continuation belongs to it, unless the
            # error is a relay or unrecognised: the next lines may name the cause (NCCL's what()).
            return False
        self._keep(block, text)
        self._note_hints(block, line)
        cand = self._candidate(lineno, line, block.start, block.stage)
        if cand is None and not block.is_traceback:
            self._note_marker(text)  # the log goes on after a relay or a warning
        if cand is not None and replaces_in_block(cand, block.best):
            cand.traceback, block.best = block.lines, cand
            if not block.is_traceback:  # a cause after a warning: the stage markers since say
                block.stage = self._error_stage()
        if block.best is not None and block.best.rank == STRONG:
            if block.best.rule not in GENERIC_RULES:
                self._close(block)  # a known cause ends the search in this block
            else:  # only an exception type: the message may go on, wrapped, on the next line
                block.deadline = min(block.deadline, lineno + wrap.MAX_WRAPPED)
        return True

    def _continued(self, block: Block, line: LogicalLine) -> bool:
        """A generic exception message wrapped onto ``line``: read the pieces as one message."""
        best = block.best
        if best is None or best.rule not in GENERIC_RULES or not wrap.continues(best.text, line):
            return False
        heads = block.wrapped or [best.text]
        block.wrapped = [text for head in heads for text in wrap.joins(head, line.text)][:8]
        strong = best.rank == STRONG
        # (a type alone: its message may follow; not a traceback's exception line, which has it)
        adjacent = block.last_seen == best.line + 1 and not any(map(is_frame, best.traceback))
        found = wrap.rejoin(heads, line.text, self._matcher(line.tag), strong, adjacent)
        if found is None and not strong:
            return False  # an unrecognised exception: the line is read as usual
        self._keep(block, line.text)
        if found is not None:
            block.best = wrap.reread(best, *found)
            self._close(block)
        return True

    def _note_marker(self, text: str) -> None:
        stage = marker_stage(text)
        if (
            stage is not None
            and STAGE_INDEX[stage] >= self._floor
            and stage != self._stage
            and (stage != "startup" or self._stage == "unknown")
        ):
            self._stage, self._marked_at = stage, self._lineno
            self._stage_sources[stage] = f"marker {marker_fragment(text)!r}"
            self._refresh_keywords()

    def _activity(self, lineno: int, text: str) -> tuple[str, str] | None:  # see :mod:`.activity`
        head = self._raw if lineno == self._lineno else ""
        return activity_at(self._ring, lineno, head, text, (self._marked_at, self._stage))

    def _keep(self, block: Block, text: str) -> None:
        if len(block.lines) < MAX_TRACEBACK:
            block.lines.append(text)
        else:  # keep the head and the most recent tail of a huge traceback
            block.lines[MAX_TRACEBACK // 2 :] = [*block.lines[MAX_TRACEBACK // 2 + 1 :], text]

    def _note_hints(self, block: Block, line: LogicalLine) -> None:
        for rule in self._hint_rules:
            if rule.stage_hint and rule.match(line.text, line.level) is not None:
                block.hints.append((rule.stage_hint, rule.name))

    def _recover_quiet_causes(self, hint: str | None, hint_from: str = "") -> None:
        """Match the recent lines in full when a wrapper or an unrecognised error shows up.

        The keyword filter skips lines without an error word, such as a ``ptxas fatal`` line
        logged at INFO before ``Capture cuda graph failed``; the wrapper's stage hint carries over.
        """
        for lineno, raw in self._ring:
            if lineno <= self._recovered_upto:
                continue
            for line in logical_lines(raw):
                if not line.text.strip() or is_frame(line.text):
                    continue
                cand = self._candidate(lineno, line, lineno, self._stage)
                if cand is not None and cand.rank >= WEAK:
                    if hint and later_stage((cand.hint, hint)) != cand.hint:
                        cand.hint, cand.hint_from = later_stage((cand.hint, hint)), hint_from
                    cand.traceback, cand.activity = [line.text], self._activity(lineno, line.text)
                    self._offer(cand)
        if self._ring:
            self._recovered_upto = self._ring[-1][0]

    def _close(self, block: Block) -> None:
        self._blocks.pop(block.tag, None)
        cand = block_result(block, self._best, self._events)
        if cand is not None:
            self._offer(cand)

    def _offer(self, cand: Candidate) -> None:
        self._best = merged(self._best, cand)
        self._follow_until = max(self._follow_until, cand.line + FOLLOW_GAP)

    def _expire(self, lineno: int) -> None:
        for block in list(self._blocks.values()):
            if block.exception_seen or not block.is_traceback:
                if lineno > block.deadline:
                    self._close(block)
            elif lineno - block.last_seen > STALE_LINES:
                self._close(block)
