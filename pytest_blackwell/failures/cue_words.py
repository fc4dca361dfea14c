"""The general words of each category: the vocabulary that ``cues`` reads an error's message with.

Each cue is a category's vocabulary, not the wording of one log: a shortage of memory, a
refusal naming an architecture or a kernel, a missing or invalid setting. A cue holds when all
of its patterns are found in one error message; cues are listed from the most specific category
to the most general one, the order they are tried in.
"""

from __future__ import annotations

import re

from pytest_blackwell.failures.cue_config_words import CONFIG_REFUSAL
from pytest_blackwell.failures.errorwords import SETTING_VALUE, SIGNAL_DEATH

#: An installed build that cannot use the GPU at all ("The installed version of bitsandbytes was
#: compiled without GPU support"): a failure even as a warning, when it is a log's last word.
NO_GPU_BUILD = (
    r"\b(?:compiled|built) without (?:\w+ )?(?:GPU|CUDA|ROCm|HIP) support\b"
    r"|\bnot compiled with (?:CUDA|GPU|ROCm|HIP)(?: support)? enabled\b"
    # (OpenCV's DNN module: "DNN module was not built with CUDA backend; switching to CPU")
    r"|\bnot built with (?:the )?(?:CUDA|GPU|ROCm|HIP) (?:support|backend)\b"
)

#: LMDeploy's checks of its environment and model as its engine starts ("<Triton> test failed!").
LMDEPLOY_CHECK = r"^<[\w-]+> test failed!"

#: Memory that could not be had, in the words of allocators, runtimes and frameworks.
SHORTAGE = (
    # (Windows' commit limit reached: "The paging file is too small for this operation ...")
    r"\bpaging file is too small\b|"
    # (not a guess, asked: cog's "... It might have run out of memory? (exitcode -6)", or given
    # as an example: SGLang's "likely due to unexpected failures (e.g., OOM)")
    r"\bout[ -]of[ -](?:\w+[ -])?memory\b(?!\s*\?)|(?<!e\.g\., )\bOOM\b|\bMemoryError\b"
    r"|\bOutOfMemory(?:Error|Exception)\b"
    r"|\b(?:unable|failed|fails|cannot|can't|can not|could not|couldn't|fail|tried) (?:to )?"
    r"(?:allocate|alloc|reserve|malloc)\b"
    r"|\b(?:allocation|malloc|\w*mem_?alloc\w*)\b.{0,60}?\b(?:failed|failure|error)\b"
    # (the failure named first: "error when allocating memory or building DAG")
    r"|\b(?:error|failure|failed) (?:when |while )?(?:allocating|reserving) (?:\w+ ){0,2}memory\b"
    r"|\b(?:insufficient|unsufficient|not enough) (?:\w+ ){0,2}(?:memory|v?ram)\b(?!\s*\?)"
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
    r"|\b(?:CDNA|RDNA) ?\d\b"  # (AMD's architectures)
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
    # (or refused itself: Maxine's "The GPU is not supported")
    r"|\b(?<=[Tt]he )GPU(?= is not supported\b)"
    # an architecture compared with a number ("not supported on CUDA arch < 89")
    r"|\b(?:CUDA |GPU |compute )?arch(?:itecture)?\s*[<>]=?\s*\d)"
)
#: A kernel-level thing that can be missing for a dtype, a shape or an architecture.
_KERNEL = (
    r"(?:\bkernels?\b|\bbackend\b|\battention\b|\battn\b|\b\w*gemm\b|\bmatmul\b|\bwgmma\b|\bmma\b"
    r"|\bflash\w*|\bcutlass\b|\bcublas\w*|\bcudnn\b|\bMLA\b|\bfmha\b|\bop(?:erator)?s?\b"
    r"|\bmetal\b|\bmps\b|\bvulkan\b|\bconv\d?d\b|\bmyelin\b"  # (GPU backends, TensorRT's Myelin)
    r"|\blinear\b)"  # (a layer's kernel: "Linear error: unsupported dataType combination")
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

#: The programs nvcc runs for it, which it names when one crashes ("nvcc error   : 'ptxas' died
#: due to signal 11").
NVCC_TOOLS = ("ptxas", "cicc", "nvlink", "cudafe++", "fatbinary")

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
    # (or with what the program looked for: LM Studio's "No supported Cuda GPUs found on device")
    r"|\bno (?:supported |compatible |usable |suitable )?(?:GPU|CUDA|gpu|cuda|Cuda|OpenCL|Vulkan"
    r"|SYCL|ROCm)(?: GPU| device)?s? (?:were |was )?(?:found|detected)\b"
    # (torch's "No CUDA GPUs are available"; Habana's "[Device not found] Device acquire failed")
    r"|\b[Nn]o (?:CUDA |GPU |Vulkan |XPU )?(?:GPUs|devices) are available\b|\bDevice acquire failed"
    r"|\b[Nn]o (?:GPU |CUDA |Vulkan )?device could be (?:created|found|initiali[sz]ed)\b"
    r"|\b[A-Z]+_ERR(?:OR)?_DEVICE_UNAVAILABLE\b"  # (a runtime's status: RKNN_ERR_DEVICE_...)
    # the GPUs that cannot be listed ("Unable to retrieve list of all GPU devices", GPT4All's)
    r"|\b(?:could not|couldn't|cannot|can't|unable to|failed to) (?:retrieve|list|enumerate)"
    r" (?:the )?(?:list of )?(?:all |any )?(?:GPU|CUDA|gpu|cuda) devices?\b"
)

#: TensorFlow's placer finding no GPU for a node pinned to one ("was explicitly assigned to
#: /device:XLA_GPU:0 but available devices are [ ...CPU:0 ]", "Could not satisfy explicit
#: device specification '/device:GPU:0' because no devices matching that specification are
#: registered"): the process has no GPU, found when a graph runs, not as it starts.
GPU_NOT_IN_PROCESS = (
    r"\bassigned to \S*device:(?:XLA_)?GPU:\d+ but available devices are\b(?![^\]]*GPU:\d)"
    r"|\bexplicit device specification '\S*GPU:\d+' because no devices matching\b"
)

#: A binding that cannot find the native library it wraps (.NET's "Native Library not found in
#: default paths"): the environment lacks it, and it is looked for as the program starts
#: (:mod:`.evidence`).
NATIVE_LIBRARY_MISSING = (
    r"\bnative librar(?:y|ies) (?:\w+ )?(?:not found|cannot be (?:correctly )?loaded"
    # (LLamaSharp's "cannot be correctly loaded", and its newer words)
    r"|could not be (?:correctly )?loaded)\b|\bfailed to load (?:the )?native librar(?:y|ies)\b"
)
#: A device node the system does not have ("failed to open the device /dev/nvpps0"): the
#: environment lacks it, and it is opened as the program sets its devices up (:mod:`.evidence`).
DEVICE_NODE_MISSING = (
    r"\b(?:failed to|cannot|could not|unable to) open (?:the )?(?:device )?/dev/[a-z]"
)

#: ``(category, patterns)``: the cue holds when every pattern is found in the text.
_CUES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "kv_cache_oom",
        (
            r"\bkv[ _-]?cache\b|\b(?:cache|kv) blocks?\b|\b(?:ssm|mamba) (?:state|cache)\b"
            r"|\brs cache\b|\brecurrent[ -]state cache\b"
            r"|\blmcache\b"  # LMCache, the KV-cache layer: its allocator holds KV blocks
            # (a model's memory asked for together with its cache: ExLlamaV2's autosplit loader,
            # "Insufficient VRAM for model and cache")
            r"|\b(?:model|weights) and (?:the )?cache\b",
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
            # (and a core's L1, which Tenstorrent's kernels keep their circular buffers in)
            r"\b(?:shared[ _]?mem(?:ory)?|smem|threadgroup memory|L1 (?:size|buffers?))\b"
            r"(?! ?\(shm\))",
            r"\bexceed|\btoo (?:large|much|big|many)\b|\blimit\b|\binsufficient\b|\bnot enough\b"
            r"|\bconstraint\b|\bbeyond (?:the )?max|\bclash(?:es)? with\b"
            r"|\bout of resource|\blarger than\b|\bmore than\b",
        ),
    ),
    (
        "engine_died",
        (
            r"(?-i:\bSIG(?:KILL|SEGV|ABRT|BUS|FPE|ILL)\b)|\bkilled\b|\bcore dumped\b"
            # (not one of the toolchain's programs that nvcc names crashing, "'ptxas' died due to
            # signal 11": its bug; killed, "'cicc' died due to signal 9", it is a death)
            r"|"
            + "".join(rf"(?<!'{re.escape(tool)}' )" for tool in NVCC_TOOLS)
            + r"\bdied\b|' died due to signal 9\b"
            r"|\bcrashed\b|"
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
            # (also with no message: a JVM's "Caused by: java.util.concurrent.TimeoutException")
            r"\btimed?[ -]?out\b(?!" + SETTING_VALUE + r")|\bTimeout(?:Error|Exception)(?::|\s*$)"
            r"|\bdeadline exceeded\b"
            r"|\btimeout (?:after|of \d|waiting|while|expired|reached|exceeded)\b"
            r"|\btimeout (?:check )?failed\b"
            r"|\b(?:did not|didn't|never) (?:become (?:ready|healthy)|respond\w*|finish\w*"
            r"|complete\w*)\b"
            r"|\bnot (?:ready|up|healthy|responding) (?:after|within)\b"
            # (a watchdog that got no answer for a while: "Server couldn't get a response from
            # detokenizer for last 20 seconds")
            r"|\b(?:couldn't|could not|did not|didn't) (?:get|receive) (?:a |any )?response\b"
            r".{0,40}?\bfor (?:the )?(?:last )?\d+ ?(?:s|secs?|seconds|min|minutes)\b"
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
    ("env_mismatch", (GPU_NOT_IN_PROCESS,)),
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
    # (or an operand's alignment in bytes: "strides should be multiple of 16 bytes", "expected
    # data_ptr to be aligned to 16 bytes", torch's grouped matmul)
    (
        "dispatch_failure",
        (
            r"\b(?:strides?|data_ptr|pointers?|operands?|ld[abc])\b[^.]{0,40}?\b(?:(?:should|must) "
            r"be (?:a )?multiples? of|(?:be )?aligned to) \d+ bytes\b",
        ),
    ),
    # a kernel's own check on the head size it was built for, or a head size refused
    ("dispatch_failure", (r"\b(?:assert\w*|expected|check failed)\b", r"\bhead_?(?:size|dim)\b")),
    # (or a head count one was not built for: "nhead=32 not supported", AITER's MLA decode)
    (
        "dispatch_failure",
        (
            r"\bunsupported\b|\bnot supported\b",
            r"\bhead[ _]?(?:size|dim)s?\b|\b(?:n_?|num_)heads?\b",
        ),
    ),
    # an op refused for a whole kind of device ("Device type PRIVATEUSEONE is not supported for
    # torch.Generator() api", DirectML's): no implementation of it there
    ("dispatch_failure", (r"\bdevice type \w+ (?:is )?not supported\b",)),
    # (or an instruction the device's compiler has none of: "error: bf conversion instruction
    # not supported!", Intel's Level Zero building a Triton kernel)
    ("dispatch_failure", (r"\binstructions? (?:is |are )?not supported\b",)),
    # (or for AMD's accelerators by name: "PerRow quantization only works for CUDA>=9.0 and MI300+";
    # a product named beside a requirement is a count or a size, not a refusal)
    (
        "dispatch_failure",
        (
            r"\b(?:only (?:works?|supported|available|runs?) (?:for|on)|not supported on)\b",
            r"\bMI\d{2,3}[A-Z]?\b",
        ),
    ),
    # (or for a kind of tensor: "AffineQuantizedTensor dispatch: attempting to run unimplemented
    # operator/function: func=<OpOverload(...)>", torchao's)
    ("dispatch_failure", (r"\bunimplemented (?:operator|op)s?\b",)),
    (
        "dispatch_failure",
        (
            r"\bno (?:suitable |compatible |valid |matching |available )?(?:[\w\-]+ )?"
            r"(?:kernel|implementation|algorithm|tactic)s? (?:(?:is|are|was|were) )?"
            r"(?:found|available|exists?|for)\b"
            r"|\bno suitable (?:kernel|implementation)s?\b"
            r"|\b(?:failed|unable|cannot|could not) (?:to )?dispatch\b|\bdispatch(?:ing)? failed\b"
            # TensorRT's builder: "Could not find any implementation for node ..." (or a
            # library's choice among its kernels: "cannot get heuristic kernel!", AITER's)
            r"|\b(?:could not|couldn't|cannot|can't|unable to|failed to) (?:find|get|select) "
            r"(?:any |an? |the )?(?:suitable |compatible |valid |matching |heuristic )?"
            r"(?:kernel|implementation|tactic)s?\b(?! (?:version|driver|module|release|param))",
        ),
    ),
    (
        "env_mismatch",
        (
            r"\bundefined symbol\b|\bcannot open shared object\b"
            # (Android's loader: "java.lang.UnsatisfiedLinkError: dlopen failed: library
            # \"libx_jni.so\" not found")
            r"|\bdlopen failed\b|\bUnsatisfiedLinkError\b"
            # (or a library without the function looked up: "dlsym failed to get func
            # NvDsInferParseYolo pointer", DeepStream's custom parser library)
            r"|\bdlsym failed\b|" + DEVICE_NODE_MISSING + r"|"
            # (a native library that cannot be opened: "Failed to open libCB from libOpenCL")
            r"\b(?:failed to|cannot|could not|unable to) (?:open|load) lib\w+\b"
            # (or an Apple framework or a dynamic library: "Unable to load CoreML.framework")
            r"|(?i:\b(?:failed to|cannot|could not|unable to) (?:open|load) [\w.\-]+\.(?:framework"
            r"|dylib|dll)\b)"
            # a version installed that does not support the model or feature yet ("... is not
            # supported in your current Unsloth version", "is not supported yet in
            # `transformers==4.57.6`")
            r"|\bnot (?:yet )?supported (?:yet )?(?:in|with) (?:your |the |this )?(?:current "
            r"|installed )?(?:[\w\-/]+ ){0,2}version\b"
            r"|\bnot (?:yet )?supported (?:yet )?in `?[\w\-]+==\d"
            r"|\bversion (?:mismatch|conflict)\b"
            # (TensorFlow's graph from a newer release: "NodeDef mentions attr 'x' not in Op<..>
            # (Check whether your GraphDef-interpreting binary is up to date with ...)")
            r"|\binterpreting binary is up to date with\b"
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
            r"|\bdrivers? (?:version )?(?:is |are )?(?:too old|insufficient|outdated|unsupported)\b"
            r"|\bdrivers? (?:requires?|needs?) (?:an )?update\b|\bdrivers? needs? to be updated\b"
            r"|\bnot installed\b"
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
            r"|\b0 active drivers\b"  # (Triton finding no GPU back end it can use)
            r"|\bGPU [Dd]evices? not found\b"  # (CatBoost's "GPU Device not found.")
            # a feature left out of the installed build ("GPU Tree Learner was not enabled in
            # this build.", LightGBM's)
            r"|\bnot (?:enabled|compiled|built|included) in(?:to)? this build\b"
            r"|"
            + DEVICE_NOT_SET_UP
            # a tool of the toolchain that is not installed ("sh: fatbinary: command not found")
            + r"|\bcommand not found\b|\bis not recognized as an internal or external command\b"
            # (Python's subprocess not finding the program it runs, named twice: "FileNotFoundError:
            # [Errno 2] No such file or directory: 'nginx': 'nginx'")
            r"|\bNo such file or directory: '(?P<prog>[\w.+-]+)': '(?P=prog)'"
            # (LMDeploy's check of a component its engine needs, as it starts: "<Triton> test
            # failed!", not its check of the model's config, "<Model> test failed!")
            r"|(?!<Model>)"
            + LMDEPLOY_CHECK
            + r"|\b(?:CUDA|GPU) (?:is )?(?:required but )?(?:not available|unavailable)\b"
            # (or torch's own check quoted: "torch.cuda.is_available() should be True but is
            # False")
            r"|\bcuda\.is_available\(\)\W{0,3}(?:should be True but )?"
            r"(?:is|return(?:s|ed)?|==)\s*False\b"
            # a library that is not there ("Library cublas64_12.dll is not found or cannot be
            # loaded")
            r"|\b\w+\.(?:dll|so(?:\.\d+)*)\b.{0,40}?\b(?:is not found|cannot be loaded"
            r"|could not be loaded)\b"
            # (or by the library's name: JAX's "Unable to load cuSPARSE. Is it installed?")
            r"|\b(?:unable to|failed to|could not|cannot|can't) load (?:the )?"
            r"(?:cu(?:DNN|BLAS(?:Lt)?|SPARSE|FFT|SOLVER|RAND|PTI|DSS)|NCCL|NVRTC|nvJitLink)\b"
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
            # (TVM built without a GPU target: "Check failed: bf != nullptr Target cuda is not
            # enabled", newer "target.build.cuda is not enabled")
            r"|\b(?:Target |target\.build\.)(?:cuda|rocm|vulkan|opencl|metal|nvptx)\b.{0,40}?"
            r" is not enabled\b"
            # (an extension's own check of its build: mmcv's and detectron2's ops raise "Not
            # compiled with GPU support" when called on a CUDA tensor)
            r"|\bNot compiled with (?:CUDA|GPU|ROCm|HIP) support\b"
            # (or without the collectives library: "NCCL support is not compiled")
            r"|\b(?:NCCL|CUDA|GPU) support is not compiled\b"
            # a feature the machine itself lacks, said so ("Simulation device \"GPU\" does not
            # supported cuStateVec on this system", Qiskit Aer's)
            r"|\bsupport\w* .{0,60}?\bon this (?:system|machine|computer)\b",
        ),
    ),
    (
        "unsupported_config",
        (CONFIG_REFUSAL,),
    ),
)
CUES: tuple[tuple[str, tuple[re.Pattern[str], ...]], ...] = tuple(
    (category, tuple(re.compile(p, re.IGNORECASE) for p in patterns))
    for category, patterns in _CUES
)
