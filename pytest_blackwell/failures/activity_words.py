"""The activities a log can show before its first error, in the libraries' own wording.

Each entry is a pattern and the stage that activity belongs to: a server answering requests,
checkpoint shards being read, an engine being built, kernels being compiled, a progress bar.
The patterns are general (documented wording, not the wording of one log); the last entry, the
bare progress bar, is the only one that names no work. ``activity`` decides which line counts.
"""

from __future__ import annotations

import re

from pytest_blackwell.failures.phrase_words import RUNTIME_BUILD

#: A progress bar's percentage and the blocks drawn so far, unfinished (" 33%|█████").
BAR_BLOCKS = r"^\s*\d{1,2}%\|[\u2588-\u258f#]+"
#: "Loading weights from yolo.weights...Done!" (darknet): the weights are in, not being read.
_WEIGHTS_DONE = r"\.\s*Done!?\s*$"

#: Work a program announces it starts, in its own words ("Starting Predictions").
_WORK = r"(?i:predictions?|inference|generation|evaluation|training)"

_ACTIVITY: tuple[tuple[str, str], ...] = (
    # serving: HTTP access logs, requests accepted, a scheduler with running requests, tokens
    # being generated, a runtime stepping its batch
    (
        r"\"(?:POST|GET) /(?!\S*/resolve/)\S* HTTP/\d|\bReceived (?:\w+ )?request\b"
        r"|\bnum_running_reqs=[1-9]"
        # a server's answer to a request, its status line as a client prints it (curl -i)
        r"|^HTTP/\d(?:\.\d)? [1-5]\d\d\b"
        # (or as an application's error report shows it: "Status Code: 500")
        r"|(?i:^\W*status(?: code)?:\s*[1-5]\d\d\s*$)"
        r"|\bNew request\b.{0,80}?\breceived\b"
        r"|\bRunning: [1-9]\d* reqs?\b|generation throughput: (?:[1-9]|0\.\d*[1-9])"
        r"|\b(?:Decode|Prefill) batch\b|\bStep function failed\b|\bDumping scheduler\b"
        # a request named by its OpenAI-style id ("for request cmpl-c583ae01a6a349e5...",
        # "Reqid: chatcmpl-88db78d3..."): requests being handled
        r"|\b(?:chat)?cmpl-[0-9a-f]{16,}"
        # an interactive chat waiting for or answering the user's input (LMDeploy's chat CLI)
        r"|\bdouble enter to end input\b"
        r"|(?i:(?:\bplease |^[>\s]*)(?:enter|type|input) (?:an? |the |your )?(?:\w+ )?"
        r"(?:image|prompt|text|query|question|input|message)\b)"
        # llama.cpp's server working on a request in one of its slots
        r"|\bslot (?:update_slots|launch_slot_\w*|init_sampler|print_timing):"
        r"|\bslot \d+ is processing\b|\bsrv +update_slots:"  # older wording; its server loop
        # (and the server's older records, the function in brackets: "INFO [  update_slots] ...")
        r"|\[\s*(?:update_slots|launch_slot_with_task|print_timings)\] "
        # a prompt being processed (llama.cpp's forks), a prompt queued (ComfyUI)
        r"|(?i:\bprocessing (?:the )?(?:prompt|audio|image|video|frames?)\b|\bprompt processing\b)"
        # an input done, counted ("Processed image 122.jpg (4 / 1000)")
        r"|(?i:\bprocessed (?:image|audio|video|frame|file|sample)\b.{0,80}?\(\d+ ?/ ?\d+\))"
        r"|\bProcessing (?:GPU |CPU )?batch \d+"  # a batch of inputs run ("... 1 of expected 1")
        # a count of an input's pieces being worked on ("processing 113 slice(s)")
        r"|(?i:\bprocessing \d+ (?:slice|chunk|segment|window|frame|image|sample)s?\b)"
        # a chat program running its first prompts through the model (MLC's "Running system
        # prompts...")
        r"|(?i:\brunning (?:the )?(?:system |initial )?prompts?\b)"
        r"|^batch_decode: n_tokens = \d+"  # llama.cpp's embedding example decoding a batch
        r"|\bPrefilling (?:[Uu]ser|request|batch|prompt)\b"  # a runner prefilling a request
        # TurboMind stepping a batch of requests ("[Forward] [0, 1), dc=0, pf=1, sum_q=3917")
        r"|^\s*(?:\[TM\]\[INFO\]\s*)?\[Forward\] \[\d+, \d+\), dc=\d+, pf=\d+"
        r"|^\s*(?:\[[^\]]*\]\s*)*got prompt\s*$"  # (also behind a host's tags: SwarmUI's)
        # mistral.rs' engine logger with tokens moving; llama.cpp's chat reporting a turn's
        # speeds ("[ Prompt: 81.3 t/s | Generation: 27.3 t/s ]")
        r"|\bThroughput \(T/s\) (?:[1-9]|0\.\d*[1-9])|\bGeneration: [\d.]+ t/s\b"
        # ComfyUI running a node of the workflow (its loader nodes load weights: below)
        r"|\bError occurred when executing (?![^:]{0,60}?Load)[^:]{1,60}?:"
        r"|\bNode threw an error during execution\b"
        # a server that has come up: the work after it is the requests it serves
        r"|\bServing on https?://|\bUvicorn running on\b|\bApplication startup complete\b"
        r"|\bRunning on (?:local|public) URL:"  # a Gradio app serving its interface
        r"|\bTo create a public link, set `share=True`"  # (its advice printed right after)
        r"|\bllama runner started\b"
        # a progress bar or announcement of the work itself ("Generating: 0/1", "Sampling
        # with k_euler", "Denoising 40%|####", a spinner's "Transcribing... 0:00:03")
        # (also behind a logger's source location: stable-diffusion.cpp's "stable-diffusion.cpp:
        # 1428 - generating image: 1/1 - seed 42", "sampling using Euler A method")
        r"|(?i:^\s*(?:[\u2800-\u28ff]\s*|[\w.-]+\.\w+:\d+ +- +)?(?:generat(?:ing|ion)|sampling"
        r"|denoising|transcrib\w*|epoch \d+)\b.{0,60}?(?:\d+/\d+|\d+%\||\b(?:with|using)\b"
        r"|\.\.\.\s*\d+:\d\d:\d\d))"
        # nccl-tests' result rows: size, count, type, redop, root, time, algbw, busbw, #wrong
        r"|^\s*\d+\s+\d+\s+(?:float|half|bfloat16|double|u?int(?:8|32|64))\s+(?:sum|prod|max|min|avg"
        r"|none)\s+-?\d+\s+[\d.]+\s+[\d.]+\s+[\d.]+"
        # a training loop reporting its loss (Megatron's "lm loss: 1.42E+00", the Trainer's
        # "{'loss': 3.55, ...}", "loss 61.1") or its step (MMEngine's "Epoch(train) [1][8/10]")
        # (a tag of a metrics logger too: "Loss/train_mse: 0.42")
        r"|(?:^|[\s|{,'\"])(?:lm |\w*_)?[Ll]oss(?:/\w+|_[a-z]+)?['\"]?(?:\s*[:=]\s*|\s+)"
        r"-?\d+(?:\.\d+)?"
        r"(?:[eE][+-]?\d+)?\b"
        # a training loop's counted step ("[3/1000] Forward GPU memory usage: ...", ColossalAI's
        # examples); LAMMPS' thermo table header, printed as its run starts
        r"|\[\d+/\d+\] (?:Forward|Backward)\b|^\s*Step\s+Temp\s+E_pair\b"
        # (its run being set up, "Setting up Verlet run ...", and its multi-line thermo record,
        # "------------ Step              0 ----- CPU =            0 (sec) -------------")
        r"|^\s*Setting up \w+ run\b|^-+ Step +\d+ -+ CPU = "
        # DeepSpeed's step report and throughput timer ("[Rank 0] step=80000, skipped=0, lr=",
        # "RunningAvgSamplesPerSec=640.7")
        r"|\bstep=\d+, skipped=\d+\b|\bRunningAvgSamplesPerSec="
        # gradient boosting's evaluation records, one per iteration: CatBoost's ("0:  learn:
        # 0.5330845  test: 0.6196420  best: ..."), XGBoost's ("[0]\ttrain-rmse:0.48"), LightGBM's
        # ("[10]\tvalid_0's l2: 0.21")
        r"|^\s*\d+:\s+learn:\s*-?\d|^\[\d+\]\s+\w+-\w+:-?\d|^\[\d+\]\s+\w+'s \w+: -?\d"
        # PETSc's solver monitors, one line per iteration ("0 SNES Function norm 0.0406612",
        # "1 KSP Residual norm 3.2e-05")
        r"|^\s*\d+ (?:SNES|KSP|TS) (?:Function|Residual|preconditioned resid|unpreconditioned"
        r" resid|true resid) norm\b"
        # Keras' epoch header ("Epoch 3/10"), nnU-Net's ("Epoch 0"), with a colon ("Epoch: 0")
        r"|\bEpoch\(train\)|(?i:^\W*epoch:? \d+(?:/\d+)?(?:\s*$|, ))"
        # (with its count in brackets and what follows: " Epoch: [1 | 300] LR: 0.100000")
        r"|(?i:^\W*epoch:? ?\[\s*\d+\s*(?:\||/|of)\s*\d+\s*\])"
        # stable-diffusion.cpp done sampling an image and decoding its latents
        r"|\bsampling completed\b|\bdecoding \d+ latents?\b"
        # an offline converter announcing the pass its run exists for (ExLlamaV2's convert.py:
        # " -- Quantizing...", then a line per layer)
        r"|(?i:^\W*(?:quantizing|calibrating)(?: (?:the )?model)?\s*(?:\.\.\.|\u2026)\s*$)"
        # (or its progress, layer by layer: GPTQ's "Quantizing fc2 in layer 8/48...", also as
        # a logger's record, GPTQModel's "... in layer 0 of 125")
        r"|(?i:(?:^\W*|\] |\bINFO\b\W*)(?:quantizing|calibrating) [\w.]+ in layer \d+(?:/| of )\d+)"
        # Megatron's timer before a training step, and its word as its training loop starts
        # ("training ..."); BasicSR's training record ("<epoch:  5, iter:")
        r"|\bbefore the start of training step\]|^training \.\.\.\s*$|<epoch:\s*\d+, iter:\s*[\d,]+"
        # a program announcing the start of its work ("Start simulation", "Starting training")
        # (or of the work on an input: "Starting transcription on: talk.mp3")
        # (or "Starting sequential inference to transcribe: talk.wav")
        r"|(?i:^\W*start(?:ing)? (?:the )?(?:\w+ )?(?:simulation|training|inference|generation"
        r"|sampling|transcription|mining)\b(?:\W*$| on\b| to \w+\b|\W+(?:iters?|steps?|epochs?)\b))"
        # (or with "to": "Start to forward", as a server's backend says it of a request)
        r"|(?i:\bstart(?:ing)? to (?:forward|infer|inference|generate|decode|sample)\b)"
        # (or said the other way round: "Training starts at step 1")
        r"|(?i:\b(?:training|inference|generation) (?:starts|started|begins) at step \d)"
        # a training loop reporting where it is ("Training: step 198", T5X's trainer), or the
        # program announcing it with an ellipsis ("Training ...", Megatron's pretrain)
        r"|(?i:\btraining:? (?:step|iter(?:ation)?|epoch) \d+\b)|^\W*Training \.\.\.\s*$"
        # the time an inference took, reported once it ran ("Time taken for inference is 6 ms")
        r"|(?i:\b(?:time (?:taken )?for|took) (?:the )?inference\b"
        r"|\binference (?:time|took|latency)\b\W{0,3}\d)"
        # a miner given work by its pool ("new job from pool:3333 diff 120K", "Eth: New job
        # #79ff35a2 from pool:3353", "New job '0000003ddaf88b8a', diff=2", "New job received")
        r"|(?i:\bnew job\b(?: #?[\w']+)?(?:,| from\b| received\b))"
        # a media pipeline set playing (GStreamer's bus message, as DeepStream's apps print it:
        # "** INFO: <bus_callback:180>: Pipeline running"); ffmpeg starting to transcode (it
        # prints its key help as the first frames go through)
        r"|\bPipeline running\b|^\s*Press \[q\] to stop\b"
        # a program starting on one of its inputs ("Separating track song.mp3", "Processing file
        # 3 of 9", "Upscaling frame 00042.png")
        r"|(?i:^\W*(?:separating|processing|upscaling|encoding|transcoding|rendering|enhancing"
        r"|restoring|interpolating|inpainting|colori[sz]ing) (?:the )?(?:track|file|image|video"
        r"|audio|frame|clip|input|scene|sequence)s?\b)"
        # a program counting the iterations of its work loop ("Expectation iteration 1",
        # "Iteration 120/500")
        r"|(?i:^\W*(?:\w+ )?iteration:? \d+(?:\s*(?:/|of)\s*\d+)?\W*$)"
        # a ComfyUI error report's node (not a loader node: below)
        r"|\bNode Type:\W{0,4}(?!\w*Load)\w+"
        # llama.cpp's perplexity and imatrix tools working through their data ("perplexity:
        # calculating perplexity over 565 chunks", "compute_imatrix: computing over 307 chunks");
        # a speech recogniser's transcript, segment by segment (whisper's and whisper.cpp's
        # "[00:06:04.000 --> 00:06:11.000]  text")
        r"|\b(?:calculating perplexity|computing) over \d+ chunks\b"
        r"|^\s*\[\d\d:\d\d(?::\d\d)?\.\d{3} --> \d\d:\d\d(?::\d\d)?\.\d{3}\]"
        # and its first step on an audio file ("Detected language 'en' with probability 0.97")
        r"|\bDetected language '?\w+'? with probability\b"
        # OpenMMLab's runner starting its workflow ("Start running, host: root@x, work_dir: ...",
        # "workflow: [('train', 1)], max: 20 epochs")
        r"|\bStart running, host: \S+, work_dir:|\bworkflow: \[\('train', \d+\)"
        # the model being run on work ("Running inference for model: x", "Running model ...",
        # "Running image 1/1 ...")
        r"|(?i:\brunning (?:the )?(?:inference|generation|prediction)\b"
        r"|\brunning (?:the )?model(?:[_ ]\d+)?\W*$|\brunning (?:image|sample|batch|prompt) \d+)"
        # the work announced by a word alone on its line ("Transcribing..", "Generating...")
        r"|(?i:^\W*(?:transcribing|generating|inferring|predicting|denoising)\W*$)"
        r"|^\[Fooocus\] (?:Processing prompts|Encoding (?:positive|negative))\b"  # (its task)
        # an interactive chat's prompt answered with the user's message (KTransformers'
        # local_chat: "Chat: <message>"): a reply is being generated
        r"|^Chat: \S"
        # Transformers' generate choosing a padding token as it starts ("Setting `pad_token_id`
        # to `eos_token_id`:2 for open-end generation."); BasicSR's tools (Real-ESRGAN, GFPGAN)
        # announcing each image they process ("Testing 0 photo")
        r"|\bfor open-end generation\b|^Testing \d+ \S"
        # (or the work announced as it starts: ESMFold's "Starting Predictions")
        r"|^\W*Starting (?:the )?(?:" + _WORK + r")\b",
        "execute",
    ),
    # JIT and engine builds: nvcc/ptxas command lines, ninja, TensorRT(-LLM) engine builds
    (
        # (TF-TRT's "Building a new TensorRT engine for TRTEngineOp_0")
        r"(?i)\b(?:start(?:ing)? )?build(?:ing)? (?:the |an? )?(?:new )?"
        r"(?:trt-llm |tensorrt |trt )?engines?\b"
        r"|\bengine build (?:starts|started|begins)\b"  # (TRT-LLM: "Engine build starts")
        # (DeepStream's nvinfer without a plan to read: "Trying to create engine from model files")
        r"|\bcreate (?:an? |the )?(?:tensorrt |trt )?engine from model files?\b"
        r"|(?:^|[\s/])(?:nvcc|ptxas)\s+-(?!-?(?:V|version)\b)"  # (not a version query: "nvcc -V")
        r"|\bninja -v\b|\bEmitting ninja build file\b"
        r"|^ptxas info\s*: Compiling entry function\b"  # (ptxas -v, a kernel being compiled)
        # CMake's generated build compiling a source ("Building NVCC (Device) object ...")
        r"|\bBuilding (?:NVCC|CUDA|CXX|C|HIP)(?: \(Device\))? object\b"
        # (or a makefile's echo of the source it compiles: "Compiling  common.cu > ../common.o")
        r"|^\s*Compiling\s+\S+\.(?:cu|cpp|cc|cxx|c)\b"
        # Inductor's max-autotune benchmarking its kernel choices (a table per op, then a total)
        r"|\bAUTOTUNE (?:[a-z_]\w*\(|benchmarking takes)"
        # a model traced to XLA's HLO to be compiled (AWS Neuron: "generating HLO: model_x")
        r"|\bgenerating HLO\b"
        # TensorRT's builder choosing kernels: tactics are timed and picked only while it builds
        r"|\[TRT\].{0,120}?\b(?:[Tt]actics?|builder pass)\b|Skipping tactic\b"
        # trtexec given a model to build an engine from, or a plan file to write
        r"|\btrtexec\b.{0,400}?--(?:onnx|saveEngine)\b"
        # (Torch-TensorRT's converter logging as it builds: "[Torch-TensorRT TorchScript
        # Conversion Context] - ...")
        r"|\[Torch-TensorRT (?:\w+ )?Conversion Context\]"
        # (its ONNX parser reporting the node it was importing into a network: "ModelImporter.cpp:
        # 729: --- End node ---", "While parsing node number 2")
        r"|\bModelImporter\.cpp:\d+: (?:While parsing node number|--- (?:Begin|End) node ---)"
        # TensorRT's builder timing its kernel choices, in its verbose output ("Autotuning format
        # combination: ...", "--------------- Timing Runner: conv1 (CaskConvolution)")
        r"|\bAutotuning format combination\b|\bTiming Runner: "
        # a program compiling its fused CUDA kernels at start (Megatron-LM's "> compiling and
        # loading fused kernels ...")
        r"|(?i:\bcompiling (?:and loading )?(?:the )?(?:fused |custom |cuda )?kernels\b)"
        # a GPU program built from source at run time, failing (TVM's "OpenCL build error for
        # device=0x6fc6718ae0", its reason on the next line)
        r"|" + RUNTIME_BUILD +
        # (Intel's OpenCL and Level Zero runtimes print the build log of such a program under
        # "The program was built for 1 devices" / "Build program log for 'Intel(R) Arc(TM)'")
        r"|\bBuild program log for\b|\bThe program was built for \d+ devices?\b"
        # pip building a package from source, a step not done yet (its build backend's steps,
        # "Getting requirements to build wheel ... error", then the output of the build under
        # it; not "... done" nor "finished with status 'done'")
        r"|\b(?:Getting requirements to build (?:wheel|editable)|Building wheels? for \S+)"
        r"(?!.*\bdone\b)",
        "compile",
    ),
    # weights: checkpoint shards, state dicts, weight files being read
    (
        r"(?i)\bloading (?:\w+ )?checkpoint (?:shards|files|with)\b|\bload(?:ing)?_state_dict\b"
        r"|\bLoading pipeline components\b"  # diffusers' pipeline reading its parts
        r"|(?<!--)\bfrom_pretrained\b"
        r"|\bloading (?:model |partial |LLM )?weights\b(?! took)(?!.{0,200}?" + _WEIGHTS_DONE + r")"
        r"|\bUsing model weights format\b"
        # mistral.rs reading each file of the model ("Loading `tokenizer_config.json` at `org/m`")
        r"|\bLoading `[^`]+` (?:locally )?at\b"
        # an adapter's weights read ("Loading LoRA: name with strength: 0.2")
        r"|(?i:\bloading (?:the )?lora\b)"
        r"|\bload(?:ing)? (?:the )?(?:(?!of\b)\w+ ){0,2}model\b(?! (?:weights )?took)"
        r"(?!.{0,300}?\bcompleted\b)"  # (stable-diffusion.cpp's "... completed, taking 8.40s")
        # the model's tokenizer files being read; TGI's launcher starting a shard (which loads
        # the model: "Starting shard", "Waiting for shard to be ready")
        r"|(?i:\bload(?:ing)? (?:the )?tokenizer\b)|\bStarting shard\b|\bWaiting for shard\b"
        # Ollama's scheduler waiting for its runner to load the model
        r"|\bwaiting for server to become available\b|\bstarting llama server\b"
        r"|\bInitializing llama server\b|\bLoading Dynamic llm server\b"  # (its older wordings)
        # a model part initialised from a checkpoint ("Initializing language decoder from
        # ../pretrained_ckpt/vicuna_ckpt/7b_v0/"); stable-diffusion.cpp sizing a model's
        # parameters ("clip params backend buffer size = 235.06 MB(RAM) (196 tensors)")
        r"|(?i:\binitiali[sz]ing [\w ]{0,30}? from \S*(?:ckpt|checkpoint|pretrained))"
        r"|\bparams backend buffer size\b"
        # whisper.cpp's loader describing the model it reads (as activity, not a marker: CUDA
        # initialised lazily under it fails at start-up in its own words)
        r"|^whisper_model_load: "
        r"|\bwaiting for llama runner to start responding\b"
        # loader nodes, also by display name ("[Comfy3D] Load Diffusers Pipeline")
        r"|\bError occurred when executing [^:]{0,60}?Load[^:]{0,60}?:"
        r"|\bNode Type:\W{0,4}\w*Load\w*"
        r"|(?i:\b(?:trying|attempting) to load\b)"
        # a weights file named as it is read ('Loading "Llama-3-70B.Q8_0.gguf"', "loading
        # v1-5-pruned.safetensors")
        r"|(?i:\bload(?:ing)? (?:(?:the|model|checkpoint|weights|file|from) )*[\"']?[^\s\"']*[\w-]"
        r"\.(?:gguf|ggml|safetensors|ckpt|pth?)\b)"
        # files of a model repository being fetched (Hugging Face's download bars, and its
        # file URLs in an HTTP client's debug log: "GET /org/m/resolve/main/m.bin HTTP/1.1")
        r"|\bFetching \d+ files\b|^\s*Downloading\b|\"GET /\S*/resolve/\S* HTTP/\d"
        # Triton server's model lifecycle loading a version of a model ("loading: resnet:1")
        r"|\bmodel_lifecycle\.cc:\d+\] \"?loading: [\w\-.]+:\d+"
        # TensorRT-LLM reading a serialized engine back ("[TensorRT-LLM][INFO] Loaded engine
        # size: 68370 MiB")
        r"|\bLoaded engine size: \d"
        # the latent-diffusion code (CompVis' ldm, which stable-diffusion tools carry) building
        # a checkpoint's model ("DiffusionWrapper has 859.52 M params.", "Working with z of
        # shape (1, 4, 32, 32) = 4096 dimensions.")
        r"|\bDiffusionWrapper has [\d.]+ M params\b|(?i:\bworking (?:with|on) z of shape\b)"
        r"|\bLatentDiffusion: Running in [\w-]+ mode\b|\bCreating model from config\b"
        # KTransformers building the model by its optimise rules, a module at a time, before
        # the weights ("Injecting model.layers.0.self_attn as ktransformers.operators.x . X")
        r"|^Injecting model\S* as \S"
        # (or Megatron's, its model constructed before its checkpoint is read: "building GPT
        # model ...")
        r"|^building (?:an? )?\w+ models? \.\.\.\s*$"
        # a tensor of the checkpoint read onto its device (KTransformers' "loading
        # blk.2.attn_kv_b.weight to cuda:0"); Ollama's runner asked to load a model ("msg=load
        # request=\"{Operation:alloc ...")
        r"|(?i:^\W*loading [\w.]+\.(?:weight|bias)\b)|\bmsg=\"?load\"? request=",
        "loading",
    ),
    # the weights are in: what runs next is the first forward pass, the memory-profiling run
    # (as vLLM's "Model loading took" marker): TensorRT-LLM's "Model init total -- 387.22s",
    # tinygrad's "loaded weights in 4041.00 ms"
    (
        r"\bModel init total\b|\bloaded weights in \d|\bloaded \d+ tensors \(.{0,20}?\) in \d"
        r"|\b(?:Loading model weights|Model loading) took\b"
        # (a program's own line that says so, alone: "Loaded model", "Model loaded in 3.2s")
        r"|^(?:Loaded model|Model loaded)(?: in [\d.]+ ?m?s)?\.?\s*$"
        r"|(?i:\bloading (?:model )?weights\b.{0,200}?" + _WEIGHTS_DONE + ")",
        "profile",
    ),
    # CUDA graphs being captured: SGLang's "Capture cuda graph bs [...]", "Capture piecewise
    # CUDA graph begin", vLLM's "Capturing CUDA graphs", and SGLang's capture progress bars
    # ("Capturing batches (bs=8 avail_mem=...)", "Capturing num tokens (num_tokens=64 ...)")
    (
        r"(?i)\bcaptur(?:e|ing) (?:a |piecewise )?cuda ?graphs?\b|\bcuda ?graph warm ?up\b"
        r"|\bcreating cuda ?graph instances\b"
        r"|\bCapturing (?:batches|num tokens) \((?:bs|num_tokens)="
        # (or one batch size's graph done, the next one's under way: "CUDA graph initialized for
        # bsz = 1")
        r"|\bcuda ?graph (?:initiali[sz]ed|captured|built) for (?:bsz|bs|batch[ _]size)\b",
        "graph_capture",
    ),
    # TensorRT-LLM sizing its paged KV cache and allocating it
    # (and mistral.rs': "Allocating 6855 MB for PagedAttention KV cache per GPU")
    (
        r"\bMax tokens in paged KV cache\b|\bfor max tokens in paged KV cache\b"
        r"|\bAllocating [\d.]+ ?[MG]i?B for PagedAttention KV cache\b"
        # a runner allocating its KV caches layer by layer ("Allocating TT kv caches for each
        # layer (submesh 1):  69%|...")
        r"|(?i:\ballocating (?:\w+ ){0,2}kv[ _-]?caches?\b)"
        # a runtime setting up its paged KV cache ("Using Paged KVCache", MLC's; "Creating paged
        # KV cache")
        r"|(?i:\b(?:using|creating|initiali[sz]ing) (?:the |a )?paged ?kv ?cache\b)"
        # whisper.cpp creating a decoding state: its KV caches and compute buffers sized
        # ("whisper_init_state: kv self size  =  220.20 MB")
        r"|^whisper_init_state: ",
        "kv_alloc",
    ),
    # torch's CUDA graph waiting for the NCCL work before it captures
    (r"\bbefore starting graph capture\b", "graph_capture"),
    # a warm-up announced by the program itself ("Warmup...", "Warming up the model")
    (
        r"(?i)^\s*warm(?:ing)?[ -]?up\b|\bwarming[ -]up (?:the )?\w"
        r"|\b(?:model|engine) warm[ -]?up\b|\bwarm[ -]?up \d+ (?:times|iterations|runs|rounds)\b"
        # mistral.rs running its model once on dummy inputs after loading it
        r"|\bBeginning dummy run\b"
        # Triton server running a model's warm-up samples ("instance m_0_0 is running warmup
        # sample 'first-batch' for iteration 1"); FlashInfer's and TensorRT-LLM's autotuners,
        # which time their kernels on dummy inputs once the model is in
        r"|\bis running warmup sample\b|\[Autotuner\]: Autotuning process (?:starts|ends)\b"
        # vLLM's HPU runner warming each bucket up, counted ("[Warmup][Graph/prompt][351/352]
        # batch_size:1 query_len:128")
        r"|(?i:\[warm[ -]?up\]\[[^\]]*\]\[\d+/\d+\])",
        "warmup",
    ),
    # the distributed teardown (torch.distributed's process group destroyed)
    # (or torch's warning printed as the process exits without destroying it)
    (
        r"(?i)\bprocess group (?:has been )?destroyed\b"
        r"|\bdestroy_process_group\(\) was not called before program exit\b",
        "shutdown",
    ),
    # start-up: the parsed command line, a library's set-up report printed at import
    (
        r"\bargs: Namespace\(|\bCUDA SETUP: |\bCoordinationService/RegisterTask\b"
        # the distributed set-up announced ("> initializing model parallel with size 1")
        r"|(?i:\binitiali[sz]ing (?:model parallel|ddp|pipeline|data parallel) with size\b"
        r"|\binitiali[sz]ing (?:the )?(?:distributed|process group|torch\.distributed)\b)"
        # stable-diffusion-webui's launcher handing over to the web UI, before any model
        r"|^Launching Web UI with arguments:"
        # ggml finding its devices and registering its backends, before any model is read
        r"|\bggml_(?:cuda_init|init_cublas): found \d+ \w+ devices?\b"  # (and its older name)
        r"|\bggml_cuda_init: initiali[sz]ing rocBLAS on device\b"  # (its ROCm build's BLAS)
        r"|\bregister_(?:backend|device): registered\b"
        r"|\bggml_vulkan: Found \d+ Vulkan devices?\b"
        r"|^ggml_metal_init: "  # (ggml's Metal backend setting its device up, line by line)
        # Android's Vulkan loader as an app creates its instance ("D/vulkan: searching for layers
        # in '/data/app/x/lib/arm'"): the GPU backend setting its device up
        r"|\bvulkan: searching for layers in\b"
        # a runtime naming the device it set up (Taichi's "Using CUDA Device [0]: GeForce 940M")
        r"|\bUsing CUDA [Dd]evice \[\d+\]"
        # the devices being counted, as a CUDA sample reports it ("cudaGetDeviceCount returned
        # 35", then the error's string)
        r"|\b(?:cuda|hip)GetDeviceCount(?:\(\))? returned\b"
        # a client or launcher waiting for the server it started to be up ("Waiting for server
        # to be ready (timeout=120)", PyTriton's)
        r"|(?i:\bwaiting for (?:the )?(?:\w+ )?server to (?:be ready|start|come up)\b)"
        # an engine checking its environment before it starts (LMDeploy's "Checking environment
        # for PyTorch Engine.")
        r"|\bChecking environment for\b"
        # a program reporting the GPU runtime it set up ("CUDA initialized with 1 device.")
        r"|^\W*(?:CUDA|HIP|SYCL) initiali[sz]ed with \d+ devices?\b"
        # an installer or a launcher checking that its packages import ("Checking PyTorch,
        # Triton, and vLLM imports...")
        r"|\bChecking [\w ,.\-]{1,80} imports\b"
        # a program announcing a part it sets up ("Initializing AmgX Linear Solver p",
        # "Initializing dreambooth training..."): not a model, its weights or a pipeline, which
        # are read (below, loading)
        # (or by the function that prints it: llamafile's "import_cuda_impl: initializing gpu
        # module...")
        r"|(?i:^\W*(?:[a-z_]\w*: )?initiali[sz]ing (?!.*\b(?:model|chat|weights?|checkpoint"
        r"|pipeline|tokenizer"
        r"|lora|vae|unet|text encoder|clip)s?\b)[\w -]{2,60}?(?:\.\.\.|…)?\s*$)"
        # a program announcing that it sets up its runtime ("--> Init runtime environment",
        # Rockchip's RKNN examples; "Initializing runtime...")
        r"|(?i:^\W*init(?:iali[sz]e|iali[sz]ing)? (?:the )?runtime(?: environment)?\W*$)"
        r"|\bsystemd\[\d+\]: Starting .{2,80}\.\.\.$"  # (systemd starting a unit: "Starting ...")
        # a program announcing its own start by its name ("Starting SD.Next", "Starting ComfyUI")
        # (not the work it starts: "Starting Predictions", below)
        r"|^\W*Starting (?!(?:" + _WORK + r")\b)[A-Z][\w.]*(?:-[A-Za-z][\w.]*)?\s*(?:\.\.\.|…)?\s*$"
        # Ray reporting an actor that died in its constructor (the worker being set up), above
        # the traceback of the error it died of
        r"|\berror raised in its creation task\b"
        # a GPU backend loaded as the program starts (llamafile's "NVIDIA cuBLAS GPU support
        # successfully loaded"), a server being launched before it serves ("launching server...")
        r"|\bGPU support (?:successfully )?loaded\b"
        r"|(?i:^\W*launching (?:the )?(?:\w+ )?server\W*$)",
        "startup",
    ),
    # last: a progress bar (tqdm's counter and rate) whose words said nothing above: the
    # program's own loop over its work items ("Epoch 0:", "Processing:", a bare bar); byte
    # rates are downloads, not work
    (
        r"\d+%\|[^|]{0,100}\|\s*\d+/\d+\s*\[\d"
        r"|\[\d+:\d\d(?::\d\d)?(?:<[\d:?]+)?,\s*(?:\?|\d+(?:\.\d+)?)\s?(?:(?!(?:[kKMGT]i?)?B/s)"
        r"[A-Za-z]{1,12}/s|s/(?:it|frame|step|batch|sample|img|read|file))\b"  # (any unit of work)
        # (a bar cut short by what a process printed into it: " 33%|█████Memory access fault")
        r"|" + BAR_BLOCKS + r"\s*$",
        "execute",
    ),
)
ACTIVITY: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), stage) for pattern, stage in _ACTIVITY
)
