"""Error words: which lines the classifier looks at closely, and which say they are errors.

The fast scan only looks closely at lines containing a trigger (or a rule keyword, or a live stage
marker); a line no rule knows is still an error (``unknown``, never "no failure") when it is
logged at an error level or says so in words (:data:`ERRORISH`).
"""

from __future__ import annotations

import re
from collections.abc import Reversible

#: A shell's words for the signal a job died of (zsh's "[1]  2771 floating point exception  x").
SIGNAL_DEATH = r"\bfloating point exception\b|\billegal hardware instruction\b|\bbus error\b"
#: The extensions of C, C++ and CUDA source files, as native programs name them in their aborts.
_SOURCE_EXTENSIONS = ("c", "cc", "cpp", "cxx", "cu", "cuh", "h", "hpp")
#: A C, C++ or CUDA source file's extension and a line number ("ggml-cuda.cu:73:").
SOURCE_AT_LINE = r"\.(?:" + "|".join(_SOURCE_EXTENSIONS) + r"):\d+:"
#: A line that starts with a C, C++ or CUDA source file and line and then a message (no column):
#: how native programs abort or assert (ggml_abort's "ggml/src/ggml-backend.cpp:898: pre-allocated
#: tensor ...", C's assert, glog's fatal records), not a compiler's warning or note. (A shell's job
#: number may come first: "[1] f.cpp:9: ...".)
SOURCE_ABORT = (
    r"^(?:\[\d+\] )?(?:[A-Za-z]:)?(?:<[^<>\n]{1,40}>|[\w.\\/+\-])*"
    + SOURCE_AT_LINE
    + r"\s*(?!(?:warning|note|remark|info|[Ii]n function)\b)[A-Za-z(]"
)
#: Literal strings found in (nearly) every error line; lines without any of them (and without a
#: rule keyword or live stage marker) are skipped unless an error block is open.
TRIGGERS: tuple[str, ...] = ("rror", "ERROR")
#: A Windows console's pause after a program ended (a launcher's ``pause``), in English and as a
#: Chinese system words it ("请按任意键继续"): the launcher waiting, not the program's output.
PAUSE_PROMPTS = ("Press any key to continue", "请按任意键")
#: A setting's value alone after the colon of its name ("Timeout: 30s", "Timeout: 0:30:00"):
#: a configuration printed, not an error, whatever the name says.
SETTING_VALUE = r":\s*[\w.:]+\s*$"
#: How a line starting with a bare glog record at an error level begins (month 01 to 12).
#: (ExecuTorch's ET_LOG puts a space before its time: "E 00:01:34.607969 executorch:f.cpp:252]")
GLOG_HEADS = ("E0", "E1", "F0", "F1", "E 0", "F 0")
#: Dynamo's advice closing the message of an error raised while it compiled a frame: printed only
#: under such an error (an error line of its own, and the compile stage).
DYNAMO_ADVICE = "Set TORCHDYNAMO_VERBOSE=1"
#: Further words of error lines that carry neither (``FATAL``, TensorRT's ``[E]``, ``NCCL WARN``,
#: ``NVRM: Xid``, a Rust panic, a bare ``Exception``). A ``quick`` classifier leaves them and the
#: rules' own keywords out; :func:`classify_stream` then reads the log again in full when the
#: quick pass found no known cause, so none of these lines can be missed.
#: ``[E`` and ``[F`` find glog-style records (``[E0429 13:55:49 f.cc:1]``, c10's ``[E429 ...``).
#: ``ailed``, ``bort`` and ``egmentation`` find the last line of defence's plain-worded errors;
#: ``atal`` a compiler driver's ``nvcc fatal   : ...``.
MORE_TRIGGERS: tuple[str, ...] = (
    "FATAL",
    "ERR_",  # (an error's code by its prefix: "ERR_NVGPUCTRPERM - ...")
    "CRITICAL",
    "[critical]",  # (a lower-case level: spdlog's)
    "[E",
    "[F",
    "xception",
    "panicked",
    "ERR ",
    "ailed",
    "FAILED",  # a launcher's summary of a script that failed ("train.py FAILED")
    "Result = FAIL",  # a test program's verdict (the CUDA samples')
    "bort",
    "egmentation",
    "atal",
    "ailure",
    "[GIN]",  # Gin's access log (Ollama's server): a request answered with a server error
    "command not found",  # a shell that cannot run a tool
    ": Permission denied",  # (or cannot execute it: "/bin/sh: 1: vllm: Permission denied")
    ": not found",  # (dash's words: "sh: 1: nvcc: not found")
    "out of memory",  # a runtime's error string printed alone
    "allocate memory",  # ENOMEM's "Cannot allocate memory", a library's "cannot allocate memory"
    "object has no attribute",  # Python's error messages printed without their type
    "object is not ",
    "UNAVAILABLE: ",  # a model status table's cell for a model that could not be loaded
    "\tat ",  # a JVM stack's frame, below the exception it belongs to
    # a native program's abort at its source line (:data:`SOURCE_ABORT`; not ".cxx:" or ".hpp:",
    # which Inductor's config dumps print as keys: "torch._inductor.config.cpp.cxx: (None, ...)")
    ".c:",
    ".cc:",
    ".cpp:",
    ".cu:",
    ".cuh:",
    ".h:",
    DYNAMO_ADVICE,
    "CrashLoopBackOff",  # kubectl's state of a container restarted after each crash
    "Non-OK-status",  # XLA's status check, a fatal glog record behind a TensorFlow-style prefix
    # TensorFlow's C++ records at an error level ("2024-09-02 12:48:12.7: E tensorflow/x.cc:9]")
    ": E ",
    ": F ",
    # a server's access log answering with a server error (:data:`LOUD`)
    'HTTP/1.1" 5',
    'HTTP/1.0" 5',
    "http_status:5",
    # a glog or c10 record at an error level without brackets at the start of a line
    # ("E0305 20:23:38.866000 747 f.py:533] ..."), whatever its message says: found by the
    # stream scan with the line break before it, by :func:`looked_at` with its first letters
    *(f"\n{head}" for head in GLOG_HEADS),
)


def triggers(quick: bool) -> tuple[str, ...]:
    """The words that make a line worth a close look: the common ones for a quick scan, all of
    them for a thorough one."""
    return TRIGGERS if quick else (*TRIGGERS, *MORE_TRIGGERS)


def looked_at(line: str, keywords: tuple[str, ...]) -> bool:
    """Whether the scan reads ``line`` closely: it holds one of ``keywords`` (those that start
    with a line break: ``line`` starts with the rest)."""
    if any(k in line for k in keywords):
        return True
    if not line.startswith(GLOG_HEADS):
        return False
    return any(f"\n{head}" in keywords for head in GLOG_HEADS if line.startswith(head))


ERROR_LEVELS = ("ERROR", "CRITICAL")
#: A line logged at one of these levels is not an error by its wording alone ("Failed to create
#: oneDNN linear, fallback to torch linear. Exception: ..." is a warning); only a rule, or an
#: explicit error word, makes it one.
QUIET_LEVELS = ("WARNING", "INFO", "DEBUG")
#: An exception a program says it caught ("Caught amgx exception: Cannot allocate pinned memory").
CAUGHT = r"\b[Cc]aught (?:an? )?(?:[\w:]+ )?exception:\s*\S"
LOUD = re.compile(
    r"\b(?:FATAL|ERROR)\b|\[(?:E|F|ERROR|FATAL|CRITICAL)\]"
    # a server's access log, at INFO, answering a request with a server error (uvicorn's
    # '"POST /v1/completions HTTP/1.1" 500', KServe's timing record "'http_status:500'"): like
    # Gin's, never silent
    r"|\"[A-Z]+ \S+ HTTP/[\d.]+\" 5\d\d\b|\bhttp_status:5\d\d\b"
    # TensorFlow's record of an op that failed, with the status it raises, at its warning level
    # ("W op_kernel.cc:1855] OP_REQUIRES failed at xla_ops.cc:590 : UNAVAILABLE: ...")
    r"|\bOP_REQUIRES failed at \S+ : [A-Za-z_]+: "
    # (or a driver call of its generated kernels: "'cuModuleLoadData(...)' failed with '...'")
    r"|'cu[A-Z]\w*\([^']*\)' failed with 'CUDA_ERROR_\w+'"
    # (GStreamer's element error, recorded at WARN: ":<filesrc0> error: Internal data stream")
    r"|\w:<[\w.\-]+> error: \S"
)
#: MATLAB's heading of an error, the function that raised it ("Error using vl_nnconv"): its
#: message is the next line.
MATLAB_HEADING = r"\bError using [\w.]+\s*$"
#: An exception as a debugger shows it, its type after this and its message on the next line
#: (VS Code's "Exception has occurred: RuntimeError").
DEBUGGER_EXCEPTION = "Exception has occurred: "
#: A line that says it is an error although no rule knows it: never "no failure".
ERRORISH = re.compile(
    r"\b(?:FATAL|Fatal error|fatal error|ERROR)\b|\[(?:E|F|ERROR|FATAL|CRITICAL)\]|\bCRITICAL:"
    r"|\[(?:error|fatal|critical)\]"
    r"|^(?:[\w.:]+:? )?(?:error|Error|fatal)(?:\[\w+\])?\s*:|panicked at|\bExceptions?: \S"
    r"|^(?:[\d:.]+ )?[EF] \w+|\bERR\b|^[\w .\-]{0,40}\berror\s*:|^\w+: (?:error|failed to)\b"
    # the last line of defence: the shapes of an error in any tool's words
    r"|(?:^|[\s;,(\[])(?:[\w\-]+ )?(?:error|Error)\s*:\s*\S|\b\d+ errors? detected\b"
    # (and a tool's fatal error, also indented in a build's output: "    nvcc fatal   : A single
    # input file is required"; not git's "fatal: not a git repository" that builds print)
    r"|(?:^|\s)[\w\-]+ +fatal\s*:\s*\S"
    # an error code: "CUDA error = 999 at main.cu:196", "cuda error 700"
    # (a code, not a figure: "cuBLAS error = 3.1e-06" is an accuracy check's difference)
    r"|\b(?i:cuda|hip|cublas|cudnn|cusparse|cufft|hipblas|rocblas)\w*(?: driver| runtime)? "
    r"(?:error|Error)\s*=?\s*[1-9]\d*(?![\d.eE])"
    r"|\b(?:error|Error) [1-9]\d*\s*:\s*\S"  # an error and its code ("runtime error 6: ...")
    r"|\b[1-9]\d* root error\(s\) found\b"  # TensorFlow's summary above its errors
    # a check's verdict naming the exception it caught ("float8_e4m3fnuz: FAIL InductorError:
    # CompilationError: at 1:0:")
    r"|\bFAIL(?:ED)?:? (?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception):"
    r"|\b(?i:CUDA|NCCL|cuDNN|cuBLAS) failure\b"
    # an Abseil status as XLA, JAX and TensorFlow print it ("INVALID_ARGUMENT: stream is
    # uninitialized or in an error state")
    r"|\b(?:INVALID_ARGUMENT|INTERNAL|FAILED_PRECONDITION|RESOURCE_EXHAUSTED|UNIMPLEMENTED"
    r"|DEADLINE_EXCEEDED|DATA_LOSS|OUT_OF_RANGE): \S"
    r"|^[\w.\-]+: (?:Error|error) \w"
    # a status code of a failure alone or in front of its message ("startup_failed")
    r"|^[a-z][a-z_]*_(?:failed|error)\b(?:\s*::|\s*$)"
    # "error loading model: ...", "Error processing request: ...": an error and what it hit
    # (after its tool's tag too: NVEncC's "nvenc : Error on NvEncEncodePicture: 17 (...)")
    r"|^(?:[\w.:]+: |[\w.\-]+ : (?=[Ee]rror (?:on|in|while|when|during) ))?(?:error|Error) "
    r"(?:\w+ ){0,3}(?:\w+|\"[^\"]{1,60}\"|'[^']{1,60}'):\s\S"
    # an exception reported with where it happened ("Exception in main training loop: ...")
    # (or what was being done: "Exception initializing accelerator: ...")
    r"|^Exception (?:in|while|during|when|[a-z]+ing) [\w .\-]{1,60}:\s*\S"
    r"|(?:" + CAUGHT + r")"  # (or a program's words for one it caught: "Caught x exception: ")
    # (or only said to have happened, its traceback lost: "[TP0] Scheduler hit an exception:";
    # not the header of the traceback that follows, "... hit an exception: Traceback ...")
    r"|\b(?:hit|encountered) an? (?:unexpected |unhandled |uncaught )?exception[:.]?\s*$"
    # Dynamo's advice closing the message of an error raised while it compiled a frame (the
    # exception's line may be cut: its "from user code:" frames come right before)
    r"|^" + re.escape(DYNAMO_ADVICE) + r" for the internal stack trace\b"
    # (kubectl's description of a container that exits with an error and is restarted)
    r"|^\s*Reason:\s+(?:CrashLoopBackOff|Error|OOMKilled|ContainerCannotRun|StartError)\s*$"
    # an error and what it was doing ("Error while calling cudaMalloc(...)", glibc's "Error in
    # `python': double free or corruption")
    # (also after the device it hit: "GPU 0: error when allocating memory or building DAG.")
    r"|^(?:[\w.:]+(?: #?\d+)?: )?[Ee]rror (?:while|when|during|in) \S"
    r"|\b(?:[Ff]ailed|FAILED|[Aa]bort(?:ed|ing)?|ABORT(?:ED)?|[Pp]anic(?:ked)?)\b"
    # a server's access log answering a request with a server error (Gin's "| 500 |")
    r"|^\[GIN\] .{0,40}\|\s*5\d\d\s*\|"
    # a library's record at an error level, its function in brackets ("MIOpen(HIP): Error
    # [SetIsaName] ...")
    r"|^[\w.]+(?:\([\w.]+\))?: (?:Error|ERROR|Fatal|FATAL) \[\w+\] "
    # (or the level in brackets as Omniverse Kit writes it, "[Error] [gpu.foundation.plugin]
    # ...", and a tool's bracketed label ending in its level: "[Parabricks Options Error]: ...")
    r"|\[(?:Error|Fatal)\] \[|\[[A-Z][\w ]{0,40} (?:Error|ERROR)\]: \S"
    # (or a status line ending in its error's code: ExLlamaV2's " ## Quantization error (2)")
    r"|\b[Ee]rror \(-?\d+\)\s*$"
    r"|(?:" + MATLAB_HEADING + ")"  # (MATLAB's heading: its message is on the next line)
    r"|^(?:[Ee]rror|ERROR)$"  # (the word alone as a heading, its message below: ZeroGPU's)
    # (also as often misspelt: "An error occured while ...")
    r"|\b(?:[Aa]n )?[Ee]rror (?:has )?occurr?ed\b|\bencountered an? (?:unexpected |fatal )?error\b"
    # (or an exception: "An exception has occurred: No closing quotation", InvokeAI's)
    r"|\b[Aa]n (?:unexpected |unhandled )?exception (?:has )?occurr?ed\b"
    # an error code in capitals ("LLAMA_CPP_PROCESS_ERROR"), not a code for no error nor a
    # policy for errors (NeMo's "DISABLE_QUIETLY_AND_REPORT_METRIC_ERROR", "STOP_ON_ERROR"); a
    # library's fatal check ("TT_FATAL: Out of Memory: ...", Tenstorrent's)
    r"|\b(?!NO_|[A-Z0-9_]*(?:REPORT|IGNORE|SUPPRESS|DISABLE|ON)_(?:[A-Z0-9]+_)*(?:ERROR|FATAL)\b)"
    r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_(?:ERROR|FATAL)\b"
    # (or named for an error by its prefix, Nsight's "ERR_NVGPUCTRPERM - The user does not have
    # permission ..."; and a component's bracketed tag before its error: "[coreml] Error
    # computing NN outputs -1")
    r"|\bERR_[A-Z][A-Z0-9_]{3,}\b|^\[[\w.:\- ]{1,30}\] (?:Error|ERROR|Failure|FAILURE)\b"
    # the CUDA runtime naming an error ("Program hit cudaErrorX ...", "CUDA error (f.h:1): ...")
    r"|\b(?:cuda|hip)Error[A-Z]\w+|\bCUDA_ERROR_[A-Z_]+|\b(?:CUDA|HIP) error\b"
    r"|(?i:" + SIGNAL_DEATH + ")"  # a shell reporting the signal a job died of
    r"|(?i:segmentation fault|core dumped)"
    # build tools: CMake's error records, make's failed recipe ("make[2]: *** [x.o] Error 1",
    # also with the star escaped by a markdown paste), a shell that cannot find a command
    r"|^CMake Error\b|^g?make(?:\[\d+\])?: \*\*\\?\* |\bcommand not found\s*$"
    # (a shell that cannot run a program, as dash and bash word it: "/bin/sh: 1: vllm: Permission
    # denied", "sh: 1: nvcc: not found")
    r"|^(?:/\w+)*/?(?:ba|da|z)?sh: (?:line )?\d+: [^\s:]+: (?:Permission denied|not found)\b"
    # a tool's message ending in an error it could not name ("...: Unknown Error")
    r"|:\s*(?:Unknown|Unexpected|Internal) [Ee]rror\.?\s*$"
    # a runtime's error string alone on its line, or after the allocator that says it
    # ("out of memory", "cudaCustomAllocator out of memory")
    r"|^\s*(?:[\w.:\-]+:?\s)?(?:CUDA )?out of memory\b"
    # Python's error message printed without its exception type ("router init state: 'NoneType'
    # object has no attribute 'get'")
    r"|'\w+' object (?:has no attribute '\w+'|is not (?:callable|subscriptable|iterable)\b)"
    # an OpenAI-compatible API's error object (the answer to a request that failed), and a
    # model status table's cell for a model that could not be loaded (Triton's UNAVAILABLE)
    r"|\"object\":\s*\"error\"|\|\s*UNAVAILABLE: \S"
    # pydantic's (v1) validation error, one entry per field: "<message> (type=value_error)"
    r"|\(type=\w+_error(?:\.\w+)*\)"
    # a C++ catch block reporting what it caught (the SYCL backends' "Exception caught at
    # file:ggml-sycl.cpp, line:3171"), memory the system could not give ("cannot allocate memory")
    r"|[Ee]xception caught at file:|\b(?i:cannot|can't|unable to|fails? to) allocate memory\b"
    # an error report's field (ComfyUI's, its markdown bold lost): "Exception Message: ..."
    r"|^\s*Exception Message:\s*\S"
    # an exception's repr inside a message ("reason=<MilvusException: (code=1100, ...)>")
    r"|<(?:[\w.]+\.)?[A-Z]\w*(?:Exception|Error): \S"
    # a failure named by what failed ("HipVMM Failure: invalid argument")
    # (not a status field that says there was none: "Last Failure: none")
    r"|\b[A-Z]\w* Failure: (?!(?i:none|no|n/a|null|false|ok)\b)[a-z]"
    # a test program's verdict (the CUDA samples' "Result = FAIL")
    r"|^Result = FAIL\b"
    # glog's (and absl's) report of a failed CHECK, its message line not in the paste
    r"|^\*\*\* Check failure stack trace: \*\*\*"
    # a native program's abort or assert at its source line, the line starting with the file
    # ("ggml/src/ggml-backend.cpp:537: GGML_ASSERT(...) failed", ggml_abort's "common.cuh:112:
    # ggml was not compiled with any CUDA arch <= 750"): a source line and a message, no column,
    # not a compiler's warning or note; a logger's record of that shape starts with its time
    r"|(?:" + SOURCE_ABORT + r")"
    # (or behind a library's tag, the checking function after the line, when its words say it
    # failed: AITER_CHECK's "[AITER] csrc/asm_mla.cu:193 get_heuristic_kernel_mla: cannot get
    # heuristic kernel!")
    r"|^\[[A-Za-z][\w\-]*\] [\w.\\/+\-]*" + SOURCE_AT_LINE[:-1] + r" \w+: "
    r"(?=.*?(?:\b(?:cannot|can't|could not|failed|unsupported|not supported|invalid)\b|!\s*$))"
    # ComfyUI's report of a node that raised, the exception's message after it
    r"|^!!! Exception during processing !!!"
)
#: A line that names no exception raised (before a colon, or a ``what():``): pinning given up.
_NOT_RAISED = r"^(?!.*?(?:Error|Exception|exception|what\(\))\s*:\s)"
#: Lines that say ``failed`` or ``error`` but are routine: a retry, a wait, a fallback, a count
#: (``0 failed``, but not ``replica 0 failed``: a number after a noun names a thing; nor an
#: assertion's condition, ``upperBound != 0 failed``).
BENIGN = re.compile(
    # (JAX probing each platform as it starts: "Unable to initialize backend 'tpu': INTERNAL: ...")
    r"(?i)\bUnable to initialize backend '\w+': |"
    r"\bretry(?:ing)?\b|\bwill retry\b|\bwaiting\b|\bfall(?:ing)?\s?back\b|\bskipp(?:ed|ing)\b"
    r"|\bignor(?:ed|ing)\b"
    r"|(?<![A-Za-z] )(?<!\w [!=<>]= )(?<!\w [<>] )(?<!#)\b0 (?:failed|errors?)\b"
    # a zero count, not glog's "Check failed"; also a count of what failed in a results table
    # ("Failed requests:       0", a benchmark's summary, also as a table's row: "| Failed
    # requests   |    0   |")
    r"|(?<![Cc]heck )\b(?:failed|errors?)(?: [a-z]+)?(?: ?[=:]|\s*\|)\s*0(?![.\d])\b"
    # a measured error, a fraction ending the line (a quantizer's "Total exp. error:
    # 0.121538160582", "rfn_error: 0.003"): a figure, not a failure
    r"|\berror:\s*-?\d*\.\d+(?:e[+-]?\d+)?\s*$"
    # pinning or locking host memory is an optimisation: llama.cpp and others go on without it
    # (unless an exception was raised for it: "Caught amgx exception: Cannot allocate pinned
    # memory")
    r"|" + _NOT_RAISED + r".*?\b(?:of|allocate) pinned (?:host )?memory\b"
    r"|\bmlock\b"
    # (distributed-llama's buffer locked in RAM, allocated without the lock when it cannot be:
    # "Cannot allocate 2359296 bytes directly in RAM")
    r"|\ballocate \d+ bytes directly in RAM\b"
    # a program that says it goes on without what failed ("Unable to load libtcmalloc.so.4,
    # continuing with default allocator"), a note about an option
    r"|\bcontinuing\b|^(?:Note|NOTE|Hint|Tip): "
    # a prompt that says how long it waits for an answer ("wandb: Enter your choice: (30 second
    # timeout) 3")
    r"|\(\d+ ?(?:s|secs?|seconds?) timeout\)"
    # a scheduler taking requests back to free memory (SGLang's "Decode out of memory happened.
    # #retracted_reqs: 1"): they are run again later
    r"|\bretract(?:ed|ing)?(?:_reqs)?\b"
    # (or aborting requests, as a server does when a client goes or a rollout ends: SGLang's
    # "Abort request for [...]", vLLM's "Aborted request cmpl-...")
    r"|\babort(?:ed|ing)? (?:the |all )?requests?\b"
    # an allocator that reserves its buffers anew and allocates again (ggml's scheduler: "failed
    # to allocate graph, reserving")
    r"|, reserving\b"
    # NVSHMEM's InfiniBand transport finding no devices to list (a host without IB NICs: it goes
    # on over its other transports; "ibrc.cpp:1653: NULL value get_device_list failed")
    r"|\bNULL value get_device_list failed\b"
    # ggml's backend loader probing a library that is no loadable backend (one built into the
    # program: "load_backend: failed to find ggml_backend_init in .../libggml-hip.so"); the
    # backends it has registered run
    r"|\bload_backend: failed to find ggml_backend_\w+ in\b"
    # torch's tunable ops finding a tuning file written for another setup ("Failed validator:
    # GCN_ARCH_NAME", "... ROCBLAS_VERSION"): its results are left aside and tuned anew
    r"|\bFailed validator: [A-Z_]+\b"
    # a warning of what may happen ("This is not supported for all configurations of models and
    # can yield errors."), not an error that happened
    r"|\b(?:can|may|might|could) (?:yield|cause|lead to|result in|produce) (?:\w+ ){0,2}errors?\b"
    r"|\bunexpected results may\b"  # "... not implemented for `sdpa`; unexpected results may ..."
    # a compiler's warning or note on a source line ("ggml-cuda.cu:5712:24: warning: loop not
    # unrolled: ... unsupported transformation ordering")
    r"|^\S+:\d+(?::\d+)?: (?:warning|note|remark): "
)


#: Python's warnings of kinds that never stop a program (a library's UserWarning may name a real
#: problem, such as a GPU the installed torch has no kernels for, so it is read).
_HARMLESS_KINDS = r"(?:Runtime|Deprecation|PendingDeprecation|Future|Resource)Warning: "
_HARMLESS_WARNING = r"^\S+:\d+: " + _HARMLESS_KINDS
#: Host memory that could not be pinned: an optimisation given up, ggml and others go on without
#: it ("ggml_vulkan: Failed to allocate pinned memory (... ErrorOutOfDeviceMemory)").
#: (Triton server's "Unable to allocate pinned system memory, pinned memory pool will not be
#: available: ..." too, unless the reason names a driver or a device that is missing: then the
#: line is a precursor, ``pinned_pool_no_gpu``)
_PINNED = (  # (not raised: "Caught amgx exception: Cannot allocate pinned memory")
    r"(?:" + _NOT_RAISED + r").*?"
    r"(?i:\b(?:failed to|unable to|cannot|could not) allocate (?:[\d.]+ \w+ of )?pinned "
    r"(?:host |system )?memory\b(?!.{0,200}?\b(?:driver|CUDA-capable)\b))"
)
#: Lines that mention an error without being one, whatever rule their words match: advice about
#: an error that may come ("If you get `CUDA error: invalid device function` errors, ..."), a
#: program going on with an alternative ("... not available (No module named 'x'), falling back
#: to a Python version"), and the harmless warnings above.
ASIDE = re.compile(
    r"^\W*If you (?:get|see|encounter|hit|run into|are seeing)\b|\b(?i:falling|fall|fell) back to\b"
    # (or using one: "GGUF CUDA kernels failed for Q2_K, using fallback: ...", not an exception's
    # own line, which a warning made fatal may word so)
    r"|^(?!\s*[\w.]*[A-Za-z]\w*(?:Error|Exception|Warning): ).*?[,;.\-]\s*"
    r"(?i:using (?:the |a )?fallback\b|>?\s*(?:using|running on|falling back to) (?:the )?cpu\b"
    r"|use (?:the )?cpu(?: version)? instead\b)"  # ("... not compiled with CUDA support, use CPU")
    # (a device notice naming the CPU it runs on: "Device: cpu (CUDA unavailable)")
    r"|(?i:^\W*(?:selected |using )?device\s*[:=]\s*cpu\b)"
    r"|\bresort(?:s|ing|ed)? to\b"  # whisperX: "Failed to align segment (...), resorting to ..."
    # (or with the next of its ways: "Strategy rdma failed, trying next: ..."), and a program
    # saying it ignores the error it caught ("Ignore import error when loading x: No module ...")
    r"|\btrying (?:the )?next\b|\b[Ii]gnor(?:e|es|ing) (?:the |this )?(?:import )?errors?\b"
    # a step the program says it skipped because a feature is not there ("CUDA host
    # registration skipped: operation not supported"): it goes on without it (not an error it
    # caught: "capture skipped: CUDA error: out of memory")
    r"|\b[a-z]+ skipped: [\w ]{0,30}?\bnot (?:supported|available|enabled)\b"
    # a program's own caution about what it works around (koboldcpp's "Caution: pre-allocated
    # tensor (x) in a buffer (CPU) that cannot run the operation (ROPE)": its scheduler moves it)
    r"|^Caution: "
    # a tally of errors by their type, an indented or logged item with a count and no message
    # ("[root]   OutOfMemoryError: 2" under "Errors by type:"; not an exception's own line at the
    # margin, nor a KeyError or IndexError, whose message may be a bare number)
    r"|^(?:\s{2,}|\s*\[[\w.\-]+\]\s+)(?!(?:KeyError|IndexError)\b)[A-Z]\w*(?:Error|Exception): "
    r"\d+\s*$"
    # a check a diagnostic tool reports as passed, whatever its words ("[PASS] ... ❌ (requires
    # Hopper)": a feature the card lacks, noted)
    r"|^\s*\[(?:PASS(?:ED)?|OK)\]\s"
    # the same said with its substitute ("FP16 is not supported on CPU; using FP32 instead")
    r"|[;,] (?:using|will use) [\w.\- ]{1,40}? instead\b"
    # (or the default in its place: TVM's "Error: Using LLVM 19.1.2 with `-mcpu=apple-latest` is
    # not valid in `-mtriple=arm64-apple-macos`, using default `-mcpu=generic`")
    r"|[;,] (?:using|will use|falls? back to) (?:the )?defaults?\b"
    # a part that is optional, said so ("... if you want to use the bitblas backend"); never the
    # GPU itself
    r"|\bif you (?:want|wish|would like|need) to use\b"
    r"(?! (?:the |a |your )?(?:GPUs?|CUDA)(?:\s*(?:[.,;!]|$)| (?:for|with|in|on|to|when|while)\b))"
    r"|\b(?:will be|is being) used instead\b"  # ("The native segment will be used instead")
    # (or the backend put in its place: "... Overriding blas backend to hip")
    r"|\bOverriding (?:\w+ ){0,2}backend to\b"
    # (or a choice made and its reason given: TGI's "Forcing attention to 'x' because ...")
    r"|\b(?:Forcing|Switching|Defaulting|Setting) (?:\w+ ){0,3}to \S+ because\b"
    # a report of what is available, an error kept as the reason a part is not ("Found
    # comfy_kitchen backend triton: {'available': False, ..., 'unavailable_reason': \"ImportError:
    # No module named 'triton'\"}"): the program goes on without it
    r"|['\"]unavailable_reason['\"]\s*:"
    # a mismatch the library checked and tolerates (DeepSpeed's CUDA versions)
    r"|\baccepting this combination\b"
    # a default taken and its cost foretold (vLLM's and SGLang's tuned kernel configurations:
    # "Using default W8A8 Block FP8 kernel config. Performance might be sub-optimal! ...")
    r"|\b[Pp]erformance (?:might|may|could|will) be (?:sub-?optimal|degraded|affected)\b"
    # an error that was caught and reported beside a notice (xFormers: "A matching Triton is not
    # available, some optimizations will not be enabled" then "Error caught was: ...")
    r"|^\W*Error caught was: "
    # torch trying cuDNN's execution plans one by one: one that fails is a warning, the next is
    # tried ("UserWarning: Plan failed with a cudnnException: ... CUDNN_STATUS_NOT_SUPPORTED")
    r"|\bUserWarning: Plan failed with a cudnnException\b"
    # (also without the prefix, as a paste may keep the message alone)
    r"|^Plan failed with a cudnnException\b"
    # a warning whose message says it is one ("UserWarning: WARNING: failed to get cudart_version
    # from onnxruntime build info")
    r"|\bUserWarning: WARN(?:ING)?\b"
    # TensorFlow's XLA registering its CUDA plugins again when a second copy is imported, at
    # error level on every import ("Unable to register cuDNN factory: Attempting to register
    # factory for plugin cuDNN when one has already been registered"): the first one is used
    r"|\bAttempting to register factory for plugin \w+ when one has already been registered\b"
    # a program that caught an extension's failed import and warns that it goes on without it
    # ("x.py:786: UserWarning: .../_C.so: undefined symbol: ...", torchvision's "Failed to load
    # image Python extension: ... undefined symbol"): the error that stops it, if any, follows
    r"|^\S+:\d+: UserWarning: .{0,300}?\bundefined symbol\b"
    # a section title of a report in markdown ("## Recent failed boot attempts"): a heading names
    # what the section is about, its lines below say what happened (not an error message a poster
    # made a heading of: "### RuntimeError: CUDA out of memory", nor a program's own status line
    # drawn so, its code in brackets at the end: ExLlamaV2's " ## Quantization error (2)")
    r"|^#{1,6} (?=[A-Z][a-z])(?![^:]*\(-?\d+\)\s*$)[^:]*$"
    r"|" + _PINNED + r"|" + _HARMLESS_WARNING
)
#: Such a warning whose message goes on past a colon: the next line is the rest of the message
#: ("RuntimeWarning: Failed to read commit hash:" then "No module named 'x._version'").
_ASIDE_GOES_ON = re.compile(r"(?:^|\s)\S+:\d+\)?: " + _HARMLESS_KINDS + r".*:\s*$")
#: The same notice on a line of its own ("ggml_vulkan: Failed to allocate pinned memory."), its
#: out-of-memory detail on the next.
_PINNED_NOTICE = re.compile(_PINNED + r"\.?\s*$")
_OUT_OF_MEMORY = re.compile(r"(?i)out ?of ?(?:device ?)?memory")


def is_aside(text: str, lineno: int, recent: Reversible[tuple[int, str]]) -> bool:
    """Whether line ``lineno`` (``text``) only mentions an error (:data:`ASIDE`) or is the rest
    of a warning message on the line before it, looked up among the ``(number, line)`` pairs of
    ``recent`` (newest last). An ``NCCL WARN`` record is never an aside, whatever it says it does
    next: NCCL's own error level, kept as the relay it is (``falling back to simple order``)."""
    if ASIDE.search(text):
        return "NCCL WARN" not in text
    before = next((raw for n, raw in reversed(recent) if n == lineno - 1), "")
    if text.startswith(" ") and _PY_WARNING_AT.search(before):
        return True  # the source line Python's warnings module shows under its warning
    if _PINNED_NOTICE.search(before) and _OUT_OF_MEMORY.search(text):
        return True  # the detail of host memory that could not be pinned (ggml's Vulkan backend)
    # (the line above as printed: a process tag or an editor's link around the source may be
    # before the warning's kind)
    return _ASIDE_GOES_ON.search(before.strip()) is not None


#: A warning as Python's warnings module prints it (the source line it warned at follows; also
#: after a progress bar the warning was printed onto).
_PY_WARNING_AT = re.compile(r"\.py:\d+: [A-Z]\w*Warning: ")
#: A quiet level the log prefix parser did not recognise (``LMCache WARNING: ...``, a llama.cpp
#: ``12.30.001.002 W srv ...`` record).
_QUIET_WORD = re.compile(
    r"^[^:]{0,40}?\b(?:WARNING|WARN|INFO|DEBUG)\b[:\]]?\s|^[\d.:\- ]{6,}[WID] "
    # spdlog's bracketed lower-case levels ("[ctranslate2] [thread 144] [warning] ...")
    r"|^(?:\[[^\]]{1,40}\] ){0,3}\[(?:warning|info|debug|trace)\] "
    # a bracketed level after a kernel driver's source location ("nvgpu: 17000000.gpu
    # nvgpu_dma_print_err:101  [INFO]  DMA alloc FAILED: ...")
    r"|^.{0,80}?:\d+\s+\[(?:INFO|DEBUG|WARN(?:ING)?)\]\s"
    # a logger's name and its level in brackets (LLamaSharp's "[llama Info]: Failed Loading ...")
    r"|^\[[\w.-]{1,30} (?:Info|Debug|Trace|Warning)\]:? "
)


def is_quiet(text: str, level: str) -> bool:
    """Whether a line is logged at a quiet level: the one its prefix gave, or a quiet level word
    the log prefix parser did not recognise."""
    return level in QUIET_LEVELS or (not level and _QUIET_WORD.search(text) is not None)


#: A frame of the stack that glog's (absl's) failure signal handler prints below its "*** SIGSEGV
#: received ***" line ("PC: @     0x7f3e  (unknown)  raise", "@ ... and at least 2 more frames"),
#: at the error level of the record it was written in (Ray's): part of that crash, no error itself.
_SIGNAL_HANDLER_FRAME = re.compile(r"\s*(?:PC: )?@\s+(?:0x[0-9a-fA-F]+\s|\.\.\. and at least)")


def says_error(text: str, level: str) -> bool:
    """Whether a line no rule knows is still an error (``unknown``, never "no failure").

    At an error level it is; at a quiet level only an explicit error word makes it one; without a
    level, any shape of an error does (:data:`ERRORISH`) unless the line is routine
    (:data:`BENIGN`).
    """
    if not text.strip() or _SIGNAL_HANDLER_FRAME.match(text):
        return False
    if level in ERROR_LEVELS:
        return True
    if is_quiet(text, level):
        return LOUD.search(text) is not None
    return ERRORISH.search(text) is not None and (
        LOUD.search(text) is not None or BENIGN.search(text) is None
    )


#: A program saying it went on after an error (a probe that failed, then "GPU support
#: successfully linked and loaded").
WENT_ON = re.compile(r"(?i)\bsuccessfully\b")
