"""Turn one raw log line into clean logical lines.

Real logs reach the classifier dressed in noise: ANSI colour codes, CI timestamps
(``[2025-03-10T15:07:20Z]``), ``|`` gutters from web log viewers and ``docker compose``,
process tags (``(EngineCore_DP0 pid=12)``, ``[rank0]:``), logger prefixes
(``ERROR 03-10 15:07:20 [core.py:708]``), carriage-return progress bars, and pastes that were
flattened onto a few very long lines. :func:`logical_lines` removes the noise and splits
flattened text back into lines, keeping the process tag and the log level apart from the message
so that tracebacks of interleaved processes can be followed separately.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from pytest_blackwell.failures.errorwords import PAUSE_PROMPTS
from pytest_blackwell.failures.levels import LEVEL_NAMES, record_level

#: Physical lines longer than this are checked for flattened content.
FLATTENED_MIN_CHARS = 320
#: Longest message kept per logical line (an error message is far shorter; binary-ish noise is not).
MAX_MESSAGE_CHARS = 8192

_ANSI = re.compile(r"\x1b(?:\[[0-9;?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")

# One prefix at a time; `_strip_prefixes` applies them until none matches.
_STAMP = r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?"
# "[2025-03-10T15:07:20Z]", "[2025-03-10 15:07:20 TP0]" (SGLang: a tag inside the brackets),
# or a bare "2025-03-10T15:07:20.1234567Z" (GitHub Actions), also followed by a colon.
_TIMESTAMP = re.compile(
    r"^\s*(?:\["
    + _STAMP
    + r"(?: (?P<tag>[A-Za-z]+\d*(?: [A-Za-z]+\d*)*))?\]|"
    + _STAMP
    + r"(?::(?= ))?)\s?"
)
# kubectl's "--prefix" ("[pod/vllm-0/vllm] "), in front of any message
_KUBE = re.compile(
    r"^\s*\[(?:pod|deploy(?:ment)?|job|sts|statefulset|ds|daemonset|rs|replicaset)/[\w.\-]+"
    r"(?:/[\w.\-]+)?\]\s?"
    # a container runtime's log file (CRI: "<time> stdout F <line>", the time stripped before)
    r"|^(?:stdout|stderr) [FP] "
    # (or a platform's export naming the stream, after a tab, with its level when it is one:
    # "<time>\tstdout   File ...", "<time>    error stdout RuntimeError: ...")
    r"|^\s*(?:(?:error|warning|info)\s+)?std(?:out|err) (?=\S| {1,4}\S)"
    # a serverless worker's id glued to the level of the stream it captured ("<id>[info]"):
    # the platform's, not the program's (a traceback printed to stdout is tagged info)
    r"|^[a-z0-9]{8,40}\[(?:info|error|warning|debug)\] ?"
    # a Go supervisor's console record (zerolog's "6:54PM DBG") relaying what a child printed
    # on its streams ("... GRPC(m-127.0.0.1:43453): stderr gguf_init_from_file: failed to ..."):
    # the supervisor's level, not the child's
    # (a traceback's frame lines too, indented after it)
    r"|^\s*\d{1,2}:\d\d(?::\d\d)?(?:[AP]M)? (?:DBG|INF|WRN|TRC) \S+: std(?:out|err) (?=\S| {1,8}\S)"
    # (or a Java server's record, its thread named for the child's stream, TorchServe's: "[INFO ]
    # W-9001-model_1.0-stdout org.pytorch.serve.wlm.WorkerLifeCycle - Traceback ...")
    r"|^\[(?:INFO|DEBUG|WARN) ?\] \S+-std(?:out|err) [\w.$]+ - "
    # (or a UI's record naming the backend and its stream, SwarmUI's: "[Warning]
    # [ComfyUI-0/STDERR] ...", every line of the backend's stderr at Warning)
    r"|^\[(?:Debug|Info|Init|Warning|Error)\] \[[\w.\-]+/STD(?:OUT|ERR)\] "
)
# A cloud logging export's severity before the entry's RFC 3339 time ("ERROR
# 2025-03-30T23:51:21.299840450Z ..."): the severity of the stream (stderr is ERROR), not the
# program's level, so it is dropped; the time goes with the timestamps.
_SEVERITY = re.compile(
    r"^(?:DEFAULT|DEBUG|INFO|NOTICE|WARNING|ERROR|CRITICAL|ALERT|EMERGENCY) "
    r"(?=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z )"
)
_STREAM = re.compile(r"\bstd(?:err|out)\b")  # (a relayed stream named in a prefix)
# (a level in a column of its own, loguru's and tt-metal's "| WARNING  | ...", is the record's;
# not when a column after it names the stream it relays, FastChat's "| ERROR | stderr | ...")
_GUTTER = re.compile(
    r"^\s*(?:\[[\w.\-]{1,40}\]|(?P<column_level>DEBUG|INFO|SUCCESS|WARNING|ERROR|CRITICAL)(?= *\|)"
    r"|[\w.\-]{1,40})?\s*\|\s?"
)
# pdsh's "host: " in front of every line of a multi-node launch (DeepSpeed's runner), when what
# follows is a record, a traceback line or an indented source line
_HOST = re.compile(
    r"^(?P<tag>[A-Za-z][\w.\-]{0,62}\d): (?=\s|Traceback \(|[\w.]*(?:Error|Exception)\b|\["
    r"|(?:DEBUG|INFO|WARNING|ERROR|CRITICAL)\b)"
    # any host name in front of a torch rank's tag ("gpu-node: [rank22]:   File ...")
    r"|^(?P<host>[A-Za-z][\w.\-]{0,62}): (?=\[rank\d+\]:)"
)
# (a Ray worker without a name is only its pid, "(pid=5623) ...": no tag to tell it by;
# Ray Data names an actor by the operator it runs: "(MapWorker(MapBatches(vLLMEngineActor))
# pid=1202, ip=10.0.0.2)"; SkyPilot separates its fields with commas: "(task, pid=3369)",
# "(worker1, rank=1, pid=4001, ip=10.0.0.3)")
_PROC_TAG = re.compile(
    r"^\s*\((?:(?P<tag>[A-Za-z][\w\-]*(?:\((?:[\w\-]|\([\w\-]*\))*\))?(?:,? rank=\d+)?,? pid=\d+)"
    r"|pid=\d+)"
    r"(?:, ip=[\w.:\-]+)?\)\s?"
)
# Pasting leftovers: pytest's "E   " prefix, markdown quotes and list bullets, diff markers,
# a counter of numbered output before a timestamped record ("[1] 2019-06-13 01:17:08: E ...").
# and a bold label of a Markdown error report ("- **Exception Message:** ...", ComfyUI's).
_PASTE = re.compile(
    r"^(?: ?E {2,}|>+ ?|\+> ?|\[\d{1,4}\] (?=\d{4}-\d\d-\d\d)"
    # (a list item before a record, a tag, a gutter or an exception line: "- RuntimeError: ...")
    r"|[-*] (?=\[|\(|\w+ \|)"
    r"|\s{0,8}(?:[-*]|\d{1,3}\.) (?=(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception): )"
    # a markdown heading mark a paste left in front of a record ("#[rank0]:[W403 ...")
    r"|#{1,6} ?(?=\[)"
    r"|(?:[-*] )?\*\*[\w ]{1,40}:\*\* ?"
    # a record's continuation lines aligned under its message column (Android Studio's logcat
    # indents them past its columns of time, pid, tag and level)
    r"| {40,}(?=\S|\t))"
)
# Line numbers of a log viewer or an editor ("  39 [rank0]:W0103 ...", "1234  ERROR 03-10 ..."):
# only in front of a record header, so a message that starts with a number keeps it.
_LINENO = re.compile(
    # (also Slurm's task label, "srun --label": "15: [rank15]: ...")
    r"^\s*\d{1,6}:?\s+(?=\[rank\d+\]:|\[?[EWIF]\d{4} \d\d:\d\d:\d\d"
    r"|(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d\d-\d\d |\([A-Za-z][\w\-]*(?: rank=\d+)? pid=\d+\))"
    # and in front of a traceback's lines, an editor's numbered paste of one
    r"|^\s*\d{1,6}\s+(?=File \"[^\"]+\", line \d|Traceback \(most recent call)"
    # (Slurm's task label in front of a traceback's source lines and its exception line too:
    # "0:     optimizer.step()", "0: torch.cuda.OutOfMemoryError: ...")
    r"|^\d{1,4}: (?=\s|(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception)\b)"
)
# Other timestamp styles: syslog "Feb 15 17:37:45 host kernel:", dmesg "[ 1843.308145]",
# "[Fri Aug 30 11:11:22 2024]", "[05/08/2024-20:47:56]", "2024-05-11 14:10:52.224", Go's
# "2024/05/11 14:10:52", "12:00:01.123".
_OTHER_STAMP = re.compile(
    # (a bracketed number the program puts after it is its own: "llama-server[133]: [56595] ")
    # (its month also in a CJK locale's words: "9月 28 23:36:39 host ollama[27605]: ")
    r"^\s*(?:(?:[A-Z][a-z]{2}|\d{1,2}月) [ \d]\d \d\d:\d\d:\d\d [\w.\-]+ [\w.\-/]+(?:\[\d+\])?:"
    r"(?: \[\d+\](?= ))?"
    r"|\[\s*\d+\.\d+\]|\[[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}\]"
    r"|\[\d\d/\d\d/\d{4}-\d\d:\d\d:\d\d\]"
    # (also followed by a colon, "2026-07-29 11:18:04: ...", or with its year cut short by a
    # paste: "026-07-29 11:18:04")
    r"|\d{2,4}[-/]\d\d[-/]\d\d[ T]\d\d:\d\d:\d\d[.,]?\d*(?:Z|[+-]\d\d:?\d\d)?(?::(?= ))?"
    r"|\d\dT\d\d:\d\d:\d\d(?:[.,]\d+)?Z(?= )"  # (or cut to its day: "17T07:25:20.9205Z ")
    # (a CI runner's "Nov 26 23:08:31 " alone, with no host or program after it)
    r"|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d\d:\d\d:\d\d(?= )"
    r"|\d\d:\d\d:\d\d(?:[.,\-]\d+)?(?= ))\s?"  # (SD.Next's "23:45:01-326615 ")
)
# A tqdm progress bar that an error was printed onto: "Processed prompts:  5%|▌ | 429/8535 [...] "
# (or printed right against the bar's end: "... 0/2 [00:00<?, ?it/s]Killed", "...]loc(...): error")
# (but not a Windows launcher's pause right against it: a bar cut there is the program's end)
# Rust's indicatif bars (hf-hub downloads in mistral.rs and candle) too: "config.json [00:00:00]
# [████] 596 B/596 B 3.50 KiB/s (0s)Error: invalid type: ...".
_PROGRESS = re.compile(
    r"^[^|]{0,80}\d+%\|[^|]{0,400}\|[^\]]{0,80}\](?:\s+(?=\S)|(?=[A-Z][A-Za-z]|[a-z]+\W|[A-Z]:\\))"
    r"(?!" + "|".join(PAUSE_PROMPTS) + ")"
    r"|^[^\[]{0,80}\[\d\d:\d\d:\d\d\] \[[^\]]{0,400}\] [^()]{0,80}\(\d+s\)\s*(?=\S)"
)
_HTML = re.compile(r"</?(?:details|summary|br|pre|code|p|div|span)\b[^>]*>|^```\w*")
# Markdown's inline code around a pasted line, or opening or closing one that spans lines
# ("`Error: Cuda(...)`"); a fence (```) is :data:`_HTML`'s.
_INLINE_CODE = re.compile(r"^\s*`(?!``)|(?<!`)`\s*$")
# Markdown's bold (and italic) around a whole pasted line ("**_ERROR ... ValueError: ..._**")
# (not a banner of asterisks: "*** SIGSEGV received at time=... ***")
# (or only opened, where a paste cut the line: "**ImportError: /opt/lib/x.so: undefined sy")
_EMPHASIS = re.compile(r"^\s*\*\*_?(?=[^\s*])(?P<line>.*?[^\s*])_?(?:\*\*)?\s*$")
_ENTITIES = (("&gt;", ">"), ("&lt;", "<"), ("&quot;", '"'), ("&#39;", "'"), ("&amp;", "&"))
# (also torchrun's --tee tag, "[default0]:", a multi-node launcher's host and rank, "[n1:2]:",
# and a rank's bare number in front of its text, "[0]:    model = ...")
_RANK_TAG = re.compile(
    r"^\s*\[(?P<tag>rank\d+|default\d+|[A-Za-z][\w.\-]*:\d+|\d{1,4}(?=\]:\s*\S))\]:\s?"
)
# Open MPI's output tags (mpirun --tag-output): "[1,0]<stderr>:" (job, rank, stream)
_MPI_TAG = re.compile(r"^\[\d+,\d+\]<std(?:out|err)>:\s?")
# A Python logger's source location left alone at the start of a line, the level and time before
# it cut by the paste ("[multiproc_executor.py:671]   File ..."): the record's text follows.
_SOURCE_TAG = re.compile(r"^\[[\w.\-]+\.py:\d+\] ")
_LEVEL_WORDS = "trt|error|warn|warning|info|debug|fatal|critical"  # (in brackets: no label)
# A deployment's own label in front of a record header: "[vllm]: [rank0]: ...", "[Stage-1] ERROR
# 01-29 ...", kubectl's "[pod/name/container] (Worker pid=3) ...";
_LABEL = re.compile(
    r"^\[[\w./\-]{1,60}\]:?\s(?=\[rank\d+\]:|\([A-Za-z][\w\-]*(?: rank=\d+)? pid=\d+\)"
    r"|(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d)"
    # (a program's name in front of the library's records, "[node-llama-cpp] ggml_metal_init:
    # error ...", a level or logger's own tag is no such name)
    r"|^\[(?!(?i:[a-z]|" + _LEVEL_WORDS + r")\])[\w.\-]{2,40}\]\s"
    r"(?=[a-z_][a-z0-9_]*: )"
    # (a supervisor relaying its child's output line by line: "[/bin/sh]: Traceback ...")
    r"|^\[(?!(?i:trace|" + _LEVEL_WORDS + r")\]|rank\d|default\d)"
    r"[\w./\-]{2,60}\]: "
)

# Places where a flattened paste had line breaks.
_FLAT_SPLIT = re.compile(
    r"(?<=\S)\s+(?="
    r"\((?:[A-Za-z][\w\-]*)(?: rank=\d+)? pid=\d+(?:, ip=[\d.]+)?\)"
    r"|(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d"
    r"|\[\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d"
    # TensorFlow's C++ records ("2021-02-19 22:59:40.420862: I tensorflow/x.cc:983] ...")
    r"|\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+: [IWEF] \S+:\d+\]"
    r"|Traceback \(most recent call last\):"
    r"|File \"[^\"]+\", line \d+"
    r"|The above exception was the direct cause"
    r"|During handling of the above exception"
    r"|(?<![\w.])(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Exit|Interrupt)(?::\s|$)"
    r")"
)


# A torch rank's glog record glued to the end of the line before, however short the line
# ("... seconds precompiling. [rank2]:W1115 11:42:22.079000 123 f.py:1] ..."); not after a
# number alone (a log viewer's line number: "  12 [rank0]:W0607 ...").
#: A shell's report of a process's death glued to the program's last words, which did not end
#: in a line break ("... at GpuIndex.cu:30Aborted (core dumped)"): a line of its own.
_GLUED_DEATH = re.compile(
    r"(?:(?<=[\d.)\]}'\"!:;])|(?<=\w)(?=\w{1,12}(?: \w{1,12})? \(core dumped\)))"
    r"(?:Aborted|Segmentation fault|Illegal instruction|Bus error)(?: \(core dumped\))?\s*$"
)
_DEATH_ENDS = ("Aborted", "fault", "instruction", "error", "(core dumped)")
_RANK_RECORD = re.compile(r"(?<=[^\d\s])\s+(?=\[rank\d+\]:\[?[EWIF]\d{4} \d\d:\d\d:\d\d)")


# A piece that is nothing but a record header: glue it back to the message that follows.
_HEADER_ONLY = re.compile(
    r"^(?:\([^()]*pid=\d+\)\s*)?(?:(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d\d-\d\d "
    r"\d\d:\d\d:\d\d(?:\.\d+)?(?: \[[^\]]*\])?)?\s*$"
)


#: Rich's logging handler prints each record's source file and line right-aligned after the
#: message ("ERROR  !!! Exception during processing !!! Allocation on device   execution.py:430").
_RICH_SOURCE = re.compile(r"\s{3,}[\w.\-]+\.py:\d+\s*$")
# Rich's traceback box ("╭─ Traceback (most recent call last) ─╮", "│ /x/y.py:79 in f │", its
# source lines, "╰───╯"): rewritten into Python's own traceback lines.
_RICH_FRAME = re.compile(r"^(?P<path>[^\s\"]+\.py):(?P<line>\d+) in (?P<func>[\w<>.]+)$")


def _from_rich(text: str) -> str:
    if text[0] == "╭":
        return "Traceback (most recent call last):" if "Traceback" in text else "    " + text
    inner = text.strip("│ ").rstrip("│╮╯ ") if text[0] == "│" else text
    m = _RICH_FRAME.match(inner)
    if m is not None:
        path, line, func = m.group("path", "line", "func")
        return f'  File "{path}", line {line}, in {func}'
    return "    " + (inner or "│")  # a source line, a blank line or the bottom of the box


class LogicalLine(NamedTuple):
    """A clean line: its message, the process tag and log level it carried (``""`` if none)."""

    text: str
    tag: str
    level: str


# Colour codes pasted in caret notation ("^[[31m") or with the escape lost ("←[0m", "[0m"),
# named ("ESC[1;36m", a terminal's copy), written as a string's escape ("\x1b[41m") or lost as
# the replacement character of a bad decode ("\ufffd[1;36m").
_CARET_ANSI = re.compile(r"(?:\^\[|\u2190|\ufffd|#033|\bESC|\\(?:x1[bB]|u001[bB]|033))\[[0-9;]*m")
# With the escape dropped altogether ("[1;36m(APIServer pid=1)[0;0m"): only on a line that also
# carries a reset code, so a bracketed "[5m]" in a message is left alone.
_BARE_ANSI = re.compile(r"\[[0-9;]{1,12}m")
_BARE_RESET = re.compile(r"\[0(?:;0)?m")
# (or on a line that starts with one right before a process tag, its reset lost too: Ray's
# "[36m(main_task pid=3523385) ValueError: ...")
_BARE_LEAD = re.compile(r"^[`\s]*\[[0-9;]{1,12}m\(")
# A markdown link a notebook or an editor made of a path (VS Code's "[/x/connections.py:8](
# https://vscode-remote+...:8): RuntimeWarning: ..."): its text is what the program printed.
_MD_LINK = re.compile(
    r"\[([^\[\]\s]{0,400}[/\\][^\[\]\s]{0,400})\]\((?:https?|vscode|file):[^()\s]*\)"
)


def strip_ansi(text: str) -> str:
    """Remove ANSI escape sequences (colours, cursor movement, hyperlinks), also in caret form."""
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    if (
        "^[[" in text
        or "\u2190[" in text
        or "\ufffd[" in text
        or "#033[" in text
        or "ESC[" in text
        or ("\\" in text and "[" in text)
    ):
        text = _CARET_ANSI.sub("", text)
    if "m" in text and "[" in text and (_BARE_RESET.search(text) or _BARE_LEAD.match(text)):
        text = _BARE_ANSI.sub("", text)
    return text


#: A message field of a JSON object pretty-printed over several lines (torchelastic's error
#: file: '    "message": "RendezvousTimeoutError: ",'): its value is the message.
_JSON_MESSAGE = re.compile(
    r'^\s*"(?:message|msg|error|detail)":\s*"(?P<value>(?:[^"\\]|\\.)+)",?\s*$'
)


def _strip_prefixes(text: str, tag: str) -> LogicalLine:
    own = ""  # the outermost tag of this piece wins: "(Worker pid=3) [rank1]:" is Worker
    column = ""  # a level written in a gutter's column
    for _ in range(6):  # a handful of stacked prefixes at most
        before = text
        for rx in (
            _SEVERITY,
            _TIMESTAMP,
            _PASTE,
            _LINENO,
            _OTHER_STAMP,
            _GUTTER,
            _HOST,
            _KUBE,
            _LABEL,
            _PROC_TAG,
            _RANK_TAG,
            _MPI_TAG,
            _SOURCE_TAG,
            _PROGRESS,
        ):
            m = rx.match(text)
            if m and m.end() > 0:
                # (SkyPilot's fields are comma-separated: "(task, pid=3369)" is "task pid=3369")
                found, prefix = m.groupdict(), m.group(0)
                own = own or (found.get("tag") or "").replace(",", "")
                if "std" in prefix and _STREAM.search(prefix):
                    column = ""  # (a relay names the stream it copies: its level is its own)
                else:
                    column = column or found.get("column_level") or ""
                text = text[m.end() :]
        if text == before:
            break
    if text[:1] in ("│", "╭", "╰"):
        text = _from_rich(text)
    elif text.lstrip().startswith('"') and (field := _JSON_MESSAGE.match(text)) is not None:
        text = field.group("value")
    level = LEVEL_NAMES.get(column, column)
    if not level:
        level, text = record_level(text)
    if not level and (" NCCL INFO " in text or text.startswith("NCCL INFO ")):
        level = "INFO"  # "host:pid:tid [0] NCCL INFO ...": NCCL's own informational lines
    if ".py:" in text:  # (Rich's logging handler: the record's source at the right edge)
        text = _RICH_SOURCE.sub("", text)
    return LogicalLine(text.rstrip(), own or tag, level)


def unflatten(text: str) -> list[str]:
    """Split a long, flattened line back into the lines it was made of.

    Literal ``\\n`` escapes (a log pasted from JSON) count as line breaks when there are
    several of them; otherwise the line is cut before log-record headers, process tags,
    CI timestamps, traceback headers and frames, chain markers and exception names.
    """
    if text.count("\\n") >= 3:
        # A string escaped once or twice (a traceback inside the repr of an HTTP error): undo
        # the escapes of backslashes and quotes too, so the lines read as printed.
        for _ in range(4):  # each level of escaping doubles the backslashes
            if "\\\\" not in text:
                break
            text = text.replace("\\\\", "\\")
        text = text.replace("\\'", "'").replace('\\"', '"')
        return [part for chunk in text.split("\\n") for part in unflatten(chunk)]
    if len(text) < FLATTENED_MIN_CHARS:
        return _RANK_RECORD.split(text)
    pieces: list[str] = []
    start = 0
    for m in _FLAT_SPLIT.finditer(text):
        pieces.extend(_RANK_RECORD.split(text[start : m.start()]))
        start = m.end()
    pieces.extend(_RANK_RECORD.split(text[start:]))
    glued: list[str] = []
    for piece in pieces:
        if glued and _HEADER_ONLY.match(glued[-1]) and glued[-1].strip():
            glued[-1] = glued[-1] + " " + piece
        else:
            glued.append(piece)
    out: list[str] = []
    for piece in glued:
        if piece.startswith('File "'):
            # Frame header followed by its source line: restore the traceback layout.
            head, sep, code = piece.partition(" " * 4)
            out.append("  " + head.rstrip())
            if sep and code.strip():
                out.append("    " + code.strip())
        else:
            out.append(piece)
    return [p for p in out if p.strip()] or [text]


def logical_lines(raw: str) -> list[LogicalLine]:
    """Clean one physical line into one or more logical lines.

    Carriage returns (progress bars) and flattened pastes yield several lines; a piece that
    carries no process tag of its own inherits the tag of the piece before it.
    """
    raw = strip_ansi(raw.rstrip("\r\n")).lstrip("\ufeff")
    if "<" in raw or "`" in raw:
        raw = _INLINE_CODE.sub("", _HTML.sub("", raw))
    if raw.startswith("**") and (bold := _EMPHASIS.match(raw)) is not None:
        raw = bold.group("line")  # (and code inside the bold: "**`f.c:12: ...`**")
        raw = _INLINE_CODE.sub("", raw) if "`" in raw else raw
    if "](" in raw:
        raw = _MD_LINK.sub(r"\1", raw)
    if "&" in raw:
        for entity, char in _ENTITIES:
            raw = raw.replace(entity, char)
    parts = [p for p in raw.split("\r") if p.strip()] if "\r" in raw else [raw]
    result: list[LogicalLine] = []
    tag = ""
    for part in parts:
        flat = len(part) >= FLATTENED_MIN_CHARS or "\\n" in part or part.find("[rank", 1) > 0
        pieces = unflatten(part) if flat else [part]
        last = pieces[-1]
        if last.rstrip().endswith(_DEATH_ENDS) and (
            death := _GLUED_DEATH.search(last, max(0, len(last.rstrip()) - 60))  # (only its end)
        ):
            pieces[-1:] = [pieces[-1][: death.start()], death.group(0)]
        for piece in pieces:
            line = _strip_prefixes(piece[:MAX_MESSAGE_CHARS], tag)
            if not line.text and line.level in ("ERROR", "CRITICAL") and piece.strip():
                # a record at an error level with no message (Julia's "ERROR: " over its
                # stack trace): the level word is what it says
                line = line._replace(text=piece.strip())
            tag = line.tag
            result.append(line)
    return result
