"""How log records write their level: the header formats of loggers, runtimes and servers.

Each pattern matches a record's header at the start of a cleaned line and names its level in a
group (``level``, or another name where a format has two shapes); :data:`LEVEL_NAMES` maps the
spellings to the names the classifier uses. :mod:`.normalize` strips the header and keeps the
level apart from the message.
"""

from __future__ import annotations

import re

_VLLM_LEVEL = re.compile(
    r"^(?P<level>DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL) "
    r"(?:\d{4}-)?\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?"
    r"(?: \[[^\]]*\]| [\w.\-]+:\d+\])? ?"
)
# "ERROR 56542 [async_llm_engine.py:64] " (level, pid, source; the date was stripped before)
_PID_LEVEL = re.compile(
    r"^(?P<level>DEBUG|INFO|WARNING|WARN|ERROR|ERR|CRITICAL)"
    # "ERROR 56542 [f.py:64] ", Ray's "ERR f.py:72 -- "
    r"(?: \d+ \[[\w.\-]+:\d+\] ?| [\w.\-]+:\d+ -- )"
)
# also after the function name llama.cpp puts first ("warmup: WARNING: flash attention ...")
_PLAIN_LEVEL = re.compile(
    r"^(?:[a-z_]\w*: )?(?P<level>DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL):(?:[\w.]+:)?\s*"
    # (or a quiet level capitalised as .NET libraries write it: LLamaSharp's "Info: Failed
    # Loading 'runtimes/.../cuda12/ggml-base.dll'", then it falls back to another build)
    r"|^(?P<quiet>Info|Debug|Trace): "
    # (a C library's own warning after its name: "libibverbs: Warning: couldn't load driver")
    r"|^lib\w+: (?P<lib>Warning): "
)
#: The compiled frame's id torch's logging puts after its record's header ("[2/0] ", "[0/0_1] ").
_COMPILE_ID = r"(?:\[!?\d+/\d+(?:_\d+)?\]\s)?"
# "[E1010 12:34:56.789012 ProcessGroupNCCL.cpp:616]", "[W socket.cpp:663]"
_GLOG_LEVEL = re.compile(
    r"^\[(?P<level>[EWIF])(?:\d{3,4} \d\d:\d\d:\d\d(?:\.\d+)?(?: \d+)?)? [\w./\-]+:\d+\]\s?"
    # glog/absl without brackets: "W0429 13:55:49.384 12345 file.cc:12] ", and TensorFlow's
    # "2021-02-27 01:33:51.779607: W file.cc:235] " (its date stripped before, the colon left)
    # (absl before its logging is set up counts seconds from the epoch: "E0000 00:00:1730948968.00
    # 14809 cuda_dnn.cc:8310] ")
    # (a Windows path has backslashes; torch's logging then names the compiled frame: "[2/0] ")
    r"|^(?::\s)?(?P<bare>[EWIF])(?:\d{4} \d\d:\d\d:\d+\.\d+\s+\d+)? [\w./\\\-]+\.\w+:\d+\]\s"
    + _COMPILE_ID
    # (a record at an error level cut inside its source file, kept whole: "F0000 00:00:1695743368
    # .222415    2429 gpu_ex")
    + r"|^(?=(?P<cut>[EF])\d{4} \d\d:\d\d:\d+\.\d+\s+\d+ [\w./\\\-]*$)"
    # ExecuTorch's ET_LOG, the time since start and the component before the file: "E
    # 00:01:34.607969 executorch:operator_registry.cpp:252] "
    r"|^(?P<et>[EWIF]) \d\d:\d\d:\d\d\.\d+ [\w\-]+:[\w./\-]+\.\w+:\d+\]\s"
    # PyTorch's logging with a full date: "E2025-08-13T11:34:14+08:00.677000 8929 f.py:2100] "
    r"|^(?P<iso>[EWIF])\d{4}-\d\d-\d\dT[\d:.+\-]+ \d+ [\w./\\\-]+\.\w+:\d+\]\s?"
    + _COMPILE_ID
    # Ray's C++ records: the date, the level, pid and thread id in brackets, then the file:
    # "[2023-08-25 00:42:40,265 E 5623 7733] logging.cc:97: "
    + r"|^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ (?P<ray>[DIWEF]) \d+ \d+\] (?:[\w./\-]+:\d+:? )?"
)
# TensorRT's logger (trtexec, the builder): "[V] [TRT] ...", "[E] Engine creation failed"
# and TensorRT-LLM's "[TRT] [E] ..." / "[TRT-LLM] [W] ..."; TensorRT-LLM's C++ logger and
# LMDeploy's TurboMind: "[TensorRT-LLM][WARNING] ...", "[TM][WARN][0914.14:00:25] ..."; the
# time may come before the level, and a colon after the brackets (HugeCTR's
# "[HCTR][06:36:45.719][ERROR][RK0][main]: ")
_BRACKET_LEVEL = re.compile(
    r"^\[[\w\-]{1,20}\](?:\[\d[\d:.]{4,20}\])?\[(?P<level>ERROR|WARNING|WARN|INFO|DEBUG|FATAL)\]"
    r"(?:\[[^\]]{1,60}\])*:?\s?"
)
_TRT_LEVEL = re.compile(
    r"^(?:\[TRT(?:-LLM)?\]\s)?\[(?P<level>[VIWEF])\]\s"
    # ONNX Runtime: "[E:onnxruntime:Default, inference_session.cc:1529 operator()] "
    r"|^\[(?P<ort>[VIWEF]):onnxruntime:[^\]]{0,200}\]\s?"
    # (a record cut before its bracket closes keeps its level, and its text as printed)
    r"|^(?=\[(?P<ort_cut>[EF]):onnxruntime:[^\]]{0,200}$)"
)
# Python logging as "%(asctime)s %(name)s %(process)d %(levelname)-8s %(message)s" (Xinference
# and others; the date was stripped before): "vllm.attention.selector 3980157 INFO     ..."
_NAME_LEVEL = re.compile(
    r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+ (?:\d+ )?"
    r"(?P<level>DEBUG|INFO|WARNING|ERROR|CRITICAL) +"
    # (torch's own format before 2.1, its date stripped: "torch._dynamo.x: [WARNING] ...")
    r"|^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+: \[(?P<bracketed>DEBUG|INFO|WARNING|ERROR|CRITICAL)\] "
    # (a library's quiet record, its function in brackets, kept whole: "MIOpen: Warning [F] ...")
    r"|^(?=[\w.]+(?:\([\w.]+\))?: (?P<lib>Warning|Info) \[\w+\] )"
)
# Python logging as "%(asctime)s - %(name)s - %(levelname)s - %(message)s" (LMDeploy, ComfyUI's
# file log, the logging cookbook's format; the date was stripped before), with LMDeploy's
# "%(filename)s:%(lineno)d - " after the level: "- lmdeploy - WARNING - archs.py:55 - ..."
# (torchtitan puts its own tag and the date in front: "[titan] 2025-07-31 11:31:49,242 - root -
# INFO - ...")
_DASH_LEVEL = re.compile(
    r"^(?:\[\w{1,20}\] \d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ )?"
    r"-? ?[A-Za-z_][\w.]* - (?P<level>DEBUG|INFO|WARNING|ERROR|CRITICAL) - (?:[\w.\-]+:\d+ - )?"
)
# Chromium's log (Electron apps such as LM Studio): "[3848:0604/123848.823:WARNING:f.cc:605] "
# and GLib's (GStreamer, DeepStream, GTK): "(gst-plugin-scanner:26): GStreamer-WARNING **:
# 07:09:47.376: "
_CHROMIUM_LEVEL = re.compile(
    r"^\s*\[\d+:\d+/\d+\.\d+:(?P<level>INFO|WARNING|ERROR|FATAL|VERBOSE)\d*:[^\]]{1,120}\]\s?"
    r"|^\s*(?:\([\w.\-]+:\d+\): )?[A-Z][\w\-]*-(?P<glib>WARNING|CRITICAL|ERROR|INFO|DEBUG) \*\*: "
    r"(?:\d\d:\d\d:\d\d\.\d+: )?"
    # (GStreamer's debug log: the time since start, pid, thread and level, then the category
    # and source kept, "0:00:00.131 331 0x6034ddfa2de0 ERROR  nvmaxinevideofx f.c:399:f:<e> ")
    r"|^\s*(?:\d+:\d\d:\d\d\.\d+\s+)?\d+\s+0x[\da-f]+\s+"
    r"(?P<gst>ERROR|WARN|FIXME|INFO|DEBUG|LOG|TRACE|MEMDUMP)\s+(?=[\w\-]+\s+\S+:\d+:)"
)
# a level in brackets, padded to one width (stable-diffusion.cpp: "[WARN ] model.cpp:1 - ...")
_PADDED_LEVEL = re.compile(
    r"^\[(?P<level>DEBUG|INFO|WARN|WARNING|ERROR|FATAL) *\] "
    # (OpenCV's, right-aligned, with its thread and seconds: "[ WARN:0@72.901] global ...")
    r"|^\[ ?(?P<cv>DEBUG|INFO|WARN|ERROR|FATAL):\d+(?:@[\d.]+)?\] "
    # (or Rich's logging handler, the level padded to its column: "ERROR    Git: None"; its
    # time column left blank under a record of the same second)
    r"|^(?: {8,})?(?P<rich>DEBUG|INFO|WARNING|ERROR|CRITICAL) {2,}(?=\S)"
    # (or Omniverse Kit's, after its time since start and before its dotted plugin, the record
    # kept whole: "[3,587ms] [Warning] [omni.usd.audio] failed to subscribe to stage events")
    r"|^(?=(?:\[[\d,.]+m?s\] )?\[(?P<kit>Verbose|Info|Warning|Error|Fatal)\] "
    r"\[(?:carb|[\w\-]+(?:\.[\w\-]+)+)\] )"
)
# a level letter before the logger's tag (Rockchip's RKNN runtimes: "E RKNN: [08:48:14.826] ...",
# "I rkllm: ...", "W init_runtime: ..."); the function's tag in front of a traceback it logs
# line by line goes too ("E init_runtime: Traceback (most recent call last):", its frames and its
# exception line), so the traceback is read as one
_LETTER_TAG_LEVEL = re.compile(
    r"^(?P<level>[EWIDF]) (?:(?:[a-z][a-z_]{1,30}: )(?=Traceback \(most recent call last\)"
    r"|  File \"|\w*(?:Error|Exception)\b)|(?=[A-Za-z][\w\-]{1,30}: ))"
)
# zerolog's console writer (LocalAI and other Go servers): "7:26PM DBG message key=value"
_ZEROLOG_LEVEL = re.compile(
    r"^(?:\d{1,2}:\d\d(?:AM|PM) )?(?P<level>TRC|DBG|INF|WRN|ERR|FTL|PNC) (?=\w)"
    # (and logfmt as Go's logrus writes it: 'time="..." level=error msg="..."', its level read
    # and the record kept whole; not slog's capitals, whose WARN Ollama gives some causes)
    r"|^(?=time=\"?[\w:.+\-]+\"? level="
    r"(?P<logfmt>error|fatal|panic|warning|warn|info|debug|trace)\b)"
)
#: The levels as the formats above write them (in capitals: logrus writes "error", libraries
#: "Warning"), by the names the classifier uses.
LEVEL_NAMES = {
    **{"E": "ERROR", "W": "WARNING", "I": "INFO", "F": "CRITICAL", "V": "DEBUG", "D": "DEBUG"},
    **{"WARN": "WARNING", "ERR": "ERROR", "FATAL": "CRITICAL", "VERBOSE": "DEBUG"},
    **{"TRC": "DEBUG", "DBG": "DEBUG", "INF": "INFO", "WRN": "WARNING", "FTL": "CRITICAL"},
    **{"PNC": "CRITICAL", "PANIC": "CRITICAL", "TRACE": "DEBUG", "SUCCESS": "INFO"},
    **{"FIXME": "WARNING", "LOG": "DEBUG", "MEMDUMP": "DEBUG"},  # (GStreamer's)
}

#: The formats above, tried in this order.
LEVEL_PATTERNS: tuple[re.Pattern[str], ...] = (
    _VLLM_LEVEL,
    _PID_LEVEL,
    _PLAIN_LEVEL,
    _GLOG_LEVEL,
    _TRT_LEVEL,
    _NAME_LEVEL,
    _BRACKET_LEVEL,
    _DASH_LEVEL,
    _CHROMIUM_LEVEL,
    _ZEROLOG_LEVEL,
    _PADDED_LEVEL,
    _LETTER_TAG_LEVEL,
)


def record_level(text: str) -> tuple[str, str]:
    """The level a record's header at the start of ``text`` names (by the classifier's names)
    and the text after the header; ``("", text)`` without one."""
    for rx in LEVEL_PATTERNS:
        m = rx.match(text)
        if m:
            level = next(name for name in m.groupdict().values() if name).upper()
            return LEVEL_NAMES.get(level, level), text[m.end() :]
    return "", text
