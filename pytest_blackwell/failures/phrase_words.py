"""The wording of error messages that says what was being done, and the stage each names.

Pairs of a pattern, in the libraries' own words ("error loading model", "while capturing CUDA
graphs", "failed to compile", "your request has N input tokens"), and the stage it tells;
``phrases`` reads error lines against them.
"""

from __future__ import annotations

import re

from pytest_blackwell.failures.cue_words import DEVICE_NOT_SET_UP, LMDEPLOY_CHECK
from pytest_blackwell.failures.errorwords import DYNAMO_ADVICE

#: What an error message itself says was being done, for excerpts without frames or markers.
#: A server answering a request with an error: the request was being served, unless the error
#: lines say what failed while it was (see :data:`ANSWERS`).
_ANSWERED = (
    r"\bHTTP(?:/\d(?:\.\d)?)? [45]\d\d\b|\bHTTPException: [45]\d\d\b"
    r"|\b500 Internal Server Error\b|^\s*Internal Server Error\s*$"  # (its reason phrase alone)
    r"|\bstatus code:? 5\d\d\b"  # a client's words ("... call failed with status code 500")
    # (an API client's report of a refused request: the OpenAI SDK's "Error code: 500 - {...")
    r"|\bError code: [45]\d\d(?: - [{'\"]|\s*$)|\bAPI request failed with status code:? [45]\d\d\b"
    r"|^\[GIN\] .{0,40}\|\s*5\d\d\s*\|"  # Gin's access log: a request answered 5xx
    # (uvicorn's access log: '"POST /v1/completions HTTP/1.1" 503'; KServe's 'http_status:500')
    r"|\"[A-Z]+ \S+ HTTP/[\d.]+\" 5\d\d\b|\bhttp_status:5\d\d\b"
    r"|\bmethod=(?:POST|GET|PUT)\b.{0,200}?\bstatus=5\d\d\b"  # (zerolog's, logfmt's records)
    r"|\bstatus=5\d\d\b.{0,200}?\bmethod=(?:POST|GET|PUT)\b"
    # a web UI's own report of a request its API failed (stable-diffusion-webui, SD.Next:
    # "API error: POST: http://127.0.0.1:7860/sdapi/v1/img2img {'error': ...}")
    r"|\bAPI error: (?:POST|GET|PUT|DELETE): https?://"
)

#: A model said not to have loaded, named first ("Stable diffusion model failed to load"): the
#: loading stage, in the error's words or in a program's report right below it.
MODEL_NOT_LOADED = r"\bmodel (?:failed to load|could not be loaded|loading failed)\b"

#: A GPU program built from source at run time by its driver, failing ("TVMError: OpenCL build
#: error for device=0x6fc6718ae0", the reason on the next line): in the error's words or in the
#: lines above it (:mod:`.activity_words`), the program was being compiled.
RUNTIME_BUILD = r"\b(?:OpenCL|Metal|Vulkan) (?:program )?build (?:error|failed)\b"

_PHRASES: tuple[tuple[str, str], ...] = (
    (
        r"(?i)capture cuda ?graph|cuda ?graph capture\b|capturing cuda ?graph|cuda ?graph warm ?up"
        r"|\bgraph capture failed\b|\bcuda ?graph preparation\b"
        # XLA's command buffers captured into GPU graphs ("CaptureGpuGraph failed")
        r"|\b(?:instantiate|capture) (?:gpu|cuda) graphs?\b|(?-i:\bCaptureGpuGraph\b)"
        # the CUDA graph API itself: a graph being captured or instantiated
        r"|(?-i:\bcu(?:da)?(?:Graph[A-Z]|StreamBeginCapture|StreamEndCapture)\w*)",
        "graph_capture",
    ),
    (
        r"(?i)\bfailed to load (?:[\w-]+ ){0,2}model\b|\bfailed to load ['\"]"
        r"|\bloading failed\b|error loading model|\berror loading llama server\b"
        r"|llama(?: runner|-server) to start|start a llama runner|\bllama_model_load\b"
        # (Triton's model table: a cell or line that starts so, not a gRPC status in a message)
        r"|(?-i:(?:^|\|\s*)UNAVAILABLE: )"
        r"|modelInstanceState|(?i:error (?:when|while) initiali[sz]ing (?:the )?model\b)"
        r"|\bfailed to load all models\b"  # Triton server's model repository
        # (and its client's report: "load failed for model 'm'"; Ollama's: msg="Load failed")
        r"|\bload failed for model\b|\bmsg=\"Load failed\"|(?i:\b(?:could not|couldn't|unable to"
        r"|cannot|can't|failed to) (?:load|init(?:iali[sz]e)?) (?:the )?(?:[\w-]+ )?model\b)"
        r"|\bError occurred when executing [^:]{0,60}?Load[^:]{0,60}?:"  # a ComfyUI loader node
        r"|(?i:\bload(?:ing)? model error\b)"
        r"|(?i:" + MODEL_NOT_LOADED + ")"  # (said of the model first)
        r"|\bweights were not initialized from checkpoint\b"  # vLLM's check after loading
        # torch's load_state_dict copying a checkpoint's tensor; a checkpoint's header read;
        # a model's tokenizer or configuration files that cannot be loaded; a server launching
        # a model it was asked for (Xinference)
        r"|\bWhile copying the parameter named\b|\bError while deserializing header\b"
        r"|\bAttempting to deserialize object on\b"  # torch.load reading a checkpoint's tensors
        r"|\bFailed to parse NetParameter file\b"  # Caffe reading a .caffemodel's weights
        r"|\bCan't load (?:the )?(?:tokenizer|config|configuration) for\b"
        # (or the file itself: "Can't load /models/gpt/1/config.ini")
        r"|(?i:\b(?:can't|cannot|could not|unable to|failed to) (?:load|read|open) "
        r"\S*\b(?:config|tokenizer)\w*\.(?:ini|json|ya?ml|pbtxt)\b"
        # (or the error named first: "Error opening <model dir>\\genai_config.json")
        r"|\berror (?:opening|loading|reading) \S*(?:config|tokenizer)\w*\.(?:ini|json|ya?ml))"
        r"|\bFailed to launch model\b|\bLoad model from \S+ failed\b"  # (ONNX Runtime's, 2nd)
        # a ggml model's weights given their buffer (stable-diffusion.cpp's "alloc params backend
        # buffer failed"; not the compute buffer of a graph)
        r"|\balloc params backend buffer\b"
        # a server's model backend that could not start (text-embeddings-inference's "Could not
        # start Candle backend: ..."), an error raised while a file was loaded (not the dynamic
        # linker's "error while loading shared libraries", which is a program starting)
        r"|\bCould not start (?:the )?(?:\w+ )?backend\b|(?i:\bwhile loading\b(?! shared librar))"
        # torch's load_state_dict naming what it did ("Error(s) in loading state_dict for X:"),
        # and each tensor it could not copy ("size mismatch for w: copying a param with shape
        # torch.Size([8]) from checkpoint, ...")
        r"|\bError\(s\) in loading state_dict\b|\bcopying a param with shape\b.* from checkpoint\b"
        r"|\bMissing key in checkpoint state_dict\b"  # (torch's distributed checkpoint reader)
        # a remote call named for a load that failed (LM Studio's "[Endpoint=loadModel]", a gRPC
        # server's "Method LoadAdapter encountered an error")
        r"|(?-i:\b(?:[Ee]ndpoint=|[Mm]ethod )[Ll]oad(?:[A-Z]\w*)?\b)"
        # or a request to a runner's load route (Ollama's "do load request: Post
        # \"http://127.0.0.1:43111/load\": EOF")
        r"|\bdo load request\b|\bPOST \S*/load\b|(?-i:\bPost \"?https?://\S+/load\"?:)"
        # the model's files being fetched before they are read ("An error occured while
        # synchronizing the model X from the Hugging Face Hub")
        r"|(?i:\bwhile (?:synchroniz|download)ing (?:the )?model\b)",
        "loading",
    ),
    (
        r"(?i)\bbuild(?:ing)? (?:the |an? )?(?:tensorrt |trt )?engine\b|\bbuild_engine\b"
        r"|engine build(?:ing)?\b|BackendCompilerFailed|InductorError|CppCompileError"
        r"|\bbuild_and_load\b|No working C\+\+ compiler|failed to compile|InvalidCxxCompiler"
        r"|\bbuildSerializedNetwork\b|\[TensorRT Conversion Context\]"  # (Torch-TensorRT's too)
        r"|\b(?:PTX|NVRTC)[- ]?JIT\b|\bJIT compil"
        # Inductor's and Triton's autotuners (the kernel choices are compiled and benchmarked)
        # (Inductor's select_algorithm: "Exception ... for benchmark choice TritonTemplateCaller")
        r"|\bduring autotuning\b|\bNo valid triton configs\b|\bfor benchmark choice\b"
        # TensorRT's builder: its tactics, its source files ("standardEngineBuilder.cpp",
        # "myelinBuilderUtils.cpp"), trtexec's report of it
        r"|Skipping tactic\b|builder\w*\.cpp\b|\bBuilder creation failed\b|(?:^|[\s/])builder/\w+/"
        # the driver JIT-compiling a PTX module while loading it
        r"|\b(?:Error in )?load module\b|\bcuModuleLoad\w*|\bError loading CUDA module\b"
        r"|\bfailed to load PTX text as a module\b"  # XLA handing its PTX to the driver
        # (or a fat binary: "Common::LoadModuleFromFatbin: Loading fatbin file shared.fatbin")
        r"|\bLoadModuleFromFatbin\b|(?i:\bloading fatbin\b)"
        # a GPU program built or linked at run time by the OpenCL or CUDA driver API, or NVRTC
        # ("clBuildProgram(): CL_OUT_OF_HOST_MEMORY", "cuLinkAddData(): the provided PTX ...")
        r"|\bcl(?:Build|Compile|Link)Program\b|\bcuLink(?:AddData|Create|Complete)\w*"
        r"|\b(?:nvrtc|hiprtc)CompileProgram\b"
        # LLVM's crash report naming the tool that crashed: a linker or compiler a JIT ran
        # ("Program arguments: /opt/rocm/llvm/bin/ld.lld -flavor gnu -shared ...")
        r"|\bProgram arguments: \S*\b(?:ld\.lld|lld|llc|clang(?:\+\+)?|opt)\s"
        r"|\berrors? detected in the compilation of\b"  # nvcc's count of a file's errors
        r"|\bunable to compile\b|\b(?:error|exception) happened while compiling\b"
        # a graph compiler's own failure, or one of its passes' (Habana's Synapse: "Graph
        # optimization failed pass: loadTpcKernels", "Can not compile graph"; XLA's "Detected
        # unsupported operations when trying to compile graph")
        r"|\b(?:can ?not|cannot|could not|failed to|trying to) compile (?:the )?graph\b"
        r"|\bgraph (?:compil(?:e|ation)|optimi[sz]ation) failed\b"
        r"|\bcompilation failed\b"  # (Inductor's "Triton compilation failed: triton_poi_...")
        r"|\b(?:error|failure|failed) (?:in|during|while) (?:the )?build(?:ing)?\b"
        # a compiler's own error line (nvcc, ptxas, nvlink, cicc), TensorRT's builder namespace
        # (the device linker in its lower case: "NVLink error" is the interconnect's fault)
        r"|\b(?:nvcc|ptxas|(?-i:nvlink)|cicc)(?:\.exe)?\s*(?:fatal|error)\b|::builder::"
        # (nvcc's refusal of a target, its "nvcc fatal :" lost: "Unsupported gpu architecture
        # 'compute_130'"); an MLIR pass of a kernel compiler asserting at its source line
        # ("lib/Dialect/TritonGPU/Transforms/AccelerateMatmul.cpp:36: ... Assertion")
        r"|\bUnsupported gpu architecture 'compute_\d+"
        # (with Windows' separators and its assert's words: "file C:\\triton\\lib\\Dialect\\
        # TritonGPU\\Transforms\\AccelerateMatmul.cpp, line 40")
        r"|(?-i:[/\\]lib[/\\](?:Dialect[/\\]\w+[/\\]Transforms|Conversion[/\\]\w+)[/\\]\w+\.cpp"
        r"(?::\d+|, line \d+))"
        # a compiler's wrapper reporting it failed (AWS Neuron's "Failed compilation with
        # ['neuronx-cc', ...]", "neuron-cc failed with the following command line call")
        r"|\bFailed compilation with\b|\bneuronx?-cc failed\b"
        # TensorRT's builder timing tactics in its workspace and calibrating INT8 (getBestTactic,
        # "[virtualMemoryBuffer.cpp::resizePhysical::145]", "[calibrator.cpp::add::779]"); LLVM
        # giving up on a kernel ("LLVM ERROR: Broken function found, compilation aborted!")
        r"|(?-i:\bgetBestTactic\b|\b(?:calibrator|virtualMemoryBuffer)\.cpp::)"
        # (and rustc's own error records: "error[E0432]: unresolved import `metal_backend`")
        r"|\bcompilation aborted\b|^error\[E\d{4}\]: "
        # MLIR's translation of a kernel to LLVM IR, or its passes, failing (Triton's: "LLVM
        # Translation failed", "Failed to translate TritonGPU to LLVM IR.", "PassManager::run
        # failed", "Pipeline failed while executing TritonAMDGPUStreamPipeline"; CuTe DSL's
        # "MLIRError: Operation creation failed")
        r"|(?-i:\bLLVM Translation failed\b|\bFailed to (?:emit|translate \w+ to) LLVM IR\b"
        r"|\bPassManager::run failed\b|\bPipeline failed while executing \[?`?\w|\bMLIRError\b)"
        # a host compiler driver's own error ("clang++: error: no such file or directory: ...")
        r"|(?:^|\] )(?:clang(?:\+\+)?|g\+\+|gcc|c\+\+|cc1(?:plus)?|hipcc)(?:\.exe)?: "
        r"(?:fatal )?error:"
        # ptxas naming the PTX file and line it stopped at ("ptxas /tmp/k.ptx, line 5; fatal :")
        r"|\bptxas \S+, line \d+; (?:fatal|error)\s*:|\bnot supported on \.target '?sm_\d+"
        # an MLIR diagnostic at a kernel's Python source (Triton lowering a kernel: "chunk.py:208:
        # 39: error: operand #2 does not dominate this use")
        # (or as MLIR prints its location: 'loc("chunk.py":105:22): error: ...')
        r"|^\s*\S+\.py:\d+:\d+: error: |^loc\(\"[^\"]+\.py\":\d+:\d+\): error: "
        # XLA's autotuners (configs profiled, cuDNN's convolution algorithm, C++ frames of theirs)
        r"|\bconfigs? failed during profiling\b|\bAutotuner\w*::\w+|\bbest cudnn convolution algo"
        # a program building its kernels at run time (OpenMM's platforms, NVRTC): the compiler
        # cannot be started, or the program does not compile
        r"|\bError launching (?:the )?(?:CUDA |HIP |OpenCL )?compiler\b"
        r"|\bError compiling program\b"
        # a GPU program built from source at run time by its driver (:data:`RUNTIME_BUILD`)
        r"|" + RUNTIME_BUILD +
        # torch's extension builder finding a toolkit of another CUDA version than torch's ("The
        # detected CUDA version (12.4) mismatches the version that was used to compile PyTorch")
        r"|\bdetected CUDA version \([\d.]+\) mismatches the version that was used to compile\b"
        # a compiler's diagnostic on a source line, as nvcc's front end and MSVC write it, also
        # indented in a build's output ("common.cu(542): error: ...", "x.cpp(12): error C2065")
        r"|^\s*\S+\.(?:cu|cuh|cpp|cc|cxx|c|h|hpp)\(\d+\): (?:catastrophic )?error\b"
        # (and as gcc, clang and MLIR tools write it: "x.cpp:136:10: error: expected ...")
        r"|^\s*\S+\.(?:cu|cuh|cpp|cc|cxx|c|h|hpp|mlir):\d+:\d+: (?:fatal )?error:"
        # Triton's frontend refusing a kernel's source, its position first and the kernel's
        # source below, also relayed without its type ("Worker failed with error 'at 1:0:");
        # Taichi's, which compiles a kernel as it is first called ("TaichiSyntaxError: ...")
        r"|\bCompilationError\W{0,3}at \d+:\d+:|\berror\W{0,3}at \d+:\d+:\s*$"
        r"|\bTaichi(?:Syntax|Compilation|Type|Name)Error\b"
        # Dynamo's advice, printed only under an error raised while it compiles a frame, and
        # an exception of Dynamo's own, raised only while it traces or compiles a frame
        r"|\btorch\._dynamo\.config\.suppress_errors\b|^" + re.escape(DYNAMO_ADVICE) + r"\b"
        r"|\btorch\._dynamo\.exc\.[A-Z]\w+"  # ("torch._dynamo.exc.TorchRuntimeError: ...")
        # (and Inductor's, as it lowers or caches a graph); a compiler's own crash (gcc's ICE)
        r"|\btorch\._inductor\.(?:exc|codecache)\.[A-Z]\w+|\bLoweringException\b"
        r"|\binternal compiler error\b",
        "compile",
    ),
    (
        r"\bcompute_forward\b|Error in model execution|\bforward(?:Sync|Async)\b"
        r"|^Watchdog timeout\b|probability tensor contains|SamplingFromProbs"
        r"|prompt \(length \d+\) is longer than|Dumping (?:input data|scheduler output)"
        r"|\bdump_input\b"
        # TensorRT-LLM's executor loop ("error in forward function"), its request's error
        r"|\b(?:error|failure|exception) in (?:the )?forward (?:function|pass|step)\b"
        r"|\bexecutor\.utils\.RequestError\b"
        r"|inputs? of failed execution|_raise_exception_on_finish"
        r"|\bEngine iteration timed out\b"  # vLLM's async engine: a step of running requests
        r"|\bLost task [\d.]+ in stage\b|\bJob aborted due to stage failure\b"  # (Spark's tasks)
        r"|\bEngine loop failed\b"  # LMDeploy's engine loop, which steps the running requests
        # a program's work loop ("Exception in main training loop", "error in main cuda loop")
        r"|(?i:\bin (?:the )?(?:main )?training loop\b|\bin (?:the )?main (?:\w+ )?loop\b)"
        # ComfyUI running a node (not a loader; by class or display name)
        r"|\bError occurred when executing (?![^:]{0,60}?Load)[^:]{1,60}?:"
        r"|\bwhile running (?:the )?\w+ node\b"  # (ONNX Runtime's; chaiNNer's, not a loader)
        r"|(?i:\ban error occurred in an? (?![^:]{0,60}?\bLoad)[\w ]{1,60}? node:)"
        r"|(?i:error was encountered while running the model)"  # Ollama's runner
        r"|\bError computing NN outputs\b"  # Core ML running a model on an input
        # a request being served: validation of one request (vLLM's "your request has N input
        # tokens", "However, you requested N tokens"), the API server's response generators
        r"|\byour request\b|\bHowever, you requested\b|\bcompletion stream generator\b"
        r"|\b\w*completion_(?:stream|full)_generator\b"  # vLLM's serving of a chat request
        r"|(?:^|:)(?:prefill|decode|generate)\{"  # TGI's tracing spans of a request
        r"|\"span\":\{\"name\":\"(?:prefill|decode|generate)\""  # the same, logged as JSON
        r"|\b(?:[Rr]equest|[Gg]eneration) failed during (?:generation|decoding|prefill)\b"
        r"|(?i:\b(?:could not|failed to|unable to) predict\b)|\bPOST predict: "  # (Ollama's too)
        # a server's handler of a request that failed (Ray Serve's "... while handling request")
        r"|(?i:\b(?:failure|error|exception) while handling\b(?! argument))"
        # the work of one request ("Decode transfer failed for request ...", "Stage 1 error on ...")
        r"|(?i:\b(?:failed|error|failure|exception) (?:for|on) request\b)"
        r"|\b(?:Prefill|Decode|Prefilling|Decoding) failed for\b"  # (a scheduler's step for one)
        # a benchmark of the model failing while it runs ("Error during benchmark: ...")
        r"|(?i:\berror (?:during|while running|in) (?:the )?benchmark\b)"
        # the work a served model does, said to have failed ("Transcription failed: ...")
        r"|(?i:\b(?:transcription|inference|prediction|translation) failed\b"
        r"|\bfailed (?:transcription|inference|prediction|translation) (?:for|of|on)\b)"
        # (or said of its run: Qiskit Aer's "Circuit execution failed", Triton's "model failed
        # during inference"; not XLA's "Execution of replica 0 failed", which any first run of a
        # compiled program says, set-up included)
        r"|(?i:\b(?:circuit|simulation|graph|program) execution failed\b"
        r"|\bfailed during (?:inference|execution|prediction)\b)"
        # llama.cpp's older API evaluating a prompt's tokens ("llama_eval: failed to eval", "Failed
        # to process prompt")
        r"|(?i:\bfailed to (?:eval|evaluate|decode|process (?:the )?prompt)\b)"
        r"|(?i:\berror while invoking\b)"  # a served session's step (InvokeAI's invocations)
        r"|\bFailed to process the request\(s\)"  # (Triton server: a request its model failed)
        # an OpenAI-compatible API's error object, the answer to a request
        r"|\"object\":\s*\"error\"|\{\"error\":\s*\{\"(?:code|message)\""
        # the work item the error broke ("Error processing image: CUDA error: ...")
        r"|(?i:\berror (?:while )?(?:processing|transcribing|translating|generating|rendering)"
        r" (?:the |for )?"
        r"(?:image|prompt|audio|request|video|frame|batch|chunk|segment|text|client)\b)"
        # the same said of the work itself ("Error during audio generation: CUDA error: ...",
        # "An error occurred during inference: ...")
        r"|(?i:\b(?:error|exception|failure) (?:occurr?ed |happened )?(?:during|while|in) (?:the )?"
        r"(?:\w+ )?"
        r"(?:generation|inference|sampling|decoding|prediction|transcription)\b)"
        # uvicorn's (and Flask's) report of an exception raised while the app handled a request
        r"|\bException (?:in ASGI application|on /\S* \[(?:GET|POST|PUT|PATCH|DELETE)\])"
        # a served request named by its OpenAI-style id ("cmpl-<hex>", "chatcmpl-<hex>") as the
        # thing that failed or waits, or its grammar refusing its tokens (xgrammar's FSM)
        r"|\b(?:chat)?cmpl-[0-9a-f]{8}|\bFailed to advance FSM for request\b"
        # ONNX Runtime's executor running a session's nodes (a record of sequential_executor.cc);
        # NVIDIA's codec SDK encoding or decoding pictures ("Error on NvEncEncodePicture: 17")
        r"|\b(?:sequential|parallel)_executor\.cc:\d+|\b(?i:(?:nvEnc)?EncodePicture)\b"
        r"|\bcuvid(?:ParseVideoData|DecodePicture|MapVideoFrame)\w*"
        # TensorFlow naming the function of the op that failed: Keras' training step
        r"|\[Op:__inference_train_function_\d+\]",
        "execute",
    ),
    # a server answering a request with an error (see _ANSWERED)
    (_ANSWERED, "execute"),
    # a destructor's report (Python's __del__, Cython's __dealloc__)
    (
        r"Exception ignored in.{0,80}__(?:del|dealloc)__|likely shutting down|interpreter shutdown"
        # the CUDA runtime already unloaded at exit (cudaErrorCudartUnloading): a free or a
        # destroy made while the process goes down
        # (not a check that tolerates it: "Check failed: e == cudaSuccess || e ==
        # cudaErrorCudartUnloading: CUDA: an illegal memory access ...", DGL's)
        r"|\bdriver shutting down\b|(?<!== )\bcudaErrorCudartUnloading\b"
        # a server that cannot stop in time (Triton's "failed to stop server: ... Exit timeout
        # expired"), a component that cannot be torn down (GXF's "failed to deinitialize")
        r"|\bfailed to stop server\b|\bExit timeout expired\b"
        r"|(?i:\b(?:failed to|could not|cannot|unable to) deinitiali[sz]e\b)",
        "shutdown",
    ),
    # also the tracing span of TGI's (and its forks') router warming the shards up
    (
        r"(?i)unable to warm ?up|warm[ -]?up (?:failed|model|error)\b|(?:while|when) warming up"
        # a warm-up of a given size that failed ("Warm-up for 6144 tokens failed with status 6")
        r"|\bwarm[ -]?up for \d+ \w+ failed\b|(?:^|[\s:])warmup\{|\"span\":\{\"name\":\"warmup\""
        r"|\bError: Warmup\(",  # the router's error naming the warm-up it ran
        "warmup",
    ),
    # TensorRT: a serialized engine read back from its plan file
    # (and an execution context created for the engine read back, before it runs anything:
    # "ICudaEngine::createExecutionContextWithoutDeviceMemory: Error Code 1: ...")
    (
        # (also its API's name: "IRuntime::deserializeCudaEngine: Error Code 1: ...")
        r"(?i)deserializ\w* ?(?:the )?(?:cuda ?)?engine|engine deserialization"
        # (its constructor or initialisation, "executionContext.cpp::initializeExecutionContext::
        # 625"; not a shape set on it before a run: "executionContext.cpp::setInputShape")
        r"|(?-i:\bcreateExecutionContext\w*)"
        r"|(?-i:\bexecutionContext\.cpp::(?:\w+::)*?(?:initialize)?ExecutionContext::\d)"
        # (Qualcomm QNN's runtime reading a compiled context back the same way: "Could not
        # create context from binary for context index = 0 : err 5005")
        r"|\bcreate (?:a )?context from (?:a |the )?binary\b|\bcontextCreateFromBinary\b",
        "loading",
    ),
    (r"(?i)\b(?:error|failed|failure) (?:in|during|of) (?:the )?memory profil", "profile"),
    # llama.cpp creates its context (KV cache and compute buffers) after loading the weights
    # and a KV cache being allocated is the KV-cache stage, whatever the engine
    (
        r"failed to create (?:the )?(?:llama_)?context|llama_new_context_with_model\b"
        r"|(?i:\bfailed to initiali[sz]e the context\b)"
        r"|(?i:\ballocat\w* (?:\w+ ){0,2}for (?:the )?kv[ _-]?cache\b)"
        # the context reserving its compute graph's buffers (llama.cpp's graph_reserve)
        r"|\bgraph_reserve\b"
        # TVM's runtime creating a paged KV cache (MLC's "vm.builtin.paged_attention_kv_cache_
        # create_reduced")
        r"|\b\w*kv_cache_create\w*",
        "kv_alloc",
    ),
    (
        r"(?i)waiting for .{0,60}(?:to start(?: ?up)?|READY|initial message)\b|\binit\.cc:\d+"
        r"|waiting for (?:the )?(?:engines?|engine cores?|workers?)\b"
        r"|(?i:\b(?:did not|to) become (?:ready|healthy)\b)"  # a server awaited until it is up
        r"|ncclCommInit\w*|\bncclGetUniqueId\b|inspecting model architecture"
        # NCCL's check as a communicator is set up: two ranks on one GPU
        r"|\bDuplicate GPU detected\b|" + LMDEPLOY_CHECK +
        # TRL's GRPO trainer checking its batch sizes as it is built
        r"|\bmust be evenly divisible by the number of generations\b"
        # (not Dynamo's advice after a compile error, "import torch._dynamo"; not a console
        # script's "from x.cli import main", the context of a rich traceback's entry frame)
        r"|\bimport(?:ing)? (?!torch\._dynamo\s*$|main\b)\w+|ImportError"
        r"|(?i:unable to initialize backend|failed to create stream executor|jax plugin config)"
        # the CUDA stack or a library's CUDA set-up, initialised while the process starts
        # (TensorFlow's: "CUDA runtime implicit initialization on GPU:0 failed")
        r"|(?i:cuda (?:driver |runtime )?(?:implicit )?initiali[sz]ation"
        r"|backend failed to initiali[sz]e|cuda setup)"
        r"|\bCUDA error\(3\)|\bcudaErrorInitializationError\b|\bCUDA_ERROR_NOT_INITIALIZED\b"  # (3)
        r"|\bCUDA error: initialization error\b"
        # torch's lazy CUDA set-up failing, or refusing to in a child forked after its parent had
        # set CUDA up ("CUDA call failed lazily at initialization with error")
        r"|\bfailed lazily at initiali[sz]ation\b|\bCannot re-initiali[sz]e CUDA in forked subproc"
        r"|\bwas compiled without GPU support\b"  # (bitsandbytes, as it is imported)
        # a server setting its memory pools up as it starts (Triton's pinned memory pool)
        r"|\bpinned memory pool will not be available\b|\bfailed to allocate pinned system memory\b"
        # a ggml backend setting its device up (CUDA's, Metal's, Vulkan's, SYCL's, OpenCL's)
        r"|\bggml_(?:cuda|metal|vulkan|vk|sycl|opencl)_init\b"
        # ONNX Runtime's CUDA provider being added to a session's options
        r"|\bAppendExecutionProvider_\w+"
        # Spark RAPIDS' executor plugin setting its GPU and memory pool up as an executor starts
        r"|\bException in the executor plugin\b|\bCould not initiali[sz]e RMM\b"
        r"|\bOrt\w*ProviderOptions\b"  # (its options for the provider, in .NET's frames)
        # the device, its command queue or an encoder session set up as a program starts ("Can't
        # initialize device [ID=0, GPU #0]", "Couldn't create OpenCL command queue", NVENC's
        # session opened: "Error on nvEncOpenEncodeSessionEx: 10"); a CUDA context created
        r"|(?i:\b(?:could not|couldn't|cannot|can't|unable to|failed to) (?:initiali[sz]e|init"
        r"|create) (?:the |an? )?(?:OpenCL |CUDA |GPU |Vulkan |HIP )?(?:device|command queue"
        r"|encoder session)\b)"
        # (and NVIDIA's codec SDK creating its encoder, decoder or parser, loading its API)
        r"|\b(?:nvEnc)?OpenEncodeSession\w*|\b(?:nvEnc)?InitializeEncoder\b|\bcuvidCreate[A-Z]\w*"
        r"|\bLoadNvEncAPI\b|\bcuDevicePrimaryCtxRetain\b|\bcuCtxCreate\w*"
        r"|\b(?:cu|hip)Init\w*"  # (or a library's check of it: DALI's "cuInitChecked()")
        # devices counted or selected: what a process does first with CUDA
        r"|\b(?:cu(?:da)?|hip)(?:GetDeviceCount|SetDevice|DeviceGetCount)\b"
        r"|\bNum(?:Cuda|Hip)Devices\b"
        r"|(?i:\b(?:failed to|unable to|could not|cannot) (?:fetch|enumerate|list|query|detect"
        r"|get) (?:any |the )?(?:number of )?(?:cuda |gpu )?devices\b)"
        # a device the program cannot find or set up
        r"|(?i:" + DEVICE_NOT_SET_UP + ")"
        # an argument check: the message names a command-line flag it refuses
        r"|\bnot (?:supported|compatible|allowed) (?:with|when using) --[a-z]"
        r"|(?<![\w-])--[a-z][\w-]+ (?:is not supported|is not allowed|must be|cannot be used)"
        # a check that asks for another command-line flag, or pydantic validating the arguments
        # of an engine's config (vLLM: "[type=value_error, input_value=ArgsKwargs(...")
        r"|\bsetting the ?`?\w+`? flag in (?:the )?CLI\b|\binput_value=ArgsKwargs\("
        r"|\b[Ss]et --[a-z][\w-]+ to\b|\b[Ss]et `--[a-z][\w-]+`\s*(?:\.|$)"  # ("set `--no-x`.")
        # a command-line parser refusing a flag's value ('error while handling argument
        # "--cache-type-k": ...', a short flag too, argparse's "argument --dtype: invalid choice")
        r"|\b(?:error while (?:handling|parsing) argument|argument) [\"']?--?[a-z][\w-]*[\"']?:"
        # clap's refusals (Rust launchers, TGI's): "invalid value 'True' for '--flag <X>'",
        # "unexpected argument '--flag' found"
        r"|\b(?:invalid value '[^']*' for|unexpected argument) '--?[a-z]"
        # vLLM's engine arguments built from what a caller passed, refusing one this version
        # does not take ("EngineArgs.__init__() got an unexpected keyword argument 'x'")
        r"|\b(?:Async)?EngineArgs(?:\.__init__)?\(\) got an unexpected keyword argument\b"
        # vLLM's check of the model's dtype against the GPU, run while the engine is created
        r"|\bBfloat16 is only supported on GPUs with compute capability\b"
        # the engine's parallel-configuration check against the model's shape
        r"|\bmust be divisible by (?:the )?(?:tensor|pipeline)[ _]parallel[ _]size\b"
        # (Megatron's check of its arguments, named as their flags: "Number of layers should be
        # divisible by the pipeline-model-parallel size"; not the model's own check as its
        # blocks are built, "num_layers should be divisible by pipeline_model_parallel_size")
        r"|\b(?:must|should) be divisible by (?:the )?(?:tensor|pipeline)-model-parallel size\b"
        # torch.distributed's store waiting for every rank to join the process group
        r"|\bDistStoreError\b|\bwaiting for clients\. \d+/\d+ clients joined\b"
        # its store-based barrier ("Waiting in store based barrier to initialize process group")
        r"|(?i:\binitiali[sz](?:e|ing) (?:the )?process group\b)"
        # a communicator being set up: TensorRT-LLM's NCCL communicator, NVSHMEM's bootstrap,
        # initialisation and transports' set-up (DeepEP's buffers), its source tree of any name
        r"|\bcreateComm\b|\bnvshmem\w* initialization failed\b|\bnvshmemi_transport_init\b"
        r"|/nvshmem\w*/src/(?:modules/bootstrap|host/init)/"
        # c10d's client socket connecting to the process group's store (TCPStore)
        r"|\bclient socket has timed out after \S+ while trying to connect to\b"
        r"|\bconnect\(\) timed out\. Original timeout was\b"  # (its older wording)
        # and its server socket (the store itself, on the master port) that cannot be opened
        r"|\bserver socket has failed to (?:bind|listen)\b"
        # (or a server's own listener: "could not bind to address: 0.0.0.0:8000", "failed to
        # bind to 0.0.0.0:8000"; a server binds its port once, as it starts)
        r"|\b(?:could not|couldn't|cannot|failed to|unable to) (?:bind|listen)(?: to| on)? "
        r"(?:address:? )?[\w.\-\[\]:]+:\d+\b"
        r"|\bFailed to meet rendezvous 'init'"  # (torch_xla's first rendezvous of its processes)
        # torchelastic's rendezvous of the nodes, which it runs before it starts its workers
        # ("RendezvousTimeoutError", "RendezvousConnectionError", "RendezvousClosedError")
        # (and Lightning checking the Trainer's settings, its accelerator and devices, as built)
        r"|\bRendezvous\w*Error\b|\bMisconfigurationException\b"
        # a distributed runtime reaching the services it coordinates through (Dynamo's etcd)
        r"|\bFailed to connect to (?:the )?(?:etcd|NATS|nats|Redis|redis)\b"
        # CUDA finding no device: the first thing a process does with CUDA
        r"|\bno (?:CUDA|ROCm|HIP)-capable device is detected\b"
        # a server that could not be started (its model server, inference server)
        r"|(?i:\bfailed to start (?:the )?(?:model |inference )?server\b)"
        # (or a worker, a daemon, a service, restarted too: dask's nanny "Failed to restart
        # worker after its process exited", hivemind's "Daemon failed to start"; a server being
        # set up: "Error initialising basecall server"; Ray's dashboard, started with its cluster)
        # (or a plugin or a container: Kubernetes' device plugin, pyxis' "couldn't start
        # container")
        r"|(?i:\b(?:failed to|could not|couldn't|unable to) (?:re)?start (?:the )?(?:\w+ ){0,2}"
        r"(?:worker|daemon|service|dashboard|plugin|container)\b"
        r"|\b(?:server|worker|daemon|service|container) "
        r"(?:failed to start|(?:start|create) failed)\b"
        # (or says it cannot: vLLM's "vLLM engine cannot start without GPU")
        r"|\b(?:engine|server|worker) (?:cannot|can't|could not) start\b"
        # (Ray's placement group for an engine's workers, made as the engine starts: "Waiting for
        # creating a placement group of specs for 30 seconds")
        r"|\bcreating a placement group\b"
        r"|\berror initiali[sz]ing (?:the )?(?:\w+ )?server\b"
        # the devices queried through NVML as a program picks its GPUs ("Failed to query NVML
        # device info: ...")
        # (or set up as it starts: "Failed to initialize NVML: ...", "Cannot init NVML library")
        r"|\bfailed to (?:query|initiali[sz]e) NVML\b(?!: Unknown Error)|\bcannot init NVML\b)"
        # an error said to have happened while a session or a backend initialised
        r"|(?i:\b(?:exception|error|failure) during initiali[sz]ation\b)"
        # (or while a runtime initialised: "Error while initializing ZeroGPU: ...", WebLLM's
        # "Init error, OperationError: ...")
        r"|\b[Ee]rror while initiali[sz]ing\b|^Init error\b"
        # (or its set-up: "Error in Dynamo component setup: ...")
        r"|(?i:\b(?:exception|error|failure) (?:in|during) (?:the )?(?:[\w-]+ ){0,2}set-?up:)"
        # a program's own initialisation said to have failed, as the whole message
        # ("RuntimeError: Initialization failed. controller_init_state: ..."; not a kernel's
        # "Initialization failed: Failed to set the allowed dynamic shared memory size")
        r"|(?:^|: )Initiali[sz]ation failed(?:\.|$)"
        # a rank fetching the communicator's id from the store (torch.distributed's first call);
        # a JAX process registering with the coordination service of a multi-process run
        r"|\bis setting up NCCL communicator\b|\bCoordinationService/RegisterTask\b"
        # MediaPipe validating a task's graph as its engine is set up
        r"|\bValidatedGraphConfig Initiali[sz]ation failed\b"
        # Open MPI asking its collective components about a communicator being created
        r"|\bmca_coll_\w+_comm_query\b"
        # NCCL's bootstrap finding no network interface to use, its socket set-up failing
        r"|\bBootstrap ?: no socket interface found\b|\bncclSocketInit: "
        # (or its socket that cannot connect to a peer's, after retrying: "socket.h:390 NCCL
        # WARN Connect to 10.0.0.1<21724> failed : Connection refused")
        r"|\bNCCL WARN Connect to\b"
        r"|\bWait_for_all_tasks_to_register\b"  # (the barrier of that registration)
        # vLLM's check of which ranks share a node, run as its distributed environment is set up
        r"|\bis_in_the_same_node\b"
        # the container runtime refusing to start a container: its program never started
        # (like Docker finding no NVIDIA runtime, round 14)
        r"|\bnvidia-container-cli: |\bOCI runtime create failed\b"
        # (or the Docker daemon refusing the run itself: an image it cannot pull, a device it
        # cannot give)
        r"|^docker: Error response from daemon: "
        # NCCL's own record of a warning raised in its initialisation or bootstrap, its
        # function or file named before the level ("ofi_init:700 NCCL WARN ...", "init.cc:1203
        # NCCL WARN ...")
        r"|\b(?:\w+_)?(?:init|bootstrap)\w*(?:\.cc)?:\d+ NCCL WARN\b"
        # a Ray actor that failed as it was created (its constructor: a worker being set up)
        r"|\berror raised in its creation task\b"
        # Android's framework failing to start an app's activity (the app starting up)
        r"|\bUnable to start activity ComponentInfo\{"
        # ONNX Runtime's bindings registering an execution provider as a session is set up
        # (the Rust crate's "An error occurred when attempting to register `CUDAExecutionProvider`")
        r"|\battempting to register `?\w+ExecutionProvider\b"
        r"|\b[A-Z]\w* provider registration failed\b",
        "startup",
    ),
)
PHRASES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), stage) for pattern, stage in _PHRASES
)
#: The phrase of a request answered with an error. A server answers so whatever failed while it
#: served the request (Ollama loads a model for the request that asks for it), so it tells the
#: stage only when no other error line does.
ANSWERS = next(pattern for pattern, _ in PHRASES if pattern.pattern == _ANSWERED)
