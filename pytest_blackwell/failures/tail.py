"""Errors among the last lines of a log, matched in full (private to the classifier).

A process that dies leaves its last word at the end of the log (``Killed``, ``Segmentation
fault (core dumped)``, ``engine core exited unexpectedly``), so the tail is matched in full instead
of paying a keyword search through the whole log for them. A traceback the log ends in, cut
before its exception line, is an ``unknown`` error of its own.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from typing import Any, NamedTuple

from pytest_blackwell.failures.activity import activity_at, activity_stage
from pytest_blackwell.failures.activity_words import ACTIVITY
from pytest_blackwell.failures.candidates import (
    LEVEL_ONLY,
    RING_LINES,
    WRAPPER,
    Candidate,
)
from pytest_blackwell.failures.cue_words import NO_GPU_BUILD
from pytest_blackwell.failures.cues import cue_category
from pytest_blackwell.failures.errorwords import ASIDE, BENIGN, SOURCE_ABORT, is_quiet
from pytest_blackwell.failures.frame_words import THREAD_DUMP
from pytest_blackwell.failures.frames import IPYTHON_FRAME, is_flat_source, parse_frame
from pytest_blackwell.failures.lineshapes import (
    CELL_FRAME,
    EXCEPTION_TYPE,
    HEADERS,
    INTERLEAVED_WARNING,
    is_frame,
    is_header,
)
from pytest_blackwell.failures.native_stacks import DEBUGGER_FRAME, DEBUGGER_NOISE
from pytest_blackwell.failures.normalize import LogicalLine, logical_lines
from pytest_blackwell.failures.phrase_words import MODEL_NOT_LOADED

#: How many of the last lines a failure without any error word may be on (see
#: :func:`unmarked_error`): a pasted excerpt ends at its error.
UNMARKED_LINES = 3
#: A C or C++ program's last word naming its own source line (ggml's and glog's aborts).
_ABORT_AT = re.compile(SOURCE_ABORT)

#: The start of a line cut short, which no exception line is: an indented piece or a lone
#: bracket or punctuation ("  Fil", "(").
_CUT_SHORT = re.compile(
    r"^\s+\S{1,12}$|^\W{1,3}$"
    # (or an exception's name cut mid-word, nothing after it: "Runtime", "torch.OutOfMem")
    r"|^(?:[a-z_]\w*\.)*[A-Z][A-Za-z]{1,24}$"
    # (or the tag in front of each line, cut before it closed: "[ran" of "[rank0]:", "(EngineCor"
    # of "(EngineCore_DP0 pid=7)")
    r"|^[\[(]\w{1,16}$"
)

#: A notice followed by the stack it was found from, no traceback (Inductor's "skipping
#: cudagraphs due to cpu device (arg7_1). Found from :").
_STACK_NOTE = re.compile(r"\bFound from\s*:\s*$")


def _cut_record(raw: str, before: list[tuple[int, str]]) -> bool:
    """Whether ``raw`` is the next record cut inside its prefix: the start of the line before it
    (``api-1  | 9:47AM DBG GRPC(mistral-7b`` under a record of that process)."""
    cut = raw.rstrip()
    return len(cut) >= 4 and bool(before) and before[-1][1].startswith(cut) and before[-1][1] != raw


#: ``(line number, logical line, block start, stage) -> candidate or None``
CandidateFn = Callable[[int, LogicalLine, int, str], "Candidate | None"]


def tail_candidates(
    tail: Iterable[tuple[int, str]],
    candidate: CandidateFn,
    stage: str,
    seen: tuple[str, ...] = (),
    marked: tuple[int, str] = (0, ""),
) -> list[Candidate]:
    """The candidate errors among ``tail`` (``(line number, raw line)`` pairs), in order.

    Lines containing one of the keywords in ``seen`` were already read closely by the caller
    and are only followed for traceback structure here. ``marked`` is the line of the last
    stage marker and its stage (see :func:`~pytest_blackwell.failures.activity.activity_at`).
    """
    found = []
    open_traceback: list[str] = []  # a traceback the log ends in, cut before its exception
    # a traceback followed by nothing but the start of a line cut short ("(", "  Fil"): the
    # paste ended inside the traceback all the same
    cut_short: tuple[list[str], int, int] | None = None
    said = ""  # the last line that was no frame
    frames: list[str] = []  # the traceback right before the current line
    start = last = 0
    before: list[tuple[int, str]] = []  # the lines so far: what the program was doing (activity)
    for lineno, raw in tail:
        known = any(k in raw for k in seen)
        for line in logical_lines(raw):
            if is_header(line.text) or THREAD_DUMP.match(line.text):
                open_traceback, start = [line.text], lineno
            elif open_traceback and (
                is_frame(line.text)
                or not line.text.strip()
                # (its frame line the last with words: a paste may double the line breaks)
                or is_flat_source(line.text, next(t for t in reversed(open_traceback) if t.strip()))
            ):
                open_traceback.append(line.text)
                last = lineno if line.text.strip() else last
                if line.text.strip() and not is_frame(line.text):
                    continue  # a source line at the margin is no error of its own
            elif open_traceback and INTERLEAVED_WARNING.match(line.text):
                continue  # another process's warning between the frames
            elif (
                # (also indented by one or three spaces, as a paste may set the block)
                line.text.startswith(("  File ", 'File "', ' File "', '   File "'))
                and not open_traceback
                and not _STACK_NOTE.search(said)
            ):
                # Frames whose header was cut off: a traceback all the same (not the stack a
                # notice lists as where it found something, Inductor's "Found from :").
                open_traceback, start, last = ["Traceback (header cut)", line.text], lineno, lineno
            else:
                frames, open_traceback = open_traceback, []
            framed = is_frame(line.text)
            if not framed and not line.text.lstrip().startswith('File "'):
                said = line.text
            if not line.text.strip() or framed:
                continue
            cut_short = (
                (frames, start, last)
                if frames and (_CUT_SHORT.match(line.text) or _cut_record(raw, before))
                else None
            )
            if not known:
                cand = candidate(lineno, line, lineno, stage)
                if cand is not None:
                    cut_short = None  # the line is an error of its own, not a piece of one
                if cand is not None and cand.rank >= WRAPPER:
                    cand.traceback = [*frames, line.text]
                    cand.start = start if frames else lineno
                    # the lines before, and what this line showed before the error (a bar)
                    cand.activity = activity_at(
                        before[-RING_LINES:], lineno, raw, line.text, marked
                    )
                    found.append(cand)
                frames = []
        before.append((lineno, raw))
    if not open_traceback and cut_short is not None:
        open_traceback, start, last = cut_short
    # (a notebook's frames count too: IPython's "Cell In[1], line 7")
    frame_count = sum(
        t.lstrip().startswith('File "') or bool(CELL_FRAME.match(t) or IPYTHON_FRAME.match(t))
        for t in open_traceback
    )
    head = open_traceback[0] if open_traceback else ""
    # (or only its header, the last line with words: the paste ended right there)
    alone = is_header(head) and not any(t.strip() for t in open_traceback[1:])
    if frame_count >= 2 or (frame_count and (is_header(head) or THREAD_DUMP.match(head))) or alone:
        text = next(t for t in reversed(open_traceback) if t.strip()).strip()
        detail: dict[str, Any] = {"truncated": True}
        cut = Candidate(
            LEVEL_ONLY,
            "unknown",
            text,
            start if alone else last,
            start,
            stage,
            detail,
            None,
            open_traceback,
        )
        cut.activity = activity_stage(raw for _, raw in before[-RING_LINES:])
        found.append(cut)
    return found


def unmarked_error(
    tail: Iterable[tuple[int, str]], stage: str, marked: tuple[int, str] = (0, "")
) -> Candidate | None:
    """A failure worded without any error word, among the last lines of a log with no other.

    An excerpt may end in a line that says what went wrong in plain words and nothing else
    ("model requires more system memory (18.7 GiB) than is available (4.1 GiB)"). Only the last
    :data:`UNMARKED_LINES` lines are looked at, only at no quiet level, only when not routine
    (:data:`~pytest_blackwell.failures.errorwords.BENIGN`), and only for the general words of a
    category (:mod:`.cues`) or a C program's abort naming its source line; the failure is
    ``unknown`` with its first such line kept, and its category is read from those words. (Or,
    failing those, a traceback's header among them: :func:`unshown_exception`.)
    """
    lines = list(tail)
    read = [(lineno, raw, line) for lineno, raw in lines for line in logical_lines(raw)]
    last = [
        (lineno, raw, line)
        for lineno, raw, line in read
        if line.text.strip()
        and not is_frame(line.text)
        # (nor what a debugger attached on an abort prints: its backtrace is no new message)
        and DEBUGGER_FRAME.match(line.text) is None
        and DEBUGGER_NOISE.match(line.text) is None
    ][-UNMARKED_LINES:]
    picked = shown_exit_status(last) or _plain_words(last)
    if picked is None:
        return unshown_exception([(lineno, line) for lineno, _, line in read], stage)
    lineno, raw, line = last[picked.at]
    cand = Candidate(
        LEVEL_ONLY,
        picked.category,
        picked.text,
        lineno,
        lineno,
        stage,
        picked.detail,
        None,
        rule=picked.rule,
    )
    before = [(n, text) for n, text in lines if n < lineno][-RING_LINES:]
    cand.activity = activity_at(before, lineno, raw, line.text, marked)
    return cand


class _Picked(NamedTuple):
    """The line of ``last`` an unmarked failure is told by, and what it says."""

    at: int  # the index into ``last``
    category: str
    text: str
    detail: dict[str, Any]
    rule: str = ""


#: The end torch puts on a warning raised in its C++ code (``TORCH_WARN``): the line is a
#: warning's, whatever words it holds ("... strides() = [256, 1, 1, 1] (Triggered internally at
#: ../torch/csrc/distributed/c10d/reducer.cpp:327.)").
_TORCH_WARNED = re.compile(r"\(Triggered internally at \S+\)")
_NO_GPU_BUILD = re.compile(NO_GPU_BUILD)


#: A terminal's echo of Ctrl-C.
_INTERRUPT = "^C"
#: A shell tool's own report that a path it was given is not there ("data/x.tar.gz: No such file
#: or directory" as wget prints it, "cat: x: ..." and tar's "tar (child): x: Cannot open: ..."):
#: what stopped a script when it is the log's last line (tar's own epilogue aside).
_PATH_MISSING = re.compile(
    r"^(?:[\w.-]+(?: \(child\))?: )?[\w./\\~-]+: (?:Cannot open: )?No such file or directory$"
)
_TAR_EPILOGUE = re.compile(
    r"^tar(?: \(child\))?: (?:Error is not recoverable|Child returned status)"
)
#: A server that reports itself up and serving: what came before it did not stop it.
_SERVING = re.compile(
    r"\bRunning on (?:local |public )?URL\b|\bUvicorn running on\b|\bApplication startup complete\b"
    r"|\bserver is listening on\b"
)


#: A row of a boxed table (nvidia-smi's: "| N/A  N/A  N/A  N/A / N/A | Not Supported | 0% |", an
#: integrated GPU's memory cell): a report's cells, not a message.
_TABLE_ROW = re.compile(r"^[^|]*\|(?:[^|]*\|){2,}\s*$")


#: A start-up report's line on an optional component, as a whole line ("Xformers is
#: installed!", "Flash Attn is not installed!").
_COMPONENT = re.compile(
    # (not a runtime the program needs said to be missing: "CUDA is not installed", "the NVIDIA
    # driver is not installed", "torch is not installed")
    r"^\W*(?:(?!(?:the )?(?:(?:nvidia|amd) )?(?:cuda(?: [\d.]+)?(?: toolkit| runtime)?|cudnn"
    r"|(?:nvidia |gpu |graphics )*drivers?|nvcc|rocm|torch|pytorch|python)(?: [\d.]+)? is not\b)"
    r"[\w .+-]{1,40}? is (not )?installed)\W*$",
    re.IGNORECASE,
)


def _component_report(last: list[tuple[int, str, LogicalLine]]) -> list[bool]:
    """For each line of ``last``, whether it belongs to a report of which optional components are
    there: one line says a component is installed, another that one is not (a program that goes
    on without it); all ``False`` when ``last`` holds no such report."""
    found = [_COMPONENT.match(line.text.strip()) for _, _, line in last]
    report = any(m and not m.group(1) for m in found) and any(m and m.group(1) for m in found)
    return [report and m is not None for m in found]


def _plain_words(last: list[tuple[int, str, LogicalLine]]) -> _Picked | None:
    """The first of ``last`` that says what went wrong in a category's general words (NCCL's
    own name is not such a word: its banner, ``NCCL version 2.21.5+cuda12.4``, starts healthy
    runs; nor is a report of the components there and not there)."""
    reported = _component_report(last)
    for index, (_, _, line) in enumerate(last):
        if (
            reported[index]
            or _TABLE_ROW.search(line.text)
            or
            # (a build that cannot use the GPU is a failure as the last word, even as a warning)
            (
                is_quiet(line.text, line.level)
                and not (index == len(last) - 1 and _NO_GPU_BUILD.search(line.text))
            )
            or _TORCH_WARNED.search(line.text)
            or BENIGN.search(line.text)
            or ASIDE.search(line.text) is not None  # a fallback announced, an error foreseen
            or (
                not _failure_words(line.text)
                and not _ABORT_AT.match(line.text)
                and not (
                    _PATH_MISSING.match(line.text.strip())
                    and all(_TAR_EPILOGUE.match(later.text) for _, _, later in last[index + 1 :])
                )
                # (a terminal's echo of Ctrl-C as the last line: the run was interrupted, as a
                # KeyboardInterrupt says, and why is not shown; not when the program then printed
                # more, its statistics on the way out)
                and (line.text.strip() != _INTERRUPT or index < len(last) - 1)
            )
        ):
            continue
        if any(_SERVING.search(later.text) for _, _, later in last[index + 1 :]):
            return None  # (the program came up after it: "Running on local URL: ...")
        return _Picked(index, "unknown", line.text, {})
    return None


def _failure_words(text: str) -> bool:
    """Whether ``text`` holds a category's general words for a failure (not only NCCL's name)."""
    cue = cue_category([text])
    return cue is not None and cue[0] != "nccl_error"


#: A shell asked for the exit status of the command before (``echo $?``, cmd's ``echo
#: %errorlevel%``, PowerShell's ``echo $LASTEXITCODE``), after its prompt if any.
_ASKS_STATUS = re.compile(
    r"^(?:.*[>$#]\s*)?echo\s+(?:\$\?|%errorlevel%|\$LASTEXITCODE)\s*$", re.IGNORECASE
)
_STATUS = re.compile(r"^\s*(-?\d+)\s*$")


def shown_exit_status(last: list[tuple[int, str, LogicalLine]]) -> _Picked | None:
    """The failure an exit status a shell was asked for shows (``echo $?`` then ``139``): a
    crash for a Windows status of 0xC0000000 and above (negative as cmd prints it) or a
    signal's 128 + N, otherwise an exit code that only points at a cause printed elsewhere."""
    for index, ((_, _, asked), (_, _, shown)) in enumerate(itertools.pairwise(last), start=1):
        status = _STATUS.match(shown.text) if _ASKS_STATUS.match(asked.text) else None
        code = int(status.group(1)) if status is not None else 0
        if code == 0:
            continue
        died = code < 0 or 129 <= code <= 159 or code >= 0xC0000000
        text = f"{asked.text.strip()} -> {code}"
        category = "engine_died" if died else "unknown"
        return _Picked(index, category, text, {"exit_code": code}, "shown_exit_status")
    return None


#: An application's report that the work it ran is over, printed after the error it met
#: (ComfyUI's "Prompt executed in 7.13 seconds" after a node's exception): the error happened
#: while that work ran.
#: (text-generation-webui's report of each generation, printed when it failed too: "Output
#: generated in 2.48 seconds (0.00 tokens/s, 0 tokens, context 2096, seed 16)")
_WORK_ENDED = re.compile(
    r"\bPrompt executed in [\d.]+ seconds\b|\bOutput generated in [\d.]+ seconds \([\d.]+ tokens/s"
)


#: How many lines below the error a work loop's progress bar is its own (tqdm draws the bar once
#: more as the loop is left by the exception: "Steps:   0%|          | 0/400 [00:07<?, ?it/s]").
_BAR_AFTER_LINES = 6
#: A program reporting, right below the error, that the model it was loading failed to load
#: (AUTOMATIC1111's "Stable diffusion model failed to load" after CUDA's advice lines).
_LOAD_FAILED = re.compile(MODEL_NOT_LOADED + r"|^failed to load (?:the )?model\b", re.IGNORECASE)


def unshown_exception(tail: Sequence[tuple[int, LogicalLine]], stage: str) -> Candidate | None:
    """A Python traceback's header among the last lines (``tail``, read) of a log with no other
    failure: an exception was raised, though the excerpt does not show its line (two processes'
    tracebacks interleaved, a paste that mangled it). ``unknown``, its header kept; not at a quiet
    level. Failing that, a log that ends inside a stack (:func:`_ending_stack`)."""
    header: tuple[int, str] | None = None
    for lineno, line in tail:
        if header is None:
            if line.text.startswith(HEADERS[0]) and not is_quiet(line.text, line.level):
                header = lineno, line.text
        elif _SHOWN_EXCEPTION.match(line.text):
            return None  # its exception is shown, and read as no failure (a clean exit)
    if header is None:
        return _ending_stack(tail, stage)
    detail: dict[str, Any] = {"truncated": True}
    return Candidate(LEVEL_ONLY, "unknown", header[1], header[0], header[0], stage, detail, None)


#: A debugger's prompt, a command typed at it ("(gdb) bt", "(lldb) thread backtrace").
_DEBUGGER_PROMPT = re.compile(r"^\((?:gdb|lldb)\) ")


def _ending_stack(tail: Sequence[tuple[int, LogicalLine]], stage: str) -> Candidate | None:
    """A log that ends inside a stack: Python frames without their header (a paste that began
    below it; IPython's numbered source lines), or a native backtrace (ggml's, gdb's) under the
    abort that printed it. ``unknown``: a Python traceback's exception line is cut (its first
    frame kept), a native one's message is the line above it; not below a quiet line."""
    flat = [(n, line) for n, line in tail if line.text.strip()]
    start = _run_start([line.text for _, line in flat], is_frame)
    run = [line.text for _, line in flat[start:]]
    natives = [DEBUGGER_FRAME.match(text) is not None for text in run]
    native = sum(natives)
    python = sum(
        not nat and parse_frame(text) is not None for text, nat in zip(run, natives, strict=True)
    )
    if not python and native < 2:
        return None
    above = flat[start - 1] if start else None
    if above is not None and (
        is_quiet(above[1].text, above[1].level)
        or _STACK_NOTE.search(above[1].text) is not None
        or _DEBUGGER_PROMPT.match(above[1].text) is not None
    ):
        # (a stack shown for a note, "skipping cudagraphs ... Found from :", or asked for at a
        # debugger's prompt, "(gdb) bt", of a process stopped where it was)
        return None
    if native and above is not None:
        n, line = above
        return Candidate(LEVEL_ONLY, "unknown", line.text, n, n, stage, {}, None)
    n, line = flat[start]
    detail: dict[str, Any] = {"truncated": True}
    return Candidate(LEVEL_ONLY, "unknown", line.text, n, n, stage, detail, None, run)


#: An exception's line at the margin, as Python prints it below its traceback ("SystemExit: 0",
#: "KeyboardInterrupt", "torch.OutOfMemoryError: ...").
_SHOWN_EXCEPTION = re.compile(
    "^" + EXCEPTION_TYPE + r"(?:Error|Exception|Exit|Interrupt|Iteration|Warning)\b"
)


def work_ended(best: Candidate | None, tail: Iterable[tuple[int, str]]) -> Candidate | None:
    """``best`` told ``execute`` by the end of the work it broke reported among the last lines
    (:data:`_WORK_ENDED`), or by the progress bar of the loop it broke drawn right below it
    (:data:`_BAR_AFTER_LINES`), or told ``loading`` by the program's report right below it that
    its model failed to load, when nothing shown before it or after it tells its stage."""
    if best is None or best.after is not None or best.activity is not None:
        return best
    bar = ACTIVITY[-1][0]  # (a bare bar, not a download's byte rate)
    said = 0  # lines with words below the error
    for lineno, raw in tail:
        said += lineno > best.line and bool(raw.strip())
        if lineno > best.line and (m := _WORK_ENDED.search(raw)) is not None:
            return replace(best, after=("execute", f"activity {m.group(0)!r} (after the error)"))
        if best.line < lineno <= best.line + _BAR_AFTER_LINES and bar.search(raw):
            # (what the bar says it counts: "Loading checkpoint shards: 0%|...")
            stage, why = activity_stage([raw]) or ("execute", "")
            return replace(best, after=(stage, f"{why} (its loop's bar after the error)"))
        if 0 < said <= _BAR_AFTER_LINES and _LOAD_FAILED.search(raw.strip()):
            report = raw.strip()[:60]
            return replace(best, after=("loading", f"{report!r} (reported after the error)"))
    return best


def stack_then(tail: Iterable[tuple[int, str]], lineno: int, after: Iterable[str]) -> Iterator[str]:
    """The debugger's backtrace right above line ``lineno`` (a process's death: ggml's and gdb's
    stack of the aborting process, printed before the shell reports "Aborted"), innermost first,
    then ``after``; none when another line stands between them."""
    # (a generator: the tail is read only when nothing else told the stage and these are asked)
    above = [line.text for n, raw in tail if n < lineno for line in logical_lines(raw)]
    yield from above[_run_start(above, lambda text: not text.strip()) :]
    yield from after


def _run_start(texts: Sequence[str], also: Callable[[str], bool]) -> int:
    """Where the run of stack lines that ends ``texts`` starts: a debugger's frames and the noise
    it prints around them, and the lines ``also`` admits (a Python stack's, blank lines)."""
    start = len(texts)
    while start > 0 and (
        DEBUGGER_FRAME.match(texts[start - 1]) is not None
        or DEBUGGER_NOISE.match(texts[start - 1]) is not None
        or also(texts[start - 1])
    ):
        start -= 1
    return start
