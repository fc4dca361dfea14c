"""From the chosen candidate to the :class:`Failure`, with the evidence for its category and stage.

The category comes from the rule that matched, unless that rule only names an exception type (or
nothing matched) and a traceback frame that raises for one reason only says more. The stage is the
latest of: the stage the log's markers (or the probe's explicit events) named when the error began,
the matching rule's stage hint, and, when there are no explicit events, the traceback's frames;
what the message says was being done counts only when none of these tells. With none of them the
stage is ``unknown``: a stage is never reported by default.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from pytest_blackwell.failures.activity import moved_on
from pytest_blackwell.failures.candidates import Candidate
from pytest_blackwell.failures.cue_words import DEVICE_NODE_MISSING, NATIVE_LIBRARY_MISSING
from pytest_blackwell.failures.cues import READABLE_RULES, TWO_READINGS, cue_category
from pytest_blackwell.failures.frame_words import (
    dispatched,
    frame_category,
    kv_pool_raiser,
    waiting_dump,
    worded_frame,
)
from pytest_blackwell.failures.frames import decisive, frame_stage
from pytest_blackwell.failures.lineshapes import IPYTHON_ARROW, IPYTHON_CONTEXT, is_header
from pytest_blackwell.failures.model import Failure
from pytest_blackwell.failures.native_stacks import DEBUGGER_FRAME
from pytest_blackwell.failures.ownwords import own_words
from pytest_blackwell.failures.phrases import dispatcher_words, phrase_stage
from pytest_blackwell.failures.rules_late import (
    PADDLE_CAPABILITY_WARNINGS,
    TORCH_CAPABILITY_WARNINGS,
)
from pytest_blackwell.failures.stages import later_stage

#: The weakest stage evidence, used only when markers, rules, frames and phrases say nothing:
#: the kind of error itself. A process that cannot import its modules or load its libraries
#: fails while it starts. A driver too old is not a prior: CUDA samples, glog checks and
#: llama.cpp report it from wherever CUDA is first called, so only the excerpt's own evidence
#: (a ``set_device`` frame, ``CUDA initialization``) names its stage.
_STARTUP_SHAPE = re.compile(
    r"\b(?:ImportError|ModuleNotFoundError)\b|No module named|undefined symbol"
    r"|cannot open shared object file"
    # the same on Windows (LoadLibrary's error 126, a DLL's own initialisation failing: 1114;
    # PyInstaller's bundle loading one) and macOS (dyld)
    r"|LoadLibrary failed|The specified (?:module|procedure) could not be found"
    r"|A dynamic link library \(DLL\) initiali[sz]ation routine failed|Failed to load dynlib/dll\b"
    r"|\bWinError (?:126|127|1114)\b"  # (their numbers, in any language of the message)
    # ctypes bindings that find no native library to load (llama-cpp-python's)
    r"|\bShared library with base name '[\w.-]+' not found\b"
    r"|\bwas(?:n'?t| not) able to be loaded\b"  # ONNX Runtime's CUDA provider library
    r"|dyld\S*: Library not loaded"
    # ctypes on Windows: "Could not find module '...\\x.dll' (or one of its dependencies)"
    r"|\bCould not find module '[^']*\.dll'"
    # bitsandbytes, which loads its native library as it is imported; sgl_kernel, which tries
    # each build of its own ("Could not load any common_ops library!")
    r"|\bConfigured CUDA binary not found\b|\bCould not load any \w+ library\b"
    # a binding's native library not found where it looks, torch's process group without the
    # backend asked for (it is set up before any work)
    r"|(?i:" + NATIVE_LIBRARY_MISSING + ")"
    r"|\bDistributed package doesn't have \w+ built in\b"
    r"|(?i:" + DEVICE_NODE_MISSING + ")"
)
#: torch.cuda's capability check, which warns when CUDA is initialised in the process: the shape
#: of a start-up failure when it is the error itself (``env_mismatch``), but only a precursor of
#: another cause (no kernel image when the first kernel runs, wherever that is), whose stage it
#: does not tell.
_CAPABILITY_WARNINGS = (
    *TORCH_CAPABILITY_WARNINGS,
    *PADDLE_CAPABILITY_WARNINGS,  # (PaddlePaddle's own checks)
)
#: Loads that happen when a library is first used, not when the process starts: cuDNN loading
#: one of its sub-libraries ("Could not load library libcudnn_ops_infer.so.8"), an import in
#: the body of a model's layer or forward function (a kernel package imported on first call).
#: (and a weakly linked symbol missing when it is called: "dyld: missing symbol called")
_FIRST_USE = re.compile(
    r"\bCould not load library |/layers/|\b_?forward\w*\(|\bin _?forward\w*$"
    r"|\bmissing symbol called\b"
)


#: An engine that says it never finished starting, when its wrapper is all the excerpt shows
#: (docs/failures.md: from where the excerpt looks, the engine did not start). Only a prior: a
#: cause with a stage of its own, or the wrapper's frames, say more.
_NEVER_STARTED = re.compile(
    r"\b(?:Engine ?[Cc]ore|Engine process|WorkerProc|vLLM(?: server)?) (?:failed to start"
    r"|initiali[sz]ation failed)\b|\b[Ss]erver (?:launch|start(?:up)?) failed\b"
)


#: A frame of a module being imported (``..., in <module>``; IPython's ``x.py in <module>()``).
_MODULE_FRAME = re.compile(r"\bin <module>(?:\(\))?\s*$")


def first_use(lines: Sequence[str]) -> bool:
    """Whether ``lines`` show a library loaded on first use (:data:`_FIRST_USE`); a layer's
    module being imported (its frame ``in <module>``) is an import like any other."""
    return any(_FIRST_USE.search(text.strip()) and not _MODULE_FRAME.search(text) for text in lines)


#: Rules that match only the shapes above (also when the message they matched is on a line of
#: its own, below a panic's or a wrapper's header that became the error's text).
_STARTUP_SHAPE_RULES = frozenset({"library_mismatch", "module_missing", "import_failed"})


def stage_prior(
    category: str, lines: Sequence[str], message: str = "", rule: str = ""
) -> tuple[str, str] | None:
    """``(stage, why)`` from the shape of the error alone, else ``None``.

    ``category`` is not used as a prior by itself: excerpts of one category come from every
    stage (an ``env_mismatch`` can be a JIT build's), so only the error's own shape counts; a
    precursor warning in the block of another category's cause is not that cause's shape.
    ``message`` is the error's own line, which a wrapper alone may be (``EngineCore failed to
    start``); ``rule`` is the rule that named the category.
    """
    if category == "engine_died" and any(_NEVER_STARTED.search(t) for t in (message, *lines)):
        return "startup", "prior: the engine says it never finished starting"
    if first_use(lines):
        return None
    if rule in _STARTUP_SHAPE_RULES:
        return "startup", "prior: an import, library load or CUDA set-up fails at startup"
    for text in lines:
        if any(warning in text for warning in _CAPABILITY_WARNINGS):
            startup = category == "env_mismatch"
        else:
            startup = _STARTUP_SHAPE.search(text) is not None
        if startup:
            return "startup", "prior: an import, library load or CUDA set-up fails at startup"
    return None


#: An activity that names the KV cache being allocated (see ``decide``).
_KV_ACTIVITY = re.compile(r"(?i)activity '[^']*\bkv[ _-]?cache")

#: The engine stages whose first kernel launches build kernels just in time; a program's
#: request or training step after a compiler's error is read both ways (docs: round 94).
_BUILDS_IN = ("profile", "graph_capture", "warmup")

#: Rules that only name an exception type: a frame that raises for one reason is better evidence.
GENERIC_RULES = ("value_error", "exception")


def _told_lines(cand: Candidate) -> list[str]:
    """The lines that may say what was being done: the traceback, and the error's own text
    where the traceback does not hold it (a Rust panic's message joined to its header; a line
    read from the tail alone)."""
    lines = list(cand.traceback)
    if any(IPYTHON_ARROW.match(line) for line in lines):
        # IPython shows the lines around the one that ran for context: they did not run
        lines = [line for line in lines if not IPYTHON_CONTEXT.match(line)]
    if not any(cand.text in line for line in lines):
        lines.append(cand.text)
    return lines


def _own_frames(cand: Candidate) -> Sequence[str]:
    """The lines of ``cand``'s block that are its own: not a traceback that starts after its
    error line when that line ends a traceback of its own (another exception logged under the
    same tag, such as vLLM's output loop relaying the engine core's death below the engine
    core's error; a logged message's traceback below it is the message's own)."""
    lines = cand.traceback
    at = next((i for i, line in enumerate(lines) if cand.text and cand.text in line), None)
    if at is None or not any(line.lstrip().startswith('File "') for line in lines[:at]):
        return lines
    later = next((i for i in range(at + 1, len(lines)) if is_header(lines[i].strip())), None)
    return lines if later is None else lines[:later]


def category_evidence(cand: Candidate) -> str:
    """What named the category of ``cand``, in words."""
    if cand.rule:
        return f"rule {cand.rule}"
    if cand.detail.get("truncated"):
        return "traceback cut before its exception line"
    return "error line without a known signature"


def decide(
    cand: Candidate, sources: Mapping[str, str], *, frames: bool, after: Iterable[str] = ()
) -> Failure:
    """The failure ``cand`` stands for.

    ``sources`` maps a stage to what announced it (a marker or an explicit event); ``frames`` is
    False for engine runs with explicit stage events, whose stage stays exact. ``after`` are the
    lines logged after the error (a debugger's backtrace of the process there is its stack).
    """
    category, category_from = cand.category, category_evidence(cand)
    # (a wrapper that names a category keeps it; one that does not, such as a worker's "Error
    # executing method initialize_cache" above the worker's cut traceback, reads its frames)
    if (category == "unknown" or cand.rule in GENERIC_RULES) and not TWO_READINGS.search(cand.text):
        found = frame_category(_own_frames(cand), cand.text)
        if found is None and cand.detail.get("truncated"):
            dump = waiting_dump(cand.traceback)  # a stuck process's thread dump
            found = None if dump is None else ("timeout", f"hang: {dump}")
        if found is None and cand.rule in READABLE_RULES:
            # the error's own words, the last evidence (a refusal a generic rule read as a
            # configuration error may name an architecture: no kernel for it)
            found = cue_category(own_words(cand.text, cand.traceback))
            if found is not None and found[0] == category:
                found = None  # the rule's own reading, by its own name
        if found is not None:
            category, category_from = found
    options = [(cand.stage, sources.get(cand.stage, "none"))]
    if cand.hint:
        options.append((cand.hint, cand.hint_from or "rule"))
    told = None
    if frames:
        # What the message says was being done is the weakest evidence: only when nothing else
        # tells ("... so CUDA graph capture cannot proceed" names a consequence, not the stage).
        told = frame_stage(cand.traceback)
        if told is not None and not decisive(told):
            # a contextual frame (a chat module's reload) or a library's path holds later stages
            # of the work: the message's own words may name the one it was in (creating the KV
            # cache); not the process ending, which no frame's work holds
            said = phrase_stage(_told_lines(cand))
            if (
                said is not None
                and said[0] not in ("shutdown", told[0])
                and later_stage((said[0], told[0])) == said[0]
            ):
                told = said
        if told is None and moved_on(cand.activity):  # the marked stage is over (no frame says)
            options.append(cand.activity)
        if cand.hint == "compile" and cand.after is not None and cand.after[0] in _BUILDS_IN:
            # a compiler's error, then the traceback of the engine that ran the build: the build
            # ran inside that engine stage (a JIT build while CUDA graphs are captured)
            options.append(cand.after)
        if told is None and later_stage(stage for stage, _ in options) == "unknown":
            told = (
                phrase_stage(_told_lines(cand))
                or backtrace_stage(after)
                or cand.after
                or cand.activity
                or worded_frame(cand.traceback)
                or dispatched(cand.traceback)
                or dispatcher_words(cand.traceback or [cand.text])
            )
            if told is not None and told[0] == "startup" and first_use(cand.traceback):
                told = None  # a library loaded by a layer's code loads when the model first runs
        if told is not None:
            options.append(told)
    stage = later_stage(stage for stage, _ in options)
    marked, marker = options[0]
    if told and decisive(told) and stage == marked == "execute" and marker.startswith("marker "):
        # A server that says it is up ("Application startup complete") may still send itself
        # its warm-up request (SGLang): an engine function on the stack says what ran. (Any
        # other marker is later than the frames: the stages before it are over.)
        stage = told[0]
    if stage == "profile":
        # vLLM compiles inside its profiling run: a compiler's error is its own (by its rule, or
        # by its words: "LLVM Translation failed")
        said = phrase_stage(_told_lines(cand)) if frames and cand.hint != "compile" else None
        if said is not None and said[0] == "compile":
            options.append(said)
            stage = "compile"
        elif cand.hint == "compile":
            stage = "compile"
    stage_from = next((why for st, why in options if st == stage), "none")
    if (
        category == "device_oom"
        and stage == "kv_alloc"
        and (stage_from.startswith("frame ") or _KV_ACTIVITY.match(stage_from))
    ):
        # A plain allocation failing inside the code that builds the KV cache, or while the
        # log says the KV caches are being allocated: the cache does not fit the memory left
        # (ExLlamaV2's cache constructor, vLLM's cache engine, "Allocating TT kv caches").
        category, category_from = "kv_cache_oom", f"{category_from} under {stage_from}"
    worded = category == "device_oom" and category_from.startswith("cue ")  # (no allocator's)
    pool = kv_pool_raiser(_own_frames(cand)) if worded and frames else None
    if pool is not None:
        # a shortage raised by the KV cache's own manager in words of its own ("Failed to
        # allocate token prealloc indices" in SGLang's radix cache): its pool has no room
        category, category_from = "kv_cache_oom", f"{category_from} raised in {pool}"
    if stage == "unknown" and frames:
        prior = stage_prior(category, cand.traceback, cand.text, cand.rule)
        if prior is not None:
            stage, stage_from = prior
    return Failure(
        category,
        stage,
        cand.text,
        cand.line,
        dict(cand.detail),
        tuple(cand.traceback),
        {"category": category_from, "stage": stage_from},
    )


def backtrace_stage(lines: Iterable[str]) -> tuple[str, str] | None:
    """``(stage, evidence)`` from the debugger's backtraces among ``lines`` (gdb's, lldb's, a
    tombstone's or ggml's own, as native engines print on an abort), or ``None`` when there is
    none or none tells. Only their frame lines are read; a frame numbered ``#0`` again (or lower
    than the last) starts another backtrace (another thread's, or the full one after a
    debugger's stop location), and the first backtrace that tells a stage wins."""
    stacks: list[list[str]] = []
    last = -1
    for text in lines:
        if DEBUGGER_FRAME.match(text) is None:
            continue
        number = _FRAME_NUMBER.match(text)
        at = int(number.group(1)) if number is not None else last + 1
        if not stacks or at <= last:
            stacks.append([])
        stacks[-1].append(text)
        last = at
    return next((told for stack in stacks if (told := frame_stage(stack)) is not None), None)


#: The number of a debugger's frame ("#3", lldb's "frame #3"), which counts up from the
#: innermost frame of each backtrace.
_FRAME_NUMBER = re.compile(r"^\s*(?:\* )?(?:frame )?#(\d+)")
