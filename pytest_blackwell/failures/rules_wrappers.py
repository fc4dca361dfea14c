"""The wrappers of the rule table: lines that only point at an earlier cause, never a cause.

A launcher's report that its child failed, a worker's "Error executing method", an exit code, a
process pool that broke: each says where to look, not what went wrong. They come after the relays
and before the catch-all exception line (:data:`pytest_blackwell.failures.rules.DEFAULT_RULES`).
"""

from __future__ import annotations

from pytest_blackwell.failures.rule import COMPILER_LAUNCH, PINNED_POOL, QUIET, Rule, rule
from pytest_blackwell.failures.rules_late import (
    EXIT_STATUS,
    PADDLE_CAPABILITY_WARNINGS,
    TORCH_CAPABILITY_WARNINGS,
)

# The table is kept in its compact hand layout: one rule per short block reads like data.
# fmt: off
#: Wrappers, tried after every cause and relay.
WRAPPER_RULES: tuple[Rule, ...] = (
    # --- wrappers: never a cause ------------------------------------------------------------------
    rule("capture_failed", "unknown",
       r"(?i)(?:capture cuda ?graph|cuda ?graph capture|capturing cuda ?graphs?) failed",
       wrapper=True, stage_hint="graph_capture"),
    # vLLM's memory profile leaving a negative budget for the KV cache: the cache cannot fit. It
    # is logged at INFO before the check that raises, which replaces it when it is there: it
    # counts like a wrapper, when the excerpt has no error that says more
    # (older releases: "the rest of the memory reserved for KV Cache is -1.05GiB")
    rule("negative_kv_budget", "kv_cache_oom",
       r"Available KV cache memory: -\d|reserved for KV Cache is -\d", stage_hint="kv_alloc",
       wrapper=True, keywords=("Available KV cache memory: -", "reserved for KV Cache is -")),
    rule("engine_init_failed", "engine_died",
       r"(?:Engine core initialization failed|EngineCore failed to start|WorkerProc failed to "
       r"start|WorkerProc initialization failed|Engine process failed to start"
       r"|Frontend process failed during engine core "
       r"initialization"
       # the process that serves the model never came up: Ollama's runner, a TGI shard
       r"|failed to start a llama runner|\bShard \d+ failed to start|\bShardCannotStart\b"
       # a tool that runs vLLM as its server (InstructLab): the server never came up; a client
       # that launched its inference server and waited for it in vain (AReaL: "server launch
       # failed")
       r"|\bvLLM (?:server )?failed to start\b|\b[Ss]erver (?:launch|start(?:up)?) failed\b)"
       r"(?:.*?Failed core proc\(s\): (?P<failed_procs>\{[^}]*\}))?",
       wrapper=True),
    rule("engine_dead", "engine_died",
       # (not one that names the original error it wraps: "... find the original error:
       # ValueError(...)", which is read as that error)
       r"EngineDeadError(?!.{0,200}?\boriginal error: \w+\()"
       r"|EngineCore encountered (?:an issue|a fatal error)|Engine loop has died"
       # (Ray's ActorDiedError for an actor whose constructor raised: "The actor died because of
       # an error raised in its creation task", that error's traceback below it)
       r"|\bThe actor died because of an error raised in its creation task\b"
       r"|Background loop has errored|Engine background task failed|Server exited unexpectedly"
       # (vLLM's older async engine: its loop's task ended, "Task finished unexpectedly. This
       # should never happen!")
       r"|\bTask finished unexpectedly\. This should never happen\b"
       r"|Backend worker is gone"
       r"|\bShardFailed\b"  # TGI's launcher: a shard that had started died
       # a gRPC backend process gone in the middle of a call (LocalAI's model backends)
       r"|\brpc error: code = Unavailable desc = error reading from server: EOF"
       r"|output_handler failed"
       r"|Received sigquit from a child process?\b|MQLLMEngine is already dead"
       r"|\bMQLLMEngine terminated\b"  # vLLM's engine process ending on the signal it was sent
       # TensorRT-LLM's LLM API: a worker of its executor failed to start
       r"|Executor worker returned error"
       # vLLM's multiprocess executor: a worker died ("see stack trace above for root cause")
       r"|[Gg]ot fatal signal from worker processes"
       r"|\b[Gg]ot fatal sig(?:n(?:al?)?)?\s*$",  # (its line cut by a paste: "... got fatal signa")
       wrapper=True),
    # torchelastic's launcher reporting that a child it ran failed: its report below (the
    # child's exit code, the signal it got, its error file) or the child's own log tells why
    rule("child_failed", "unknown", r"\bChildFailedError\b", wrapper=True,
         keywords=("ChildFailedError",)),
    # SGLang's rank that loaded its weights telling that others did not: their failure (an out
    # of memory, a slow node, its own guesses) is in their own logs
    rule("other_ranks_not_loaded", "unknown",
       r"\bcould finish the model loading, but there are other ranks\b", wrapper=True,
       stage_hint="loading"),
    rule("cpp_terminate", "engine_died", r"terminate called (?:after throwing|without)"
       # c10's handler of an exception nobody caught (it then aborts the process)
       r"|Unhandled exception caught in c10/util/AbortHandler",
       wrapper=True, fixed_detail=(("signal", "SIGABRT"),)),
    # Precursors: warnings that name an environment problem; a later cause wins over them
    # (usually "no kernel image is available" or a missing op), else they are the answer.
    rule("torch_arch_missing", "env_mismatch",
       r"with CUDA capability (?P<arch>sm_\d+a?) is not compatible with the current PyTorch"
       r"|\bMinimum and Maximum cuda capability supported by this version of PyTorch\b"
       r"|\bPyTorch no longer supports this GPU because it is too old\b"
       r"|\bwhich is of compute capability \(CC\) \d+\.\d+"
       r"|\bdoes not include kernels for this GPU\b",
       keywords=TORCH_CAPABILITY_WARNINGS, wrapper=True),
    # Triton server going on without its pinned memory pool because CUDA cannot run (a driver
    # too old, no device); the pools are set up as the server starts (:mod:`.phrases`)
    rule("pinned_pool_no_gpu", "env_mismatch",
       PINNED_POOL + r"(?:CUDA driver version is insufficient|no CUDA-capable device is detected)",
       keywords=("pinned memory pool",), wrapper=True),
    # PaddlePaddle's check of the card against the architectures its wheel was built for
    rule("paddle_arch_missing", "env_mismatch",
       r"The GPU architecture in your current machine is \w+, which is not compatible with "
       r"Paddle installation"
       # (newer releases: "Mismatched GPU Architecture: The installed PaddlePaddle package was
       # compiled for 61 70 75 80 86 89 90 ,but your current GPU is 120")
       r"|\bpackage was compiled for (?:\d+\s*)+,\s*but your current GPU is \d+"
       # (its capability check: "The GPU compute capability in your current machine is 120,
       # which is not supported by Paddle")
       r"|\bcompute capability in your current machine is \d+, which is not supported by Paddle",
       keywords=PADDLE_CAPABILITY_WARNINGS, wrapper=True),
    # (or the CUDA runtime or torch library it was linked with is missing; not the driver's
    # libcuda.so.1, which a host without a GPU, running on the CPU, does not have)
    rule("extension_import_failed", "env_mismatch",
       r"Failed to import from [\w.]+ with ImportError\(.{0,300}?"
       r"(?:undefined symbol|Symbol not found): (?P<symbol>[^\s')]+)"
       # (or it needs a newer C library than the system has)
       r"|Failed to import from [\w.]+ with ImportError\(.{0,300}?version "
       r".(?P<glibc>GLIBC\w*_[\d.]+). not found"
       r"|Failed to import from [\w.]+ with ImportError\(['\"](?P<library>lib(?:cudart|cublas\w*"
       r"|nvrtc|torch\w*|c10\w*)\.so[.\d]*): cannot open shared object file", wrapper=True),
    rule("engine_build_failed", "unknown",
       r"(?i)engine build(?:ing)? failed"
       r"|failed to build (?:the |a |serialized )?(?:tensorrt |cuda )?engine"
       r"|^Engine creation failed",  # trtexec, after the builder failed
       wrapper=True, stage_hint="compile", keywords=("building failed", "ailed to build")),
    # Triton server's model table: a model whose status is "UNAVAILABLE: <reason>" failed to
    # load (an explicitly unloaded model reads "UNAVAILABLE: unloaded" and is no failure)
    rule("model_unavailable", "unknown", r"^UNAVAILABLE: (?!unloaded\b)\S",
       keywords=("UNAVAILABLE: ",)),
    # (not vLLM's "Worker failed with error 'message'", nor its format string printed unformatted
    # beside the message in a tuple: "('Worker failed with error %s, ...', \"'tuple' object ...\")",
    # which are the message itself)
    rule("worker_wrapper", "unknown",
       r"Worker failed with error(?! '| %s)|Exception in worker \S+ while processing method"
       r"|Error executing method|Exception in thread ", wrapper=True),
    # the CUDA runtime's "operation not supported" (cudaErrorNotSupported, 801), also cut after
    # a memory pool's call: one of its own strings, which names no category (docs: hard cases)
    rule("runtime_not_supported", "unknown",
       r"\boperation not supported\b|\bcudaErrorNotSupported\b"
       r"|MemPool\w*\([^)]*\): operation no(?:t(?: s\w*)?)?\s*$"),
    # ggml's report of where its CUDA error was raised, printed right after the error ("current
    # device: 0, in function ggml_cuda_set_device at file:line"): a wrapper whose function, read
    # like a frame, lends the error its stage
    rule("ggml_error_site", "unknown",
       r"^\s*current device: -?\d+, in function \w+ at \S+:\d+", wrapper=True,
       keywords=("current device:",)),
    # asyncio cancelling a task: the consequence of a stop or of another failure, never a cause
    rule("task_cancelled", "unknown",
       r"^(?:asyncio\.(?:exceptions\.)?|concurrent\.futures\._base\.)?CancelledError\b",
       wrapper=True),
    # a compiler that a program started at run time failed (OpenMM's "Error launching CUDA
    # compiler: 256"): its own error comes next
    # Dynamo's report of the compiler backend that raised, alone on its line (its exception's
    # type shown elsewhere), the error on the next ("backend='inductor' raised:" then
    # "OutOfMemoryError: ..."): a compile
    rule("backend_raised", "unknown", r"^\s*backend='\w+' raised:\s*$", wrapper=True,
       stage_hint="compile", keywords=("' raised:",)),
    rule("compiler_failed", "unknown",
       COMPILER_LAUNCH + r": \d+", wrapper=True,
       stage_hint="compile"),
    # any other exit code but 0: the program ended in failure, for a reason printed elsewhere
    # or nowhere; it only points at the cause (a wrapper), which any error in the log replaces
    rule("exit_code", "unknown", EXIT_STATUS + r"(?P<exit_code>[1-9]\d*)\b", ignore_at=QUIET,
       wrapper=True, keywords=("xit code", "xit status", "xited with", "退出代码", "退出码",
                                 "with error code")),
    # Python's exit raised with an error code or message (``exit(1)``; not 0 or None, a clean
    # exit): the same as an exit code
    rule("system_exit", "unknown", r"^SystemExit: (?!(?:0|None)\s*$)(?P<exit_code>\d+)?",
       ignore_at=QUIET, wrapper=True, keywords=("SystemExit: ",)),
    # Triton's frontend refusing a kernel's source as it compiles it ("triton.compiler.errors.
    # CompilationError: at 31:16:", the offending line below): its reason names no category,
    # but it is raised only while compiling
    rule("triton_compilation_error", "unknown",
       r"^(?:triton\.compiler\.errors\.)?CompilationError: at \d+:\d+:", stage_hint="compile",
       keywords=("CompilationError: at ",)),
    # torch.compile's tracer meeting code it cannot trace ("torch._dynamo.exc.Unsupported:
    # Observed exception"): the compiler's limit, whatever its message says is not supported
    rule("dynamo_unsupported", "unknown",
       r"^torch\._dynamo\.exc\.Unsupported: ", stage_hint="compile",
       keywords=("_dynamo.exc.Unsupported: ",)),
    # JAX's note that it filtered its own frames out, printed as the cause of the exception
    # that follows it ("jax.errors.SimplifiedTraceback: For simplicity, JAX has removed its
    # internal frames ..."): that exception is the error
    rule("jax_simplified_traceback", "unknown",
       r"^(?:jax\.errors\.)?SimplifiedTraceback: For simplicity, JAX has removed",
       wrapper=True, keywords=("SimplifiedTraceback: ",)),
)
# fmt: on
