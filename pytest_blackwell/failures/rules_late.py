"""The late part of the rule table: relays, the generic configuration rejection, the catch-all.

These rules come after every known cause in :data:`pytest_blackwell.failures.rules.DEFAULT_RULES`
and the kernel driver lines (:mod:`pytest_blackwell.failures.rules_driver`): relays (``weak``
rules: NCCL errors, timeouts that a cause explains, dead processes) and the generic configuration
rejection (``ValueError``) in :data:`LATE_RULES`; the wrappers that only point at an earlier cause
(:mod:`pytest_blackwell.failures.rules_wrappers`) come next, and :data:`CATCH_ALL_RULES` last.
"""

from __future__ import annotations

from pytest_blackwell.failures.deaths import LOCAL_SELF_DEATHS
from pytest_blackwell.failures.errorwords import DEBUGGER_EXCEPTION, PAUSE_PROMPTS, SETTING_VALUE
from pytest_blackwell.failures.rule import QUIET, Rule, rule

#: Messages of ValueErrors that Python and numpy raise themselves (see ``value_error``).
_PYTHON_VALUE_ERRORS = (
    r"substring not found|too many values to unpack|not enough values to unpack"
    r"|invalid literal for \w+\(\)|could not convert string to \w+:|.{0,200}? is not in list$"
    r"|math domain error|I/O operation on closed file|(?:max|min)\(\) (?:arg|iterable argument)"
    r" is an empty sequence|setting an array element with a sequence"
    r"|operands could not be broadcast together|\w*Error\("
    # a torch op checking the tensors it was handed ("torch.cat(): expected a non-empty list")
    r"|torch\.\w+\(\): expected\b"
    # nor a program's check of its own bookkeeping (SGLang's "token_to_kv_pool_allocator memory
    # leak detected!"): a bug, whatever sizes it names
    r"|.{0,200}?\bmemory leak detected\b"
    # nor torch's refusal to read a tensor that has no data yet (weights an offloading loader
    # left on the meta device), nor SGLang's word that other ranks did not load (a wrapper's)
    r"|Cannot copy out of meta tensor\b|TP rank \d+ could finish the model loading\b"
    # nor Triton's refusal of a tensor the program left on the host ("Pointer argument (at 0)
    # cannot be accessed from Triton (cpu tensor?)"): where the program put its data, a bug
    r"|Pointer argument \(at \d+\) cannot be accessed from Triton\b"
    # nor vLLM's re-raise of an error in the model's run ("ValueError: Error in model execution
    # (input dumped to ...): ..."), read by what it carries: settings are refused before that
    r"|Error in model execution\b"
    # nor a library's native traceback as the message (TVM's "ValueError: Traceback (most ...")
    r"|Traceback \(most recent call last\)"
)

#: PaddlePaddle's check of the card against its wheel's architectures, in each release's words
#: (see ``paddle_arch_missing``).
PADDLE_CAPABILITY_WARNINGS = (
    "which is not compatible with Paddle",
    "but your current GPU is",
    "which is not supported by Paddle",
)
#: torch.cuda's capability check in its wordings (see ``torch_arch_missing``): the current one
#: ("... with CUDA capability sm_120 is not compatible with the current PyTorch installation"),
#: the newer one ("Found GPU0 NVIDIA GB10 which is of cuda capability 12.1." then "Minimum and
#: Maximum cuda capability supported by this version of PyTorch is (8.0) - (12.0)") and the older
#: one ("PyTorch no longer supports this GPU because it is too old").
TORCH_CAPABILITY_WARNINGS = (
    "is not compatible with the current PyTorch",
    "Minimum and Maximum cuda capability supported by this version of PyTorch",
    "PyTorch no longer supports this GPU because it is too old",
    # (newer torch: "Found GPU0 NVIDIA GeForce RTX 5060 Ti which is of compute capability (CC)
    # 12.0.", then "Your installed torch==2.13.0+cu126 does not include kernels for this GPU")
    "which is of compute capability (CC)",
    "does not include kernels for this GPU",
)

_DEATH_WORDS = (
    r"Segmentation fault|Aborted|Killed|Bus error|Illegal instruction|Floating point exception"
)
#: A process's exit status as launchers, IDEs and shells report it (``exited with code``,
#: ``Process finished with exit code``, ``exit status``; a Chinese IDE's ``退出代码为``).
EXIT_STATUS = (
    r"(?:[Ee]xit(?:ed|s)?(?: with)? (?:status |return )?(?:code|status)(?: =)?[: ]+"
    # (a test harness comparing it: torch's "Expected zero exit code but got -11")
    r"|\bexit code,? but got "
    # (Python's subprocess: a child's return code, negative when a signal killed it: Ray's
    # "Failed to start the dashboard, return code -11")
    r"|\b(?:with |, )return code:? "
    # (a launcher's step of its own: pyxis' "container start failed with error code: 1")
    r"|\bstart failed with error code:? "
    r"|退出代码为?\s*|退出码\s*[:\uff1a]?\s*)"
)

#: A shell's report of a job's death in the system's language, glibc's translations:
#: "Segmentation fault" (Russian, German, French, Spanish, Chinese, Japanese, Italian,
#: Portuguese), "Aborted" and "Illegal instruction" (Russian, German, French, Spanish, Chinese),
#: and Chinese "Killed", "Bus error" and "Floating point exception" ("非法指令 (核心已转储)").
_LOCAL_DEATHS = (
    LOCAL_SELF_DEATHS
    + "|Недопустимая инструкция|Ungültiger Maschinenbefehl|Instruction non permise"
    "|Instrucción ilegal|非法指令"
    "|已杀死|总线错误|浮点数例外"
)
#: A wait that gave up, naming the CUDA error that ended it ("...: CUDA error: ..."): the error's.
_WAITED = r"[Tt]imed out waiting (?:\d+ ?m?s )?for"
_ENDED_BY_CUDA_ERROR = r"[^:]{0,60}: ?(?:CUDA|HIP|ROCm) error\b"
#: Not when the store's own wait timed out while the id was fetched: a timeout (``timed_out``).
_STORE_TIMEOUT = r"(?!.{0,300}?\b(?:Socket Timeout\b|wait timeout after \d))"

# fmt: off
#: Rules tried after every cause (see the module docstring).
LATE_RULES: tuple[Rule, ...] = (
    # --- relays: a more specific cause in the same block wins -------------------------------------
    rule("nccl", "nccl_error",
       r"NCCL [Ee]rror|\bNccl error\b"  # (PaddlePaddle's "ExternalError: Nccl error, ...")
       r"|nccl(?:Internal|System|UnhandledCuda|InvalidUsage|Remote|InvalidArgument)Error"
       r"|NCCL communicator was aborted|retrieving ncclUniqueId" + _STORE_TIMEOUT +
       r"|ProcessGroupNCCL.{0,120}?(?:[Ww]atchdog|[Tt]imeout|timed out)"
       r"|(?:Watchdog c|\] C)aught collective operation timeout|\bncclCommWatchdog\b"
       # (and its notice before it takes the process down, its file prefix taken off)
       r"|\bSome NCCL operations have failed or timed out\b"
       # (c10d's record of it once the log prefix naming ProcessGroupNCCL.cpp is taken off; not
       # when the exception it relays is the runtime's hardware fault, which stays unknown as
       # docs/failures.md reads it, whatever relays it)
       r"|\bNCCL watchdog thread terminated\b(?!.*\buncorrectable ECC error\b)"
       # and its heartbeat monitor finding the watchdog stuck ("[PG 0 Rank 3] Heartbeat monitor
       # timed out! Process will be terminated after dumping debug info.")
       r"|\bHeartbeat monitor timed out!"
       # torch.distributed's check of the collectives each rank runs (TORCH_DISTRIBUTED_DEBUG):
       # the ranks are out of step
       r"|\bDetected mismatch between collectives on ranks\b"
       r"|failure detected by watchdog at work sequence"
       r"|\bNcclError\b|\bNCCL_ERROR_[A-Z_]+|\bMPI error\b|\bMPI_ERR_[A-Z_]+"
       # Open MPI's collective components failing ("coll_hcoll_module.c:312 -
       # mca_coll_hcoll_comm_query() Hcol library init failed"); Horovod's collectives stopped
       # because a rank failed ("Horovod has been shut down")
       r"|\bcoll_\w+_module\.c:\d+ - mca_coll_\w+|\bHorovod has been shut down\b"
       # c10d's error of a collective backend, also named by a wrapper ("RayTaskError(DistBa...")
       r"|\bDistBackendError\b" + _STORE_TIMEOUT +
       # NVSHMEM (DeepEP's transport): its source naming a failed status (any tree's name for it,
       # its function too; not one transport's "init failed for transport: IBGDA", which it
       # tries the next after), its own init failure, nvshmem4py's exceptions
       r"|/\w*nvshmem\w*/src/\S+?:(?:\w+:)?\d+: (?:non-zero status|NULL value(?! get_device_list))"
       r"|nvshmem\w* initialization failed|\bNvshmem\w*(?:Error|Invalid|Exception): "
       r"|(?:^|: )(?:Test )?NCCL failure \S+:\d+"
       # (or with NCCL's own string for the result: "NCCL failure: unhandled cuda error in f.cu
       # at line: 86", a program's check of an NCCL call)
       r"|\bNCCL failure: (?:unhandled (?:cuda|system) error|internal error|invalid (?:argument"
       r"|usage)|remote process exited)"
       # (or under the source file of a library's NCCL wrapper: TensorFlow's "OP_REQUIRES failed
       # at nccl_communicator.cc:116 : Internal: unhandled system error")
       r"|\bnccl\w*\.(?:cc|cpp|cu|c):\d+\b.{0,40}?\bunhandled (?:cuda|system) error\b"
       # (or alone: no other library words its errors so; HugeCTR's "Runtime error: unhandled
       # system error", its ncclGroupEnd() on the next line)
       r"|\bunhandled (?:cuda|system) error\b"
       r"|watchdog got stuck for \d+ seconds without making progress"
       # NCCL's own error strings, as another library prints them ("CUDA error: unhandled cuda
       # error (run with NCCL_DEBUG=INFO for details)" from a ncclGroupEnd it checked)
       r"|\(run with NCCL_DEBUG=\w+ for details\)"
       # Gloo's transport (the CPU collectives of torch.distributed) names its source file;
       # when it says it timed out, that is a timeout (below)
       r"|\bgloo/transport/\w+/\w+\.cc:\d+\](?! Timed out)"
       # (its source path in torch's tree, the message cut before the file: "RuntimeError:
       # [/pytorch/third_party/gloo/gl")
       r"|: \[\S*/third_party/gloo/(?!\S*\] Timed out)"
       # an NCCL call named as failing ("ncclCommInitRank failed: unhandled cuda error", XLA's
       # "NCCL operation ncclCommInitRank(&comm, nranks, id, rank) failed: ...")
       r"|\bnccl[A-Z]\w+(?:\([^()]{0,120}\))? failed\b"
       # the process group's own rendezvous: c10d's store that cannot open its server socket,
       # torch_xla's mesh service ("Failed to meet rendezvous 'init': Socket closed (14)")
       r"|\bserver socket has failed to (?:bind|listen)\b|\bFailed to meet rendezvous\b",
       weak=True, keywords=("NCCL failure", "watchdog got stuck", "gloo/", "nvshmem",
                            "server socket", "rendezvous")),
    rule("custom_all_reduce", "nccl_error", r"custom_all_reduce\w*\.cuh?:\d+|CustomAllreduce\w*"),
    # NCCL's debug lines ("host:pid:tid [dev] file.cc:N NCCL WARN ..."; some builds leave out
    # the word NCCL) and a check of an NCCL call's status (Caffe's "result == ncclSuccess")
    rule("nccl_warn", "nccl_error",
       r"NCCL WARN|^\S+:\d+:\d+ \[\d+\] [\w/.-]+:\d+ WARN |== ncclSuccess\b"
       # Intel's oneCCL, NCCL's counterpart on XPUs: its error records ("|CCL_ERROR| file.cpp:
       # 202 ...") and its exceptions ("RuntimeError: oneCCL: ze_fd_manager.cpp:214 ...")
       r"|\|CCL_ERROR\||\boneCCL: \w+\.cpp:\d+", weak=True,
       keywords=("NCCL WARN", " WARN ", "ncclSuccess", "CCL_ERROR", "oneCCL")),
    rule("watchdog_timeout", "timeout",
       r"^Watchdog timeout\b|watchdog_timeout=\d+\)", keywords=("atchdog",)),
    # ROCm's runtime reporting the GPU hung; any other hardware exception names no category
    rule("rocm_gpu_hang", "timeout", r"HW Exception by GPU node\S*.{0,120}?\bGPU Hang\b",
         keywords=("HW Exception",)),
    rule("rocm_hw_exception", "unknown", r"\bHW Exception by GPU node", keywords=("HW Exception",)),
    # the CUDA runtime's cudaErrorInvalidConfiguration: a launch beyond the device's limits, or
    # an empty grid a program computed; two readings, and no refused configuration of the user's
    rule("invalid_launch_configuration", "unknown", r"\binvalid configuration argument\b",
         keywords=("invalid configuration argument",)),
    rule("timed_out", "timeout",
       # (not a setting and its value: "Timeout: 1800", "requestTimeout: 30s", "Timeout: 0:30:00")
       # (or its repr, as a logger prints it: "TimeoutError('No heartbeat received from X')")
       r"^(?:[\w.]+\.)?\w*Timeout(?:Error|Exception|Expired)\b(?::|$|\(['\"])"
       # (requests' and httpx' timeouts in a message: "Got: ConnectTimeout: [WinError 10060]")
       r"|\b(?:Connect|Read|Write|Pool)Timeout(?:Error)?: "
       r"|^(?:[\w.]+\.)?\w*Timeout\b(?:(?!" + SETTING_VALUE + r"):|$)"
       # faulthandler's dump of a process still running after its deadline (pytest's
       # faulthandler_timeout, dump_traceback_later): "Timeout (0:02:00)!"
       r"|^Timeout \(\d+:\d\d:\d\d(?:\.\d+)?\)!$"
       # XLA's collectives waiting on the other participants ("This thread has been waiting for
       # 5000ms for and may be stuck: participant for device ordinal 1 ...")
       r"|\bhas been waiting for \d+ ?m?s (?:for )?and may be stuck\b"
       # (also an exception's type in a traceback printed indented, under vLLM's "Stack trace:")
       r"|^\s+(?:[\w.]+\.)?\w*Timeout(?:Error|Exception)\b(?::|\s*$)"
       # a wrapper naming the timeout it carries (Ray's "RayTaskError(TimeoutError): ...")
       r"|^(?:[\w.]+\.)?\w+\((?:\w+\.)*\w*Timeout(?:Error|Exception)\):"
       r"|" + _WAITED + r"(?!" + _ENDED_BY_CUDA_ERROR + r")"  # (not one that names its end)
       r"|RPC call to \w+ timed out|(?i:\b(?:operation|request|rpc|call|collective|handshake"
       r"|connection|iteration|step|heartbeat|barrier|wait\w*) (?:has )?timed out\b)"
       r"|(?i:\btimed out after \d+)|\bgot error: (?:Socket Timeout|wait timeout after \d)"
       r"|(?i:\b(?:did not|failed to) become (?:ready|available|healthy)\b)"
       # (not a wait that goes on: "not ready after 1181.1s, waiting 10.0s before polling")
       r"|(?i:\bnot (?:ready|healthy|up) after \d+(?:\.\d+)? ?(?:s|seconds?|m|min|minutes?)\b"
       r"(?!.{0,60}?\b(?:waiting|retry\w*|polling|will try)\b))"
       r"|(?i:deadline exceeded)|DEADLINE_EXCEEDED|(?i:timeout of \d+(?:\.\d+)? ?(?:ms|s|seconds?) "
       r"(?:exceeded|reached))"
       r"|Gateway Time-?out"
       # a watchdog giving up on a process and killing it ("perf_analyzer took very long to
       # exit, killing perf_analyzer")
       r"|(?i:\btook (?:very |too )long\b[^.]{0,40}?\bkill(?:ing|ed)\b)"
       # the same said with the noun, as a whole message ("Sync batch data transfer timeout")
       r"|(?i:\b(?:transfer|operation|request|rpc|connection|handshake|heartbeat|barrier)"
       r" time-?out(?:\.|$))", keywords=("ook very long", "ook too long")),
    # a message telling to raise a time limit: the limit was hit (llama.cpp's server, others)
    rule("timeout_advice", "timeout",
       r"(?i)\b(?:increase|adjust|raise|extend)\w* (?:the )?--[\w-]*time-?out\b",
       keywords=("imeout",)),
    # Go's runtime crash dump (Ollama's runner): the goroutine stacks and the register dump
    # (Go 1.23 and later name its g and m: "goroutine 10 gp=0xc0 m=9 mp=0xc0 [syscall]:")
    rule("go_crash", "engine_died",
       r"^goroutine \d+ (?:gp=\S+ m=\S+ (?:mp=\S+ )?)?\[[\w ,]+\]:$"
       r"|^created by \S+ in goroutine \d+$"
       r"|^(?P<signal>SIG[A-Z]+): [a-z ]+$|^rflags\s+0x[0-9a-f]+$",
       weak=True, keywords=("goroutine", "rflags", "SIG")),
    # Ollama's llama runner (older: "runner process has terminated: exit status 2"; newer, as
    # logfmt: msg="llama runner terminated" error="exit status 1"), or its death on a CUDA error
    # whose kind is not printed ("terminated: CUDA error"); not when the runner's line names the
    # CUDA error (": signal: aborted (core dumped) CUDA error: CUBLAS_STATUS_EXECUTION_FAILED"),
    # a cause the rules read; or with no error at all, as Go prints a nil one ("terminated:
    # %!w(<nil>)")
    rule("runner_terminated", "engine_died",
       r"runner (?:process )?(?:has )?terminated(?::|\"? error=\")(?!.*\bCUDA error: \w)\s*"
       r"(?:exit status (?P<status>[^\s\"]+)|signal: (?P<signal>[\w ]+)|CUDA error\s*$"
       r"|%!w\(<nil>\))"
       # (its API's answer once the runner died: "model runner has unexpectedly stopped, this
       # may be due to resource limitations or an internal error")
       r"|\bmodel runner has unexpectedly stopped\b",
       weak=True),
    # LLVM's backend with no instruction for an intrinsic on this target (a GPU compiler
    # lowering a kernel: Mali's "LLVM ERROR: Cannot select: intrinsic %llvm.bifrost.2586")
    # (clang's words for it: "fatal error: error in backend: Cannot select: intrinsic ...")
    rule("codegen_unsupported", "dispatch_failure",
       r"\b(?:LLVM ERROR|error in backend): Cannot select: intrinsic\b", stage_hint="compile"),
    # llama.cpp's decode finding no free slot in its KV cache for the batch (its status 1, as
    # its bindings name it: LLamaSharp's "NoKvSlot", llama-cpp-rs' "NoKvCacheSlot")
    rule("no_kv_slot", "kv_cache_oom", r"\bNoKv(?:Cache)?Slot\b", stage_hint="execute"),
    # a vLLM kernel extension that is not there because its build was skipped (an nvcc too old,
    # or no architecture of its list is this GPU's)
    rule("extension_not_built", "dispatch_failure",
       r"\bis not available, likely was not compiled due to insufficient nvcc version or a "
       r"supported arch"),
    # an accelerator's allocator with no room for a buffer (Tenstorrent's "Out of Memory: Not
    # enough space to allocate 71999488 B DRAM buffer across 12 banks")
    rule("buffer_no_space", "device_oom",
       r"\bNot enough space to allocate \d+ B (?:DRAM|L1) buffer\b"
       # OpenCL's allocation statuses (MLC-LLM building its kernels on a phone)
       # (and a buffer larger than the device allows: CL_INVALID_BUFFER_SIZE)
       r"|\bCL_(?:OUT_OF_HOST_MEMORY|MEM_OBJECT_ALLOCATION_FAILURE|INVALID_BUFFER_SIZE)\b"
       # (the first two by their numbers, -4 and -6: "CLBlast: OpenCL error: clEnqueue...: -4")
       r"|\bOpenCL error:? (?:\w+: )?-[46]\b"
       # (or a program's own message about an OpenCL object, with the status in brackets:
       # "Couldn't create OpenCL command queue (error: -6)!")
       r"|\bOpenCL\b[^()\n]{0,80}\((?:error|status|code):? ?-[46]\)"),
    # the amdgpu kernel driver's report of a GPU page fault (a VM protection fault): a GPU
    # kernel touched memory it may not (in dmesg, as NVIDIA's Xid 31 says it)
    rule("amdgpu_page_fault", "illegal_memory_access",
       r"\bamdgpu\b.{0,80}?(?:\[\w+\] (?:retry )?page fault\b|VM_L2_PROTECTION_FAULT_STATUS)"),
    # Windows' Application Error event for a crashed process (Event Viewer's "ExceptionCode
    # c0000005", its text view's "Exception code: 0xc0000005"): an access violation, a fast fail
    rule("windows_crash_event", "engine_died",
       r"\bException ?[Cc]ode:? (?:0x)?[cC]0000(?:005|409|374|0[fF][dD])\b"),
    # Windows Error Reporting's own record of it (a ".wer" report): "EventType=APPCRASH" (or a
    # buffer overrun's fast fail, BEX64), whatever language its field names are in
    rule("windows_error_report", "engine_died", r"^EventType=(?:APPCRASH|BEX(?:64)?)\s*$",
         keywords=("EventType=",)),
    # a SYCL runtime without the kernel for this device ("No kernel named _ZTSZN14bin_bcast...
    # was found"): the build did not target it
    rule("sycl_no_kernel", "dispatch_failure", r"\bNo kernel named \S+ was found"),
    rule("worker_died", "engine_died",
       r"actor is dead because|Worker unexpectedly exits"
       # Ray's worker crash (WorkerCrashedError: "A worker died or was killed while executing
       # a task by an unexpected system error")
       r"|\bA worker died or was killed while executing\b"
       r"|(?:Worker|Engine core|RayWorker\w*) proc(?:ess)? (?P<process>\S+) died unexpectedly"
       r"(?: \(exit code: (?P<exit_code>-?\d+)\))?|(?P<process__2>\S+ rank=\d+) died unexpectedly"
       r"|engine core exited unexpectedly"
       r"|(?i:\bmodel (?:process|server) (?:encountered an unexpected error|crashed"
       r"|exited unexpectedly))"
       r"|\bShard \d+ crashed\b"  # TGI's launcher: a shard process that exited in failure
       r"|\bActorDiedError\b"  # Ray: an actor (a worker of the engine) died, or a task's cause
       # (and RayActorError's message for a call in flight when its actor died)
       r"|\bThe actor died unexpectedly before finishing this task\b"
       r"|(?:[Ss]cheduler|[Dd]etokenizer|[Ww]orker|[Ee]ngine\w*)(?: process)? is dead\b"
       # a launcher reading a server's output until it says it is ready, that saw the stream
       # end first: the server process is gone (Unsloth's vLLM launcher)
       r"|\b[Ss]tdout stream ended before readiness\b",
       weak=True),
    # a router or client that cannot reach the engine process it serves through (TGI's router
    # and its shards over a Unix socket, gRPC clients): that process is gone
    rule("backend_unreachable", "engine_died",
       r"(?i:(?:server|backend|shard|worker|engine|transport) error: (?:error trying to connect"
       r"|connection refused|broken pipe|connection reset))"
       r"|failed starting/connecting to the gRPC", weak=True),  # LocalAI's backend process
    # a Windows launcher's pause printed right after a progress bar that never finished, on the
    # same line: the program ended mid-work without a word ("Loading checkpoint shards:   0%|
    # | 0/3 [00:00<?, ?it/s]Press any key to continue . . .")
    rule("exited_mid_progress", "engine_died",
       r"(?<!\d)\d{1,2}%\|[^|]*\|\s*\d+/\d+ \[[^\]]*\]\s*(?:" + "|".join(PAUSE_PROMPTS) + ")",
       weak=True, keywords=PAUSE_PROMPTS),
    rule("fatal_signal", "engine_died",
       r"Fatal Python error: (?P<signal>" + _DEATH_WORDS + r")|^(?:.*: )?(?P<signal__2>"
       + _DEATH_WORDS + r")(?: \(core dumped\))?\s*$|\*\*\* (?P<signal__3>SIG[A-Z]+) received"
       r"|Signal (?P<signal__4>\d+) \(SIG[A-Z]+\) received"
       # (Triton Inference Server's handler, its number in brackets: "Signal (11) received.")
       r"|^Signal \((?P<signal__26>\d+)\) received\.?\s*$|(?:killed|terminated|died) (?:by|with) "
       r"(?:signal (?P<signal__5>SIG[A-Z]+|\d+)"
       r"|(?P<signal__16>SIG(?:SEGV|ABRT|BUS|ILL|FPE|KILL))\b)"  # (abrt: "x killed by SIGSEGV")
       # a signal's exit code, or Windows' for a crash: a status of 0xC0000000 and above
       # (access violation, fast fail, stack overflow), or abort()'s 3 shown beside its hex; a
       # negative status printed as an unsigned 64-bit number (18446744072635812000)
       # (or any number shown with a Windows crash status in hex beside it: "Exit code:
       # 1073740791 (0xC0000409)", its sign lost)
       # (or the Windows status in hex alone: Ollama's "llama-server --list-devices failed: exit
       # status 0xc0000005"; not abort()'s fast fail, 0xc0000409, which follows an assertion
       # whose own words are the cause)
       r"|" + EXIT_STATUS
       + r"(?:(?P<exit_code>-\d+|1[3-5]\d|3221\d{6}|3(?= \(0x0*3\))|1844674407\d{10}"
       r"|\d{6,}(?= \(0x[Cc]0000[0-9A-Fa-f]{3}\)))"
       r"|(?P<windows_status>0x[cC]0000(?!409)[0-9a-fA-F]{3}))\b"
       r"|exitcode\s*[:=]?\s*(?P<exit_code__2>-\d+)"
       r"|(?i:(?:^|\b(?:z|ba)?sh: |^\[\d+\]\s+\d+ )"
       r"(?P<signal__6>segmentation fault|killed|bus error"
       r"|abort(?:ed)?)\b)|(?P<signal__7>Segfault) encountered"
       # (bash's report of a script's command that died: "./run.sh: line 80:  1511 Killed  python")
       r"|^\S+: line \d+:\s+\d+ (?P<signal__33>" + _DEATH_WORDS + r")\b"
       r"|received (?P<signal__8>SIGSEGV|SIGBUS|SIGILL|SIGABRT|SIGFPE)\b"
       # TGI's launcher: "Shard process was signaled to shutdown with signal 4"
       r"|signaled to shut ?down with signal (?P<signal__9>\d+)"
       # gunicorn's arbiter: "Worker (pid:25134) was sent SIGKILL! Perhaps out of memory?"
       r"|\bwas sent (?P<signal__10>SIG[A-Z]+)\b"
       # a debugger's backtrace whose innermost frame is address zero: a call through a null
       # pointer, which the kernel answers with SIGSEGV
       r"|^#0\s+0x0+ in \?\? \(\)$"
       # faulthandler on Windows: the process crashed in native code
       r"|^Windows fatal exception: (?P<signal__11>access violation|stack overflow"
       r"|illegal instruction|int divide by zero)"
       # ctypes on Windows: a native call that crashed, raised as OSError ("exception: access
       # violation reading 0x0"; also its message alone, or glued to a progress line before it)
       r"|\bOSError: exception: (?P<signal__15>access violation|stack overflow"
       r"|illegal instruction|integer divide by zero)\b"
       r"|\bexception: (?P<signal__31>access violation) (?:reading|writing|executing) 0x"
       # (or as the crash's status, signed: "OSError: [WinError -1073741795] Windows Error
       # 0xc000001d", an illegal instruction; 0xC0000000 and above)
       r"|\b[Oo][Ss]Error: \[WinError (?P<exit_code__3>-107374\d{4})\]"
       # .NET's runtime ending the process on a native crash ("Fatal error. System.
       # AccessViolationException: Attempted to read or write protected memory.")
       r"|\bFatal error\. System\.(?P<signal__17>AccessViolation|StackOverflow)Exception\b"
       # Intel Fortran's runtime on a signal ("forrtl: severe (174): SIGSEGV, segmentation fault")
       r"|\bforrtl: severe \(\d+\): (?P<signal__18>SIG[A-Z]+)\b"
       # Android's libc and its crash dumper (logcat: "Fatal signal 4 (SIGILL), code 2", the
       # tombstone's backtrace "F DEBUG   :       #00 pc 000000000019000c  /data/app/...")
       r"|\bFatal signal \d+ \((?P<signal__19>SIG[A-Z]+)\)|\bF DEBUG\s*:\s+#\d+ pc [0-9a-f]+\b"
       # (the tombstone's own signal line: "signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr",
       # or that line alone, as a crash reporter of an app shows it: "signal 6 (SIGABRT)"; not a
       # signal that asks a process to stop, which a graceful shutdown logs)
       r"|\bsignal \d+ \((?P<signal__24>SIG[A-Z]+)\), code -?\d+ \(\w+\), fault addr\b"
       r"|^signal \d+ \((?P<signal__25>SIG(?:SEGV|ABRT|BUS|ILL|FPE|TRAP|SYS))\)\s*$"
       # torchelastic's agent stopped by a signal ("SignalException: Process 28 got signal: 1")
       r"|\bSignalException: Process \d+ got signal: (?P<signal__20>\d+)"
       # Cosmopolitan's crash report (llamafile: "error: Uncaught SIGSEGV (SEGV_...) at 0x...");
       # a Windows exception's name in a crash handler's report (Blender's "Error   :
       # EXCEPTION_ACCESS_VIOLATION")
       r"|\bUncaught (?P<signal__21>SIG(?:SEGV|BUS|ILL|FPE|ABRT))\b"
       r"|^Error\s*: (?P<signal__22>EXCEPTION_(?:ACCESS_VIOLATION|STACK_OVERFLOW"
       r"|ILLEGAL_INSTRUCTION))"
       # a Windows stack walk through the C runtime's abort() ("0x00007FFA..., C:\WINDOWS\System32
       # \ucrtbase.dll(0x...) + 0xA4AB1 byte(s), abort() + 0x31 byte(s)")
       r"|\bbyte\(s\), (?P<signal__23>abort)\(\) \+ 0x[0-9A-Fa-f]+ byte\(s\)"
       # Go's runtime on Windows: the exception that stopped a cgo call ("Exception 0xc0000005
       # 0x0 0x240 0x7ffc1d684ebe" then "signal arrived during external code execution"), and a
       # crash handler naming where it struck ("Exception 0xC0000005 at 0x6AE6552F", "... in f")
       r"|^Exception 0x[cC]0000[0-9a-fA-F]{3} (?:(?:at )?0x|in [A-Za-z_])"
       r"|\bsignal arrived during (?:external code|cgo) execution\b"
       # systemd-coredump's report of a crashed process ("Signal: 11 (SEGV)", "Process 1302516
       # (whisper-stream) of user 1000 dumped core.")
       r"|^\s*Signal: (?P<signal__30>\d+) \((?:SEGV|ABRT|BUS|ILL|FPE|TRAP|SYS)\)\s*$"
       r"|\bProcess \d+ \([^)]{1,80}\) of user \d+ dumped core\b"
       # Open MPI's signal handler, under "[host:2001] *** Process received signal ***": the
       # signal's name, then its number ("[host:02001] Signal: Aborted (6)")
       r"|^(?:\[[\w.\-]+:\d+\] )?Signal: (?P<signal__32>Segmentation fault|Aborted|Bus error"
       r"|Illegal instruction|Floating point exception) \(\d+\)\s*$"
       # a notebook's kernel process gone, as the notebook reports it (Colab's "Your session
       # crashed", Jupyter's "The kernel appears to have died. It will restart automatically.")
       r"|\bYour session crashed\b|\b[Kk]ernel (?:for \S+ )?appears to have died\b"
       # torchelastic's agent stopping its workers on a signal it got ("Received 1 death signal,
       # shutting down workers"; not SIGINT or SIGTERM, which stop a job on purpose)
       r"|\bReceived (?P<signal__29>(?!(?:2|15)\b)\d+) death signal, shutting down workers\b"
       # Open MPI's launcher: "mpirun noticed that process rank 6 ... exited on signal 9 (Killed)"
       r"|\bexited on signal (?P<signal__12>\d+)\b"
       # Go's exec package reporting a child that died ("cmd.Wait() returned error: signal:
       # aborted (core dumped)", a supervisor of llama-server)
       r"|\bWait\(\) returned error: signal: (?P<signal__27>aborted|killed|segmentation fault"
       r"|bus error|illegal instruction|floating point exception)\b"
       # the kernel's log of a process it killed: "app[123]: segfault at 0 ip ... error 4 in
       # libcuda.so", "traps: app[123] general protection fault ip:...", "... trap invalid opcode"
       r"|\[\d+\]:? (?P<signal__13>segfault) at [0-9a-f]+ ip [0-9a-f]+ sp [0-9a-f]+ error \d+"
       r"|^(?:.*\s)?traps: \S+\[\d+\] (?P<signal__14>general protection fault|trap invalid opcode"
       r"|trap divide error)"
       # (a shell's report of the death in the system's language, glibc's translations)
       r"|^(?:.*: )?(?P<signal__28>" + _LOCAL_DEATHS + r")(?: \([^)]*\))?\s*$",
       weak=True, keywords=("egmentation", "egfault", "received SIG", "0x0000000000000000 in ??",
                            *_LOCAL_DEATHS.split("|"),
                            "fatal exception", "exited on signal", "xit code", "退出代码",
                            "segfault at", "traps: ", "exception: ", "Fatal signal", "F DEBUG",
                            "SignalException", "fault addr", "(SIG", "Signal (",
                            "returned error: signal", "Exception 0x", "signal arrived during",
                            "death signal", "Signal: ", "dumped core", "session crashed",
                            "appears to have died", ": line ")),
    # --- generic configuration rejection (after the specific causes above) ---------------------
    # (not Python's or numpy's own messages, which a program's bug raises, not a check of its
    # configuration: "substring not found", "too many values to unpack", "x not in list"; nor a
    # ValueError carrying another library's error, as Rust bindings raise it:
    # "ValueError: CublasError(CUBLAS_STATUS_INVALID_VALUE)")
    rule("value_error", "unsupported_config",
       r"^(?:[\w.]+\.)?(?:ValueError|NotImplementedError): (?!" + _PYTHON_VALUE_ERRORS + r")",
       ignore_at=QUIET),
)

#: The last rules: any other line that is an exception (after the wrappers of
#: :mod:`pytest_blackwell.failures.rules_wrappers`).
CATCH_ALL_RULES: tuple[Rule, ...] = (
    # --- anything else that is an exception -------------------------------------------------------
    # (also Ray's "RayTaskError(TimeoutError): ...", .NET's "Unhandled exception. System.X: ...",
    # Visual Studio's exception details, "System.XException was unhandled" with the message on
    # a "Message=" line below; Elixir's "** (RuntimeError) ..." and an exception struct
    # "%RuntimeError{message: ...}")
    # (also indented: torchelastic's failure summary prints a rank's traceback so, and Paddle's
    # report or a paste that indents the whole traceback does too, "    PreconditionNotMetError:
    # Cannot load cudnn shared library.")
    rule("exception", "unknown",
       # (also as a debugger shows it: errorwords.DEBUGGER_EXCEPTION)
       r"^\s*(?:Unhandled [Ee]xception[.:] |" + DEBUGGER_EXCEPTION + r")?(?:[A-Za-z_][\w]*\.)*"
       r"(?P<exception>Exception"
       r"|(?:Base)?ExceptionGroup"
       # (a private class too: torch's "torch._C._LinAlgError: linalg.cholesky: ...")
       r"|_?[A-Z]\w*(?:Error|Exception|Failed|Interrupt|OutOfResources|InvalidCxxCompiler"
       r"|Unsupported))(?:\((?:\w+\.)*\w+\))?(?::|$| was (?:unhandled|caught|thrown)\b)"
       r"|^\*\* \((?:\w+\.)*(?P<exception__2>\w*(?:Error|Exception))\) "
       r"|^\{?%(?:\w+\.)*(?P<exception__3>\w*(?:Error|Exception))\{"
       # an exception class of any name, qualified by its module ("xoscar.errors.ServerClosed:")
       r"|^(?:[a-z_]\w*\.)+(?P<exception__4>[A-Z][a-z]\w*):\s\S", ignore_at=QUIET),
    rule("fatal_python", "unknown", r"Fatal Python error: (?P<reason>.+)"),
    # asyncio's report of a task whose exception nobody retrieved, the exception as a repr on
    # one line ("future: <Task finished name='Task-5' coro=<...> exception=CompilationError(...")
    rule("task_exception", "unknown",
       r"^future: <(?:Task|Future) finished\b.*? exception=(?:\w+\.)*(?P<exception>[A-Z]\w*)\(",
       keywords=("exception=",)),
    # errors of their own that carry no exception line: ONNX Runtime's status
    # ("[ONNXRuntimeError] : 1 : FAIL : ..."), a library call its CUDA macros checked ("CUDNN
    # error executing cudnnConvolutionForward(...)"), ggml's assertion ("GGML_ASSERT: f.c:1: x")
    rule("library_status_error", "unknown",
       # (also raised as one of ONNX Runtime's Python exceptions: "EPFail: [ONNXRuntimeError] ...")
       r"^(?:[\w.]+: )?\[\w+(?:Error|Exception)\] : \d+ : [A-Z_]+ :"
       r"|\b(?:CUDA|CUDNN|CUBLAS|CUFFT|CURAND|CUSPARSE|CUSOLVER|NCCL|cuDNN|cuBLAS) error "
       r"executing \w+"
       # (glued to the text a model was generating: "... is  toGGML_ASSERT: ...")
       r"|(?:\b|(?<=[a-z]))GGML_ASSERT: \S+:\d+: "
       # (and its newer wording: "f.c:1: GGML_ASSERT(x) failed")
       r"|\S+:\d+: GGML_ASSERT\(.*\) failed"
       # a C or C++ program's assert() on the host, which then aborts ("prog: src/model.cpp:32:
       # void Model::build(): Assertion `builder != nullptr' failed."); CUDA's per-thread assert
       # in a kernel is read before (``kernel_assert``)
       r"|\S+:\d+: .{0,400}?\bAssertion [`'].{1,300}' failed\.?\s*$",
       keywords=("error executing", "GGML_ASSERT", "Assertion ")),
    # torchrun's failure summary: the rank whose exit it saw first (an exit code of a signal is
    # a death, above, and replaces this heading); its own error is in that rank's output
    rule("elastic_root_cause", "unknown", r"^Root Cause \(first observed failure\):",
       wrapper=True, keywords=("Root Cause (first observed",)),
    # nvcc's count of a source file's errors (also inside a build log relayed at INFO)
    rule("nvcc_errors", "unknown", r"\b\d+ errors? detected in the compilation of\b",
       stage_hint="compile", keywords=("detected in the compilation of",)),
    # the CUDA runtime's own error string with no known cause in it (ggml's "CUDA error: an
    # internal operation failed", also named by a wait that gave up): an error of its own,
    # which a death right after does not replace
    rule("cuda_error_string", "unknown",
       r"(?:^|\] )(?:CUDA|HIP|cuda|hip) error(?: at \S+:\d+)?: \S"
       r"|" + _WAITED + _ENDED_BY_CUDA_ERROR),
    # The message of the C++ exception that ``terminate called after throwing an instance of``
    # announces: the error itself, as an exception line is (a known cause in it matched above;
    # also as a paste spaced it: "what (): stoi")
    rule("cpp_exception_what", "unknown", r"^\s*what ?\(\):\s+\S", keywords=("what(", "what (")),
    # libc++'s words for the same, the exception's type and message on the line (macOS, Android;
    # older releases: "terminating with uncaught exception of type std::out_of_range: ...")
    rule("cpp_uncaught", "unknown",
       r"\b(?:libc\+\+abi: )?terminating (?:due to|with) uncaught exception of type \S+: \S"),
)
# fmt: on
