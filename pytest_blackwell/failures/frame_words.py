"""What the names of a traceback's frames say in words, past the engine tables of :mod:`.frames`.

A program of its own calling a model names its functions for the work they do
(``generate_segments``, ``training_step``, Keras' ``fit``); an application's dispatcher names the
request it routes; a check that raises for one reason names the category; a thread dump whose
first thread waits is a hang. Each is weaker evidence than an engine function of the frame
tables (:func:`.frames.frame_stage`), and is read only when those say nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pytest_blackwell.failures.frame_names import CATEGORY_FRAMES, DISPATCHER_PATHS, DISPATCHERS
from pytest_blackwell.failures.frames import STDLIB, Frame, frame_segments
from pytest_blackwell.failures.native_stacks import CAMEL, snake


def worded_frame(lines: Sequence[str]) -> tuple[str, str] | None:
    """``("execute", evidence)`` when the name of a frame among ``lines`` says the model runs on
    work (:data:`_SERVING_WORDS`), ``graph_capture`` when it is named for capturing CUDA graphs
    (:data:`_CAPTURE_WORDS`), ``loading`` when it loads a model (:data:`_LOAD_WORDS`) and
    ``compile`` when it compiles or lowers a program (:data:`_LOWER_WORDS`); weaker evidence
    than any engine function, read innermost first. (Validation is no such word: a
    configuration, a repository id or a response object are all validated, at start-up, while
    loading and while serving; a unit test's ``test_decode`` exercises a kernel, it serves
    nothing; nor does a command-line entry tell its stage.)"""
    for segment in frame_segments(lines):
        for frame in reversed(segment):
            inner = frame is segment[-1]
            if frame.func.startswith("test_") or _COMMAND.search(frame.path):
                continue
            if STDLIB.search(frame.path):  # json's "decode", not a model's
                continue
            # the function its source line calls is deeper still (a remote call or a decorator's
            # wrapper may be the only frame printed for it); not what a program's entry calls,
            # its whole job ("main" calling "train_using_gin" loads the model too)
            entry = frame.func in _ENTRIES and not inner
            calls = "" if entry or frame.calls.startswith("test_") else frame.calls
            for name, why in ((calls, f"call {calls}"), (frame.func, f"frame {frame.func}")):
                if name in _SERVER_ENTRIES:
                    continue
                # a function's camelCase name read by its words ("trainBatch"), not a class's
                # ("InferenceSession" constructed is a session being created)
                func = snake(name) if name[:1].islower() and CAMEL.search(name) else name
                if _CAPTURE_WORDS.search(func):  # "_capture_generation_cuda_graphs"
                    return "graph_capture", why
                if _LOAD_WORDS.search(func) or (func == "load" and _MODEL_FILE.search(frame.path)):
                    return "loading", why
                if _LOWER_WORDS.search(func) and not _NOT_CODE.search(func):
                    return "compile", why
                if (
                    _SERVING_WORDS.search(func)
                    and not _CREATES.match(func)
                    and not _DATA_WORDS.search(func)
                ):
                    return "execute", why
    return None


def dispatched(lines: Sequence[str]) -> tuple[str, str] | None:
    """``(stage, evidence)`` from an application's dispatcher among the frames of ``lines``
    (:data:`~pytest_blackwell.failures.frame_names.DISPATCHERS`, or its file:
    :data:`~pytest_blackwell.failures.frame_names.DISPATCHER_PATHS`): the weakest frame evidence."""
    segments = frame_segments(lines)  # (parsed once for the names and the paths)
    told = _first_in(DISPATCHERS, segments)
    for segment in [] if told else segments:
        for frame in reversed(segment):
            for path, stage in DISPATCHER_PATHS:
                if frame.path.endswith(path):
                    return stage, f"frame {frame.func} in {path}"
    return told


def _first_in(table: dict[str, str], segments: list[list[Frame]]) -> tuple[str, str] | None:
    """``(table's value, evidence)`` for the first frame among ``segments`` (tracebacks, see
    :func:`.frames.frame_segments`) that ``table`` names, innermost first in each traceback,
    else ``None``."""
    for segment in segments:
        for frame in reversed(segment):
            value = table.get(frame.func)
            if value is not None:
                return value, f"frame {frame.func}"
    return None


#: A program's command-line entry (``vllm/scripts.py``'s ``serve``, ``sglang/cli/serve.py``,
#: a ``__main__``): it runs the whole life of a server, so its words tell no stage.
_COMMAND = re.compile(r"(?:^|/)(?:cli|commands?)/|(?:^|/)(?:scripts|__main__)\.py$")
#: A program's entry functions: what they call is the program's whole job.
_ENTRIES = frozenset(["<module>", "main", "_main", "run_main", "_run_main"])
#: A server's entry (``serve``; TGI's ``serve_inner``, LMDeploy's ``serve``): it sets the engine
#: up and then serves, so its name tells no stage; what it calls still does.
_SERVER_ENTRIES = frozenset(["serve", "serve_inner"])
#: A function named for capturing CUDA graphs, whatever else its name says
#: (``_capture_generation_cuda_graphs``): ``graph_capture`` before any word below.
_CAPTURE_WORDS = re.compile(r"(?i)captur\w*?_(?:\w+_)?(?:cuda_?)?graphs?\b|graphs?_captur")
#: The words of a function that loads a model, its weights or a checkpoint (TabbyAPI's
#: ``load_model_gen``, ``stream_model_load``); a model class's own ``load``, in a model's file.
_LOAD_WORDS = re.compile(
    r"(?i)(?:^|_)load(?:ing)?_(?:\w+_)?(?:model|weights|checkpoint|ckpt)s?(?:_|$)"
    r"|(?:^|_)(?:model|weights|checkpoint)s?_load(?:ing|er)?(?:_|$)"
)
#: (or TensorFlow's SavedModel reader, whose module also runs the loaded model's calls)
_MODEL_FILE = re.compile(r"(?:^|/)(?:models?|saved_model)(?:/|\.py$)")
#: The words of a function that compiles, or lowers a program to a compiler's IR (SGLang's
#: ``_compile_deep_gemm_one_type_all``, JAX's ``lower_jaxpr_to_triton_ir``, a lowering rule's
#: ``_reduce_lowering``): compiling.
_LOWER_WORDS = re.compile(
    r"(?i)(?:^|_)(?:lowering|compile|compiling)(?:_|$)"
    r"|^_?lower_(?:jaxpr|to|module|fun|computation|sharding|mlir|hlo)"
)
#: What is compiled that is no program for the device: a structured-output grammar or schema,
#: a pattern (xgrammar's ``compile_json_schema``).
_NOT_CODE = re.compile(r"(?i)json|schema|grammar|regex|pattern|template")
#: The words of a function that runs the model on work: generating, sampling, decoding, serving
#: a completion, a training step or a model being fitted (``stream_generate_chat_completion``,
#: ``_random_sample``, ``generate_sequences``, ``training_step``, Keras' ``fit``, a speech
#: synthesiser's ``tts``). Read only when no engine function of the table names the stage: a
#: program of its own calling a model is running it, unless the message or the lines before the
#: error say otherwise.
_SERVING_WORDS = re.compile(
    r"(?i)(?:^|_)(?:generate|generation|sample|sampling|sampler|decode|decoding|prefill"
    r"|completions?|chat|infer|inference|predict|serve|serving|train|training|requests?"
    r"|translate|translation|transcribe|transcription|beam|fit|tts|synthesi[sz]e|synthesis"
    # (an image or video model's work: "_upscale_frames", "inpaint", "denoise_latents")
    r"|upscale|upscaling|inpaint|inpainting|denoise|denoising|colori[sz]e)(?:_|$)"
)

#: A function named for creating what serves, not for serving (ONNX Runtime's
#: ``_create_inference_session`` reads the model; ``init_inference_engine``, ``build_sampler``;
#: HQQ's ``prepare_for_inference`` patching the layers of a model not yet run).
_CREATES = re.compile(
    r"(?i)_*(?:create|init|initiali[sz]e|build|make|setup|load|construct|prepare_for"
    # (nor for checking what it will be given: CatBoost's "_check_train_params"; nor for
    # deducing a value: KServe's "infer_vllm_supported_from_model_architecture")
    r"|check|validate|verify"
    r"|infer_(?:\w+_)?(?:dtype|type|config|arch\w*|supported|shape|device|format|schema|version"
    r"|size|kind|task|framework|library)s?_from)_"
)

#: A function named for the data a run is given, not for running on it (Megatron's
#: ``train_valid_test_datasets_provider``, Lightning's ``train_dataloader``): data being prepared.
_DATA_WORDS = re.compile(r"(?i)(?:^|_)(?:datasets?|data_?loaders?|data_?iterators?)(?:_|$)")

#: faulthandler's stack of one thread, printed on request (``faulthandler.dump_traceback``, a
#: watchdog's ``dump_traceback_later``, a signal handler) or after a fatal error.
THREAD_DUMP = re.compile(r"^(?:Current )?[Tt]hread 0x[0-9a-fA-F]+ \(most recent call first\):")
#: Innermost frames of a thread blocked waiting (threading, queues, sockets, sleeps).
_WAITS = frozenset(
    [
        "wait",
        "acquire",
        "_wait_for_tstate_lock",
        "join",
        "sleep",
        "select",
        "poll",
        "get",
        "recv",
        "recv_into",
        "recv_pyobj",
        "recv_multipart",
    ]
)


def waiting_dump(lines: Sequence[str]) -> str | None:
    """What a faulthandler thread dump shows, when it has no fatal error and its first thread is
    blocked waiting (a process dumped while stuck: a hang), else ``None``."""
    if not any(THREAD_DUMP.match(t) for t in lines) or any("Fatal Python" in t for t in lines):
        return None
    segments = frame_segments(lines)
    if segments and segments[0][-1].func in _WAITS:
        return f"a thread dump of a waiting thread ({segments[0][-1].func})"
    return None


def frame_category(lines: Sequence[str], message: str = "") -> tuple[str, str] | None:
    """``(category, evidence)`` from a frame that raises for one reason only, else ``None``.

    Triton's ``_init_handles`` checks the shared memory, then loads the binary: a driver's error
    that ``message`` names, other than the ``invalid argument`` of a launch over the limit
    (``Triton Error [ZE]: 0x70000004``, ``device kernel image is invalid``), is the load's."""
    found = _first_in(CATEGORY_FRAMES, frame_segments(lines))
    if found is not None and found[1] == "frame _init_handles" and _LOAD_ERROR.search(message):
        return None
    return found


#: A driver's own error as Triton relays it, not the one a launch over the shared memory gets.
_LOAD_ERROR = re.compile(
    r"Triton Error \[\w+\]:\s+(?!\s|(?:Code: \d+, Mess+age: )?invalid argument)"
)


#: The sources of engines' KV cache managers (SGLang's ``mem_cache`` package, vLLM's block pool
#: and KV cache manager): a shortage they raise is the cache's, not the device's.
_KV_POOL_SOURCE = re.compile(r"/mem_cache/|/kv_cache_manager\.py$|/block_pool\.py$")


def kv_pool_raiser(lines: Sequence[str]) -> str | None:
    """The KV cache manager's source that raised the error of ``lines`` (its innermost frame),
    else ``None``."""
    segments = frame_segments(lines)
    found = _KV_POOL_SOURCE.search(segments[-1][-1].path) if segments and segments[-1] else None
    return None if found is None else found[0].strip("/")
