"""Rules for work the device has no kernel for (``dispatch_failure``): an architecture, a dtype,
an op or a backend without code for it, in the words of the libraries and compilers that say so.
"""

from __future__ import annotations

from pytest_blackwell.failures.rule import QUIET, Rule, rule

# The table is kept in its compact hand layout: one rule per short block reads like data.
#: The namespaces of torch's own operators (an extension registers its own: ``_C::``).
_TORCH_OPS = r"(?:aten|c10d|_c10d_functional|prims|quantized)"

# fmt: off
#: The last of the known causes (see :data:`pytest_blackwell.failures.rules.CAUSES`).
DISPATCH_RULES: tuple[Rule, ...] = (
    # --- no kernel for this hardware -----------------------------------------------------------
    # a ggml backend asserting the type of an operand its kernel takes ("GGML_ASSERT(src1->type
    # == GGML_TYPE_F32) failed"): it has no kernel for the type it was given
    rule("ggml_operand_type", "dispatch_failure",
       r"\bGGML_ASSERT(?::\s*\S+:\d+:\s*|\()\s*\(?\w+(?:->|_)type == GGML_TYPE_\w+",
       keywords=("GGML_ASSERT",)),
    # an MLIR compiler (Triton's, TVM's, IREE's) with no lowering of an op for its target:
    # "error: failed to legalize operation 'tt.get_program_id' that was explicitly marked illegal"
    # a kernel template's static assertion failing as it is instantiated for this shape or
    # architecture (nvcc's "fp8_gemm.cuh(103): error: static assertion failed with ..."): no
    # kernel for it; and Metal's shader compiler failing to build a backend's kernel for this GPU
    # (ggml's "load pipeline error: Error Domain=CompilerError ...", "error compiling source"):
    # a device compiler refusing the kernel it was given
    rule("device_compiler_refused", "dispatch_failure",
       r"\.(?:cuh?|hpp|h)\(\d+\): error: static assertion failed\b"
       r"|\bload pipeline error: Error Domain=CompilerError\b|\bggml_metal\w*: error compiling\b"
       # (and the OpenCL C compiler's, which names a program's source "<kernel>": "<kernel>:595:
       # 18: error: implicit conversion ... is not supported")
       r"|^<kernel>:\d+:\d+: error: "
       # (Metal's, whose source built at run time is "program_source": "program_source:9022:9:
       # error: invalid type 'const constant int64_t &' ... for buffer declaration")
       r"|^program_source:\d+:\d+: error: "
       # (nvcc on a kernel a program generated and wrote to a temporary file, as TileLang does:
       # "/tmp/tmpgpqpd_xg.cu(70): error: no instance of function template ...")
       r"|^/tmp/[\w./\-]+\.cu\(\d+\): error: "
       # (ROCm's code-object compiler refusing the GPU's target name: "'amd_comgr_action_info_
       # set_isa_name(handle, isa.c_str())' amdgcn-amd-amdhsa--gfx900:xnack-: INVALID_ARGUMENT")
       r"|\bamd_comgr_action_info_set_isa_name\b.{0,200}?\bINVALID_ARGUMENT\b"
       # (clang refusing a GPU builtin the target's instruction set lacks: "mma.cuh:1324:18:
       # error: '__builtin_amdgcn_wmma_i32_16x16x16_iu8_w32_gfx12' needs target feature ...")
       r"|\berror: '__builtin_\w+' needs target feature ",
       stage_hint="compile",
       keywords=("assertion failed", "pipeline error", "error compiling", "<kernel>:",
                 "program_source:", "set_isa_name", "/tmp/", "needs target feature")),
    rule("no_lowering", "dispatch_failure", r"\b[Ff]ailed to legalize operation\b"
       # (Triton's compiler at a kernel's source line, an op of its GPU dialects refusing the
       # 8-bit type the kernel gives it on this target: "k.py:18:23: error: 'tt.fp_to_fp' op
       # operand #0 must be floating-point ..., but got 'tensor<128x64xi8, ...>'"; not a pass's
       # own bug, "operand #2 does not dominate this use", nor a kernel's wrong type, "i32")
       r"|\.py:\d+:\d+: error: '(?:tt|ttg|ttng|triton_gpu|triton_nvidia_gpu|amdgpu)\.\w+' op "
       r"(?:operand|result) #\d+ must be\b.{0,200}?\bbut got '[^']{0,40}?[x<](?:i8|f8E\w*)\b",
       stage_hint="compile", keywords=("legalize operation",)),
    rule("no_kernel_image", "dispatch_failure",
       r"no kernel image is available for execution\b|cudaErrorNoKernelImageForDevice"
       r"|CUDA_ERROR_NO_BINARY_FOR_GPU|(?i:invalid device function)"  # (HIP's: "Invalid ...")
       r"|\b(?:CU|HIP|ROC)(?:BLAS|BLASLT|TENSOR)_STATUS_NOT_SUPPORTED"
       # cublasGetStatusString's text for it, as ggml prints it
       r"|\bthe (?:requested functionality|functionality requested) is not supported\b"
       r"|hipErrorNoBinaryForGpu|Unable to find code object for all current devices"
       # (the HIP runtime's own log of it: "No compatible code objects found for: gfx942")
       r"|\bNo compatible code objects found for\b"
       # a module's code object the runtime cannot load on this GPU (hipModuleLoadData's
       # hipErrorSharedObjectInitFailed: "shared object initialization failed")
       r"|\b(?:cu|hip)ModuleLoad\w*\(.{0,200}?shared object initiali[sz]ation failed\b"
       r"|\bCU[A-Z]+_STATUS_ARCH_MISMATCH\b|(?:cuda|hip)ErrorInvalidDeviceFunction\b"
       # CUDA's number for it (cudaErrorNoKernelImageForDevice), its message cut ("CUDA error
       # 209 at /go/src/...")
       r"|(?i:\bcuda error[ :=(#]*209\b)"
       # (and of cudaErrorInvalidDeviceFunction, 98, which HIP numbers alike: "CUDA error 98 at
       # ggml-cuda.cu:6951", a ROCm build of llama.cpp)
       r"|(?i:\b(?:cuda|hip) error[ :=(#]*98\b)"
       # rocBLAS without the kernel library of this GPU's architecture
       r"|\bTensileLibrary\S*.{0,120}?\bfor GPU arch\b"
       # (or its kernel library that cannot be read at all: the one of this architecture; also
       # with a console's stream tag glued before it: "stderrrocblaslt error: Cannot read")
       r"|(?i:rocblas(?:lt)? error): (?:Cannot read|Could not load) .{0,200}?TensileLibrary"
       # cuBLASLt finding no algorithm for this GEMM (an FP8 layout on a GPU without one)
       r"|cublasLtMatmulAlgoGetHeuristic\b.{0,400}?\bfailed"
       r"|CUDNN_STATUS_NOT_SUPPORTED"
       # cuDNN's frontend finding no engine that runs this operation graph on the device
       r"|\bNo execution plans? (?:built|found) successfully\b|\bNo valid execution plans? built\b"
       r"|\bNo execution plans? supports? the graph\b"
       # (its frontend's words for the same: "cuDNN Frontend error: No valid engine configs for
       # Matmul_MUL_Reduction_...")
       r"|\bNo valid engine configs for\b"
       # a GPU backend without the compute shader of an op for this dtype (ExecuTorch's Vulkan
       # backend: "Could not find ShaderInfo with name add_uint8")
       r"|\bCould not find ShaderInfo\b"
       # a kernel built without code for this architecture, in the words of ggml and others
       # (ggml's "has no device code compatible with CUDA arch 700", also cut after "with")
       r"|(?i:\bno (?:cuda|metal|gpu|rocm|hip) implementation for\b)"  # candle's backends
       # ggml's scheduler: an op whose tensor lives in a backend that has no kernel for the op
       # ("pre-allocated tensor (x) in a buffer (Vulkan0) that cannot run the operation (CPY)")
       r"|\bin a buffer \(\w+\) that cannot run the operation\b"
       r"|(?i:\bno device code compatible\b"
       r"|no code compatible with (?:CUDA |the )?(?:arch|architecture|device|GPU))"
       r"|(?i:no (?:kernel|binary|code) (?:image )?(?:is )?(?:available |compatible )?for "
       r"(?:this|the current|your) (?:arch\w*|device|GPU))"
       # ggml's "ggml-cuda was compiled without support for the current GPU architecture"
       r"|(?i:\bcompiled without support for (?:the |this )?(?:current )?(?:GPU )?arch\w*)"
       # (OpenCV's: "OpenCV was not built to work with the selected device. Please check
       # CUDA_ARCH_PTX or CUDA_ARCH_BIN")
       r"|\bnot built to work with the selected device\b"),
    # cuBLAS status codes printed as numbers (DeepSpeed's "kernel execution error. (m: .., n: ..,
    # k: .., error: 8)"): 8 is CUBLAS_STATUS_ARCH_MISMATCH, 15 CUBLAS_STATUS_NOT_SUPPORTED
    # (bitsandbytes: "cuBLAS API failed with status 15")
    rule("cublas_status_code", "dispatch_failure",
       r"kernel execution error\.? \([^)]*\berror: (?P<cublas_status>8|15)\)"
       r"|\bcuBLAS API failed with status (?P<cublas_status__2>8|15)\b"),
    rule("cutlass_scaled_mm", "dispatch_failure",
       r"No compiled (?:cutlass_)?\w+ for (?:a )?(?:compute capability less than )?(?:CUDA )?"
       r"device capability:? "
       r"(?P<compute_capability>\d+)|dispatch_scaled_mm\w*.{0,80}?(?:capability:? "
       r"(?P<compute_capability__2>\d+)|not (?:supported|implemented))"),
    # nvcc / NVRTC / ptxas asked for an architecture this toolkit does not know: no code for the
    # GPU (ptxas's own words also without its prefix)
    rule("toolchain_arch", "dispatch_failure",
       r"^Value '(?:sm|compute)_(?P<compute_capability__3>\d+)a?' is not defined for option"
       r"|(?i:nvcc|nvrtc)\b.{0,20}?(?:fatal|error)\s*:\s*(?:Value '(?:sm|compute)_"
       r"(?P<compute_capability>\d+)a?' is not defined"
       r"|Unsupported gpu architecture '(?:sm|compute)_(?P<compute_capability__2>\d+)a?'"
       r"|invalid value for --gpu-architecture"  # (and an nvcc older than its "native" target)
       r"|Value '(?:native|all|all-major)' is not defined for option 'gpu-architecture')",
       stage_hint="compile", keywords=("is not defined for option",)),
    # ggml's CUDA backend aborts with a bare "fatal error" where a switch over types, head sizes
    # or kernel variants has no case for this input: no kernel for it
    # (or names it: "getrows.cu:195: ggml_cuda_get_rows_switch_src0_type: unsupported src0 type")
    rule("ggml_cuda_no_case", "dispatch_failure",
       r"ggml-cuda[\\/]\S*\.cuh?:\d+: (?:fatal error|\w+: unsupported (?:\w+ )?type\b)",
       keywords=("ggml-cuda",)),
    rule("ptxas_arch", "dispatch_failure",
       r"ptxas\b.{0,40}?(?:fatal|error)\s*:.*?'sm_(?P<compute_capability>\d+)a?'.*?not defined"
       # (not Triton's wrapper of ptxas' output, whose words below it name the cause: "PTXAS
       # error: Internal Triton PTX codegen error" over "ptxas fatal : ...")
       r"|(?:PTXAS|ptxas) (?:fatal|error)(?!: Internal Triton PTX codegen error\s*$)"
       r"|CalledProcessError: Command '\[[^\]]{0,300}?ptxas",
       stage_hint="compile", keywords=("ptxas", "PTXAS"), ignore_at=("WARNING",)),
    # ptxas refusing an instruction or feature for this target ("not supported on .target")
    rule("ptxas_target", "dispatch_failure",
       r"(?:ptxas\b.{0,300}?)?(?:error|fatal)\s*: (?:Instruction|Feature|Modifier) '[^']+' "
       r"(?:not supported|requires) .{0,40}?\.target '?sm_(?P<compute_capability>\d+)"
       # an MMA variant the target does not have
       r"|ptxas\b.{0,300}?error\s*: Unexpected instruction types specified for",
       stage_hint="compile", keywords=(".target",)),
    # an operator dispatcher that found no kernel for these inputs (xFormers, others)
    # (xFormers lists why each operator refused; one built without CUDA is the installation's
    # fault, also when the whole list was flattened onto the refusal's line)
    rule("xformers_build", "env_mismatch", r"xFormers wasn't build with CUDA support",
       keywords=("xFormers wasn't build",)),
    # TensorRT's builder finding no tactic that runs a layer on this GPU (Error Code 10)
    rule("trt_no_implementation", "dispatch_failure",
       r"Could not find any implementation for node\b"
       # a plugin offering no kernel for the tensors' data types and layouts
       r"|could not find any supported formats consistent with input/output data types"
       # (or its optimizer's assertion that a node has one: "... no supported formats")
       r"|\bcandidateRequirements\.empty\(\) failed\. no supported formats\b",
       stage_hint="compile",
       keywords=("Could not find any implementation", "could not find any supported formats",
                 "no supported formats")),
    # a TensorRT plan built for another GPU: its kernels are another architecture's
    rule("trt_plan_device", "dispatch_failure",
       r"plan file is generated on an incompatible device", stage_hint="loading",
       keywords=("incompatible device",)),
    rule("no_operator_for_inputs", "dispatch_failure",
       r"No operator found for `?\w+`? with inputs|(?i:no (?:kernel|implementation|operator)s? "
       r"(?:found|available|registered) for (?:these|the given|this) (?:inputs|dtype|shape))",
       weak=True),
    # vLLM choosing a kernel for a quantized layer, each candidate's reason below ("Failed to
    # find a kernel that can implement the WNA16 linear layer. Reasons: ..."): the reasons are
    # its own, not causes of their own
    # (its reasons alone, when the paste lost the line above them: "ConchLinearKernel cannot
    # implement due to: Group size (32) not supported by ConchLinearKernel")
    rule("no_kernel_for_layer", "dispatch_failure",
       r"\bFailed to find a kernel that can implement\b|^\s*\w+Kernel cannot implement due to: ",
       keywords=("kernel that can implement", "Kernel cannot implement due to: ")),
    rule("capability_unsupported", "dispatch_failure",
       r"Minimum capability: (?P<min_capability>\d+)\.? Current capability: "
       r"(?P<compute_capability>\d+)|compute capability (?P<compute_capability__2>\d+(?:\.\d+)?)"
       r"[^.]{0,40}?not supported|not supported (?:on|for) (?:compute capability|sm_?)"
       r"(?P<compute_capability__3>\d+(?:\.\d+)?)|supported on GPUs with compute capability of "
       r"at least (?P<min_capability__2>[\d.]+)(?:.*?has compute capability "
       r"(?P<compute_capability__4>[\d.]+))?"
       r"|only supports? (?:Ampere|Hopper|Blackwell|Turing|sm_?\d+)[\w ]*(?:GPUs?)?(?: or newer)?"
       r"|only supported on (?:\w+ )*(?:GPUs|devices) with compute capability\s*>=?\s*"
       r"(?P<min_capability__4>[\d.]+)"
       r"|Min capability: (?P<min_capability__3>\d+)"
       # (DeepSpeed's op builder, every architecture of its list filtered out for this GPU)
       r"|\bno compute capabilities remaining after filtering\b"),
    # a backend or kernel that the program checks against the GPU it was given, raised ("ValueError:
    # TRTLLM MHA backend for prefill is only supported on Blackwell GPUs (SM100)", its GPUs perhaps
    # on the next line of a wrapped paste; not a test skipped for it, nor a program switching to
    # another backend, nor an operating system's or a host CPU's name)
    rule("backend_hardware_only", "dispatch_failure",
       r"^\s*(?:[\w.]+\.)?\w*(?:Error|Exception): .{0,80}?\b(?:backend|kernels?)\b[^.]{0,60}?"
       r"\bis only supported on\b(?!\s*(?i:linux|windows|mac\w*|darwin|android|ios\b|posix|unix"
       r"|non-|x86|arm|aarch64))"),
    # vLLM's attention selector falls back to another backend after saying so at INFO level
    rule("flash_attention_refused", "dispatch_failure",
       r"Cannot use FlashAttention(?:-2)? backend for", ignore_at=("DEBUG", "INFO")),
    # a MODEL architecture (a model class) a tool cannot load or convert, not a GPU's
    rule("model_arch_unsupported", "unsupported_config",
       r"(?i:unsupported (?:model )?architecture):? [\"'\[]*(?P<architecture>[A-Z]\w*(?:For[A-Z]\w*"
       r"|Model|LM))\b"),
    rule("arch_unsupported", "dispatch_failure",
       r"(?i:unsupported (?:gpu |cuda |sm )?arch(?:itecture)?\b)|cannot be enabled except on "
       # a kernel library that does not know this GPU's architecture (AITER on ROCm: "Unknown
       # GPU architecture: gfx1101. Supported architectures: [...]")
       r"|\bUnknown GPU architecture: \w+\. Supported architectures\b"
       # (TensorRT's table of Jetson boards lacking this one: "Unknown embedded device detected.
       # Please update the table with the entry")
       r"|\bUnknown embedded device\b"
       # a backend or kernel offered only on other architectures ("Only {...} backends are
       # supported on Blackwell GPUs for ...")
       r"|\bOnly\b.{0,120}?\b(?:is|are) supported on (?:Blackwell|Hopper|Ampere|Turing|Ada"
       r"|Volta|Pascal|sm_?\d+)\b"
       # a TORCH_CHECK on the architecture failing ("Expected is_sm80 || is_sm90 to be true")
       r"|\bExpected [^,]{0,80}?\b(?:is_sm\d+\w*|\w*props->major)\b[^,]{0,80}? to be true, but"
       r"|not supported in this architecture|No supported CUDA architectures found"
       # (a device's capability the toolchain has no target for: "Device capability v2.1.0 not
       # supported by available toolchain", CUDAnative's)
       # (not a feature's note that it is off on this device: "Device capability 10.3 not
       # supported, communicator is not available", vLLM's)
       r"|\bDevice capability v?\d+\.\d+(?:\.\d+)? (?:is )?not supported by (?:the )?(?:available "
       r"|installed )?(?:toolchain|compiler|toolkit)\b"
       r"|Failed to initialize cutlass|not supported for .{0,10}the current GPU"
       # CUTLASS's own status for a kernel built for another architecture (kErrorArchMismatch)
       r"|\bError Arch Mismatch\b|\bkErrorArchMismatch\b"
       # (and its device code built without the architecture an instruction needs: "Arch
       # conditional MMA instruction used without targeting appropriate compute capability")
       r"|\bArch conditional \w+ instruction used without targeting\b"
       # TensorRT's builder asserts ("Unsupported SM.", "SM version not supported in this NVRTC")
       r"|\bUnsupported SM\b|\bSM version not supported"
       # "block scaled fp8 gemm is not implemented for Blackwell"
       r"|\bnot (?:implemented|supported|available) (?:for|on) (?:Blackwell|Hopper|Ampere|Turing"
       r"|Ada(?: Lovelace)?|Volta|Pascal|sm_?\d+)\b"
       # (or for a device type: "The operator 'aten::_index_put_impl_' is not currently
       # implemented for the MPS device", older torch's "is not current implemented")
       r"|\bnot (?:current(?:ly)? )?implemented for the \w+ device\b"
       # no kernel variant for this SM: "No variants in groups [...] support SM103"
       r"|\b(?:[Nn]o \w+[^.:]{0,60}?|does not |doesn't |not )supports? (?:SM|sm_?)"
       r"(?P<compute_capability>\d+)"
       # CUTLASS_NOT_IMPLEMENTED() in device code: the instruction this architecture lacks,
       # printed as the function's signature followed by "not implemented"
       r"|^(?:void )?cutlass::.{0,3000}?\) const(?: \[with [^\]]*\])? not implemented$"
       # Triton lowering an fp8 conversion for a GPU without one (before sm_89): LLVM's
       # "Unsupported rounding mode for conversion"
       r"|\bUnsupported rounding mode for conversion\b"
       # TensorRT's conversion of the device's SM version, asserting on a major version it was
       # not built for ("[helpers.h::nvinfer1::smVerHex2Dig::694] ... Assertion major >= 0 &&
       # major < 10 failed": an older TensorRT on a compute capability 12.0 GPU)
       r"|\bsmVerHex2Dig\b"
       # a kernel built without the instructions of this GPU's architecture-specific target
       # (Transformer Engine's "FP4 cvt PTX instructions are architecture-specific. Try
       # recompiling with sm_XXXa instead of sm_XXX.")
       r"|\binstructions are architecture-specific\b"
       # a library's table of kernels per GPU without this one ("KeyError: 'gfx1151'" from
       # AITER's chip table; "KeyError: 'sm_120'")
       r"|^(?:[\w.]+\.)?KeyError: ['\"](?:gfx\d{3,4}\w*|sm_?\d{2,3}[af]?)['\"]\s*$",
       keywords=("cutlass::", "Device capability", "nsupported gpu arch", "nsupported GPU arch",
                 "architecture-specific")),
    rule("head_dim_unsupported", "dispatch_failure",
       r"Unsupported head_?(?:dim|size)\b(?:[^:=\d]*[:=] ?(?P<head_dim>\d+))?"
       r"|Head size (?P<head_dim__2>\d+) is not supported"
       r"|(?i:(?:does not|doesn't|only) supports? head ?(?:dim|size)(?:ension)?s?)"
       r"|Expect\w* \(?[^)]{0,40}head_?[Dd]im"
       r"|\bhead_?(?:dim|size) (?:should|must) be (?:in|one of)\b"  # ("headdim should be in [64,")
       # a kernel's assert on the head sizes it was built for: "assert(head_size == 128 || ...)"
       r"|\bassert\w*\s*\(?\s*\(?head_?(?:size|dim)\s*(?:==|\bin\b)"),
    rule("kernel_config_invalid", "dispatch_failure",
       r"Invalid configuration\s?: \w+=\d+|Invalid [\w\-]+(?: [\w\-]+)? tactic"
       # (Marlin's GEMM finding no thread configuration of its kernels for this shape:
       # "Invalid thread config: thread_m_blocks = 1, thread_k = -1, thread_n = -1")
       r"|\bInvalid thread config\s?: \w+ ?= ?-?\d+"
       r"|(?i:no valid (?:kernel )?(?:tactic|kernel config\w*))",
       # TensorRT's builder reports tactics it skips at VERBOSE/INFO level while it goes on
       ignore_at=("DEBUG", "INFO")),
    # TensorRT-LLM's fused MHA runner finds no kernel for these parameters on this GPU (logged
    # at WARNING level, before the build fails or falls back)
    # (or torch's memory-efficient attention, whose kernels check the architecture they were
    # built for: "FATAL: kernel 'fmha_cutlassF_f32_aligned_32x128_gmem_sm80' is for sm80-sm100,
    # but was built for sm121")
    rule("fmha_kernel_missing", "dispatch_failure",
       r"FMHA [Kk]ernels? (?:are|is) not found|FMHA [Kk]ernels? (?:doesn't|does not|do not) exist"
       r"|\bkernel '\w+' is for sm\d+(?:-sm\d+)?, but was built for sm\d+",
       keywords=("FMHA", "but was built for sm")),
    # Triton refusing a block larger than it can build for ("ValueError('numel (2097152) exceeds
    # triton maximum tensor numel (1048576)')"): no kernel for this shape
    rule("triton_block_too_large", "dispatch_failure",
       r"\bexceeds triton maximum tensor numel\b", stage_hint="compile",
       keywords=("maximum tensor numel",)),
    rule("no_attention_backend", "dispatch_failure",
       r"No valid attention backend found|Only \w+ (?:attention )?backends? (?:is|are) supported"
       # (Transformer Engine's, having ruled out each of its backends for the inputs: "No dot
       # product attention backend is available for the provided inputs.")
       r"|\bNo (?:[\w-]+ ){0,3}attention backend is available\b"
       # (its older words: "No dot product attention support for the provided inputs!")
       r"|\bNo dot product attention support for\b"
       # (NATTEN's, for a head size or a device none of its backends takes)
       r"|\bcould not find a suitable backend\b"),
    rule("no_kernel_to_launch", "dispatch_failure", r"\bno kernel found to launch",
       keywords=("no kernel found",)),
    # oneDNN finding no implementation of a primitive for these inputs on this device (not when
    # a program quotes it in a warning as it falls back: vLLM's CPU linear layers)
    rule("onednn_no_primitive", "dispatch_failure", r"\bcould not create a primitive descriptor\b",
       ignore_at=QUIET, keywords=("primitive descriptor",)),
    # A backend refusing this kv-cache dtype or compute capability: no kernel for this setup.
    rule("backend_not_valid", "dispatch_failure",
       r"Selected backend (?:\w+\.)?(?P<backend>\w+) is not valid for this configuration"),
    # an attention backend refusing the KV-cache dtype ("MLA kv_data_type torch.uint8 is not
    # supported"): no kernel for it
    rule("kv_dtype_refused", "dispatch_failure",
       r"\bkv_(?:data_type|cache_dtype|dtype)\b[^:]{0,60}?\b(?:is not|not) supported"),
    rule("cpu_attention_unsupported", "dispatch_failure",
       r"Unsupported CPU attention configuration"
       r"|FP8 KV cache (?:on CPU requires|requires head_size)"
       r"|requires x86 with AVX-512"),
    # An attention/GEMM backend refusing a dtype or feature of the model: no kernel for it here
    # (also when the message is cut right after "no").
    rule("backend_refuses_feature", "dispatch_failure",
       # (not a backend built for another API of its server: rules_env's version mismatch)
       r"^(?!.*\bAPI version\b).*?"
       r"(?:Flash\w*|FlexAttention|XFormers|Triton\w*|TRTLLM\w*|CUTLASS\w*|\w*MLA|\w+Attn)"
       r"(?: V\d)?(?: (?:attention )?backend)?\b[^.:]{0,60}?"
       r"(?:\bdoes(?: not|n't) (?:yet )?support\b|\bis not (?:yet )?supported\b"
       r"|\bnot (?:yet )?supported\b"
       r"|\bno(?:t(?: s\w*)?)?\s*$)"
       # (or the backend named after what it refuses: "attn_mask is not supported for
       # flash-attn 2")
       r"|\b(?:is|are) not (?:yet )?supported (?:for|by|with|in) (?:the )?"
       r"(?i:flash[-_ ]?attn(?:ention)?|flashinfer|xformers|flexattention|cutlass|trtllm)\b"),
    # (not CUDA failing as torch counts the devices: no kernel is looked up there, the runtime
    # cannot use the driver, ``device_count_failed``)
    rule("symbol_not_in_binary", "dispatch_failure",
       r"^(?!.*GetDeviceCount\(\)).*?"
       r"(?:cudaErrorSymbolNotFound|CUDA_ERROR_NOT_FOUND|named symbol not found)"),
    # torch's dispatcher without a kernel of one of its own ops for a backend (a device, a
    # dtype or a layout); an extension's op (``_C::rms_norm``, ``torchvision::nms``) without one
    # is the extension built without that backend: an op missing from the installation
    rule("op_not_for_backend", "dispatch_failure",
       # (torch's own ops: its tensor ops, its collectives, its primitives)
       r"Could not run '" + _TORCH_OPS + r"::[\w.]+' with arguments from the '(?P<backend>\w+)' "
       r"backend"
       # a library's op without a kernel for the backend it runs on (DeepSpeed's op builder:
       # "This op had not been implemented on CPU backend.")
       r"|\bop (?:has|had) not been implemented (?:on|for) (?:the )?(?P<backend__2>\w+) backend\b"
       # a process group without a backend for the device a collective is given ("No backend
       # type associated with device type xpu")
       r"|\bNo backend type associated with device type (?P<backend__3>\w+)"),
    rule("extension_op_not_for_backend", "env_mismatch",
       r"Could not run '(?P<op>(?!" + _TORCH_OPS + r"::)\w+::[\w.]+)' with arguments from the "
       r"'(?P<backend>\w+)' backend"
       # (OpenMMLab's mmcv, whose ops register one implementation per device: "nms_impl:
       # implementation for device cuda:0 not found.")
       r"|^(?:\w+: )?(?P<op__2>\w+): implementation for device (?P<backend__2>\w+)(?::\d+)?"
       r" not found"),
    # A GPU shader the device's driver cannot compile (TensorFlow Lite's GPU delegate: "Shader
    # compilation failed: ERROR: 0:6: 'data' : Syntax error"): the device compiler's own refusal,
    # as for a JIT build's kernel (docs: JIT builds)
    rule("shader_compile_failed", "dispatch_failure",
       r"\b[Ss]hader compilation failed\b|\b[Ff]ailed to compile (?:the )?shader\b",
       stage_hint="compile",
       keywords=("hader compilation", "compile shader", "compile the shader")),
    # an accelerator's delegate that has no kernel for ops of the model (TensorFlow Lite's
    # "Next operations are not supported by GPU delegate")
    rule("delegate_op_unsupported", "dispatch_failure",
       r"\bnot supported by (?:the )?(?:GPU|NNAPI|Hexagon|XNNPACK|Core ?ML|QNN) delegate\b",
       keywords=("delegate",)),
    # Qualcomm QNN preparing a model's graph for its NPU without a kernel for one of its ops
    # ("graph_prepare.cc:205:ERROR:could not create op: q::flat_from_vtcm")
    rule("npu_op_not_created", "dispatch_failure", r"\bERROR:could not create op: ",
       stage_hint="compile", keywords=("could not create op",)),
)
# fmt: on
