"""The rule table: which error text means which failure category, as ordered data.

Rules are tried in order against each cleaned log message; the first rule whose ``pattern``
matches decides the line's category. Specific causes come first (a CUDA fault before the NCCL
error that relays it), then relays (``weak`` rules such as NCCL errors and dead processes, which a
more specific cause in the same error block replaces), then ``wrapper`` rules (lines that only say
"see the root cause above"; they never win over a cause), then generic exception lines
(``unknown``). Downstream rules are prepended, so they win over these.
"""

from __future__ import annotations

from pytest_blackwell.failures.rule import QUIET, Rule, rule
from pytest_blackwell.failures.rules_config import CONFIG_RULES
from pytest_blackwell.failures.rules_dispatch import DISPATCH_RULES
from pytest_blackwell.failures.rules_driver import DRIVER_RULES
from pytest_blackwell.failures.rules_env import ENV_RULES
from pytest_blackwell.failures.rules_late import CATCH_ALL_RULES, LATE_RULES
from pytest_blackwell.failures.rules_smem import SMEM_RULES
from pytest_blackwell.failures.rules_wrappers import WRAPPER_RULES

__all__ = ["DEFAULT_RULES", "Rule"]

SIZE = r"\d+(?:\.\d+)?\s?[KMGT]?i?B"

# The table is kept in its compact hand layout: one rule per short block reads like data.
# fmt: off
#: Known causes, most specific first. See docs/failures.md before adding one.
CAUSES: tuple[Rule, ...] = (
    *SMEM_RULES,
    # --- the network between ranks: a cause of its own, which later faults do not replace -------
    rule("nccl_transport", "nccl_error",
       # (not NCCL's INFO lines: a plugin version it looks for and falls back from)
       r"(?<!INFO )NET/(?:IB|Socket|OFI|Plugin)\s?: "
       r".{0,120}?(?:[Ee]rror|[Ff]ailed|[Cc]losed|[Tt]imeout)"
       # its shared-memory transport: a segment /dev/shm cannot hold (a container's small shm)
       r"|(?:creating|create|map\w*|open\w*) shared memory segment /dev/shm/nccl-"
       r"|\bGot completion from peer .{0,80}?with (?:status|error)"
       r"|socketProgress\w*: Connection (?:closed|reset) by (?:remote )?peer"
       # (older NCCL's socket calls: "Net : Call to recv from 10.0.0.1<36048> failed : Connection
       # reset by peer")
       r"|\bNet : Call to (?:recv|send) \S+ \S+ failed\b"
       r"|\bSocket recv failed while polling|\bibv_\w+ failed\b"
       # an RDMA work completion with an error status, in the verbs provider's or another
       # collective library's words (mlx5's "got completion with error", a CQE error status)
       r"|\bgot completion with error\b|\bCQE error\b.{0,80}?\bstatus=[1-9]|\bIBV_WC_\w+_ERR\b"
       # UCX's error records and NIXL's errors: the transports of disaggregated KV transfers
       r"|\bUCX\s+ERROR\b|\bNIXL_ERR_[A-Z_]+"
       # (and Mooncake's transfer engine: an error record of its transports' sources, "E0603
       # 20:16:59.104586 27322 worker_pool.cpp:271] Worker: Process failed for slice ...", or
       # its words when the record's header was read as a level: "RdmaTransport: No available
       # RNIC"; not one that timed out, a timeout as a transport's "Connection timed out" is)
       r"|^(?!.*?(?i:timed? ?out\b))(?:E\d{4,8} [\d:.]+ +\d+ (?:rdma_(?:context|transport"
       r"|endpoint)|worker_pool|transfer_engine|transfer_metadata(?:_plugin)?|tcp_transport"
       r"|nvlink_transport|ascend[ _]direct[ _]transport)\.cpp:\d+\]? "
       r"|.*?(?:\bWorker: Process failed for slice\b|\bRdmaTransport: |\bFailed to query GID\b"
       r"|\bFailed to (?:install RDMA transport|initiali[sz]e transfer engine|connect to segment"
       r"|retrieve segment descriptor)\b))",
       keywords=("NET/", "socketProgress", "Socket recv failed", "ibv_", "/dev/shm/nccl-",
                 "Net : Call to",
                 "IBV_WC_", "UCX", "NIXL_ERR_", ".cpp:", "Process failed for slice",
                 "RdmaTransport: ", "Failed to query GID", "RDMA transport", "transfer engine",
                 "Failed to connect to segment", "segment descriptor")),
    # --- kernel faults (before NCCL, which may relay them) --------------------------------------
    rule("illegal_address", "illegal_memory_access",
       r"an illegal memory access was encountered|CUDA_ERROR_ILLEGAL_ADDRESS"
       # the runtime's message cut at the end of a pasted line
       r"|\bCUDA error: an illegal memory(?: acc\w*(?: was(?: \w*)?)?)?\s*$"
       # CUDA's number for it, after its CUDA error words ("Error code 700", "CUDA error = 700")
       # (or by its number before CUDA 10.1, 77: "details: CUDA error 77", FAISS' check)
       r"|(?i:\bcuda\b.{0,80}?\berror(?: code)?[ :=(#]*(?:700|77)\b"
       r"|\berror code[ :=(]*700\b.{0,120}?\bcuda\b"
       # (or a stream synchronize that returned it: TensorRT's Myelin, "Final synchronize failed
       # (700)"; the sticky error of a kernel surfaces at the next synchronize)
       r"|\bsynchroni[sz]e failed\W{0,3}(?:with (?:error )?(?:code )?)?\(?700\b)"
       r"|CUDA Exception: Warp (?:Out-of-range|Illegal|Misaligned) Address"
       r"|cudaErrorIllegalAddress|hipErrorIllegalAddress"
       # the driver API's description of it (cuda.h), and its name in .NET bindings (CUResult)
       r"|\bthe device encountered a load or store instruction on an invalid memory address"
       r"|\bErrorIllegalAddress\b"
       # ROCm: the HSA runtime aborting a queue after a kernel touched memory it may not, or
       # after any other exception a kernel raised (its documented status: "HSA_STATUS_ERROR_
       # EXCEPTION: An HSAIL operation resulted in a hardware exception"), read whole as the CUDA
       # runtime's kernel exceptions are
       r"|HSA_STATUS_ERROR_MEMORY_(?:APERTURE|FAULT)|Memory access fault by GPU node"
       r"|HSA_STATUS_ERROR_EXCEPTION\b",
       keywords=("Memory access fault",)),
    rule("sanitizer_access", "illegal_memory_access",
       r"Invalid __(?:global|shared|local)__ (?:read|write|atomic)|is out of bounds.{0,40}?"
       r"(?:allocation|address)", keywords=("Invalid __",)),
    rule("misaligned", "illegal_memory_access",
       r"misaligned address|CUDA_ERROR_MISALIGNED_ADDRESS|cudaErrorMisalignedAddress"),
    rule("launch_failure", "illegal_memory_access",
       r"unspecified launch failure|CUDA_ERROR_LAUNCH_FAILED|cudaErrorLaunchFailure"),
    rule("illegal_instruction_cuda", "illegal_memory_access",
       r"an illegal instruction was encountered|CUDA_ERROR_ILLEGAL_INSTRUCTION"
       r"|cudaErrorIllegalInstruction"),
    # the other kernel exceptions the CUDA runtime names, each leaving the context unusable
    # (cudaErrorInvalidPc, cudaErrorHardwareStackError, cudaErrorInvalidAddressSpace)
    rule("kernel_exception", "illegal_memory_access",
       r"\binvalid program counter\b|cudaErrorInvalidPc\b|CUDA_ERROR_INVALID_PC\b"
       r"|\bhardware stack error\b|cudaErrorHardwareStackError|CUDA_ERROR_HARDWARE_STACK_ERROR"
       r"|operation not supported on global/shared address space|cudaErrorInvalidAddressSpace"
       r"|CUDA_ERROR_INVALID_ADDRESS_SPACE|hipErrorLaunchFailure"
       # the driver API's number for any of them beside a name the binding does not know
       r"|\[(?:700|71[4-9])\] Call to cu\w+ results in\b"),  # (numba: "[716] ... UNKNOWN_")
    # cuda-gdb stopping on a kernel's exception ("CUDA_EXCEPTION_6, Warp Misaligned Address.",
    # "CUDA_EXCEPTION_14, Warp Illegal Address."): a faulted kernel, whatever the number
    rule("debugger_kernel_exception", "illegal_memory_access", r"\bCUDA_EXCEPTION_\d+\b",
         keywords=("CUDA_EXCEPTION_",)),
    rule("device_assert", "illegal_memory_access",
       r"device-side assert(?:ion)? triggered|cudaErrorAssert\b"),
    # The kernel's own assert message (CUDA prints it per failing thread before the fault).
    rule("kernel_assert", "illegal_memory_access",
       r"block: \[\d+, ?\d+, ?\d+\],? thread: \[\d+, ?\d+, ?\d+\],? Assertion\b"
       # HIP's ("Indexing.hip:1292: indexSelectLargeIndex: Device-side assertion `...' failed.")
       r"|\.hip:\d+: \w+: Device-side assertion\b"
       # (PaddlePaddle's enforce inside a kernel: "Error: .../bce_loss_kernel.cu:42 Assertion
       # `(x >= 0)` failed. Input is expected to be within the interval [0, 1]")
       r"|^Error: \S+\.cu:\d+ Assertion `"
       # (a kernel's own assert macro printing from the device: DeepEP's "Assertion failed:
       # csrc/kernels/internode_ll.cu:259, condition: num_recv_tokens != 0")
       r"|^Assertion failed: \S+\.cuh?:\d+, condition: ",
       keywords=("Assertion", "Device-side assertion")),
    # --- CUDA graph capture -----------------------------------------------------------------------
    rule("capture_not_permitted", "stream_capture",
       r"operation not permitted when stream is capturing|cudaErrorStreamCapture\w*"
       r"|CUDA_ERROR_STREAM_CAPTURE_\w+|dependency created on uncaptured work in another stream"
       r"|operation would make the legacy stream depend on a capturing blocking stream"
       r"|capture (?:sequence )?(?:was |has been )?invalidated|previous error during capture"
       # (torch's allocator finding the capture it serves invalidated: "status !=
       # cudaStreamCaptureStatus::cudaStreamCaptureStatusInvalidated INTERNAL ASSERT FAILED")
       r"|\bcudaStreamCaptureStatusInvalidated"
       r"|capturing stream has unjoined work|merge of separate capture sequences"
       r"|fork that was not joined to the primary stream"
       r"|capture was not (?:initiated|ended) in (?:this|the same) stream"
       # (torch's graph check: "Capture must end on the same stream it began on.")
       r"|\bCapture must end on the same stream it began on\b"
       # the stream-capture errors by number (900-908, the same in the driver and the runtime
       # APIs) in a failed capture, whatever name a binding prints beside it
       r"|(?i:graph capture failed\b.{0,80}?\b(?:code|error)\b\W{0,3}90[0-8]\b)"
       r"|event last recorded in a capturing stream|thread-local capture sequence from another"
       # an instantiated graph that could not be updated to a newly captured one (910)
       r"|cudaErrorGraphExecUpdateFailure|CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE"
       r"|outside graph capture encountered unexpectedly"
       # a library refusing to be captured ("NCCL cannot be captured in a graph if ...")
       r"|cannot be captured (?:in|into|by) (?:a |the )?(?:cuda ?)?graph"
       r"|(?i:(?:cannot|can't|not (?:allowed|permitted|supported)|unsupported)\b[^.]{0,80}?"
       r"\b(?:during|while|when) (?:the )?(?:cuda ?)?(?:graph|stream) (?:is )?captur)"
       # the CUDA graph API call that failed, as ggml prints it under its "CUDA error: ..."
       r"|^\s*cuda(?:Graph\w+|Stream(?:Begin|End)Capture\w*)\("
       # (or quoted in a check's report of the call: 'CUDA RT call "cudaGraphInstantiate(&g,
       # graph, 0)" in line 142 of file test.cpp failed with invalid argument')
       r"|[\"'`](?:cuda|hip)(?:Graph\w+|Stream(?:Begin|End)Capture\w*)\([^\"'`]{0,200}\)[\"'`]"
       r".{0,80}?\bfailed\b"
       # (XLA's command buffers, by the graph they could not instantiate or launch: "Failed to
       # launch HIP graph: HIP_ERROR_InvalidValue")
       r"|\bFailed to (?:instantiate|launch|update) (?:CUDA|HIP) graph\b",
       stage_hint="graph_capture"),
    # --- KV cache budget --------------------------------------------------------------------------
    rule("kv_no_memory", "kv_cache_oom", r"No available memory for the cache blocks",
       stage_hint="kv_alloc"),
    rule("kv_needed_larger", "kv_cache_oom",
       r"(?:max seq len \((?P<max_model_len>\d+)\)\W*)?\(?(?P<needed_bytes>" + SIZE
       + r") KV cache "
       r"is needed, which is larger than the available (?:KV cache memory )?\((?P<available_bytes>"
       + SIZE + r")\)(?:.*?estimated maximum model length is (?P<estimated_max_model_len>\d+))?",
       stage_hint="kv_alloc"),
    rule("kv_max_seq_len", "kv_cache_oom",
       r"max seq len \((?P<max_model_len>\d+)\) is larger than the maximum number of tokens that "
       r"can be stored in KV cache(?: \((?P<kv_cache_tokens>\d+)\))?", stage_hint="kv_alloc"),
    rule("free_memory_on_startup", "kv_cache_oom",
       r"Free memory on device(?: (?P<device>[\w:]+))? \((?P<free_gib>[\d.]+)/(?P<total_gib>[\d.]+)"
       r" GiB\) on startup is less than desired GPU memory utilization \((?P<utilization>[\d.]+), "
       r"(?P<requested_gib>[\d.]+) GiB\)", stage_hint="startup"),
    rule("cpu_node_memory_startup", "kv_cache_oom",
       r"Available memory on node (?P<numa_node>\d+) \((?P<available_gib>[\d.]+)/(?P<total_gib>"
       r"[\d.]+) GiB\) on startup is less than desired CPU memory utilization \("
       r"(?P<utilization>[\d.]+), (?P<requested_gib>[\d.]+) GiB\)", stage_hint="startup"),
    rule("cpu_node_memory_kv", "kv_cache_oom",
       r"Available memory on node (?P<numa_node>\d+) \((?P<available_gib>[\d.]+)/(?P<total_gib>"
       r"[\d.]+) GiB\) on kv cache\s?allocation is less than requested memory for kv \("
       r"(?:[\d.]+/)?(?P<requested_gib>[\d.]+)", stage_hint="kv_alloc"),
    rule("mamba_state_blocks", "kv_cache_oom",
       r"(?i)exceeds? (?:the )?available (?:mamba|ssm|state|conv|hybrid)\w* (?:cache )?blocks?"
       r"|(?:mamba|ssm|state) cache (?:blocks? )?(?:is|are)? ?(?:not enough|insufficient|too small)"
       r"|not enough (?:mamba|ssm|state) cache", stage_hint="kv_alloc"),
    # (not the compute buffers of a KV-cache update, which are the graph's working memory)
    rule("llama_cpp_kv", "kv_cache_oom",
       r"\b(?:llama|whisper)_kv_cache\w*: failed to allocate(?! compute buffer)"
       r"|\b(?:llama|whisper)_kv_cache\w*\(\) failed"
       # the recurrent-state cache of a hybrid model is part of the same budget ("rs cache")
       r"|failed to allocate buffer for (?:kv|rs|recurrent[ -]state) cache", stage_hint="kv_alloc",
       keywords=("failed to allocate",)),
    rule("kv_tokens_exhausted", "kv_cache_oom",
       r"(?i)(?:remaining|available|free) \d+ kv ?cache tokens?,? but"
       r"|kv ?cache (?:is )?(?:exhausted|full)\b"
       r"|not enough (?:free )?kv ?cache (?:blocks|tokens|space)"
       r"|(?:failed to|could not|couldn't|unable to) find (?:free space in the KV cache"
       r"|(?:a )?(?:free )?KV(?: cache)? slot)|\bno (?:free )?KV(?: cache)? slots? available\b",
       stage_hint="execute",
       keywords=("free space in the KV cache", "KV cache slot", "KV slot")),
    rule("kv_pool_exhausted", "kv_cache_oom",
       r"alloc_req_slots runs out of memory|(?:req_to_token|token_to_kv)_pool\w*.{0,60}?"
       r"(?:out of memory|is full|exhausted)"
       # SGLang's token pool allocator: "Prefill out of memory. Try to lower your batch size."
       r"|(?:^|\b(?:Prefill|Decode) )[Oo]ut of memory\. Try to lower your batch size",
       stage_hint="execute"),
    rule("kv_cache_too_small", "kv_cache_oom",
       r"maxTokensInPagedKvCache must be large enough"
       r"|(?i:(?:paged )?kv ?cache\b.{0,60}?must be (?:large|big) enough)", stage_hint="kv_alloc"),
    rule("kv_cache_insufficient", "kv_cache_oom",
       r"(?i)(?:\bno|insufficient|not enough)(?: available| free| GPU| device)* (?:memory|blocks?"
       r"|space) (?:left )?for (?:the )?(?:kv|mamba|state) ?cache"
       # SGLang's decode scheduler with no KV-cache room left even for a single request
       r"|\bNo space left for only one request\b"
       r"|Not enough memory\. Please try to increase --mem-fraction-static"
       # a token budget profiled below zero: the weights leave nothing for the cache
       r"|profiled (?:value|max\w*|tokens?)\W{1,3}-\d+|(?:max_total_num_tokens|kv_tokens?)=-\d+"
       # MLC's budget of the weights against the memory, no room left for a KV cache ("Cannot
       # estimate KV cache capacity. The model weight size ... may be larger than GPU memory")
       r"|\bCannot estimate KV cache capacity\b",
       stage_hint="kv_alloc"),
    # --- plain device allocation ---------------------------------------------------------------
    rule("ray_memory_monitor", "engine_died",
       r"killed due to (?:the )?(?:node running low on memory|memory pressure)"
       r"|ray\.exceptions\.OutOfMe|Ray killed this worker|ray-oom-prevention",  # (cut words too)
       keywords=("killed due to", "Ray killed", "ray-oom-prevention", "ray.exceptions.OutOfMe")),
    rule("torch_oom", "device_oom",
       r"out of memory\. Tried to allocate (?P<tried_bytes>" + SIZE + r")(?:.*?total capacity of "
       r"(?P<total_bytes>" + SIZE + r") of which (?P<free_bytes>" + SIZE + r") is free"
       r"|.*?\((?:GPU \d+; )?(?P<total_bytes__2>" + SIZE
       + r") total capacity;.*?(?P<free_bytes__2>"
       + SIZE + r") free)?"),
    # TensorRT's builder: a layer or plugin needs more workspace (scratch) than the device has,
    # or it cannot allocate what it asked for ("Requested amount of GPU memory (4294967296
    # bytes) could not be allocated")
    rule("trt_scratch", "device_oom",
       r"requires \d+ bytes of scratch space, but only \d+ (?:is|are) available"
       r"|\bRequested amount of GPU memory \(\d+ bytes\) could not be allocated\b"),
    rule("cpu_alloc", "device_oom",
       r"DefaultCPUAllocator: (?:can't allocate|not enough memory|could not allocate)"
       r"(?:.*?you tried to allocate (?P<tried_bytes>\d+) bytes)?"),
    rule("alloc_failed", "device_oom",
       r"CUDA (?:driver )?error: out of memory|CUDA out of memory|cudaErrorMemoryAllocation"
       r"|OutOfMemoryError"
       # the CUDA math libraries' allocation statuses (cuBLAS, cuDNN, cuSPARSE, cuSOLVER, cuFFT),
       # also in their own words ("the resource allocation failed", as ggml prints cuBLAS')
       r"|CUDA_ERROR_OUT_OF_MEMORY|\bCU[A-Z]+_(?:STATUS_)?ALLOC(?:ATION)?_FAILED\b"
       r"|\bthe resource allocation failed\b"
       r"|hipErrorOutOfMemory|cudaMalloc(?:Async)? failed: out of memory"
       # RAPIDS' memory manager; an allocator's exception nobody caught (std::bad_alloc is a
       # host allocation, Paddle's BadAlloc its device allocator's); TensorFlow's exception
       r"|\bstd::bad_alloc: out_of_memory\b|\brmm::out_of_memory\b"
       r"|\bterminate called after throwing an instance of '(?:std::bad_alloc|[\w:]*BadAlloc)'"
       r"|\bUnexpected exception std::bad_alloc\b"  # (TensorRT's builder)
       # (std::bad_alloc's message on Windows, or its name, at the end of a report: ONNX
       # Runtime's "Status Message: std::bad_alloc")
       r"|: bad allocation$|\bStatus Message: std::bad_alloc\s*$"
       r"|^(?:[\w.]+\.)?ResourceExhaustedError\b"
       # (a JVM exception named for it, Spark RAPIDS' "com.nvidia.spark.rapids.jni.RetryOOM: ...")
       r"|(?<![\w.])(?:[a-z]\w*\.)+[A-Z]\w*OOM: "
       # Vulkan's and Metal's words for it (llama.cpp's and others' GPU backends)
       r"|\bErrorOutOfDeviceMemory\b|\bOutOfDeviceMemoryError\b|\bVK_ERROR_OUT_OF_DEVICE_MEMORY\b"
       # (a Vulkan call's result as its number: -1 and -2 are VK_ERROR_OUT_OF_HOST_MEMORY and
       # VK_ERROR_OUT_OF_DEVICE_MEMORY, as ncnn prints them: "vkAllocateMemory failed -2")
       r"|\bvk[A-Z]\w+ failed -[12]\b"
       # (and the allocation call itself failing, whatever result: "vkAllocateMemory failed
       # -1000072003")
       r"|\bvkAllocateMemory failed\b"
       # (a CUDA driver allocation's result as its number, 2 being CUDA_ERROR_OUT_OF_MEMORY:
       # NVSHMEM's heap, "mem_heap.cpp:1509: non-zero status: 2 cuMemCreate failed")
       r"|\bnon-zero status: 2 cuMem(?:Create|Alloc\w*|Map) failed\b"
       r"|\bkIOGPUCommandBufferCallbackErrorOutOfMemory\b"
       r"|\bInsufficient Memory \(0+8:"  # (its status code, the name cut by a paste)
       # MLX's Metal allocator, asked for more than one buffer may hold
       r"|\bAttempting to allocate \d+ bytes which is greater than the maximum allowed buffer\b"
       # (and PyTorch's MPS backend asking for an array over the 4 GiB one may hold: "failed
       # assertion `[MPSNDArray initWithDevice:descriptor:] Error: total bytes of NDArray > 2**32'")
       r"|\btotal bytes of NDArray > 2\*\*32\b"
       r"|Cuda failure (?:\d+ )?'out of memory'"
       # TensorRT's runtime with the status by its number alone ("Cuda Error in allocate: 2")
       r"|\bCuda Error in allocate: 2\b"
       # legacy torch's THC check: "THCudaCheck FAIL file=... line=66 error=2 : out of memory"
       r"|\bTHCudaCheck FAIL\b.{0,400}?\berror=2 :"
       # a program's own check printing the status number of a cudaMalloc it names (2 is
       # cudaErrorMemoryAllocation: nvdiffrast's "Cuda error: 2[cudaMalloc(&m_gpuPtr, bytes);]")
       r"|(?i:\bcuda error):? 2\b\W*cudaMalloc\w*\("
       r"|\[Errno 12\] Cannot allocate"
       # ENOMEM by its number, as a runtime reports it ("Unable to map file ..., errno=12")
       r"|\berrno ?[=:]? ?12\b"
       r"|(?i:\b(?:cuda|hip|rocm)\w*(?: runtime)? (?:error|failure|failed)\b"
       r".{0,240}?\bout of memory)"
       r"|Cuda Runtime \(out of memory\)|cudaMalloc\w* failed: out of memory"
       r"|Error Code \d+: OutOfMemory|would exceed allowed memory|\(out of memory\)"
       # torch's "Allocation on device 0 would exceed allowed memory", cut by ComfyUI
       r"|\bAllocation on device\s*$"
       r"|\[CUDA\]: out of memory|\bCUDA: out of memory"
       r"|CUDA out of(?: m\w*)?\s*$"
       # XLA / TensorFlow status text, also cut at the end of a wrapped line
       r"|(?i:resource[ _]?exhausted)(?:Error)?: ?(?:(?i:out of memory|failed to allocate)"
       r"|OOM when allocating|Out(?: of(?: m\w*)?)?\s*$)"),
    # too little memory left for a component: TensorRT-LLM names it on the next line ("The
    # following component could not be created: KV cache"), which is the cause when it is the cache
    rule("memory_insufficient", "device_oom",
       # (not a guess, asked: ColabFold's "Could not predict x. Not Enough GPU memory?")
       r"(?i:\b(?:insufficient|not enough) (?:free |available )?(?:gpu|device|cuda|vram)"
       r"(?: video)? memory)(?!\s*\?)"
       # (OpenVINO's GPU plugin: "[GPU] out of GPU resources")
       # (DirectML: "not enough GPU video memory"; Cycles: "System is out of GPU and shared host
       # memory")
       r"|\bout of GPU resources\b|\bout of GPU (?:and (?:shared )?host )?memory\b", weak=True),
    # Mesa's Vulkan driver for AMD (RADV) when the kernel cannot give it the memory a queue
    # submission needs: the application's next call then sees the device lost
    rule("radv_submit_oom", "device_oom",
         r"\bradv/amdgpu: Not enough memory for command submission\b",
         keywords=("Not enough memory for command",)),
    rule("kv_component_failed", "kv_cache_oom",
       r"component could not be created: (?:the )?KV cache", stage_hint="kv_alloc",
       keywords=("component could not be created",)),
    # a memory shortfall checked before allocating (Ollama: "model requires more system memory
    # (18.7 GiB) than is available (4.1 GiB)"), and a tool's shorthand "OOM during <step>"
    rule("model_memory_shortfall", "device_oom",
       r"requires more (?:system |GPU |device |host )?memory \(?[\d.]+ ?[KMGT]i?B\)? than is "
       r"available", stage_hint="loading", ignore_at=QUIET, keywords=("requires more",)),
    rule("oom_shorthand", "device_oom", r"\bOOM (?:during|while|when)\b|\b(?:CUDA|GPU) OOM\b",
       ignore_at=QUIET, keywords=("OOM",)),
    # llama.cpp's loader: a backend buffer for the weights or the context could not be had
    rule("llama_buffer_alloc", "device_oom",
       r"\bunable to allocate (?:\w+ )?buffer\b"
       # its context's compute buffers (newer releases name prompt and generation ones: pp, tg)
       r"|\bfailed to allocate compute (?:pp |tg )?buffers?\b",
       keywords=("unable to allocate", "failed to allocate compute")),
    rule("ggml_pool_full", "device_oom",
       r"not enough space in the (?:context's|scratch) memory pool"
       r"(?: \(needed (?P<needed_bytes>\d+), "
       r"available (?P<available_bytes>\d+)\))?"
       # ggml's tensor allocator: the buffer planned for the graph's tensors is too small
       r"|not enough space in the buffer\b", keywords=("not enough space",)),
    rule("buffer_alloc_failed", "device_oom",
       r"(?:alloc_buffer|ggml_gallocr\w*): (?:failed to allocate|allocating .{0,80}?failed)"
       # (stable-diffusion.cpp's: "qwen_image alloc params backend buffer failed")
       r"|\balloc \w+ backend buffer failed\b",
       weak=True, keywords=("failed to allocate", "alloc_buffer", "backend buffer failed")),
    *DISPATCH_RULES,
)
# fmt: on

#: The built-in rules: the causes, the configurations and model files rejected, then kernel driver
#: lines, relays, wrappers and generic lines.
DEFAULT_RULES: tuple[Rule, ...] = (
    *CAUSES,
    *ENV_RULES,
    *CONFIG_RULES,
    *DRIVER_RULES,
    *LATE_RULES,
    *WRAPPER_RULES,
    *CATCH_ALL_RULES,
)
