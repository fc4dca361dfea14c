"""The rule table: which error text means which failure category, as ordered data.

Rules are tried in order against each cleaned log message; the first rule whose ``pattern``
matches decides the line's category. Specific causes come first (a CUDA fault before the NCCL
error that relays it), then relays (``weak`` rules such as NCCL errors and dead processes, which a
more specific cause in the same error block replaces), then ``wrapper`` rules (lines that only say
"see the root cause above"; they never win over a cause), then generic exception lines
(``unknown``). Downstream rules are prepended, so they win over these.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pytest_blackwell.failures.detail import convert_groups
from pytest_blackwell.failures.vocabulary import LIFECYCLE_STAGES

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_QUIET = ("DEBUG", "INFO", "WARNING")


@dataclass(frozen=True)
class Rule:
    """One signature of a failure category.

    ``pattern`` is a regular expression searched in the cleaned message (no timestamp, process
    tag or logger prefix); its named groups become ``Failure.detail`` (see
    :mod:`pytest_blackwell.failures.detail` for how values are typed). ``stage_hint`` names the
    stage this error belongs to when the log's own stage markers say less (the later of the two
    wins). ``wrapper`` marks lines that only point at an earlier root cause; ``weak`` marks relays
    that a more specific cause in the same error block replaces. ``keywords`` are literal strings
    one of which appears in every line the pattern can match, for lines that carry no error word
    (``error``, ``Error``, ``ERROR``, ``Traceback``): the fast scan only looks closely at lines
    containing a keyword. ``ignore_at`` lists log levels at which the rule does not apply (for
    text that vLLM also logs harmlessly as a warning). ``fixed_detail`` is added to every match.
    """

    name: str
    category: str
    pattern: str
    stage_hint: str | None = None
    wrapper: bool = False
    weak: bool = False
    keywords: tuple[str, ...] = ()
    ignore_at: tuple[str, ...] = ()
    fixed_detail: tuple[tuple[str, Any], ...] = ()
    regex: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        where = f"rule {self.name!r}"
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"rule name must be a non-empty string, got {self.name!r}")
        if not isinstance(self.category, str) or not _NAME.match(self.category):
            raise ValueError(
                f"{where}: category must be a lower_snake name such as 'device_oom', "
                f"got {self.category!r}"
            )
        if self.stage_hint is not None and self.stage_hint not in LIFECYCLE_STAGES:
            raise ValueError(
                f"{where}: stage_hint must be one of {', '.join(LIFECYCLE_STAGES)} or None, "
                f"got {self.stage_hint!r}"
            )
        if isinstance(self.keywords, str) or not all(
            isinstance(k, str) and k for k in self.keywords
        ):
            raise ValueError(f"{where}: keywords must be a tuple of non-empty strings")
        try:
            compiled = re.compile(self.pattern)
        except (re.error, TypeError) as exc:
            raise ValueError(
                f"{where}: pattern {self.pattern!r} is not a valid regular expression: {exc}"
            ) from None
        object.__setattr__(self, "regex", compiled)

    def match(self, text: str, level: str = "") -> dict[str, Any] | None:
        """The detail of a match of this rule in ``text`` (logged at ``level``), else ``None``."""
        if level and level in self.ignore_at:
            return None
        m = self.regex.search(text)
        if m is None:
            return None
        detail = convert_groups(m.groupdict())
        for key, value in self.fixed_detail:
            detail.setdefault(key, value)
        return detail


def _r(name: str, category: str, pattern: str, **kw: Any) -> Rule:
    return Rule(name, category, pattern, **kw)


_SIZE = r"\d+(?:\.\d+)?\s?[KMGT]?i?B"
_DEATH_WORDS = (
    r"Segmentation fault|Aborted|Killed|Bus error|Illegal instruction|Floating point exception"
)

# The table is kept in its compact hand layout: one rule per short block reads like data.
# fmt: off
#: The built-in rules, most specific first. See docs/failures.md before adding one.
DEFAULT_RULES: tuple[Rule, ...] = (
    # --- shared memory ------------------------------------------------------------------------
    _r("triton_smem", "smem_limit",
       r"out of resource: shared memory, Required: (?P<required_bytes>\d+), "
       r"Hardware limit: (?P<limit_bytes>\d+)"),
    _r("too_many_resources", "smem_limit", r"too many resources requested for launch"),
    _r("triton_out_of_resources", "smem_limit",
       r"^(?:[\w.]+\.)?OutOfResources\b|out of resource: shared memory",
       keywords=("OutOfResources",)),
    _r("dynamic_smem_set_failed", "smem_limit",
       r"(?i)(?:failed to set|cannot set|unable to set)\b.{0,60}?dynamic shared"
       r"|(?:requested|required) (?:dynamic )?shared memory.{0,80}?"
       r"(?:exceeds|larger than|greater than)"
       r"|shared memory (?:size )?(?:too large|too big|overflow)"),
    _r("dynamic_smem_attribute", "smem_limit",
       r"MaxDynamicSharedMemorySize.{0,200}?(?:invalid argument|failed|exceed)"
       r"|cudaFuncSetAttribute.{0,200}?(?:invalid argument|failed)"),
    _r("smem_exceeds", "smem_limit",
       r"(?i)(?:shared memory|smem)\b[^.]{0,80}?\bexceed(?:s|ed)?\b"
       r"|\bexceeds? (?:the )?(?:max\w* )?"
       r"(?:available )?(?:shared memory|smem)", keywords=("xceed",)),
    # --- kernel faults (before NCCL, which may relay them) --------------------------------------
    _r("illegal_address", "illegal_memory_access",
       r"an illegal memory access was encountered|CUDA_ERROR_ILLEGAL_ADDRESS"
       r"|CUDA Exception: Warp (?:Out-of-range|Illegal|Misaligned) Address"
       r"|cudaErrorIllegalAddress|hipErrorIllegalAddress"),
    _r("sanitizer_access", "illegal_memory_access",
       r"Invalid __(?:global|shared|local)__ (?:read|write|atomic)|is out of bounds.{0,40}?"
       r"(?:allocation|address)", keywords=("Invalid __",)),
    _r("misaligned", "illegal_memory_access",
       r"misaligned address|CUDA_ERROR_MISALIGNED_ADDRESS|cudaErrorMisalignedAddress"),
    _r("launch_failure", "illegal_memory_access",
       r"unspecified launch failure|CUDA_ERROR_LAUNCH_FAILED|cudaErrorLaunchFailure"),
    _r("illegal_instruction_cuda", "illegal_memory_access",
       r"an illegal instruction was encountered|CUDA_ERROR_ILLEGAL_INSTRUCTION"
       r"|cudaErrorIllegalInstruction|CUBLAS_STATUS_EXECUTION_FAILED"),
    _r("device_assert", "illegal_memory_access", r"device-side assert(?:ion)? triggered"),
    # --- CUDA graph capture -----------------------------------------------------------------------
    _r("capture_not_permitted", "stream_capture",
       r"operation not permitted when stream is capturing|cudaErrorStreamCapture\w*"
       r"|CUDA_ERROR_STREAM_CAPTURE_\w+|dependency created on uncaptured work in another stream"
       r"|operation would make the legacy stream depend on a capturing blocking stream"
       r"|capture (?:sequence )?(?:was |has been )?invalidated|previous error during capture"
       r"|outside graph capture encountered unexpectedly"
       r"|(?i:(?:cannot|can't|not (?:allowed|permitted|supported)|unsupported)\b[^.]{0,80}?"
       r"\b(?:during|while|when) (?:the )?(?:cuda ?)?(?:graph|stream) (?:is )?captur)",
       stage_hint="graph_capture"),
    # --- KV cache budget --------------------------------------------------------------------------
    _r("kv_no_memory", "kv_cache_oom", r"No available memory for the cache blocks",
       stage_hint="kv_alloc"),
    _r("kv_needed_larger", "kv_cache_oom",
       r"(?:max seq len \((?P<max_model_len>\d+)\)\W*)?\(?(?P<needed_bytes>" + _SIZE
       + r") KV cache "
       r"is needed, which is larger than the available (?:KV cache memory )?\((?P<available_bytes>"
       + _SIZE + r")\)(?:.*?estimated maximum model length is (?P<estimated_max_model_len>\d+))?",
       stage_hint="kv_alloc"),
    _r("kv_max_seq_len", "kv_cache_oom",
       r"max seq len \((?P<max_model_len>\d+)\) is larger than the maximum number of tokens that "
       r"can be stored in KV cache(?: \((?P<kv_cache_tokens>\d+)\))?", stage_hint="kv_alloc"),
    _r("free_memory_on_startup", "kv_cache_oom",
       r"Free memory on device(?: (?P<device>[\w:]+))? \((?P<free_gib>[\d.]+)/(?P<total_gib>[\d.]+)"
       r" GiB\) on startup is less than desired GPU memory utilization \((?P<utilization>[\d.]+), "
       r"(?P<requested_gib>[\d.]+) GiB\)", stage_hint="startup"),
    _r("cpu_node_memory_startup", "kv_cache_oom",
       r"Available memory on node (?P<numa_node>\d+) \((?P<available_gib>[\d.]+)/(?P<total_gib>"
       r"[\d.]+) GiB\) on startup is less than desired CPU memory utilization \("
       r"(?P<utilization>[\d.]+), (?P<requested_gib>[\d.]+) GiB\)", stage_hint="startup"),
    _r("cpu_node_memory_kv", "kv_cache_oom",
       r"Available memory on node (?P<numa_node>\d+) \((?P<available_gib>[\d.]+)/(?P<total_gib>"
       r"[\d.]+) GiB\) on kv cache\s?allocation is less than requested memory for kv \("
       r"(?:[\d.]+/)?(?P<requested_gib>[\d.]+)", stage_hint="kv_alloc"),
    _r("mamba_state_blocks", "kv_cache_oom",
       r"(?i)exceeds? (?:the )?available (?:mamba|ssm|state|conv|hybrid)\w* (?:cache )?blocks?"
       r"|(?:mamba|ssm|state) cache (?:blocks? )?(?:is|are)? ?(?:not enough|insufficient|too small)"
       r"|not enough (?:mamba|ssm|state) cache", stage_hint="kv_alloc"),
    _r("llama_cpp_kv", "kv_cache_oom",
       r"llama_kv_cache\w*: failed to allocate|llama_kv_cache\w*\(\) failed"
       r"|failed to allocate buffer for kv cache", stage_hint="kv_alloc",
       keywords=("failed to allocate",)),
    _r("kv_tokens_exhausted", "kv_cache_oom",
       r"(?i)(?:remaining|available|free) \d+ kv ?cache tokens?,? but"
       r"|kv ?cache (?:is )?(?:exhausted|full)\b"
       r"|not enough (?:free )?kv ?cache (?:blocks|tokens|space)",
       stage_hint="execute"),
    _r("kv_pool_exhausted", "kv_cache_oom",
       r"alloc_req_slots runs out of memory|(?:req_to_token|token_to_kv)_pool\w*.{0,60}?"
       r"(?:out of memory|is full|exhausted)", stage_hint="execute"),
    _r("kv_cache_too_small", "kv_cache_oom",
       r"maxTokensInPagedKvCache must be large enough"
       r"|(?i:(?:paged )?kv ?cache\b.{0,60}?must be (?:large|big) enough)", stage_hint="kv_alloc"),
    _r("kv_cache_insufficient", "kv_cache_oom",
       r"(?i)(?:insufficient|not enough)(?: available)? (?:memory|blocks?|space) for (?:the )?"
       r"(?:kv|mamba|state) cache|Not enough memory\. Please try to increase --mem-fraction-static",
       stage_hint="kv_alloc"),
    # --- plain device allocation ---------------------------------------------------------------
    _r("ray_memory_monitor", "engine_died",
       r"killed due to (?:the )?(?:node running low on memory|memory pressure)"
       r"|ray\.exceptions\.OutOfMemoryError|Ray killed this worker|ray-oom-prevention",
       keywords=("killed due to", "Ray killed", "ray-oom-prevention")),
    _r("torch_oom", "device_oom",
       r"out of memory\. Tried to allocate (?P<tried_bytes>" + _SIZE + r")(?:.*?total capacity of "
       r"(?P<total_bytes>" + _SIZE + r") of which (?P<free_bytes>" + _SIZE + r") is free"
       r"|.*?\((?:GPU \d+; )?(?P<total_bytes__2>" + _SIZE
       + r") total capacity;.*?(?P<free_bytes__2>"
       + _SIZE + r") free)?"),
    _r("cpu_alloc", "device_oom",
       r"DefaultCPUAllocator: (?:can't allocate|not enough memory|could not allocate)"
       r"(?:.*?you tried to allocate (?P<tried_bytes>\d+) bytes)?"),
    _r("alloc_failed", "device_oom",
       r"CUDA (?:driver )?error: out of memory|CUDA out of memory|cudaErrorMemoryAllocation"
       r"|OutOfMemoryError"
       r"|CUBLAS_STATUS_ALLOC_FAILED|CUDNN_STATUS_ALLOC_FAILED|CUDA_ERROR_OUT_OF_MEMORY"
       r"|hipErrorOutOfMemory|cudaMalloc(?:Async)? failed: out of memory"
       r"|Cuda failure (?:\d+ )?'out of memory'"
       r"|\[Errno 12\] Cannot allocate"
       r"|(?i:\bcuda\w*(?: runtime)? (?:error|failure)\b.{0,240}?\bout of memory)"
       r"|Cuda Runtime \(out of memory\)|cudaMalloc\w* failed: out of memory"
       r"|Error Code \d+: OutOfMemory|would exceed allowed memory|\(out of memory\)"
       r"|CUDA out of(?: m\w*)?\s*$"),
    _r("ggml_pool_full", "device_oom",
       r"not enough space in the context's memory pool(?: \(needed (?P<needed_bytes>\d+), "
       r"available (?P<available_bytes>\d+)\))?", keywords=("not enough space",)),
    _r("buffer_alloc_failed", "device_oom",
       r"(?:alloc_buffer|ggml_gallocr\w*): (?:failed to allocate|allocating .{0,80}?failed)",
       weak=True, keywords=("failed to allocate", "alloc_buffer")),
    # --- no kernel for this hardware -----------------------------------------------------------
    _r("no_kernel_image", "dispatch_failure",
       r"no kernel image is available for execution on the device|cudaErrorNoKernelImageForDevice"
       r"|CUDA_ERROR_NO_BINARY_FOR_GPU|invalid device function|CUBLAS_STATUS_NOT_SUPPORTED"
       r"|CUDNN_STATUS_NOT_SUPPORTED|CUDNN_STATUS_ARCH_MISMATCH"),
    _r("cutlass_scaled_mm", "dispatch_failure",
       r"No compiled (?:cutlass_)?\w+ for (?:a )?(?:compute capability less than )?(?:CUDA )?"
       r"device capability:? "
       r"(?P<compute_capability>\d+)|dispatch_scaled_mm\w*.{0,80}?(?:capability:? "
       r"(?P<compute_capability__2>\d+)|not (?:supported|implemented))"),
    _r("ptxas_arch", "dispatch_failure",
       r"ptxas\b.{0,40}?(?:fatal|error)\s*:.*?'sm_(?P<compute_capability>\d+)a?'.*?not defined"
       r"|(?:PTXAS|ptxas) (?:fatal|error)|CalledProcessError: Command '\[[^\]]{0,300}?ptxas",
       stage_hint="compile"),
    _r("capability_unsupported", "dispatch_failure",
       r"Minimum capability: (?P<min_capability>\d+)\.? Current capability: "
       r"(?P<compute_capability>\d+)|compute capability (?P<compute_capability__2>\d+(?:\.\d+)?)"
       r"[^.]{0,40}?not supported|not supported (?:on|for) (?:compute capability|sm_?)"
       r"(?P<compute_capability__3>\d+(?:\.\d+)?)|supported on GPUs with compute capability of "
       r"at least (?P<min_capability__2>[\d.]+)(?:.*?has compute capability "
       r"(?P<compute_capability__4>[\d.]+))?"
       r"|only supports (?:Ampere|Hopper|Blackwell|Turing|sm_?\d+)[\w ]*(?:GPUs?)?(?: or newer)?"
       r"|Cannot use FlashAttention(?:-2)? backend for|Min capability: (?P<min_capability__3>\d+)"),
    _r("arch_unsupported", "dispatch_failure",
       r"(?i:unsupported (?:gpu |cuda |sm )?arch(?:itecture)?\b)|cannot be enabled except on "
       r"|not supported in this architecture|No supported CUDA architectures found"
       r"|Failed to initialize cutlass|not supported for .{0,10}the current GPU"),
    _r("head_dim_unsupported", "dispatch_failure",
       r"Unsupported head_?(?:dim|size)\b(?:[^:=\d]*[:=] ?(?P<head_dim>\d+))?"
       r"|Head size (?P<head_dim__2>\d+) is not supported"
       r"|(?i:(?:does not|doesn't|only) supports? head ?(?:dim|size)(?:ension)?s?)"
       r"|Expect\w* \(?[^)]{0,40}head_?[Dd]im"),
    _r("kernel_config_invalid", "dispatch_failure",
       r"Invalid configuration\s?: \w+=\d+|Invalid [\w\-]+(?: [\w\-]+)? tactic"
       r"|(?i:no valid (?:kernel )?(?:tactic|kernel config\w*))"),
    _r("no_attention_backend", "dispatch_failure", r"No valid attention backend found"),
    # A backend refusing this kv-cache dtype or compute capability: no kernel for this setup.
    _r("backend_not_valid", "dispatch_failure",
       r"Selected backend (?:\w+\.)?(?P<backend>\w+) is not valid for this configuration"),
    _r("cpu_attention_unsupported", "dispatch_failure",
       r"Unsupported CPU attention configuration"
       r"|FP8 KV cache (?:on CPU requires|requires head_size)"
       r"|requires x86 with AVX-512"),
    # An attention/GEMM backend refusing a dtype or feature of the model: no kernel for it here
    # (also when the message is cut right after "no").
    _r("backend_refuses_feature", "dispatch_failure",
       r"(?:Flash\w*|FlexAttention|XFormers|Triton\w*|TRTLLM\w*|CUTLASS\w*|\w*MLA|\w+Attn)"
       r"(?: V\d)?(?: (?:attention )?backend)?\b[^.:]{0,60}?"
       r"(?:\bdoes(?: not|n't) (?:yet )?support\b|\bis not supported\b|\bnot supported\b"
       r"|\bno(?:t(?: s\w*)?)?\s*$)"),
    _r("symbol_not_in_binary", "dispatch_failure",
       r"cudaErrorSymbolNotFound|CUDA_ERROR_NOT_FOUND|named symbol not found"),
    _r("op_not_for_backend", "dispatch_failure",
       r"Could not run '[\w:.]+' with arguments from the '(?P<backend>\w+)' backend"),
    # --- the environment cannot run it ------------------------------------------------------------
    _r("driver_too_old", "env_mismatch",
       r"CUDA driver version is insufficient|cudaErrorInsufficientDriver|NVIDIA driver on your "
       r"system is too old|Found no NVIDIA driver|CUDA_ERROR_UNSUPPORTED_PTX_VERSION"
       r"|PTX was compiled with an unsupported toolchain|unsupported display driver"
       r"|cudaErrorSystemDriverMismatch|CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"),
    _r("ipc_path_too_long", "env_mismatch",
       r"ipc path .{0,300}? is longer than (?P<limit>\d+) characters"),
    _r("missing_compiler", "env_mismatch",
       r"No working C\+\+ compiler found|InvalidCxxCompiler|Failed to find C compiler"
       r"|Python\.h: No such file or directory|gcc: (?:error|fatal)"
       r"|Command '\[[^\]]{0,40}?(?:gcc|g\+\+|clang|/cc)'|\w+\.h: No such file or directory",
       stage_hint="compile"),
    _r("no_device", "env_mismatch",
       r"Torch not compiled with CUDA enabled|no CUDA-capable device is detected|CUDA-capable "
       r"device\(s\) is/are busy or unavailable|Failed to infer device type|Cannot re-initialize "
       r"CUDA in forked subprocess|\[Errno 28\] No space left on device"),
    _r("library_mismatch", "env_mismatch",
       r"undefined symbol: (?P<symbol>\S+)|cannot open shared object file|version `(?P<glibc>"
       r"GLIBC\w*_[\d.]+)' not found|operator [\w:]+ does not exist",
       ignore_at=_QUIET),
    _r("jit_build_failed", "env_mismatch",
       r"Error building extension '|ninja: build stopped: subcommand failed|Ninja build failed"
       r"|^:?/\S*/nvcc\s+-|^FAILED: \S+\.(?:cuda\.)?o\b",
       weak=True, stage_hint="compile"),
    _r("backend_not_installed", "env_mismatch",
       r"(?i)is not available or (?:is )?outdated"
       r"|(?:not installed|is outdated)\W+please (?:install|upgrade)"
       r"|cudaErrorNotSupported|MemPool\w*\([^)]*\): operation no(?:t supported)?"),
    _r("extension_not_loaded", "env_mismatch",
       r"'_OpNamespace' '_C\w*' object has no attribute '(?P<op>\w+)'"),
    _r("module_missing", "env_mismatch", r"No module named '(?P<module>[\w.]+)'",
       ignore_at=_QUIET),
    # --- configuration or model files rejected ----------------------------------------------------
    _r("config_validation", "unsupported_config",
       r"ValidationError: \d+ validation errors? for (?P<config>\w+)", stage_hint="startup"),
    _r("model_files", "unsupported_config",
       r"does not appear to have (?:a file|files) named (?P<missing_file>[\w\-]+(?:\.\w+)*)"
       r"|Invalid repository ID or local directory specified: '(?P<model>[^']+)'"
       r"|Can't load (?:the )?(?:tokenizer|config|configuration) for"
       r"|RepositoryNotFoundError|GatedRepoError|HFValidationError|Unrecognized model in"
       r"|does not recognize this architecture|SafetensorError|Error while deserializing header"
       r"|size mismatch for [\w.]+|(?:Missing|Unexpected) key\(s\) in state_dict|JSONDecodeError"),
    _r("unknown_model_architecture", "unsupported_config",
       r"unknown model architecture: '?(?P<architecture>[\w.\-]+)|error loading model architecture"
       r"|unknown (?:pre-tokenizer|tokenizer) type", stage_hint="loading"),
    # A KeyError on a parameter name (or vLLM's log of it, the bare quoted name): the checkpoint
    # does not hold what the model built from its config expects.
    _r("parameter_missing", "unsupported_config",
       r"^(?:[\w.]+\.)?KeyError: '(?:\w+\.)*(?:layers?|blocks?|h)\.\d+\.[\w.]+'"
       r"|^'(?:\w+\.)*(?:layers?|blocks?|h)\.\d+\.[\w.]+'$", stage_hint="loading"),
    _r("architecture_unsupported", "unsupported_config",
       r"Model architectures? \[?'?(?P<architecture>\w+)'?\]? (?:are|is) not supported"
       r"|Model architectures? \[?'?(?P<architecture__2>\w+)'?\]? failed to be inspected"),
    _r("config_limit", "unsupported_config",
       r"\bis (?:greater|larger) than (?:the )?(?:configured )?max_[a-z_]+\b"),
    _r("argument_rejected", "unsupported_config",
       r"argument --[\w-]+: invalid|unrecognized arguments:|Failed to parse (?:the )?arguments"
       r"|got (?:an )?(?:invalid|unexpected|unknown) (?:keyword )?argument"
       r"|Unknown (?:quantization method|kv cache"
       r" dtype|attention backend)|Invalid (?:attention backend|kv_cache_dtype)|max_model_len \("
       r"(?P<max_model_len>\d+)\) is greater than the derived max_model_len|does not match the "
       r"quantization method specified in the `quantization` argument",
       stage_hint="startup"),
    # --- kernel driver lines ---------------------------------------------------------------------
    _r("xid_fault", "illegal_memory_access",
       r"NVRM: Xid \([^)]*\): (?P<xid>13|31|32|43|69)\b", keywords=("Xid",)),
    _r("xid_timeout", "timeout",
       r"NVRM: Xid \([^)]*\): (?P<xid>8|109)\b|NVRM: Xid \([^)]*\): (?P<xid__2>\d+)\b.{0,200}?"
       r"TIMEOUT\b", keywords=("Xid",)),
    _r("gpu_lost", "unknown",
       r"NVRM: Xid \([^)]*\): (?P<xid>\d+)|fallen off the bus|NVRM: .{0,80}?(?:failed|error)",
       keywords=("Xid", "off the bus", "NVRM")),
    # --- relays: a more specific cause in the same block wins -------------------------------------
    _r("nccl", "nccl_error",
       r"NCCL [Ee]rror"
       r"|nccl(?:Internal|System|UnhandledCuda|InvalidUsage|Remote|InvalidArgument)Error"
       r"|NCCL communicator was aborted|retrieving ncclUniqueId"
       r"|ProcessGroupNCCL.{0,120}?(?:[Ww]atchdog|[Tt]imeout|timed out)"
       r"|Watchdog caught collective operation timeout", weak=True),
    _r("custom_all_reduce", "nccl_error", r"custom_all_reduce\w*\.cuh?:\d+|CustomAllreduce\w*"),
    _r("nccl_warn", "nccl_error", r"NCCL WARN", weak=True, keywords=("NCCL WARN",)),
    _r("watchdog_timeout", "timeout",
       r"^Watchdog timeout\b|watchdog_timeout=\d+\)", keywords=("atchdog",)),
    _r("timed_out", "timeout",
       r"^(?:[\w.]+\.)?\w*Timeout(?:Error|Exception|Expired)?\b(?::|$)|[Tt]imed out waiting for"
       r"|RPC call to \w+ timed out|(?i:\b(?:operation|request|rpc|call|collective|handshake"
       r"|connection|wait\w*) (?:has )?timed out\b)|(?i:\btimed out after \d+)"
       r"|(?i:deadline exceeded)|DEADLINE_EXCEEDED|(?i:timeout of \d+(?:\.\d+)? ?(?:ms|s|seconds?) "
       r"(?:exceeded|reached))"
       r"|launch timed out and was terminated|cudaErrorLaunchTimeout|Gateway Time-?out"),
    _r("runner_terminated", "engine_died",
       r"runner process (?:has )?terminated: "
       r"(?:exit status (?P<status>\S+)|signal: (?P<signal>[\w ]+))",
       weak=True),
    _r("worker_died", "engine_died",
       r"actor is dead because its worker process has died|Worker unexpectedly exits"
       r"|(?:Worker|Engine core|RayWorker\w*) proc(?:ess)? (?P<process>\S+) died unexpectedly"
       r"(?: \(exit code: (?P<exit_code>-?\d+)\))?|(?P<process__2>\S+ rank=\d+) died unexpectedly"
       r"|engine core exited unexpectedly"
       r"|(?:[Ss]cheduler|[Dd]etokenizer|[Ww]orker|[Ee]ngine\w*)(?: process)? is dead\b",
       weak=True),
    _r("fatal_signal", "engine_died",
       r"Fatal Python error: (?P<signal>" + _DEATH_WORDS + r")|^(?:.*: )?(?P<signal__2>"
       + _DEATH_WORDS + r")(?: \(core dumped\))?\s*$|\*\*\* (?P<signal__3>SIG[A-Z]+) received"
       r"|Signal (?P<signal__4>\d+) \(SIG[A-Z]+\) received|(?:killed|terminated|died) (?:by|with) "
       r"signal (?P<signal__5>SIG[A-Z]+|\d+)|[Ee]xit(?:ed)?(?: with)? (?:code|status)[: ]+"
       r"(?P<exit_code>-\d+|1[3-5]\d)\b|exitcode\s*[:=]\s*(?P<exit_code__2>-\d+)"
       r"|(?i:(?:^|\b(?:z|ba)?sh: |^\[\d+\]\s+\d+ )"
       r"(?P<signal__6>segmentation fault|killed|bus error"
       r"|abort(?:ed)?)\b)|(?P<signal__7>Segfault) encountered"
       r"|received (?P<signal__8>SIGSEGV|SIGBUS|SIGILL|SIGABRT|SIGFPE)\b",
       weak=True, keywords=("egmentation", "egfault", "received SIG")),
    # --- generic configuration rejection (after the specific causes above) ---------------------
    _r("value_error", "unsupported_config",
       r"^(?:[\w.]+\.)?(?:ValueError|NotImplementedError): ", ignore_at=_QUIET),
    # --- wrappers: never a cause ------------------------------------------------------------------
    _r("capture_failed", "unknown",
       r"(?i)(?:capture cuda ?graph|cuda ?graph capture|capturing cuda ?graphs?) failed",
       wrapper=True, stage_hint="graph_capture"),
    _r("engine_init_failed", "engine_died",
       r"(?:Engine core initialization failed|EngineCore failed to start|WorkerProc failed to "
       r"start|WorkerProc initialization failed|Engine process failed to start"
       r"|Frontend process failed during engine core "
       r"initialization)(?:.*?Failed core proc\(s\): (?P<failed_procs>\{[^}]*\}))?",
       wrapper=True),
    _r("engine_dead", "engine_died",
       r"EngineDeadError|EngineCore encountered (?:an issue|a fatal error)|Engine loop has died"
       r"|Background loop has errored|Server exited unexpectedly|Backend worker is gone"
       r"|output_handler failed"
       r"|Received sigquit from a child process",
       wrapper=True),
    _r("cpp_terminate", "engine_died", r"terminate called (?:after throwing|without)",
       wrapper=True, fixed_detail=(("signal", "SIGABRT"),)),
    # Precursors: warnings that name an environment problem; a later cause wins over them
    # (usually "no kernel image is available" or a missing op), else they are the answer.
    _r("torch_arch_missing", "env_mismatch",
       r"with CUDA capability (?P<arch>sm_\d+a?) is not compatible with the current PyTorch",
       keywords=("is not compatible with the current PyTorch",), wrapper=True),
    _r("extension_import_failed", "env_mismatch",
       r"Failed to import from [\w.]+ with ImportError\(.{0,300}?undefined symbol: "
       r"(?P<symbol>[^\s')]+)", wrapper=True),
    _r("engine_build_failed", "unknown",
       r"(?i)engine build(?:ing)? failed"
       r"|failed to build (?:the |a |serialized )?(?:tensorrt )?engine",
       wrapper=True, stage_hint="compile", keywords=("building failed", "ailed to build")),
    _r("worker_wrapper", "unknown",
       r"Worker failed with error|Exception in worker \S+ while processing method"
       r"|Error executing method|Exception in thread ", wrapper=True),
    # --- anything else that is an exception -------------------------------------------------------
    _r("exception", "unknown",
       r"^(?:[A-Za-z_][\w]*\.)*(?P<exception>[A-Z]\w*(?:Error|Exception|Failed|Interrupt"
       r"|OutOfResources|InvalidCxxCompiler|Unsupported))(?::|$)", ignore_at=_QUIET),
    _r("fatal_python", "unknown", r"Fatal Python error: (?P<reason>.+)"),

)
# fmt: on
