"""The general words of each category: the vocabulary that ``cues`` reads an error's message with.

Each cue is a category's vocabulary, not the wording of one log: a shortage of memory, a
refusal naming an architecture or a kernel, a missing or invalid setting. A cue holds when all
of its patterns are found in one error message; cues are listed from the most specific category
to the most general one, the order they are tried in.
"""

from __future__ import annotations

import re

from pytest_blackwell.failures.errorwords import SETTING_VALUE, SIGNAL_DEATH

#: An installed build that cannot use the GPU at all ("The installed version of bitsandbytes was
#: compiled without GPU support"): a failure even as a warning, when it is a log's last word.
NO_GPU_BUILD = (
    r"\b(?:compiled|built) without (?:\w+ )?(?:GPU|CUDA|ROCm|HIP) support\b"
    r"|\bnot compiled with (?:CUDA|GPU|ROCm|HIP)(?: support)? enabled\b"
)

#: Memory that could not be had, in the words of allocators, runtimes and frameworks.
SHORTAGE = (
    # (Windows' commit limit reached: "The paging file is too small for this operation ...")
    r"\bpaging file is too small\b|"
    # (not a guess, asked: cog's "... It might have run out of memory? (exitcode -6)")
    r"\bout of (?:\w+ )?memory\b(?!\s*\?)|\bOOM\b|\bMemoryError\b"
    r"|\bOutOfMemory(?:Error|Exception)\b"
    r"|\b(?:unable|failed|fails|cannot|can't|can not|could not|couldn't|fail|tried) (?:to )?"
    r"(?:allocate|alloc|reserve|malloc)\b"
    r"|\b(?:allocation|malloc|\w*mem_?alloc\w*)\b.{0,60}?\b(?:failed|failure|error)\b"
    # (the failure named first: "error when allocating memory or building DAG")
    r"|\b(?:error|failure|failed) (?:when |while )?(?:allocating|reserving) (?:\w+ ){0,2}memory\b"
    r"|\b(?:insufficient|unsufficient|not enough) (?:\w+ ){0,2}(?:memory|v?ram)\b"
    r"|\bmemory (?:is )?(?:exhausted|insufficient)\b"
    r"|\bexceeds? (?:the )?(?:available|free|total) (?:\w+ ){0,2}memory\b"
    r"|\bmore (?:\w+ ){0,2}memory\b.{0,40}?\bthan (?:is |are )?(?:available|free)\b"
    # (a size asked for, then what is left: "allocating memory for tmp_v with size 536346624
    # ..., but only 413138944 bytes available")
    r"|\bbut only [\d.,]+ ?(?:[KMGT]i?B|bytes)\b (?:of (?:\w+ )?memory )?(?:are |is )?"
    r"(?:available|free|left)\b"
    r"|ERROR_OUT_OF_(?:DEVICE_|HOST_)?MEMORY|\bRESOURCE_EXHAUSTED\b"
)
#: What a GPU architecture, a compiled target or a device is called in refusals.
_ARCH = (
    r"(?:\bsm_?\d{2,3}[af]?\b|\bSM ?\d{2,3}\b|\bcompute[ _]?capabilit(?:y|ies)\b"
    r"|\bcompute_\d{2,3}\b|\bgfx\d{3,4}\w*|\b(?:Blackwell|Hopper|Ampere|Lovelace|Turing|Volta|Pascal)\b"
    r"|\bAscend ?\d{3}\w*"  # (Huawei's NPUs, as CANN names them: "Ascend910B")
    r"|\b(?:this|your|the current|current) (?:GPU|device|architecture|arch|hardware|platform)\b"
    r"(?<!request the support for this architecture)"  # (a model's, in transformers' words)
    r"|\bCUDA capabilit(?:y|ies)\b|\b\d\.\d capability\b|\bcapability \d\.\d\b"
    r"|\bcompute cap \d+\b"  # (as Rust's candle names it: "Runtime compute cap 52")
    # (as an integer, vLLM's and FlashInfer's: "with capability 120", "min_capability = 70")
    r"|\b(?:min_)?capability(?: is| =|:)? ?\d{2,3}\b"
    # (a feature the hardware lacks, TensorRT's: "... require hardware with FP8 support")
    r"|\bhardware with (?:\w+ ){1,2}support\b"
    r"|\bthe target (?:GPU|device)\b"
    # (the device itself refusing: Metal's "device does not support residency sets")
    r"|\b(?:device|GPU|hardware)(?= do(?:es)?(?: not|n't) support\b)"
    # an architecture compared with a number ("not supported on CUDA arch < 89")
    r"|\b(?:CUDA |GPU |compute )?arch(?:itecture)?\s*[<>]=?\s*\d)"
)
#: A kernel-level thing that can be missing for a dtype, a shape or an architecture.
_KERNEL = (
    r"(?:\bkernels?\b|\bbackend\b|\battention\b|\battn\b|\b\w*gemm\b|\bmatmul\b|\bwgmma\b|\bmma\b"
    r"|\bflash\w*|\bcutlass\b|\bcublas\w*|\bcudnn\b|\bMLA\b|\bfmha\b|\bop(?:erator)?s?\b"
    r"|\bmetal\b|\bmps\b|\bvulkan\b|\bconv\d?d\b|\bmyelin\b)"  # (GPU backends, TensorRT's Myelin)
)
#: A refusal: not supported, not implemented, only available for, requires.
_REFUSAL = (
    r"(?:\bnot (?:yet )?(?:supported|implemented|available|compiled|enabled)\b|\bunsupported\b"
    r"|\bno (?:kernel|implementation|support)\b"
    r"|\bonly (?:supported|available|works?|implemented|allowed)\b"
    r"|\bonly supports\b|\btoo old to be supported\b"
    r"|\bdo(?:es)?(?: not|n't) support\b|\bcannot run\b|\bincompatible\b|\brequire[sd]?\b"
    r"|\bnot compatible\b"
    # (a feature one architecture has, named: "Only Hopper supports different V headdim"; a
    # check of the target: "expects arch to be one of ['sm_100a', 'sm_100f'], but got sm_121a")
    r"|\bonly (?:\w+ ){1,2}supports?\b|\bexpects? (?:the )?(?:arch\w*|target|device) to be\b"
    # (a build for the architecture looked for and not there: "Could not find compatible
    # tinycudann extension for compute capability 75")
    r"|\b(?:could not|couldn't|cannot|unable to) find (?:a |any )?compatible\b)"
)
#: The operand a kernel exists for or not: a dtype, a head size, a shape.
_OPERAND = (
    r"(?:\bfp8\b|\bfloat8\w*|\b(?:f8)?e[45]m[23]\w*|\b(?:nv|mx)?fp4\b|\bu?int[48]\b|\bbf16\b|\bbfloat16\b"
    # (ggml's and candle's names of the float types: "Metal conv2d F16 not implemented")
    r"|\bfp16\b|\bfloat16\b|\bb?f(?:16|32)\b|\bf(?:p|loat)?64\b|\bdtypes?\b|\bdata[ _]?types?\b"
    r"|\bhead[ _]?(?:dim|size)s?\b|\bshapes?\b"
    r"|\b(?:block|page|tile) sizes?\b)"
)

#: A device the program cannot find or set up ("Could not find/initialize a specified
#: accelerator device"): the environment cannot run it (here), and while the process starts
#: (:mod:`.phrases`).
DEVICE_NOT_SET_UP = (
    r"\b(?:could not|couldn't|cannot|can't|unable to|failed to) (?:find|initiali[sz]e"
    r"|detect|open|access)(?:/\w+)? (?:an? |the |any |specified |requested |single |usable "
    r"|suitable |accessible |available ){0,2}"
    r"(?:(?:accelerator|GPU|CUDA|gpu|cuda|OpenCL|Vulkan|SYCL|Metal) devices?\b"
    # (or a GPU by its word alone: Spark RAPIDS' "Could not find a single GPU to use")
    r"|(?:GPU|gpu)s?(?: to use| for\b|\s*[.,;:!]|\s*$))"
    # a launcher's own check that torch can use the GPU (stable-diffusion-webui's "Torch is not
    # able to use GPU; add --skip-torch-cuda-test ...")
    r"|\bis not able to use (?:the |any )?(?:GPU|CUDA|gpu|cuda)\b"
    # the same check in Forge's launcher ("Your device does not support the current version of
    # Torch/CUDA!"): the torch installed cannot use the device
    r"|\bdevice does not support the (?:current|installed) version of (?:Py)?Torch\b"
    # llamafile's "--n-gpu-layers 35 was passed but no gpus were found"
    r"|\bno (?:GPU|CUDA|gpu|cuda|OpenCL|Vulkan|SYCL)(?: device)?s? (?:were |was )?"
    r"(?:found|detected)\b"
    # (torch's "No CUDA GPUs are available"; Habana's "[Device not found] Device acquire failed")
    r"|\b[Nn]o (?:CUDA |GPU |Vulkan |XPU )?(?:GPUs|devices) are available\b|\bDevice acquire failed"
    r"|\b[Nn]o (?:GPU |CUDA |Vulkan )?device could be (?:created|found|initiali[sz]ed)\b"
    r"|\b[A-Z]+_ERR(?:OR)?_DEVICE_UNAVAILABLE\b"  # (a runtime's status: RKNN_ERR_DEVICE_...)
    # the GPUs that cannot be listed ("Unable to retrieve list of all GPU devices", GPT4All's)
    r"|\b(?:could not|couldn't|cannot|can't|unable to|failed to) (?:retrieve|list|enumerate)"
    r" (?:the )?(?:list of )?(?:all |any )?(?:GPU|CUDA|gpu|cuda) devices?\b"
)

#: A binding that cannot find the native library it wraps (.NET's "Native Library not found in
#: default paths"): the environment lacks it, and it is looked for as the program starts
#: (:mod:`.evidence`).
NATIVE_LIBRARY_MISSING = (
    r"\bnative librar(?:y|ies) (?:\w+ )?(?:not found|cannot be (?:correctly )?loaded"
    # (LLamaSharp's "cannot be correctly loaded", and its newer words)
    r"|could not be (?:correctly )?loaded)\b|\bfailed to load (?:the )?native librar(?:y|ies)\b"
)

#: ``(category, patterns)``: the cue holds when every pattern is found in the text.
_CUES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "kv_cache_oom",
        (
            r"\bkv[ _-]?cache\b|\b(?:cache|kv) blocks?\b|\b(?:ssm|mamba) (?:state|cache)\b"
            r"|\brs cache\b|\brecurrent[ -]state cache\b"
            r"|\blmcache\b",  # LMCache, the KV-cache layer: its allocator holds KV blocks
            SHORTAGE,
        ),
    ),
    # a cache manager out of the entries it hands out (TurboMind's "No enough cache entries")
    (
        "kv_cache_oom",
        (r"\b(?:not|no) enough (?:free )?(?:kv[ _-]?)?cache (?:entries|blocks|slots)\b",),
    ),
    (
        "smem_limit",
        (
            # (Metal calls a block's shared memory its threadgroup memory; not the host's "(shm)")
            r"\b(?:shared[ _]?mem(?:ory)?|smem|threadgroup memory)\b(?! ?\(shm\))",
            r"\bexceed|\btoo (?:large|much|big|many)\b|\blimit\b|\binsufficient\b|\bnot enough\b"
            r"|\bconstraint\b"
            r"|\bout of resource|\blarger than\b|\bmore than\b",
        ),
    ),
    (
        "engine_died",
        (
            r"(?-i:\bSIG(?:KILL|SEGV|ABRT|BUS|FPE|ILL)\b)|\bkilled\b|\bcore dumped\b"
            r"|\bdied\b|\bcrashed\b|"
            + SIGNAL_DEATH
            + r"|\bsegmentation fault\b|\b(?:exited|terminated) (?:unexpectedly|by signal)\b"
            # (not when it names the error that ended it: "process has terminated:
            # GGML_ASSERT(...) failed" is that error's; only an exit status or a signal)
            r"|\bprocess (?:has )?(?:terminated|exited)\b(?!: (?!exit status|signal)\S)"
            # (nor systemd's word for a unit whose process returned an error status: "the control
            # process exited with error code", "Main process exited, code=exited, status=1")
            r"(?! with error code\b|, code=exited\b)"
            # (a worker of a pool: "A process in the process pool was terminated abruptly")
            r"|\bterminated abruptly\b"
            # (a server's loop that gave up: "Scheduler terminated after 3 consecutive errors")
            r"|\bterminated after \d+ (?:consecutive )?(?:errors|failures)\b"
            # a server or backend process gone: the connection to it ends (Go's "EOF")
            r"|\b(?:rpc error|server|backend|Post|Get)\b.{0,100}?(?::|\bfrom server) EOF\b"
            r"|\bconnection (?:reset|refused|closed) by (?:the )?(?:remote |peer|server)"
            # the server process the caller talked to is gone ("Remote server ... closed")
            r"|\bremote server\b.{0,80}?\bclosed\b"
            # a helper process found dead by its parent ("Stub process 'm_0' is not healthy")
            # (or a backend process: TEI's "Model backend is not healthy")
            r"|\b(?:process|backend)\b.{0,80}?\bis (?:not healthy|unhealthy)\b",
        ),
    ),
    ("device_oom", (SHORTAGE,)),
    (
        "illegal_memory_access",
        (
            r"\billegal (?:memory )?(?:access|address)\b|\bpage fault\b|\bMMU fault\b"
            # a device core faulting on an address it may not use so ("misaligned address",
            # Ascend's "caused by unaligned UUB addresses")
            r"|\b(?:misaligned|unaligned) (?:\w+ )?address(?:es)?\b"
            r"|\bout[- ]of[- ]bounds (?:memory )?(?:access|read|write)\b",
        ),
    ),
    (
        "timeout",
        (
            # (not a setting and its value: "Timeout: 30s")
            r"\btimed?[ -]?out\b(?!" + SETTING_VALUE + r")|\bTimeout(?:Error|Exception):"
            r"|\bdeadline exceeded\b"
            r"|\btimeout (?:after|of \d|waiting|while|expired|reached|exceeded)\b"
            r"|\btimeout (?:check )?failed\b"
            r"|\b(?:did not|didn't|never) (?:become (?:ready|healthy)|respond\w*|finish\w*"
            r"|complete\w*)\b"
            r"|\bnot (?:ready|up|healthy|responding) (?:after|within)\b"
            r"|\b(?:for|taking|takes|took) too long\b"
            # a wait that a watchdog reports as a hang ("This thread has been waiting for `...`
            # for 10 seconds and may be stuck", XLA's rendezvous)
            r"|\bmay be stuck\b|\b(?:seems|appears) (?:to be )?stuck\b"
            # (a job killed by its scheduler's watchdog: "ERROR: No Heartbeat", "killed because
            # a heartbeat was not received for 30 seconds")
            r"|(?i:\bno heartbeat\b|\bheartbeat (?:was )?not received\b)",
        ),
    ),
    # (also Habana's and Ascend's HCCL; c10d itself, not an op of its namespace a tensor
    # subclass dispatches: "found no DeviceMesh from dtensor args for c10d.broadcast_.default")
    # (or one of NCCL's settings named in the message: "Failed to retrieve NCCL_DESYNC_DEBUG
    # report")
    (
        "nccl_error",
        (r"(?-i:\b[NRH]CCL(?:_[A-Z_]+)?\b|\bProcessGroupNCCL\b|\bnccl[A-Z]\w+)|\bc10d\b(?!\.\w)",),
    ),
    # a device the program cannot use says so before any refusal it words ("Your device does
    # not support the current version of Torch"): read before the missing kernels
    ("env_mismatch", (DEVICE_NOT_SET_UP,)),
    ("dispatch_failure", (_REFUSAL, _ARCH)),
    ("dispatch_failure", (_REFUSAL, _KERNEL, _OPERAND)),
    # a GPU backend's own source refusing what it was asked ("ggml-metal.m:539: false && \"not
    # implemented\"", "prefill.cuh:2215: Unsupported max_mma_kv: 0"): no kernel there for the op,
    # its type or its shape
    (
        "dispatch_failure",
        (
            r"\bnot (?:yet )?(?:implemented|supported)\b|\bunsupported\b",
            r"\bggml[-_](?:metal|cuda|vulkan|sycl|opencl|cann|hip|musa)(?:\b|_)|\.(?:cu|cuh|metal):\d+",
        ),
    ),
    # a feature that only one attention backend has ("Bidirectional attention for image tokens
    # requires TritonAttnBackend"): no kernel for it in the backend that runs
    # (or FlashAttention itself: "Sharded Llama requires Flash Attention enabled models", on a
    # GPU without its kernels)
    (
        "dispatch_failure",
        (
            r"\brequires (?:the )?(?:\w*(?:Attn|Attention) ?[Bb]ackend|Flash ?Attention)\b"
            # (or asked for by name, vLLM's: "Please use Flashinfer backend for models with ...")
            r"|\bplease use (?:the )?\w+ (?:attention )?backend for\b",
        ),
    ),
    # a GPU backend without the kernel function asked for ("Metal error Error while loading
    # function: \"Function 'cast_bf16_f32' does not exist\"")
    (
        "dispatch_failure",
        (
            r"\b(?:metal|cuda|vulkan|opencl|hip|kernel)\b",
            r"\b(?:function|kernel) (?:'[\w.]+'|\"[\w.]+\"|`[\w.]+`) (?:does not exist|not found"
            r"|is missing)\b",
        ),
    ),
    # an assertion that a size is among those a kernel was compiled for ("assert Lq in {16, 32,
    # 64, 128, 256, 576}"): no kernel for the shape it was given
    ("dispatch_failure", (r"\bassert \w+ in [{\[(]\d+(?:, ?\d+){2,}[}\])]",)),
    # (or a multiple of a tile's size: "assert n % 64 == 0 and k % 128 == 0", DeepGEMM's)
    ("dispatch_failure", (r"^assert \w+ % (?:16|32|64|128|256) == 0\b",)),
    # a kernel's own check on the head size it was built for, or a head size refused
    ("dispatch_failure", (r"\b(?:assert\w*|expected|check failed)\b", r"\bhead_?(?:size|dim)\b")),
    ("dispatch_failure", (r"\bunsupported\b|\bnot supported\b", r"\bhead[ _]?(?:size|dim)s?\b")),
    # an op refused for a whole kind of device ("Device type PRIVATEUSEONE is not supported for
    # torch.Generator() api", DirectML's): no implementation of it there
    ("dispatch_failure", (r"\bdevice type \w+ (?:is )?not supported\b",)),
    (
        "dispatch_failure",
        (
            r"\bno (?:suitable |compatible |valid |matching |available )?(?:[\w\-]+ )?"
            r"(?:kernel|implementation|algorithm|tactic)s? (?:(?:is|are|was|were) )?"
            r"(?:found|available|exists?|for)\b"
            r"|\bno suitable (?:kernel|implementation)s?\b"
            r"|\b(?:failed|unable|cannot|could not) (?:to )?dispatch\b|\bdispatch(?:ing)? failed\b"
            # TensorRT's builder: "Could not find any implementation for node ..."
            r"|\b(?:could not|couldn't|cannot|can't|unable to|failed to) find (?:any |an? )?"
            r"(?:suitable |compatible |valid |matching )?(?:kernel|implementation|tactic)s?\b",
        ),
    ),
    (
        "env_mismatch",
        (
            r"\bundefined symbol\b|\bcannot open shared object\b"
            # (Android's loader: "java.lang.UnsatisfiedLinkError: dlopen failed: library
            # \"libx_jni.so\" not found")
            r"|\bdlopen failed\b|\bUnsatisfiedLinkError\b"
            # (a native library that cannot be opened: "Failed to open libCB from libOpenCL")
            r"|\b(?:failed to|cannot|could not|unable to) (?:open|load) lib\w+\b"
            # (or an Apple framework or a dynamic library: "Unable to load CoreML.framework")
            r"|(?i:\b(?:failed to|cannot|could not|unable to) (?:open|load) [\w.\-]+\.(?:framework"
            r"|dylib|dll)\b)"
            # a version installed that does not support the model or feature yet ("... is not
            # supported in your current Unsloth version", "is not supported yet in
            # `transformers==4.57.6`")
            r"|\bnot (?:yet )?supported (?:yet )?in (?:your |the )?(?:current |installed )?"
            r"(?:[\w\-]+ )?version\b|\bnot (?:yet )?supported (?:yet )?in `?[\w\-]+==\d"
            r"|\bversion (?:mismatch|conflict)\b"
            # Windows' loader: a module, a dependency or a procedure not found, a DLL's set-up
            # failed ("[WinError 126] ... Error loading "torch\lib\fbgemm.dll" or one of its ...")
            r"|\[WinError (?:126|127|1114)\]|\bError loading \"?[^\"]+\.dll\b"
            # a shared library that cannot be had ("Cannot load cudnn shared library", "The
            # third-party dynamic library (cublas64_11.dll) ... is not configured correctly")
            r"|\b(?:cannot|can't|could not|couldn't|unable to|failed to) (?:load|open|find) "
            r"(?:the )?(?:[\w+.\-]+ ){0,3}(?:shared |dynamic |native )?librar(?:y|ies)\b"
            r"|\b(?:shared|dynamic) librar(?:y|ies)\b.{0,120}?\bis not (?:configured|installed"
            r"|found)\b|(?i:\binstall the (?:cuda|gpu|rocm) (?:version|build|variant)\b)"
            # a file made by a newer toolchain than its reader ("x.cubin' newer than toolkit")
            r"|\bnewer than (?:the )?(?:installed |current )?(?:toolkit|driver|runtime|compiler)\b"
            r"|\b(?:compiled|built) (?:with|against|for) (?:a )?(?:different|another|newer|older)\b"
            r"|\brequires? (?:CUDA|torch|PyTorch|driver|NCCL|cuDNN|triton|transformers)\b"
            # (a package named as such: "Ring Attention requires xfuser package.")
            r"|\brequires? (?:the )?`?[\w.\-]+`? (?:package|library|module)\b"
            r"|\bdriver (?:version )?(?:is )?(?:too old|insufficient|outdated)\b|\bnot installed\b"
            r"|\b(?:is|are) (?:needed|required) to be installed\b"  # (AutoAWQ's kernels)
            r"|\bsetup failed\b"
            # a package older than the caller needs ("sageattention is not new enough version"),
            # or newer than it supports ("FlashAttention maximum version 2.5.8 is supported")
            r"|\bnot new enough\b|\b(?:version|package|library) (?:is )?too old\b"
            # a program asking for a dependency it lacks ("ensure that exllama (...) is cloned")
            r"|\b(?:make sure|ensure) (?:that )?[\w.\-]+ (?:\([^)]{0,120}\) )?(?:is|are) "
            r"(?:installed|cloned|built)\b"
            r"|\b(?:maximum|minimum) version [\d.]+\w* (?:is )?(?:supported|required)\b"
            # an installed version without a feature ("CUDA device, driver and/or toolkit
            # version does not support comm+GEMM overlap with CUDA Multicast")
            r"|\bversions? (?:does|do)(?: not|n't) support\b"
            r"|\bno (?:CUDA |GPU |HIP )?(?:devices?|GPUs?) (?:available|found|detected)\b"
            r"|"
            + DEVICE_NOT_SET_UP
            # a tool of the toolchain that is not installed ("sh: fatbinary: command not found")
            + r"|\bcommand not found\b|\bis not recognized as an internal or external command\b"
            r"|\b(?:CUDA|GPU) (?:is )?not available\b"
            # a library that is not there ("Library cublas64_12.dll is not found or cannot be
            # loaded")
            r"|\b\w+\.(?:dll|so(?:\.\d+)*)\b.{0,40}?\b(?:is not found|cannot be loaded"
            r"|could not be loaded)\b"
            # (Python's ctypes on Windows: "Could not find module '...\\ggml.dll' (or one of its
            # dependencies)")
            r"|\bCould not find module '[^']{0,300}\.(?:dll|pyd)'"
            r"|"
            + NATIVE_LIBRARY_MISSING
            # a feature of a newer runtime ("streamIsCapturing is supported since CUDA 10.1+")
            + r"|\b(?:supported|available) (?:only )?(?:since|from|starting with) "
            r"(?:CUDA|ROCm|HIP|cuDNN|driver|torch|PyTorch)\b"
            # a driver library that cannot be loaded, or lacks a symbol the runtime needs
            r"|\bsymbol lookup\b.{0,60}?\bfailed\b|\b(?:unable|failed) to load .{0,40}?\bdriver\b"
            # (or the GPU runtime itself: "hip runtime failed to load.")
            r"|(?i:\b(?:cuda|hip|rocm|opencl|vulkan) runtime (?:failed to load|could not be loaded"
            r"|(?:was )?not found)\b)"
            r"|" + NO_GPU_BUILD + r"|"
            # (ONNX Runtime's "CUDA execution provider is not enabled in this build")
            r"\bis not (?:enabled|available|included) in this build\b"
            # (an extension's own check of its build: mmcv's and detectron2's ops raise "Not
            # compiled with GPU support" when called on a CUDA tensor)
            r"|\bNot compiled with (?:CUDA|GPU|ROCm|HIP) support\b"
            # (or without the collectives library: "NCCL support is not compiled")
            r"|\b(?:NCCL|CUDA|GPU) support is not compiled\b",
        ),
    ),
    (
        "unsupported_config",
        (
            # (not Python's "unsupported operand type(s)", nor "only supported for contiguous")
            r"\b(?:not|isn't|is not|are not|NOT) (?:yet |currently )?(?:supported|implemented)\b"
            r"|\bunsupported\b(?! operand type)|\bdoes(?: not|n't) (?:yet )?support\b"
            r"|\b(?:is|are) unimplemented (?:for|on|in|with)\b"  # (CatBoost: "for task type GPU")
            r"|\bno longer (?:supported|allowed|accepted)\b"
            # settings that cannot go together ("... This is not compatible with offloading"; not
            # a driver, a build, a version or a GPU that does not fit: the environment's)
            r"|\b(?:is|are) not compatible with\b(?!.{0,80}?\b(?:driver|CUDA|ROCm|cuDNN|build"
            r"|wheel|version|GPU|sm_\d+|torch|PyTorch|installation)\b)"
            r"|\bonly (?:supported|available|allowed|works?) (?:for|with|when)\b(?! contiguous)"
            r"|\bonly supports?\b"  # ("Bloom models only support fp16")
            r"|\bmissing (?:required )?(?:field|key|argument|tensor|weight|parameter|config\w*)s?\b"
            # a tensor the loader needs, by its name ("missing result_output tensor")
            r"|\bmissing (?:tensor )?'?[\w.]+\.(?:weight|bias)\b|\bmissing \w+ tensor\b"
            r"|\btensor names are different from those expected\b"  # (TensorRT-LLM's checkpoint)
            # (a file said to be null; C++'s map lookup of a key the model lacks)
            r"|\bno file named\b|\b(?:input|model|config) file (?:was |is )?(?:not found|null)\b"
            r"|\b(?:unordered_)?map::at:? key not found\b"
            r"|\bshort read \d+ < \d+"  # (a file read short: truncated)
            # a model's configuration that cannot be read (vLLM's "Failed to load the model
            # config"), a model not where it was looked for (MLC's "Cannot find the model folder")
            r"|\b(?:failed to|cannot|can't|could not|unable to) load (?:the )?model config\b"
            r"|\b(?:can't|cannot|could not|couldn't|unable to) find (?:the )?model(?: folder"
            r"| path| directory| dir| files?)\b"
            # a build or setting that needs another ("TrtGptModelInflightBatching requires GPT
            # attention plugin with packed input and paged KV cache")
            r"|\brequires (?:the )?(?:[\w-]+ ){0,3}(?:plugin|option|flag|mode)\b"
            # (or the flag by its name: '"auto" tool choice requires --enable-auto-tool-choice')
            r"|\brequires --[a-z][\w-]+"
            # a model the server does not have (Ollama's 'model "llama3" not found, try pulling
            # it first'), an argument that was not given ("max_position_embeddings argument is
            # None")
            r"|(?i:\bmodel \\*[\"']?[\w.:/\-]+\\*[\"']? not found\b)|\b\w+ argument is None\b"
            r"|\bunavailable model requested\b"  # (Riva's: "Unavailable model requested. Lang: en")
            # a setting that was needed and not given, raised ("AssertionError: No CFG scale
            # set"; not a notice of a default: "No language specified, language will be ...")
            r"|^(?:[\w.]+\.)?\w*(?:Error|Exception): No [\w-]+(?: [\w-]+)? (?:set|specified)\b"
            # (a model file named by its path: "unable to find '/models/m/1/model.pt' for model
            # instance 'm'", Triton's)
            r"|\b(?:unable to|could not|couldn't|cannot|can't|failed to) (?:find|locate) ['\"]?\S*"
            r"\.(?:pt|pth|onnx|plan|engine|bin|safetensors|gguf|ckpt)['\"]?(?:\s|$)"
            # (or the file of a model named first: 'File "config.json" not found at model id')
            r"|\bfile ['\"]?[\w.\-]+\.(?:json|safetensors|gguf|bin|model|pt)['\"]? "
            r"(?:was )?not found\b"
            # a model's configuration or model file that cannot be read ("Can't load .../config.
            # ini", "failed to open text file for read /m/config.pbtxt", "Cannot find primary
            # config 'sam2.yaml'", "Failed to open serialized model file: x.dali")
            r"|\b(?:can't|cannot|could not|couldn't|unable to|failed to) (?:load|open|read|find"
            r"|locate)(?: [\w-]+){0,4} (?:\S*\bconfig\w*\.(?:ini|json|ya?ml|pbtxt)\b|model file\b"
            r"|config(?:uration)? ['\"]?[\w./\-]+\.(?:ini|json|ya?ml|pbtxt|toml)\b)"
            # an engine's check that a request fits the sizes it was built for ("Assertion
            # failed: max_context_len <= mMaxContextLength")
            r"|\bassert\w*\b[^<>]{0,40}?\b\w+ ?<=? ?(?:m_?)?max_?[A-Za-z]\w*"
            r"|\bunknown (?:\w+ )?model[ _]type\b|\bunknown model ?[(:'\"]"  # ("Unknown model (m)")
            r"|\bunknown (?:model )?(?:architecture|model type|field|option|argument|parameter"
            r"|quantization|dtype|backend|projector|provider)\b"
            r"|\bno (?:module or )?parameter named\b"
            r"|\binvalid (?:value|config\w*|option|choice|model|format|dtype|quantization|tag"
            r"|method|(?:tensor |input |output |model |layer )?name|key|token id)\b"
            # (a setting that needs another: "... model has to be built with paged context FMHA")
            r"|\b(?:has|have) to be (?:built|set|enabled|configured|specified)\b"
            r"|\bnot a valid\b|\b(?:must|should) be (?:[<>]|one of|a |an |greater|less|between"
            r"|divisible|positive|at least|at most|smaller|larger|lower|higher|fewer|in the form)"
            r"|\b(?:size|shape) mismatch\b"
            # (torch's words for it: "The expanded size of the tensor (3840) must match the
            # existing size (4080) at non-singleton dimension 1")
            r"|\bmust match the existing size\b"
            r"|\bmust divisible by\b"  # (as a kernel's check words it: "size_k must divisible by")
            # a key a configuration must hold, asserted ("assert \"factor\" in rope_scaling")
            r"|\bassert ['\"][\w.\-]+['\"] in (?:self\.)?\w*(?:config|cfg|scaling|args|kwargs"
            r"|params|options|settings)\w*\b"
            # a key looked up in a model's configuration, which it lacks (the source line a bare
            # "KeyError: 'rms_norm_eps'" shows: "self.norm_eps = read_config[self.arch.key]",
            # "rotary_type = rotary_scaling['type']"), or a name in a constant table of the
            # choices a program knows ("return LOSS_MAPPING[loss_type]['loss_func']")
            r"|^(?:[\w.]+\s*=\s*)?(?:self\.)?\w*(?:config|cfg|hparams|scaling)\w*\[[^\]]+\]\s*$"
            r"|^(?-i:(?:return\s+|[\w.]+\s*=\s*)?[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\[\w+\])"
            # an argument the program requires, not given ("assert args.seq_length is not None")
            r"|\bassert (?:self\.)?args\.\w+ is not None\b"
            # (or a configuration that must be there: "assert pretrained_cfg")
            r"|\bassert (?:self\.)?[\w.]*(?:config|cfg)\w*(?: is not None)?\s*$"
            # an assertion that two shapes are the same ("assert param.shape == loaded.shape")
            r"|\bassert\b[^=]{0,80}\.shape\s*==\s*[\w.\[\]]+\.shape\b"
            # (or a loaded tensor's size against the model's: "assert loaded_weight.shape[
            # output_dim] == self.org_vocab_size")
            r"|\bassert \w*loaded\w*\.shape\[[^\]]*\]\s*==\s*[\w.]+"
            r"|\b(?:must|should) be equal to the (?:world|group|tp|tensor parallel) size\b"
            # an engine built for another world size ("Engine world size (2 * 1) != Runtime
            # world size (1)")
            r"|\bworld[ _]?size\b.{0,40}?(?:!=|\bdoes(?: not|n't) match\b|\bmismatch)"
            # a value checked against the ones allowed, listed ("the model format should be in
            # ['llama', 'hf', 'awq', None]")
            r"|\b(?:should|must) be (?:in|one of) [\[({]"
            # (or listed by their names: "The metric for NN Descent should be L2Expanded,
            # CosineExpanded or InnerProduct"; not torch's "must be long, byte or bool tensors")
            r"|\b(?:should|must) be (?-i:[A-Z]\w*(?:, [A-Z]\w*)+,? or [A-Z]\w*)"
            # a parameter refused by its name ("invalid parameter[expected=valid index]",
            # RAFT's "Invalid input argument: ..."), a size refused ("Picture size 8x30 is
            # invalid"); not the CUDA runtime's "invalid argument", which rules read
            r"|\binvalid (?:input )?parameters?\b|\binvalid input argument\b"
            # (a configuration file's entry refused: Slurm's "invalid GRES core specification",
            # "gres.conf duplicate records for gpu")
            r"|\binvalid (?:\w+ ){0,3}specification\b|\bduplicate (?:records|entries)\b"
            r"|\b(?:size|resolution|dimensions?) \S{1,30} is invalid\b"
            # a setting the program asks for ("You must have a training stage starting at 1")
            r"|\byou must (?:have|set|specify|provide|pass)\b"
            # a size that does not split over the parallel ranks ("96 is not divisible by 64",
            # "gpu_block_size=64 not divisible by hash_block_size=256")
            r"|\bnot (?:evenly )?divisible by\b"
            # (or an assertion that it does: "assert self.total_num_kv_heads % tp_size == 0")
            r"|\bassert [\w.\[\]]+ % [\w.]*(?:tp|tensor_parallel|pp|pipeline|world|parallel)"
            r"\w* == 0"
            # a setting left out ("Interactive mode was not specified, so expected port to be
            # specified. Perhaps you forgot `-i` or `--port`?")
            r"|\b(?:was|were|is|are) not specified\b|\bPerhaps you forgot\b"
            # (or asked for: "please specify chat template as guided in ...")
            r"|\bplease specify\b"
            # a checkpoint whose parts do not match the model's ("miss matched layers: 40 vs 0")
            r"|\bmis+[ -]?match(?:ed|es)? (?:layers?|keys?|weights?|parameters?|dimensions?)\b"
            # a model that cannot be loaded because a file it needs is not there
            r"|\b(?:load|launch)\w* (?:the )?model\b.{0,120}?\bNo such file or directory\b"
            # a value over the limit a setting allows ("The sum of prompt length (9351.0),
            # query length (0) should not exceed max_num_tokens (8192)")
            r"|\b(?:should|must|cannot|can't|can not) (?:not )?exceed (?:the )?(?:max\w*|limit)"
            # (or said as a comparison: "Number of draft tokens (56) is larger than maximum
            # number of draft tokens (0)")
            r"|\b(?:is|are) (?:larger|greater|bigger|more) than (?:the )?max(?:imum)?\b"
            # (a request longer than the context: "The input is too long for the available context")
            r"|\btoo long for the (?:[\w']+ )?context\b",
        ),
    ),
)
CUES: tuple[tuple[str, tuple[re.Pattern[str], ...]], ...] = tuple(
    (category, tuple(re.compile(p, re.IGNORECASE) for p in patterns))
    for category, patterns in _CUES
)
