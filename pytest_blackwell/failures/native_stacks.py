"""Stacks that other runtimes print, read as traceback frames: Go's crash dumps, JVM and .NET
exceptions, a debugger's backtrace of native code.

Engines wrapped by programs in other languages (Ollama's Go runner, MLC's Android app, LLamaSharp
in C#) paste stacks that name the same work as a Python traceback: a ``Decode`` call, a
``LoadFromFile``. Both kinds list the innermost call first. Their names are read the way Python
spells them (:func:`snake`), so the frame tables of :mod:`.frame_names` apply unchanged.
"""

from __future__ import annotations

import re

from pytest_blackwell.failures.detail import convert_groups

# Go's crash dump (Ollama's runner), innermost first under "goroutine 10 [syscall]:": a call
# "github.com/ollama/ollama/llama.(*Context).Decode(0xc0, ...)" above its "\tfile.go:133 +0xf6"
# (a closure's ".func1" after the name, cgo's "_Cfunc_" before a C function's).
GO_GOROUTINE = re.compile(r"^goroutine \d+ (?:gp=\S+ m=\S+ (?:mp=\S+ )?)?\[[^\]]*\]:$")
#: (its arguments are words in hex, "{...}" for a struct, "..." where Go elides them)
GO_FRAME = re.compile(
    r"^(?P<path>[\w.-]+(?:/[\w.-]+)*)\.(?:\(\*?\w+\)\.)?(?:_Cfunc_)?(?P<func>[A-Za-z_]\w*)"
    r"(?:\.func\d+)*(?:\.\d+)*\((?:0x[0-9a-f]+\??|\{[^}]*\}|\.\.\.|,\s*)*\)$"
)
#: A JVM (Java, Kotlin) or .NET frame, innermost first below the exception: "\tat
#: ai.mlc.mlcllm.ChatModule.decode(ChatModule.java:74)", "   at LLama.LLamaWeights.LoadFromFile(
#: LLama.Abstractions.IModelParams)" (.NET may add " in C:\src\Weights.cs:line 12"). A
#: JavaScript frame has a space before its parenthesis and is not one.
MANAGED_FRAME = re.compile(r"^\s*at (?P<path>(?:[\w$`<>]+\.)+)(?P<func>[\w$`<>]+)\([^()]*\)")

#: A debugger's frame of native code, innermost first: gdb's "#12 0x00007746 in
#: llama_context::decode(llama_batch const&) () from /x/libllama.so.0" (the address left out for
#: the innermost one, "at file.c:30" where it has the source), lldb's "  * frame #3: 0x0000104b
#: libwhisper.dylib`whisper_encode_internal(whisper_context&, ...) + 92", an Android tombstone's
#: "#07 pc 00000000001c3a5c  /data/app/x/libllama.so (llama_init_from_model+832)" (also with
#: only the name: "#07 llama_init_from_model+832"). A method's class is left out of its name.
DEBUGGER_FRAME = re.compile(
    r"^\s*#\d+\s+(?:0x[0-9a-fA-F]+ in )?(?:[\w~]+::)*(?P<func>[A-Za-z_]\w*)(?: ?\(|\+(?:0x)?\d)"
    r"|^\s*#\d+ pc [0-9a-fA-F]+\s+(?P<path__5>\S+) \((?:[\w~]+::)*(?P<func__4>[A-Za-z_]\w*)"
    r"[(+]"
    r"|^\s*(?:\* )?frame #\d+: 0x[0-9a-fA-F]+ (?P<path__3>[^\s`]+)`(?:[\w~]+::)*"
    r"(?P<func__2>[A-Za-z_]\w*)"
    # (ggml's own backtrace, a function and its library in two columns:
    # "llama_context::decode()                   libllama.so")
    r"|^(?:[\w~]+::)*(?P<func__3>[A-Za-z_]\w*)\(\) {2,}(?P<path__4>[^\s]+\.(?:so|dylib|dll)\S*)\s*$"
    # (a Rust panic's backtrace, its module path before the name, a trait's implementation in
    # angle brackets: "  5: mistralrs_core::pipeline::Pipeline::step::{{closure}}", "  4:
    # <candle_core::cpu_backend::CpuStorage as candle_core::backend::BackendStorage>::matmul")
    # (not the standard library's own frames, which capture the backtrace: "std::backtrace::
    # Backtrace::capture")
    r"|^\s*\d+: (?!<?(?:std|core|alloc)::)(?:<(?P<path__6>[a-z_]\w*(?:::\w+)+)(?: as [^>]+)?>"
    r"|(?P<path__7>[a-z_]\w*(?:::\w+)*?))::(?P<func__5>[A-Za-z_]\w*)(?:::\{\{closure\}\})*"
    r"(?:::h[0-9a-f]{16})?\s*$"
    # (glog's stack after a failed CHECK, innermost first: "    @     0x7fa7b3c77088
    # caffe::Solver<>::Step()", Abseil's the same)
    r"|^\s*@\s+0x[0-9a-fA-F]+\s+(?:[\w~]+(?:<[^<>]*>)?::)*(?P<func__6>[A-Za-z_]\w*)(?:<[^<>]*>)?\("
    # (glibc's backtrace_symbols, as ggml prints its stack without a debugger: "libllama.so.0(
    # _ZN13llama_context13graph_reserveEjj...+0x608)[0x7f5f4e781198]", a C++ name mangled, or
    # no name at all: "libggml-cuda.so(+0x181425)[0x7f5f3293b425]")
    r"|^(?:\s*--- )?(?P<path__8>[^\s()]+)\((?P<func__7>[A-Za-z_]\w*)?\+0x[0-9a-fA-F]+\)\s*"
    r"\[0x[0-9a-fA-F]+\]\s*$"
    # (Tenstorrent's tt-metal, its frames after " --- ", demangled: " --- tt::tt_metal::detail::
    # ProgramImpl::validate_circular_buffer_region(tt::tt_metal::IDevice const*)")
    r"|^\s*--- (?:[\w~]+::)*(?P<func__8>[A-Za-z_]\w*)\("
    # (TensorRT-LLM's own backtrace with its exceptions, numbered from 1, demangled: "3
    # 0x7cb3c5bae3ab tensorrt_llm::batch_manager::kv_cache_manager::BlockManager::allocatePools(
    # bool) + 635"; its namespaces and class are the frame's path)
    r"|^\s*\d+\s+0x[0-9a-fA-F]+\s+(?:void |virtual thunk to )?"
    r"(?P<path__9>(?:[\w~]+(?:<[^<>]*>)?::)*)(?P<func__9>[A-Za-z_]\w*)(?:<[^<>]*>)?\("
)
#: Where gdb says a frame's code is: its library ("from /x/libllama.so.0") or its source file
#: ("at ../sysdeps/wait4.c:30").
_GDB_WHERE = re.compile(r"\bfrom (?P<lib>\S+)$|\bat (?P<src>\S+?):\d+$")
#: The lines a debugger prints around a backtrace as it attaches ("[New LWP 1332389]", "[Thread
#: debugging using libthread_db enabled]", "Using host libthread_db library ...").
DEBUGGER_NOISE = re.compile(
    r"^\[(?:New (?:LWP|Thread) [^\]]*|Thread debugging using libthread_db enabled"
    r"|Inferior \d+ \(process \d+\) detached)\]\s*$|^Using host libthread_db library\b"
    # gdb's debuginfod prompt and its settings as it attaches (Fedora's, after ggml's abort:
    # "This GDB supports auto-downloading debuginfo from the following URLs:", the URLs, "Enable
    # debuginfod for this session? ...", "Function(s) ^std::... will be skipped when stepping.")
    r"|^This GDB supports auto-downloading debuginfo\b|^\s+<[^>\s]+>\s*$"
    r"|^Enable debuginfod for this session\?|^Debuginfod has been disabled\."
    r"|^To make this setting permanent, add 'set debuginfod enabled off'"
    r"|^Function\(s\) \S+ will be skipped when stepping\.$"
)

#: A lower-case letter followed by a capital: where a camelCase name joins its words.
CAMEL = re.compile(r"([a-z])([A-Z])")


def snake(name: str) -> str:
    """``name`` as Python would spell it: ``setDevice`` is ``set_device``, ``Decode`` ``decode``."""
    return CAMEL.sub(r"\1_\2", name).lower()


def native_frame(text: str) -> tuple[str, str] | None:
    """``(path, function)`` of a Go, JVM or .NET frame line, the function named as Python would
    name it (``Decode`` is ``decode``, ``LoadFromFile`` is ``load_from_file``), else ``None``."""
    m = GO_FRAME.match(text) or MANAGED_FRAME.match(text)
    if m is None:
        return None
    return m.group("path").rstrip("."), snake(m.group("func"))


#: TensorRT-LLM's methods whose frame in its own backtrace tells the stage: the KV cache pools
#: allocated as its executor starts. Its other names (``loadModel``, which sets up buffers and
#: the decoder too; ``LoraCache::loadWeights``, run per request) say less than they seem to.
_TRTLLM_NAMES = frozenset({"allocatePools"})


def debugger_frame(text: str) -> tuple[str, str] | None:
    """``(path, function)`` of a gdb or lldb backtrace's frame line (:data:`DEBUGGER_FRAME`; the
    path is the library or source file where the debugger names one), else ``None``."""
    m = DEBUGGER_FRAME.match(text)
    if m is None:
        return None
    found = convert_groups(m.groupdict())  # (a group's alternatives, "func__2", are one)
    if m.group("func"):  # gdb names the library or the source file at the line's end
        where = _GDB_WHERE.search(text.rstrip())
        found["path"] = "" if where is None else where.group("lib") or where.group("src")
    func, path = demangled(found.get("func") or ""), found.get("path", "")
    if m.group("func__9") and func not in _TRTLLM_NAMES:
        func = ""  # (C++ methods named like Python's stage functions do other work: loadModel)
    return path, snake(func)


#: A length-prefixed part of an Itanium C++ mangled name ("13llama_context").
_MANGLED_PART = re.compile(r"(\d+)")


def demangled(name: str) -> str:
    """The innermost name of a C++ name as the Itanium ABI mangles it (``_ZN13llama_context13
    graph_reserveEjj`` is ``graph_reserve``; a constructor, ``C2``, its class's), else ``name``."""
    if not name.startswith("_Z"):
        return name
    at, last = 3 if name.startswith("_ZN") else 2, name
    while (m := _MANGLED_PART.match(name, at)) is not None:
        size = int(m.group(1))
        last, at = name[m.end() : m.end() + size], m.end() + size
    return last
