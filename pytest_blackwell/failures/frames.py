"""What the frames of a traceback tell: the stage an error happened in, and sometimes its category.

Pasted excerpts rarely keep a stage banner, but their tracebacks name the engine function that
was running. The tables of :mod:`.frame_names` map function names from the engines' own sources
(vLLM V0 and V1, SGLang, TensorRT-LLM) and library paths (Dynamo/Inductor, the model loaders,
CUDA graphs) to a stage. ``decisive`` names tell the stage wherever they sit; ``contextual``
names (a model step, the sampler's dummy run) only count when no decisive name is on the stack,
because the same function runs inside memory profiling, warm-up and serving alike. Within a
traceback the innermost decisive frame wins; of chained tracebacks, the first one with a
telling frame (the cause, printed first) wins.

A few frames also tell the category: a check that raises for one reason only (vLLM's KV-cache
memory check, Triton's shared-memory resource check). They decide when the message itself is
unknown, e.g. cut off by a paste (:mod:`.frame_words` reads them, and the words of frame names).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from pytest_blackwell.failures.frame_names import (
    ARGS_FUNC,
    BUILDS,
    CACHE_MODULE,
    CATEGORY_FRAMES,
    CHECKS,
    COMMS_SETUP,
    COMMUNICATOR_CLASS,
    CONTEXTUAL,
    DECISIVE,
    PATHS,
    SETTINGS_MODULE,
)
from pytest_blackwell.failures.native_stacks import (
    CAMEL,
    GO_GOROUTINE,
    debugger_frame,
    native_frame,
    snake,
)

#: A frame line whose start a paste cut, from inside its path on ('x/args.py", line 5').
CUT_HEAD = r'[^\s"]+\.py", line \d+'
# A paste may cut the function's name (the path still tells) or the start; faulthandler: no comma.
_FRAME = re.compile(
    r'^\s*(?:File "|(?=' + CUT_HEAD + r'))(?P<path>[^"]*)", line \d+(?:,? in (?P<func>[\w<>.]+))?'
)
# IPython's and Jupyter's frames: "~/lib/subprocess.py in run(input)"; IPython 8's "File
# ~/lib/x.py:64, in C.f(self, n)", in JupyterLab with the path as a link ("File [~/lib/x.py:64](
# http://host/lab/tree/x.py#line=63), in"), Colab's older link without the line ("[/usr/lib/x.py](
# https://localhost:8080/#) in"); plain mode's indented, without arguments ("  File C:\x.py:3 in f")
IPYTHON_FRAME = re.compile(
    r"^(?:File )?\[?(?P<path>[^\s\[\]]+\.py)(?::\d+)?(?:\]\([^)\s]*\))?,? in (?P<func>[\w<>.]+)\("
    r"|^\s*File (?P<plain>[^\s\[\]\"]+\.py):\d+ in (?P<name>[\w<>.]+)\s*$"
    # (and Rich's frame line when a paste lost the box drawn around it: "fastchat/serve/
    # inference.py:132 in load_model")
    r"|^\s*(?P<rich>[^\s\[\]\"│]+\.py):\d+ in (?P<rich_name>[A-Za-z_<][\w<>.]*)\s*$"
)
# A frame line cut inside its path by a paste: the path so far, no function.
_CUT_FRAME = re.compile(r'^\s*File "(?P<path>[^"]+)$')
# A frame line a paste broke after its "in": the function's name alone on the next line.
_NAME_ALONE = re.compile(r"^\s*(?P<func>[A-Za-z_<][\w<>.]*)\s*$")
# The function a frame's source line calls ("    self.runner.profile_run()"): the next frame's.
_CALL = re.compile(r"(?:^|[\s.=(\[,])(?P<func>[A-Za-z_]\w*)\s*\(")
# A function's result called on ("get_attn_backend().forward("): the frame below is either's.
_CHAINED = re.compile(r"\((?:[^()]|\([^()]*\))*\)\s*\.\s*[A-Za-z_]\w*\s*\(")
_NOT_CALLEES = frozenset(["if", "for", "while", "return", "with", "not", "and", "or", "super",
                          "len", "int", "str", "list", "dict", "tuple", "set", "isinstance",
                          "getattr", "print", "cast", "type"])  # fmt: skip
#: The head of a Python traceback's frame line, without its indentation (``File "x.py", line 3``).
FRAME_HEAD = r'File "[^"]*", line \d+'
# A traceback a paste flattened onto one line: each frame starts at a "File" after a space.
_FLAT_FRAME = re.compile(r"(?<=\s)(?=" + FRAME_HEAD + ")")
# py-spy's dump: "    draft (eagle_worker.py:397)", innermost first under "Thread N (active): ..."
_PYSPY_FRAME = re.compile(r"^\s+(?P<func>[\w<>.]+) \((?P<path>[^()\s]+\.py):\d+\)$")
_PYSPY_THREAD = re.compile(r'^Thread (?:0x[0-9A-Fa-f]+|\d+) \((?:active|idle)[^)]*\)(?:: "|$)')
# Wrappers that name the method a worker was running: "while processing method init_device".
# TGI's launcher: "Method Warmup encountered an error" (the gRPC method, capitalised).
# asyncio's "Task exception was never retrieved" names the coroutine that raised:
# "future: <Task finished name='Task-5' coro=<RouterManager.loop_for_fwd() done, ...>".
_METHOD = re.compile(
    # (not prose: "an invalid command passed by the calling application")
    r"(?<!the )(?:processing|executing|calling|call to) (?:method )?'?(?P<func>[A-Za-z_]\w+)'? ?"
    r"|\bMethod (?P<rpc>[A-Z]\w+) encountered an error"
    r"|\bcoro=<(?:\w+\.)*(?P<coro>\w+)\(\)"
    r"|\b(?:collective_rpc|_run_workers)\(\s*[\"'](?P<remote>\w+)[\"']"
    # ggml's CUDA errors name the function they were raised in: "in function X at file:line"
    r"|\bin function (?P<native>[A-Za-z_]\w+) at \S+:\d+"
    # (and OpenCV's: "(-217:Gpu API call) out of memory in function 'setDevice'", OpenCV 2's
    # "(...) in setDevice, file x.hpp, line 84"), read by the words of its camel case
    r"|\(-\d+(?::[^)]{1,40})?\) .{0,300}?\bin function '(?:\w+::)*(?P<cv>[A-Za-z_]\w+)'"
    r"|\) in (?P<cv2>[A-Za-z_]\w+), file [^,]+, line \d+"
)


#: Python's report of a thread's uncaught exception, naming the function the thread ran
#: ("Exception in thread Thread-2 (load_model):", Python 3.10 and later)
_THREAD_TARGET = re.compile(r"^Exception in thread [^()]*\((?P<func>[A-Za-z_]\w*)\):\s*$")


class Frame(NamedTuple):
    path: str
    func: str
    #: for a constructor (``__init__``), the class the frame above constructs, when its source
    #: line shows the call (``model = WhisperModel(...)``)
    constructs: str = ""
    #: the function the frame's source line calls (``self.actor_rollout_wg.generate_sequences(``)
    calls: str = ""


def _thread_target_only(segment: list[Frame]) -> bool:
    """Whether ``segment`` holds only a thread's target (:data:`_THREAD_TARGET`), no frame yet."""
    return len(segment) == 1 and not segment[0].path


#: The shape of an exception line (``ValueError: ...``, ``torch.OutOfMemoryError``, ``KeyError``).
_EXCEPTION_SHAPE = re.compile(r"^(?:[\w.]+\.)?[A-Z]\w*(?::|$)")


def _at_margin(text: str) -> bool:
    """Whether ``text`` may be a frame's source line that lost its indentation: words at the
    margin, not an exception's line."""
    return bool(text.strip()) and not text.startswith(" ") and _EXCEPTION_SHAPE.match(text) is None


def is_flat_source(text: str, before: str) -> bool:
    """Whether ``text`` is the source line of the frame line ``before`` in a paste that lost the
    traceback's indentation (``File "a.py", line 3, in f`` then ``x = f()`` at the margin), or
    halved it (`` File "a.py", ...`` then ``  x = f()``)."""
    if before.startswith('File "'):
        return _at_margin(text)
    return before.startswith(' File "') and text[:2] == "  " and _at_margin(text[2:])


def parse_frame(text: str) -> Frame | None:
    """``File "x.py", line 3, in f`` -> ``Frame("x.py", "f")``; ``None`` for other lines.

    Also py-spy's ``f (x.py:3)``, a frame line a paste cut inside its path (no function), and a
    wrapper naming the method a worker ran.
    """
    m = (
        _FRAME.match(text)
        or _PYSPY_FRAME.match(text)
        or IPYTHON_FRAME.match(text)
        or _CUT_FRAME.match(text)
    )
    if m is None:
        m = _METHOD.search(text)
        return None if m is None else _method_frame(m)
    groups = m.groupdict()
    func = next(filter(None, (groups.get(k) for k in ("func", "name", "rich_name"))), "")
    path = next(filter(None, (groups.get(k) for k in ("path", "plain", "rich"))), "")
    return Frame(path.replace("\\", "/"), func.rsplit(".", 1)[-1])


def _method_frame(m: re.Match[str]) -> Frame:
    """The frame a wrapper's words name (a match of :data:`_METHOD`)."""
    named = m.group("func") or m.group("coro") or m.group("remote") or m.group("native")
    if not named and (opencv := m.group("cv") or m.group("cv2")):
        named = snake(opencv)  # ("set_device")
    return Frame("", named or m.group("rpc").lower())


def _known(func: str) -> bool:
    return (
        func in DECISIVE
        or func in CONTEXTUAL
        or func in CATEGORY_FRAMES
        or _WEIGHTS_FUNC.search(func) is not None
    )


def _callee(source: str) -> str:
    """The function a frame's source line calls, or ``""`` (also for :data:`_CHAINED` calls)."""
    for m in _CALL.finditer(source):
        if m.group("func") not in _NOT_CALLEES:
            func = m.group("func")  # (a class built and then called on is what runs first)
            return "" if _CHAINED.match(source, m.end() - 1) and func.islower() else func
    return ""


def _unflattened(lines: Iterable[str]) -> list[str]:
    """``lines`` with a traceback that a paste flattened onto one line split into one line per
    frame (each frame's source follows its function name on the same line)."""
    out: list[str] = []
    for text in lines:
        cuts = [m.start() for m in _FLAT_FRAME.finditer(text)] if 'File "' in text else []
        cuts = [at for at in cuts if text[:at].strip()]  # not a frame line's own indentation
        if not cuts:
            out.append(text)
            continue
        out.extend(
            text[start:end] for start, end in zip([0, *cuts], [*cuts, len(text)], strict=True)
        )
    return out


def frame_segments(lines: Iterable[str]) -> list[list[Frame]]:
    """The frames of each traceback in ``lines`` (a new one starts at every header).

    A frame whose line a paste cut (the function name lost or cut short) is named by the call
    on the source line of the frame before it; a known engine function called on the source
    line of the innermost frame is on the stack too (native code, or the frame that raised).
    """
    segments: list[list[Frame]] = [[]]
    newest_first = False  # faulthandler prints "(most recent call first)": innermost on top
    callee = ""  # what the source line of the last frame calls
    expect_source = False
    lines = _unflattened(lines)
    in_go = False  # inside a goroutine's stack, up to the blank line after it
    native = False  # inside a JVM or .NET stack, up to a line that is not its frame
    for i, text in enumerate(lines):
        if in_go:
            go = native_frame(text)
            if go is not None:
                segments[-1].insert(0, Frame(*go))
            in_go = bool(text.strip())
            continue
        if GO_GOROUTINE.match(text):
            if segments[-1]:
                segments.append([])
            in_go, callee, expect_source = True, "", False
            continue
        managed = native_frame(text) if text.lstrip().startswith("at ") else debugger_frame(text)
        if managed is not None or (native and not text.strip()):
            if managed is not None and not native and segments[-1]:
                segments.append([])  # (pastes double a stack's line breaks: blanks go on)
            if managed is not None:
                segments[-1].insert(0, Frame(*managed))
            native = True
            continue
        native = False
        target = _THREAD_TARGET.match(text)
        if target is not None:  # the thread's function is the outermost frame of what follows
            _called(segments[-1], callee)
            segments.append([Frame("", target.group("func"))])
            callee, expect_source = "", False
            continue
        if "(most recent call " in text or _PYSPY_THREAD.match(text):
            _called(segments[-1], callee)
            if segments[-1] and not _thread_target_only(segments[-1]):
                segments.append([])  # (a thread's target heads the traceback below it)
            newest_first = "most recent call last" not in text
            callee, expect_source = "", False
            wrapper = _METHOD.search(text.partition("Traceback (")[0])
            if wrapper is not None:  # "... while processing method init_device: ..., Traceback"
                segments[-1].append(_method_frame(wrapper))
            continue
        frame = parse_frame(text)
        if frame is not None and not frame.func and text.rstrip().endswith(" in"):
            alone = _NAME_ALONE.match(lines[i + 1]) if i + 1 < len(lines) else None
            if alone is not None:  # "line 572, in" / "stream_generate_chat_completion"
                frame = Frame(frame.path, alone.group("func").rsplit(".", 1)[-1])
        if frame is None:
            if expect_source and not text.strip():
                continue  # (a paste that doubled the line breaks: the source line comes next)
            if (
                expect_source
                and (text.startswith("    ") or _at_margin(text))
                and text.strip()[:1] not in ("^", "~")
            ):
                callee = _callee(text)
                segments[-1][-1] = segments[-1][-1]._replace(calls=callee)
            expect_source = False
            continue
        if (
            not newest_first
            and callee.startswith(frame.func)
            and not _known(frame.func)
            and _known(callee)
        ):
            frame = Frame(frame.path, callee)  # "in determine_avail" cut: the call above says
        elif not newest_first and frame.func == "__init__" and callee[:1].isupper():
            frame = Frame(frame.path, frame.func, callee)
        elif not newest_first and frame.func == "__init__" and _known(callee):
            frame = Frame(frame.path, callee)  # a class called by a known name: executor_class()
        callee, expect_source = "", not newest_first
        if newest_first:
            segments[-1].insert(0, frame)
        else:
            segments[-1].append(frame)
    _called(segments[-1], callee)
    return [s for s in segments if s]


def _called(segment: list[Frame], callee: str) -> None:
    """Add the known function the innermost frame's source line calls to ``segment``, or the
    constructor of a model or communicator class it builds (a traceback cut right there)."""
    if not segment or STDLIB.search(segment[-1].path):
        return  # (none; or a call the standard library makes: asyncio closing a socket)
    if _known(callee) and segment[-1].func != callee:
        segment.append(Frame("", callee))
    elif _MODEL_CLASS.search(callee) or COMMUNICATOR_CLASS.search(callee):
        segment.append(Frame("", "__init__", callee))


#: The data-parallel wrappers of torch, whose constructors run the process group's first
#: collectives (DDP verifying and broadcasting the parameters, FSDP syncing module states), and
#: FSDP's flat parameters, which only its constructor builds.
_DATA_PARALLEL = (
    "torch/nn/parallel/distributed.py",
    "fsdp/fully_sharded_data_parallel.py",
    "fsdp/_flat_param.py",
)

#: Model code whose constructors run while the model is built, i.e. while it is loaded.
MODEL_PATHS = (
    "model_executor/models/",
    "model_executor/layers/",
    "srt/models/",
    "srt/layers/",
    "_torch/models/",
    "custom_modeling/",
    "/models/",  # any library's package of model classes (transformers, diffusers, ...)
    "torch/nn/modules/",  # torch's layers allocating their parameters as they are built
    # faster-whisper's WhisperModel, defined in its transcribe module, reads the CTranslate2 model
    # as it is built (frozen apps print its frames without the source line that names it)
    "faster_whisper/transcribe.py",
    "llama_cpp/llama.py",  # llama-cpp-python's Llama, which loads the GGUF file as it is built
)


#: Engine functions named for building or reading the weights ("_create_weight",
#: "create_shared_weights", "load_lora_weights"): whatever the engine, they run while loading.
_WEIGHTS_FUNC = re.compile(
    r"^_?(?:load|create|init|read|prepare|alloc\w*)_(?:\w+_)?weights?$"
    # a function named for loading a model or a checkpoint ("load_target_model",
    # "load_pretrained_checkpoint"), as "load_model" itself
    r"|^_?load_(?:\w+_)?(?:model|checkpoint|ckpt)s?$"
    # (or for restoring what a checkpoint holds: NeMo's "_try_restore_tokenizer")
    r"|^_?(?:try_)?restore_(?:\w+_)?(?:model|checkpoint|ckpt|tokenizer|weights)s?$"
    r"|^\w*(?:load_model|model_load)_from_file$"  # llama.cpp's C API, wrapped (LLamaSharp)
    # a model built from its weight files (TensorRT-LLM's "from_hugging_face", diffusers'
    # "from_single_file", "from_checkpoint"; not "from_pretrained", which reads configurations
    # and tokenizers too: see frame_names.CONTEXTUAL)
    r"|^from_(?:hugging_?face|single_file|\w*checkpoint|\w*ckpt)$"
    # a model's weights moved onto the GPU by a model cache (InvokeAI's "_move_model_to_vram",
    # "full_load_to_vram", "partial_load_to_vram")
    r"|^_?(?:move|load|copy)_(?:\w+_)?models?_to_(?:vram|gpu|device|cuda)$"
    r"|^_?(?:\w+_)?load_to_(?:vram|gpu|device|cuda)$"
    # an RL trainer pushing new weights into its rollout engine (SGLang's
    # "update_weights_from_tensor", "update_weights_via_ipc_zmq_async")
    r"|^_?update_weights?_(?:from|via)_\w+$"
)


#: Classes whose construction builds a model and reads its weights (``WhisperModel``,
#: ``LivePortraitPipeline``, ``QwenImageTransformer2DModel``, ``LlamaForCausalLM``); not an
#: engine or ``LLM``, whose constructor runs every stage of the start.
_MODEL_CLASS = re.compile(
    # (not a trainer named for the model it trains: "TrainTransformer")
    r"^(?!Train(?:er|ing)?[A-Z])[A-Z]\w*(?:Model|Pipeline|Transformer|ForCausalLM"
    r"|ForConditionalGeneration)$"
)


#: Python's standard library (not the packages installed beside it), on POSIX
#: (``lib/python3.12/json/decoder.py``) and Windows (``C:/Python312/Lib/json/decoder.py``): its
#: ``decode`` (json, codecs), ``step`` or ``run`` name no engine's work.
STDLIB = re.compile(
    r"/lib/python3\.\d+/(?!site-packages/|dist-packages/)|(?:^|/)Lib/(?!site-packages/)"
    # (a conda environment on Windows keeps it in a lower-case "lib": "env/lib/asyncio/")
    r"|/lib/(?:asyncio|concurrent|multiprocessing|json|http|urllib|logging|importlib|email)/"
    r"|/lib/(?:threading|socket|subprocess|selectors|socketserver|runpy|queue)\.py$"
    # nor do the HTTP clients' (requests' "generate" streams a response body)
    r"|/(?:site|dist)-packages/(?:requests|urllib3|httpx|httpcore|aiohttp)/"
)


def _lookup(table: dict[str, str], func: str) -> str | None:
    """``table``'s stage for ``func``, or for the public name a private helper is named after
    (DeepGEMM's ``_warmup`` under its ``warmup``)."""
    stage = table.get(func)
    if stage is None and func.startswith("_") and not func.endswith("__"):
        stage = table.get(func.lstrip("_"))
    if stage is None and CAMEL.search(func):  # cupy's "setDevice" is "set_device"
        stage = table.get(snake(func))
    return stage


def _named(frame: Frame) -> str | None:
    """The stage an engine function tells by its name (a model constructor: loading)."""
    if frame.path.endswith(_REQUEST_MODULES):
        return "execute"  # (its ``_verify_args`` is a request's, not the engine's arguments)
    stage = _lookup(DECISIVE, frame.func)
    if stage is None and _WEIGHTS_FUNC.search(frame.func):
        stage = "loading"
    if stage is None and BUILDS.match(frame.func) and CACHE_MODULE.search(frame.path):
        stage = "kv_alloc"
    if stage is None and frame.func == "__init__" and frame.path.endswith(_DATA_PARALLEL):
        stage = "startup"  # a data-parallel wrapper being built: distributed set-up
    if stage is None and ARGS_FUNC.match(frame.func):
        stage = "startup"  # a function named for reading the command line's arguments
    if stage is None and frame.func == "__post_init__" and SETTINGS_MODULE.search(frame.path):
        stage = "startup"  # arguments or settings running their checks as they are built
    if stage is None and CHECKS.match(frame.func) and SETTINGS_MODULE.search(frame.path):
        stage = "startup"  # a settings module checking them (vLLM's _get_and_verify_max_len)
    if stage is None and frame.func == "__init__" and any(p in frame.path for p in MODEL_PATHS):
        stage = "loading"
    if stage is None and _MODEL_CLASS.search(frame.constructs):
        stage = "loading"  # a model or pipeline being built: its weights are being loaded
    if stage is None and COMMUNICATOR_CLASS.search(frame.constructs):
        stage = "startup"  # a communicator or process group being set up
    if stage is None and COMMS_SETUP.search(frame.func):
        stage = "startup"  # a function named for setting the collectives up (raft's "init_nccl")
    return stage


#: Modules whose every function handles a request: the sampling parameters a request gives are
#: built and checked there (vLLM's and SGLang's ``sampling_params.py``).
_REQUEST_MODULES = ("/sampling_params.py",)

#: Dynamo's wrapper around every call it guards or leaves out (``torch.manual_seed`` under
#: ``torch._disable_dynamo``; a compiled module called again): a call passing through, not a
#: compile (which shows dynamo's own frames, ``convert_frame``, ``compile_fx``, ...).
_PASS_THROUGH = ("torch/_dynamo/eval_frame.py", "_fn")
#: Triton's autotuner compiling and timing each config (its module's ``run`` only launches).
_AUTOTUNING = ("triton/runtime/autotuner.py", "_bench")
#: Where pip runs a package's ``setup.py``, whose module-level code is the build itself.
_SETUP_SCRIPTS = ("<pip-setuptools-caller>", "/pip-req-build-", "/pip-install-")


def _by_path(frame: Frame) -> str | None:
    if frame.path.endswith(_PASS_THROUGH[0]) and frame.func == _PASS_THROUGH[1]:
        return None
    if frame.path.endswith(_AUTOTUNING[0]) and frame.func == _AUTOTUNING[1]:
        return "compile"
    if frame.func == "<module>" and not any(f in frame.path for f in _SETUP_SCRIPTS):
        return None  # a library's module being imported runs none of its work yet
    for fragment, path_stage in PATHS:
        if fragment in frame.path:
            return path_stage
    return None


#: Engine stages that run JIT compiles of their own (a Triton kernel first launched while CUDA
#: graphs are captured stays in ``graph_capture``); a compile inside the profiling run is still
#: ``compile`` (vLLM compiles there).
_AROUND_COMPILE = ("graph_capture", "warmup", "execute")


def frame_stage(lines: Sequence[str]) -> tuple[str, str] | None:
    """``(stage, evidence)`` from the frames among ``lines``, or ``None`` when none tells.

    A library path (a JIT compiler, CUDA graphs) names the stage of the innermost frames, but an
    engine function of a stage that compiles on the fly (SGLang's ``init_cuda_graphs`` around a
    Triton compile) anywhere in the chain says which part of the engine's life it belonged to.
    """
    # a wrapper naming the method a worker ran ("Method Warmup encountered an error") says less
    # than a traceback's own frames: it is read after them
    segments = sorted(frame_segments(lines), key=lambda seg: all(not f.path for f in seg))
    named = [(_named(f), f.func) for seg in segments for f in reversed(seg)]
    named_found = [(stage, func) for stage, func in named if stage is not None]
    for segment in segments:
        for frame in reversed(segment):
            stage = _named(frame)
            if stage is not None:
                return stage, f"frame {frame.func}"
            stage = _by_path(frame)
            if stage is not None:
                later = [(s, f) for s, f in named_found if s in _AROUND_COMPILE]
                if later:
                    return later[0][0], f"frame {later[0][1]}"
                # (a frame line cut before its function names its file instead)
                return stage, f"frame {frame.func or frame.path.rsplit('/', 1)[-1]}"
    for segment in segments:
        for frame in reversed(segment):
            stage = None if STDLIB.search(frame.path) else _lookup(CONTEXTUAL, frame.func)
            if stage is not None:
                return stage, f"frame {frame.func}"
    return None


def decisive(told: tuple[str, str]) -> bool:
    """Whether ``told`` (a stage and its evidence, from :func:`frame_stage`) comes from a decisive
    engine function, not a library path or a contextual name."""
    stage, why = told
    return _lookup(DECISIVE, why.removeprefix("frame ")) == stage
