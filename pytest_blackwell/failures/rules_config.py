"""Rules for configurations and model files that an engine rejects (``unsupported_config``).

They come after every other known cause in :data:`pytest_blackwell.failures.rules.DEFAULT_RULES`
(a missing package or a kernel for this hardware says more than the configuration that needed
it) and before the late rules (kernel driver lines, relays, wrappers, generic exceptions).
"""

from __future__ import annotations

from pytest_blackwell.failures.rule import QUIET, Rule, rule

#: The last part of a checkpoint tensor's name: a weight, a scale, a bias, a quantizer's tensor
#: ("w13_weight", "weight_scale", "k_scale", "qweight", "g_idx", "qzeros", bitsandbytes'
#: "weight.absmax") or a LoRA adapter's matrix ("lora_A").
_TENSOR = r"\w*(?:weight|scale|bias|g_idx|zeros|absmax|quant_map|quant_state|lora_[AB])\w*"

# fmt: off
#: Configurations and model files rejected, tried after the other known causes.
CONFIG_RULES: tuple[Rule, ...] = (
    # TensorRT-LLM's runtime started with another number of ranks than its engine was built
    # for ("Assertion failed: mpiSize == tp * pp")
    rule("trtllm_world_size", "unsupported_config", r"\bmpiSize == tp \* pp\b",
       keywords=("mpiSize == tp",)),
    # FFmpeg's check of a frame's size (av_image_check_size), an error it logs without the word:
    # "[libx264 @ 0x5581] Picture size 17280x30720 is invalid" (not a decoder's 0x0 of a damaged
    # packet, which it skips)
    rule("picture_size_invalid", "unsupported_config",
       r"\bPicture size (?!0x|\d+x0\b)\d+x\d+ is invalid\b", keywords=("Picture size",)),
    # PyTorch Lightning asked for GPUs the machine does not have ("You requested GPUs: [0]",
    # "But your machine only has: []"): an environment without them (Lightning raises the first
    # line only for GPUs it cannot find, so it says the same when the second is cut off)
    # a parallel configuration that asks for more GPUs than there are ("Only 8 GPUs are
    # available, but 16 are required.", TensorRT-LLM's; vLLM's "The number of required GPUs
    # exceeds the total number of available GPUs"): the configuration, checked as it starts
    rule("more_gpus_than_available", "unsupported_config",
       r"\bOnly \d+ (?:GPUs?|devices?) (?:is|are) available, but \d+ (?:is|are) required\b"
       r"|\bnumber of required GPUs exceeds the total number of available GPUs\b",
       stage_hint="startup", keywords=("are available, but", "required GPUs exceeds")),
    rule("lightning_gpus_missing", "env_mismatch",
       r"\bBut your machine only has: \[\]|\bMisconfigurationException: You requested GPUs: \[",
       keywords=("your machine only has", "You requested GPUs")),
    # DeepSpeed's check of the batch sizes of its configuration ("Check batch related
    # parameters. train_batch_size is not equal to micro_batch_per_gpu * gradient_acc_step *
    # world_size 64 != 4 * 8 * 1"), and of each size on its own ("Micro batch size per gpu: 0 has
    # to be greater than 0")
    rule("deepspeed_batch_config", "unsupported_config",
       r"\bCheck batch related parameters\b|\b(?:Train batch size|Micro batch size per gpu"
       r"|Gradient accumulation steps): -?\d+ has to be greater than 0\b",
       stage_hint="startup", keywords=("batch related", "has to be greater")),
    rule("config_validation", "unsupported_config",
       # (not a response or request object that failed to validate while serving)
       r"ValidationError: \d+ validation errors? for "
       r"(?P<config>(?!\w*(?:Response|Request|Message|Chunk)\b)\w+)", stage_hint="startup"),
    # Rust's serde reading a configuration file that does not have the shape the program expects
    # ("Error: invalid type: null, expected usize at line 19 column 24", "missing field `x` at
    # line 3 column 1", "unknown variant `y`, expected one of ...")
    rule("config_shape", "unsupported_config",
       r"\b(?:invalid type: [^,]{1,60}, expected [\w ]{1,60}|missing field `\w+`"
       r"|unknown (?:variant|field) `[^`]{0,80}`, expected .{0,200}?) at line \d+ column \d+",
       keywords=(" at line ",)),
    # ggml's reader of a GGUF file that is not there or is no GGUF: the model being read
    rule("gguf_unreadable", "unsupported_config",
       # (newer ggml names what it opens: "failed to open GGUF file '/models/m.gguf'")
       r"\bgguf_init_from_file(?:_impl)?: (?:failed to open (?:GGUF file )?'|invalid magic)",
       stage_hint="loading",
       keywords=("gguf_init_from_file",)),
    # a request longer than the context the server was started with, refused as it is served
    # (vLLM's answer "This model's maximum context length is 10000 tokens. However, you
    # requested 10515 tokens", llama.cpp's "request (68885 tokens) exceeds the available context
    # size (65536 tokens)")
    rule("request_too_long", "unsupported_config",
       r"\bmaximum context length is \d+ tokens\. However, you requested\b"
       r"|\brequest \(\d+ tokens\) exceeds the available context size\b"
       # (vLLM's check of each prompt against max_model_len: "The decoder prompt (length 15329)
       # is longer than the maximum model length of 8192", "Prompt length of 5016 is longer
       # than ...", "The prompt (total length 14424) is too long to fit into the model")
       r"|\b[Pp]rompt (?:\((?:total )?length \d+\)|length of \d+) is (?:longer than the maximum "
       r"model length|too long to fit into the model)\b",
       stage_hint="execute",
       keywords=("maximum context length", "exceeds the available context", "rompt (",
                 "rompt length")),
    rule("model_files", "unsupported_config",
       r"does not appear to have (?:a file|files) named (?P<missing_file>[\w\-]+(?:\.\w+)*)"
       r"|Can't load (?:the )?(?:tokenizer|config|configuration) for"
       r"|RepositoryNotFoundError|GatedRepoError|HFValidationError|Unrecognized model in"
       r"|\bLocalEntryNotFoundError: "  # (the hub's files neither reachable nor in the cache)
       # (a file of the model that its hub does not have: "404 Client Error: Not Found for url:
       # https://huggingface.co/x/y/resolve/main/config.json")
       r"|\b404 Client Error\b.{0,80}?\bfor url: \S+/resolve/\S+"
       r"|SafetensorError|Error while deserializing header"
       # a loader that cannot tell what a model file holds (ComfyUI's checkpoint loader: "Could
       # not detect model type of: .../flux1-dev-fp8.safetensors")
       r"|(?i:\b(?:could not|cannot|can't|unable to) (?:detect|determine|recogni[sz]e) (?:the )?"
       r"model type of\b)"
       # a checkpoint torch cannot read: an HTML page or a cut download saved as the weights
       r"|invalid load key, |PytorchStreamReader failed (?:reading zip archive|locating file)"
       # (a model bundle that is a zip archive, MediaPipe's .task: "Unable to open zip archive")
       r"|\bUnable to open zip archive\b"
       r"|Unable to load weights from pytorch checkpoint file"
       # Caffe's weights (a .caffemodel protobuf) that cannot be parsed
       r"|Failed to parse NetParameter file"
       r"|size mismatch for [\w.]+|(?:Missing|Unexpected) key\(s\) in state_dict"
       # (a loader's own list of the checkpoint's missing weights: fair-esm's "Keys
       # 'trunk.x.weight, trunk.y.bias' are missing.")
       r"|\bKeys '[\w.]+(?:, [\w.]+)*' are missing\b"
       # (TensorRT's network given weights of another model: "kernel weights has count 5376 but
       # 32640 was expected"; CTranslate2's reader of a cut file: "File model.bin is incomplete")
       r"|\bkernel weights has count \d+ but \d+ was expected|\bFile [\w.\-]+ is incomplete\b"
       r"|config file at .{0,300}? is not a valid JSON file"
       r"|no file named [\w.\-]+(?:,? (?:or )?[\w.\-]+)* found in directory"  # (one of a list)
       # candle's loader missing a tensor of the checkpoint; Triton's repository without a
       # loadable version of the model
       r"|\bcannot find tensor [\w.]+|\bno version is available\b"
       # (TGI's weight loader: "weight model.layers.0.self_attn.q_proj.weight does not exist")
       r"|\bweight [\w.]+\.(?:weight|bias|scales?|qweight) does not exist\b"
       # a model's config.json without the key that names its kind (transformers' and MLX's
       # loaders: "KeyError: 'model_type'")
       r"|^\s*(?:[\w.]+\.)?KeyError: '(?:model_type|architectures)'\s*$"
       # a loader that does not find a named weight in the model file ("can't find
       # token_embd.weight in GGUF file")
       r"|\b(?:can't|cannot|could not|couldn't|unable to) find (?:tensor )?'?[\w.]+\."
       r"(?:weight|bias|scales?)'? in\b"
       # or a file of the model ("Could not find tokenizer.model in <dir>", llama.cpp's convert)
       r"|(?i:\b(?:can't|cannot|could not|couldn't|unable to) find '?(?:tokenizer|config|vocab)"
       r"[\w\-]*\.(?:model|json|txt)'? in\b)"
       r"|couldn't find it in the cached files"  # the hub not reachable, no copy cached
       # an OpenAI-compatible server asked for a model it does not serve (vLLM's 404)
       r"|The model `[^`]+` does not exist"
       r"|\bopen \S*(?:config|tokenizer|adapter|model)\w*\.(?:json|safetensors|gguf|bin): "
       r"no such file"
       # (also a file in a folder of such files: "'training_presets/#.json'")
       r"|No such file or directory: '[^']*(?:\b|_)(?:config|tokenizer|adapter|model|preset)"
       r"[\w\-]*(?:/[^'/]*)?\.(?:json|ya?ml|safetensors|gguf|bin)'"
       # (or any file a checkpoint format names: "No such file or directory: 'z-image.safetensors'")
       r"|No such file or directory: '[^']*\.(?:safetensors|gguf|ckpt)'"
       # ggml's reader of a model file that is not there ("gguf_init_from_file: failed to open
       # 'models/7B/ggml-model-f16.gguf': 'No such file or directory'")
       # (or named as ggml's models are, its extension left out: 'models/ggml-large')
       r"|\bfailed to open '[^']*(?:\.(?:gguf|ggml|bin|safetensors)|\bggml-[\w.\-]+)'"
       r"(?:: '?No such file or directory"
       r"|\s*$)"  # (whisper.cpp's loader says no more)
       # (Paddle Inference's: "NotFoundError: Cannot open file ./m/inference.pdmodel, please
       # confirm whether the file is normal.")
       r"|\bCannot open file \S*\.(?:pdmodel|pdiparams|onnx|gguf|safetensors|engine|plan)\b"
       # CTranslate2's model directory without the file it needs ("Unable to open file
       # 'model.bin' in model '/models/whisper'")
       r"|\bUnable to open file '[^']+' in model '"
       # ONNX Runtime's session given a model path that is not there ("NO_SUCHFILE : Load model
       # from model.onnx failed:Load model model.onnx failed. File doesn't exist")
       r"|\bNO_SUCHFILE : Load model from\b"),
    # torch's heading of those, all an excerpt may keep ("Error(s) in loading state_dict for
    # SAM2Base:"): a relay of the reason listed below it, which may be a cause of its own (a
    # parameter that could not be copied: "... an exception occurred : ('CUDA error: no kernel
    # image is available ...")
    rule("state_dict_errors", "unsupported_config", r"\bError\(s\) in loading state_dict for \w+",
       weak=True),
    # a model file without the tensors the loader expects, or with tensors of another shape
    # (ggml-based loaders: "tensor 'blk.0.ffn_down.weight' not found", "has wrong size in
    # model file", "unknown tensor '' in model file"; ExLlamaV2's "Could not find
    # model.embed_tokens.* in model")
    rule("model_tensors", "unsupported_config",
       r"\btensor '[^']*' (?:not found|not in model file|has wrong (?:size|shape))"
       r"|\bunknown tensor '[^']*' in model file|\bCould not find [\w.]+\.\* in model\b"
       # (TensorRT-LLM's model, given weights without some of its tensors: "Required but not
       # provided tensors:{'transformer.layers.3.mlp.fc.per_channel_scale', ...}")
       r"|\bRequired but not provided tensors\b"
       # (vLLM's and LMDeploy's weight loaders checking a tensor's shape against the parameter's:
       # "Attempted to load weight (torch.Size([14784, 1024])) into parameter (torch.Size(...")
       r"|\bAttempted to load weight \((?:torch\.Size)?\(?\[",
       stage_hint="loading", keywords=("tensor '", "in model", "provided tensors"),
       ignore_at=QUIET),
    # llama.cpp's loader rejecting the model file: an old GGML file, tensors it does not expect
    # TensorRT's ONNX parser refusing the model, its builder a network without a shape profile
    rule("trt_model_rejected", "unsupported_config",
       # (not where it imports the node as a plugin, whose assertion on the next line says what
       # it lacks: "ERROR: builtin_op_importers.cpp:5428 In function importFallbackPluginImporter:")
       r"\bModelImporter\.cpp:\d+: ERROR\b(?!.*\bIn function importFallbackPluginImporter:)"
       r"|\bUNSUPPORTED_NODE\b"
       r"|\bModelImporter\.cpp:\d+ In function \w+:"  # (older parsers, the assert on the next line)
       r"|Network has dynamic or shape inputs, but no optimization profile has been defined"
       # (or one whose profile leaves a dynamic input without its dimensions)
       r"|\bdynamic input is missing dimensions in profile\b"
       # a parsed network the builder cannot build: no output marked, a shape it cannot use
       r"|\bNetwork must have at least one output\b"
       r"|\boutput can not be used as shape tensor\b"
       # weights the precision asked for cannot hold ("Weights are outside of fp16 range")
       r"|\bWeights are outside of fp16 range\b"
       # its ONNX parser meeting an operator it has no importer for ("No importer registered
       # for op: Mish")
       # (not its notice that it tries a plugin of that name instead: "No importer registered
       # for op: Custom. Attempting to import as plugin.")
       r"|\bNo importer registered for op: \w+(?!\w|\. Attempting to import as plugin)",
       stage_hint="compile",
       keywords=("ModelImporter", "UNSUPPORTED_NODE", "no optimization profile",
                 "missing dimensions in profile")),
    # a program's own word that TensorRT's ONNX parser refused the model, its reason (a node, a
    # missing plugin) said nearby when it is in the log: a relay (FastDeploy's "Failed to parse
    # ONNX model by TensorRT.", trtexec's "Failed to parse onnx file")
    rule("onnx_parse_failed", "unsupported_config",
       r"(?i:\bfailed to parse (?:the )?onnx (?:model|file)\b)",
       weak=True, stage_hint="compile", keywords=("to parse onnx", "to parse ONNX")),
    rule("model_file_rejected", "unsupported_config",
       r"unknown \(magic, version\) combination|is this really a GG(?:ML|UF) file"
       r"|\bcreate_tensor: tensor '[^']+' (?:not found|has wrong shape)"
       r"|\bwrong number of tensors(?:; expected \d+, got \d+)?"
       # (whisper.cpp's loader: "not all tensors loaded from model file - expected 479, got 165")
       r"|\bnot all tensors loaded from model file\b"
       r"|invalid (?:GGUF|GGML) (?:magic|file)"
       # a file whose first bytes are not the format's (an old GGJT file, not a TensorRT plan)
       r"|\binvalid magic (?:characters|number|bytes)\b|[Mm]agic (?:tag|number) does not match"
       # (or as the plan reader asserts it: "plan->header.magicTag == rt::kPLAN_MAGIC_TAG failed")
       r"|\bmagicTag == [\w:]+ failed\b"
       # (or given no bytes at all, an engine file empty or not read: "Cannot deserialize with an
       # empty memory buffer")
       r"|\bCannot deserialize with an empty memory buffer\b"
       # (a runtime's own model format named before the word: "invalid rknn llm model magic")
       r"|\binvalid (?:[\w-]+ ){1,4}magic\b"
       # (ncnn's reader of a .param file: "parse magic failed")
       r"|\bparse magic failed\b"
       # (whisper.cpp's loader: "invalid model data (bad magic)")
       r"|\(bad magic\)|\bbad magic (?:number|bytes)\b"
       r"|\bnot a (?:valid )?GG(?:UF|ML) file|\bmissing tensor '?[\w.]+"
       # a model architecture the loader does not implement (KoboldCpp's "Detected unimplemented
       # GGUF Arch: x")
       r"|\bDetected unimplemented GGUF Arch\b"
       # a model file its loader cannot parse ("Provided JSON could not be parsed as XGBoost
       # model", Treelite's)
       r"|\bcould not be parsed as (?:an? )?(?:\w+ )?model\b"
       r"|\berror loading model: (?:llama\.cpp: )?(?:missing )?tensor '", stage_hint="loading",
       ignore_at=QUIET),  # a loader probing a file's format at debug level goes on
    # vLLM checks the model path and the architecture while it builds its config (start-up);
    # frames of a model loader (older versions check there) still say loading
    # FFmpeg asked for a codec its build does not have ("Unknown encoder 'h264_nvenc'")
    rule("unknown_codec", "unsupported_config", r"\bUnknown (?:encoder|decoder) '[\w-]+'",
       keywords=("Unknown encoder", "Unknown decoder")),
    rule("model_path_invalid", "unsupported_config",
       r"Invalid repository ID or local directory specified: '(?P<model>[^']+)'",
       stage_hint="startup"),
    # nlohmann::json reading a config (TensorRT-LLM's engine config): a key missing, a value
    # of the wrong type, a file that does not parse; a wrapped table cell may cut "out_". At
    # WARNING level the reader went on with a default.
    rule("json_config", "unsupported_config",
       r"(?:\bout_|\b)of_range\.403\] key '(?P<key>[^']+)' not found"
       r"|\[json\.exception\.(?:parse_error|type_error)\.\d+\]", ignore_at=QUIET),
    # a model's configuration (transformers' ``<Arch>Config``) without a field the program reads
    # from it: the engine does not support that model's config ("'InternVLChatConfig' object has
    # no attribute 'hidden_size'"; not a config named for a part of a program, its engine's,
    # trainer's or quantizer's own settings, "ModelConfig", "TransformerConfig", "GRPOConfig",
    # whose missing fields are a version mismatch of its parts; nor a private class)
    rule("config_field_missing", "unsupported_config",
       r"\bAttributeError: '(?!_)(?!\w*(?i:Model|Vllm|Cache|Parallel|Scheduler|Load|Device"
       r"|Compilation|Speculative|Lora|Peft|Server|Serving|Engine|Inference|Transformer|Train\w*"
       r"|Generation|BitsAndBytes|Quantization|Observability|MultiModal|Pooler|KVTransfer|Sampling"
       r"|Tokenizer|Processor|Data\w*|Eval\w*|GRPO|SFT|DPO|PPO|ORPO|KTO|Reward|Runtime|Backend"
       r"|Distributed|FSDP|Checkpoint|Export|Build)Config')"
       r"\w+Config' object has no attribute '(?P<field>"
       r"hidden_size|num_hidden_layers|num_attention_heads|num_key_value_heads|head_dim"
       r"|vocab_size|intermediate_size|max_position_embeddings|rope_\w+|\w+_token_id"
       r"|(?:text|vision|audio|llm)_config|num_(?:local_)?experts\w*|model_type|architectures)'"),
    rule("unknown_model_architecture", "unsupported_config",
       r"unknown model architecture: '?(?P<architecture>[\w.\-]*)"
       # llama.cpp reading a GGUF file's architecture, hyperparameters or vocabulary that it
       # cannot take ("error loading model vocabulary: invalid gguf type for ...")
       r"|error loading model (?:architecture|hyperparameters|vocabulary)"
       r"|unknown (?:pre-tokenizer|tokenizer) type", stage_hint="loading"),
    # A KeyError on a parameter name (or vLLM's log of it, the bare quoted name): the checkpoint
    # does not hold what the model built from its config expects. (A weight's, a scale's, a
    # bias' or a quantizer's tensor: not a layer's module looked up by name, "...self_attn.attn",
    # which is the program's own lookup.)
    rule("parameter_missing", "unsupported_config",
       r"^(?:[\w.]+\.)?KeyError: '(?:\w+\.)+" + _TENSOR + "'"  # (also outside the layers: lm_head)
       r"|^'(?:\w+\.)*(?:layers?|blocks?|h)\.\d+\.(?:\w+\.)*" + _TENSOR + "'$",
       stage_hint="loading"),
    rule("architecture_unsupported", "unsupported_config",
       r"Model architectures? \[?'?(?P<architecture>\w+)'?\]? (?:are|is) not supported"
       r"|Model architectures? \[?'?(?P<architecture__2>\w+)'?\]? failed to be inspected"
       # transformers' check of a checkpoint's model type against the ones it knows
       r"|has model type `?(?P<architecture__3>\w+)`? but Transformers does not recognize this "
       r"architecture|does not recognize this architecture"
       # OpenMMLab's registries asked for a type they do not hold, as the program builds its model
       # and pipeline from the config ("KeyError: 'None is not in the detector registry'")
       r"|\bis not in the \w+ registry\b",
       stage_hint="startup", ignore_at=QUIET),  # (a program that falls back warns of it)
    # an input shape outside every optimisation profile the engine was built with (TensorRT's
    # setInputShape: "... does not satisfy any optimization profiles")
    rule("trt_shape_outside_profile", "unsupported_config",
       r"\bdoes not satisfy any optimi[sz]ation profiles?\b", keywords=("satisfy any optimi",)),
    # TensorRT refusing a call's parameters (its API usage errors: "Parameter check failed at:
    # ../builder/Network.cpp::addInput::992, condition: isValidDims(...)", "API Usage Error
    # (Parameter check failed, condition: !config.getFlag(...))")
    rule("trt_parameter_check", "unsupported_config",
       r"\bParameter check failed(?: at: |, condition: )", keywords=("Parameter check failed",)),
    # a workflow whose nodes' inputs are refused before it runs (ComfyUI's validation: "Required
    # input is missing: images", "Value not in list: ckpt_name: ...")
    rule("workflow_input_refused", "unsupported_config",
       r"\bRequired input is missing: |\bValue not in list: "
       r"|\bValue -?[\d.e+-]+ (?:smaller|bigger) than (?:min|max) of ",
       keywords=("Required input is missing", "Value not in list", "than min of", "than max of")),
    # a command line or a file of arguments that cannot be split into words (Python's shlex)
    rule("arguments_unsplittable", "unsupported_config",
       r"\bNo closing quotation\s*$|\bNo escaped character\s*$",
       keywords=("No closing quotation", "No escaped character")),
    rule("config_limit", "unsupported_config",
       r"\bis (?:greater|larger) than (?:the )?(?:configured )?max_[a-z_]+\b"),
    # an option refused without another it needs (llama.cpp: "V cache quantization requires
    # flash_attn"): a combination of settings the engine cannot run
    rule("option_requires_option", "unsupported_config",
       r"\b(?:quantization|quantized cache|cache type) requires (?:--)?flash[_-]?attn(?:ention)?\b",
       keywords=("requires flash",)),
    # Triton's model repository refusing a model's directory (no config.pbtxt, a bad name) as
    # it loads the models
    rule("model_directory_rejected", "unsupported_config", r"\bPoll failed for model directory\b",
       stage_hint="loading"),
    # ONNX Runtime refusing a session option for this model ("This session cannot use the graph
    # capture feature as requested by the user as the model has control flow nodes", "... the
    # CUDA Graph feature ... as all the graph nodes have not been partitioned to the CUDA EP")
    rule("session_feature_refused", "unsupported_config",
       r"\bcannot use the (?:CUDA )?[Gg]raph(?: capture)? feature as requested by the user\b",
       keywords=("as requested by the user",)),
    rule("argument_rejected", "unsupported_config",
       # (argparse names an option by all its flags, a positional by its name: "argument
       # -m/--model: invalid choice", "argument command: invalid choice")
       r"\bargument (?:-{1,2}[\w-]+/)*-{0,2}[\w-]+: invalid|unrecognized arguments:"
       r"|Failed to parse (?:the )?arguments"
       # Click's refusals of a command line ("Error: No such command 'run'.", "Error: No such
       # option: --gpus")
       r"|^Error: No such (?:command|option)\b"
       # a C/C++ program's own parser refusing a flag it does not know ("Unknown argument:
       # --origin-rpc-server-main-gpu", llama.cpp's tools)
       # (or calling it invalid: llama.cpp's "error: invalid argument: -rpc")
       r"|^(?:error: )?(?:[Uu]nknown|[Ii]nvalid) (?:argument|option)s?:? -{1,2}[A-Za-z]"
       # (which it says of a stray word too: a path with a space, unquoted, cut in two)
       r"|^error: invalid argument: \S"
       # getopt's own words, as any GNU tool prints them ("basename: unrecognized option
       # '--name'", "x: invalid option -- 'q'")
       r"|^[\w.\-]+: (?:unrecognized option '-|invalid option -- ')"
       r"|\bNotEnoughCUDADevices\b"
       r"|\bArgumentValidation\(\""  # TGI's launcher refusing its arguments
       # (not Python's own TypeError of a call, "f() got an unexpected keyword argument 'x'":
       # one package calling another of a version that does not take it, a program's error)
       r"|(?<!\) )got (?:an )?(?:invalid|unexpected|unknown) (?:keyword )?argument"
       r"|Unknown (?:quantization method|kv cache"
       r" dtype|(?:attention|communication) backend)"
       r"|Invalid (?:attention backend|kv_cache_dtype)|max_model_len \("
       r"(?P<max_model_len>\d+)\) is greater than the derived max_model_len|does not match the "
       r"quantization method specified in the `quantization` argument",
       stage_hint="startup",
       keywords=("nknown argument", "nknown option", "nvalid argument", "nvalid option",
                 "nrecognized option")),
)
# fmt: on
