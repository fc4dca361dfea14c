"""Stage markers in engine logs, and the signs of a hang.

A marker is a literal fragment of a log message that tells which stage the engine is in from
that line on. The last marker seen before the first error names its stage. vLLM compiles during
its memory-profiling run, so after ``Model loading took`` the stage is ``profile`` and a
``Dynamo bytecode transform`` line then moves it to ``compile`` (markers are not forced to
increase; explicit stage events from the probe set a floor instead).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from pytest_blackwell.failures.frame_words import THREAD_DUMP, waiting_dump
from pytest_blackwell.failures.normalize import logical_lines, strip_ansi, unflatten
from pytest_blackwell.failures.vocabulary import LIFECYCLE_STAGES

#: ``(fragment, stage)``, checked in order; the first fragment found in a message decides.
STAGE_MARKERS: tuple[tuple[str, str], ...] = (
    ("init engine (profile, create kv cache, warmup model) took", "execute"),
    ("Application startup complete", "execute"),
    ("Starting vLLM API server", "execute"),
    ("Processed prompts", "execute"),
    ("Avg prompt throughput", "execute"),
    ("Added request ", "execute"),  # vLLM's engine accepting a request
    ("input of failed execution", "execute"),  # vLLM V0 saving the inputs of a failed step
    ("The server is fired up and ready to roll", "execute"),
    ("POST /v1/", "execute"),
    ("POST /api/", "execute"),
    ("GET /v1/", "execute"),  # the API server answering requests (status polls too)
    ('"/api/generate"', "execute"),
    ('"/api/chat"', "execute"),
    # activity of a running server before the error: tokens produced per second
    ("tokens per second", "execute"),
    # llama.cpp's main example printing its settings as it starts generating
    ("generate: n_ctx = ", "execute"),
    ("Graph capturing finished", "warmup"),
    ("Warming up done", "warmup"),
    ("Warming up FlashInfer", "warmup"),
    ("warming up the model with an empty run", "warmup"),  # llama.cpp's common init
    ("Starting model warm up", "warmup"),  # koboldcpp's warm-up of a llama.cpp model
    ("Capturing CUDA graph", "graph_capture"),
    ("Capturing cudagraph", "graph_capture"),
    # SGLang's capture of the model's graphs and of a speculative drafter's ("Capture draft
    # cuda graph begin", "Capture draft extend cuda graph end")
    ("cuda graph end", "warmup"),
    ("cuda graph begin", "graph_capture"),
    ("KV Cache is allocated", "kv_alloc"),
    ("KV cache size:", "kv_alloc"),
    ("# GPU blocks:", "kv_alloc"),  # vLLM V0: the blocks counted, the cache allocated next
    ("# cuda blocks:", "kv_alloc"),  # the same, as later V0 releases name the device
    ("Available KV cache memory", "kv_alloc"),
    ("Memory profiling takes", "kv_alloc"),
    ("Maximum concurrency for", "kv_alloc"),
    ("torch.compile takes", "profile"),
    ("torch.compile took", "profile"),
    ("Dynamo bytecode transform", "compile"),
    ("for vLLM's torch.compile", "compile"),  # the compile cache it is about to use
    ("Compiling a graph for", "compile"),
    ("Start compiling", "compile"),
    ("Warming up model for the compilation", "compile"),
    ("Model loading took", "profile"),
    ("Model weights loaded. Memory usage", "profile"),  # (Aphrodite, vLLM's fork, says it so)
    ("Starting profile run", "profile"),  # vLLM V0's multi-modal runner starting it
    # vLLM's profiling run measuring what its CUDA graphs will take, before the KV cache is sized
    ("Profiling CUDA graph memory", "profile"),
    # vLLM's multi-modal profiler sizing the dummy inputs of the profiling run
    ("The sequence length used for profiling", "profile"),
    ("Loading weights took", "loading"),
    ("Loading safetensors checkpoint shards", "loading"),
    ("Starting to load model", "loading"),
    ("Loading drafter model", "loading"),  # vLLM loading a speculative decoding drafter
    # Triton server creating an instance of a model (its backend loads the model into it)
    ("TRITONBACKEND_ModelInstanceInitialize", "loading"),
    # (or the model before it: "TRITONBACKEND_ModelInitialize: cifar10 (version 1)"; not the
    # backend library's TRITONBACKEND_Initialize, which older servers run as they start)
    ("TRITONBACKEND_ModelInitialize", "loading"),
    ("Load weight end", "profile"),
    ("Load weight begin", "loading"),
    ("_context_with_model:", "kv_alloc"),
    ("llama_context:", "kv_alloc"),
    # llama.cpp's KV cache made for a context (llama_kv_cache_init, _unified, _unified_iswa)
    ("llama_kv_cache", "kv_alloc"),
    ("load_tensors:", "loading"),
    # llama.cpp's loader reading the file's metadata and describing the model it reads
    ("llama_model_loader:", "loading"),
    ("llm_load_print_meta:", "loading"),
    ("llm_load_tensors:", "loading"),
    ("print_info:", "loading"),
    ("Initializing a V1 LLM engine", "startup"),
    ("Initializing an LLM engine", "startup"),
    ("non-default args", "startup"),
    ("Init torch distributed begin", "startup"),
    ("Init nccl begin", "startup"),  # older SGLang releases
    ("main: build = ", "startup"),  # llama.cpp's start-up banner
    ("API server version", "startup"),
    ("vLLM is using nccl", "startup"),
    ("Automatically detected platform", "startup"),
)

#: Markers of the end of a run. An error during shutdown comes right after them, so instead of
#: searching the whole log for them they are looked for among the lines just before an error.
LATE_MARKERS: tuple[tuple[str, str], ...] = (("Shutting down", "shutdown"),)

STAGE_INDEX: dict[str, int] = {name: i for i, name in enumerate(LIFECYCLE_STAGES)}
_EXECUTE = STAGE_INDEX["execute"]


def marker_stage(text: str) -> str | None:
    """The stage a message announces, or ``None``.

    ``startup`` markers (lines every process prints while it starts) only name the stage of a log
    that has shown no other stage yet; the caller applies that.
    """
    for fragment, stage in (*STAGE_MARKERS, *LATE_MARKERS):
        if _says(fragment, text):
            return stage
    return None


def _says(fragment: str, text: str) -> bool:
    """``fragment`` in ``text``; a log prefix (``llama_context:``) not as a C++ scope in a
    backtrace's frame (``llama_context::graph_compute``), which is no record of that step."""
    if fragment not in text:
        return False
    return not fragment.endswith(":") or text.count(fragment) > text.count(fragment + ":")


def marker_fragment(text: str) -> str:
    """The marker fragment found in ``text`` (``""`` if none)."""
    for fragment, _ in (*STAGE_MARKERS, *LATE_MARKERS):
        if _says(fragment, text):
            return fragment
    return ""


def late_marker_fragment(stage: str) -> str:
    """The late-marker fragment that announces ``stage``."""
    return next(fragment for fragment, marker in LATE_MARKERS if marker == stage)


def late_stage(lines: Iterable[str]) -> str | None:
    """The stage a late marker among ``lines`` announces (``shutdown``), else ``None``."""
    for text in lines:
        for fragment, stage in LATE_MARKERS:
            if fragment in text:
                return stage
    return None


def live_marker_keywords(stage: str, floor: int) -> tuple[str, ...]:
    """Marker fragments that can still change ``stage`` (given an explicit-stage ``floor``).

    Once the engine serves requests only later stages (shutdown) can follow, so the fast scan
    stops looking for the start-up markers.
    """
    current = STAGE_INDEX.get(stage, 0)
    live = []
    for fragment, marker in STAGE_MARKERS:
        index = STAGE_INDEX[marker]
        if index < floor or (current >= _EXECUTE and index <= current):
            continue
        live.append(fragment)
    return tuple(live)


def later_stage(stages: Iterable[str | None]) -> str:
    """The latest of ``stages`` in life-cycle order; ``unknown`` when none is a life-cycle stage
    (``unknown`` itself and ``None`` are ignored)."""
    best = "unknown"
    for stage in stages:
        if stage in STAGE_INDEX and (best == "unknown" or STAGE_INDEX[stage] > STAGE_INDEX[best]):
            best = stage
    return best


# --- hangs: no error, only signs of no progress at the end of the log ---------------------------

#: Lines at the end of a log that are examined for signs of a hang.
HANG_TAIL_LINES = 60

_ZERO_THROUGHPUT = re.compile(
    r"generation throughput: 0\.0 tokens/s.*?Running: (?P<running>\d+) reqs?"
    r"(?:.*?Swapped: (?P<swapped>\d+) reqs?)?(?:.*?(?:Waiting|Pending): (?P<waiting>\d+) reqs?)?"
    r"|gen throughput \(token/s\): 0\.00.*?#queue-req: (?P<queued>\d+)"
)
_PROMPT_RATE = re.compile(r"prompt throughput: (\d+(?:\.\d+)?) tokens/s")
#: A process that says it is stuck: vLLM's shared-memory broadcast (older and newer wording), or
#: the dump SGLang's scheduler watchdog writes of the batch it has been waiting on.
_STUCK = re.compile(
    r"No available (?:shared memory broadcast )?block found in \d+ seconds?"
    r"|Scheduler debug info:|\bcur_batch\.batch_size\(\)="
    # Horovod's stall inspector: ranks that never submitted the tensors the others wait on
    r"|(?:^|[\s:>])Stalled ranks:|\bwaiting for remainder of ranks for more than \d+ seconds"
)
#: (also a state named for the wait, "still in WAITING_FOR_REMOTE_KVS state")
_WAITING = re.compile(r"(?i)\bwaiting[ _](?:for|in|on)(?:\b|_)|\bstill waiting\b")
#: A wait that says it is still under way as expected is progress, not a hang: a counted retry
#: below its limit (``Attempt: 10/100``), a message that trails off (``to be ready...``) or
#: warns that it takes a while.
_STILL_EXPECTED = re.compile(
    r"(?i)\battempts?:? ?\d+ ?(?:/|of) ?\d+|\.\.\.|\u2026|\bmight take\b|\bmay take\b"
)
_COUNTER = re.compile(r"(?i)\battempts?:? ?(\d+) ?(?:/|of) ?(\d+)")


def _still_expected(text: str) -> bool:
    """Whether a waiting line says the wait is still within what is expected."""
    counter = _COUNTER.search(text)
    if counter is not None:
        return int(counter.group(1)) < int(counter.group(2))
    return _STILL_EXPECTED.search(text) is not None


_DIGITS = re.compile(r"\d+(?:\.\d+)?")
#: Ray's log deduplication, standing for the same line printed again by the processes of a
#: cluster ("... [repeated 8x across cluster]"), and its autoscaler's reports of the cluster
#: ("(autoscaler +1m2s) Tip: ..."), which are no progress of the program.
_RAY_REPEATED = re.compile(r"\[repeated (\d+)x across cluster\]")
_RAY_AUTOSCALER = re.compile(r"^\(autoscaler\b")


#: What a paste wraps around a log (markdown fences, HTML tags), and a poster's elision ("...",
#: "[...]": more of the same): no activity of the program.
_MARKUP_ONLY = re.compile(
    r"^\s*(?:```[\w-]*|~~~|</?(?:details|summary|pre|code|p|div)>|\[?(?:\.\.\.|\u2026)\]?)\s*$"
)


#: Lines that are not progress: a stack dumped, a frame, requests arriving or being polled
#: (an access log, "Added request", a gRPC handler), which a stuck engine does not answer.
_NOT_PROGRESS = re.compile(
    r"^\s|^Thread |^(?:Current )?[Tt]hread 0x|^File \"|^Traceback "
    r"|^Pyspy dump|^Process \d+: |^Python v\d"  # py-spy's dump of the stuck process
    r"|\"(?:GET|POST|PUT|DELETE) /\S* HTTP/|\bAdded request\b|\b[Nn]ew request\b"
    r"|\bReceived request\b|\bgrpc_server\.cc:|\b\w*InferHandler\b"  # Triton's request handlers
)


def _progress_after(pieces: Sequence[tuple[int, str]]) -> bool:
    """Whether the program logged something of its own going on in ``pieces``."""
    for _, raw in pieces:
        text = next((ln.text for ln in reversed(logical_lines(raw)) if ln.text), "")
        if not text.strip() or _MARKUP_ONLY.match(text) or _NOT_PROGRESS.search(text):
            continue
        if _STUCK.search(text) or _ZERO_THROUGHPUT.search(text) or _WAITING.search(text):
            continue
        return True
    return False


def hang_evidence(tail: Iterable[tuple[int, str]]) -> tuple[int, str, str] | None:
    """``(line, text, reason)`` if the end of a log shows a hang, else ``None``.

    Signs: vLLM's own "No available shared memory broadcast block found" warning; two or more
    throughput reports of ``0.0 tokens/s`` with requests running or waiting; or the same
    "waiting for ..." message two or more times (Ray's ``[repeated 8x across cluster]`` counts
    as repeats) with nothing else happening in between, unless
    the last of them says the wait is still within what is expected (a counted retry below its
    limit, a message trailing off in ``...``): that is progress reporting of a log cut short.
    """
    # Reports flattened onto one physical line are read one by one, in order (``at`` counts
    # them): a later report with tokens moving is progress even on the line of a zero one.
    pieces = [(n, piece) for n, raw in tail for piece in unflatten(strip_ansi(raw))]
    zero: list[tuple[int, int, str]] = []
    waiting: dict[str, list[tuple[int, int, str]]] = {}
    last_other = full_stall = 0
    stuck: tuple[int, int, str] | None = None
    for at, (lineno, text) in enumerate(pieces, 1):
        if _STUCK.search(text):
            if "block found" not in text:
                return lineno, text, "watchdog dump"
            stuck = (at, lineno, text)
            continue
        m = _ZERO_THROUGHPUT.search(text)
        if m:
            busy = any(int(v) > 0 for v in m.groupdict().values() if v is not None)
            prefill = _PROMPT_RATE.search(text)
            if prefill is not None and float(prefill.group(1)) > 0:
                busy = False  # prompts are being processed: that is progress
                last_other = at
            if busy:
                zero.append((at, lineno, text))
                if prefill is not None:
                    full_stall = at  # neither prompts nor tokens move
            continue
        if _WAITING.search(text):
            repeated = _RAY_REPEATED.search(text)
            times = 1 if repeated is None else min(int(repeated.group(1)), 2)
            waiting.setdefault(_DIGITS.sub("#", text), []).extend([(at, lineno, text)] * times)
            continue
        if text.strip() and not _MARKUP_ONLY.match(text) and not _RAY_AUTOSCALER.match(text):
            last_other = at
    if stuck is not None and not _progress_after(pieces[stuck[0] :]):
        # vLLM's broadcast queue waited a minute; a slow step (profiling, compiling) that then
        # goes on is no hang, one after which nothing more happens is
        return stuck[1], stuck[2], "no shared-memory broadcast progress"
    if (len(zero) >= 2 and zero[-1][0] > last_other) or (
        zero and full_stall == zero[-1][0] > last_other
    ):
        _, lineno, text = zero[-1]
        return lineno, text, "0.0 tokens/s with requests pending"
    for repeats in waiting.values():
        expected = _still_expected(repeats[-1][2])
        if len(repeats) >= 2 and repeats[-1][0] > last_other and not expected:
            _, lineno, text = repeats[-1]
            return lineno, text, "repeated waiting without progress"
    # a thread dump (faulthandler's) whose first thread is blocked waiting, and no error: the
    # process was dumped while it was stuck
    dump = waiting_dump([text for _, text in pieces])
    if dump is not None:
        lineno, text = next((n, t) for n, t in pieces if THREAD_DUMP.match(t))
        return lineno, text, dump
    return None
