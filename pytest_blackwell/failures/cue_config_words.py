"""The general words of a configuration a program refuses: the ``unsupported_config`` cue.

A setting, a model file or a size the program does not accept, in the words programs use for
it: not supported, missing, invalid, must be, not divisible by. ``cue_words`` lists it last, as
the most general category of its table; it is kept here so each module stays one vocabulary.
"""

from __future__ import annotations

#: A refused setting, model file or size, in general words (see :mod:`.cues`).
CONFIG_REFUSAL = (
    # (not Python's "unsupported operand type(s)", nor "only supported for contiguous")
    r"\b(?:not|isn't|is not|are not|NOT) (?:yet |currently )?(?:supported|implemented)\b"
    r"|\bunsupported\b(?! operand type)|\bdoes(?: not|n't) (?:yet )?support\b"
    r"|\b(?:is|are) unimplemented (?:for|on|in|with)\b"  # (CatBoost: "for task type GPU")
    r"|\bno longer (?:supported|allowed|accepted)\b"
    # settings that cannot go together ("... This is not compatible with offloading"; not
    # a driver, a build, a version or a GPU that does not fit: the environment's)
    # (nor torch's "view size is not compatible with input tensor's size", a program's bug)
    r"|\b(?<!view size )(?:is|are) not compatible with\b(?!.{0,80}?\b(?:driver|CUDA|ROCm|cuDNN"
    r"|build|wheel|version|GPU|sm_\d+|torch|PyTorch|installation)\b)"
    r"|\bonly (?:supported|available|allowed|works?) (?:for|with|when)\b(?! contiguous)"
    r"|\bonly supports?\b"  # ("Bloom models only support fp16")
    # (also of a named system: torch_xla's "Missing XLA configuration")
    r"|\bmissing (?:required )?(?-i:[A-Z]{2,5} )?(?:field|key|argument|tensor|weight|parameter"
    r"|config\w*)s?\b"
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
    # (or its configuration file by name: "Can't find 'adapter_config.json' at '/data/...'")
    r"|\b(?:can't|cannot|could not|couldn't|unable to) find '[\w.\-]*config\.json'"
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
    # (or the error named first: ONNX Runtime GenAI's "Error opening .../genai_config.json")
    r"|\berror (?:opening|loading|reading|parsing) ['\"]?\S*config\w*\."
    r"(?:ini|json|ya?ml|pbtxt|toml)\b"
    # an engine's check that a request fits the sizes it was built for ("Assertion
    # failed: max_context_len <= mMaxContextLength")
    r"|\bassert\w*\b[^<>]{0,40}?\b\w+ ?<=? ?(?:m_?)?max_?[A-Za-z]\w*"
    r"|\bunknown (?:\w+ )?model[ _]type\b|\bunknown model ?[(:'\"]"  # ("Unknown model (m)")
    r"|\bunknown (?:model )?(?:architecture|model type|field|option|argument|parameter"
    r"|quantization|dtype|backend|projector|provider)\b"
    r"|\bno (?:module or )?parameter named\b"
    r"|\binvalid (?:value|config\w*|option|choice|model|format|dtype|quantization|tag|url"
    r"|method|(?:tensor |input |output |model |layer )?name|key|token id)\b"
    # (a setting that needs another: "... model has to be built with paged context FMHA")
    r"|\b(?:has|have) to be (?:built|set|enabled|configured|specified)\b"
    r"|\bnot a valid\b|\b(?:must|should) be (?:[<>]|one of|a |an |greater|less|between"
    r"|divisible|positive|at least|at most|smaller|larger|lower|higher|fewer|in the form)"
    r"|\b(?:size|shape) mismatch\b"
    r"|\b(?:size|shape)s? (?:does|do)(?: not|n't) match\b"  # ("Split sizes doesn't match total")
    # a settings model refusing a field it does not have (pydantic's "Extra inputs are not
    # permitted"), a limit a setting goes past ("Placement group bundle cannot have more than 1
    # GPU")
    r"|\bextra inputs are not permitted\b|\bcannot (?:have|use|request) more than \d+\b"
    r"|\bfield required\b"  # (and a field it must have: pydantic v1's "field required")
    # (Ray's autoscaler, asked for resources no node has, which it says as it waits: a cause
    # only when nothing after it says more)
    r"|\bno available node types can fulfill resource request\b"
    # (torch's words for it: "The expanded size of the tensor (3840) must match the
    # existing size (4080) at non-singleton dimension 1", and its broadcast check's "The size of
    # tensor a (10) must match the size of tensor b (16)")
    r"|\bmust match the (?:existing size|size of tensor b)\b"
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
    # (or raised as an equation that fails: "RuntimeError: world_size (8) is not equal to ...")
    r"|^(?:[\w.]+\.)?\w*(?:Error|Exception): .{0,40}?\bworld[ _]?size\b.{0,40}?\bis not equal to\b"
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
    # (or under the least allowed: Gradio's "Value 4 is less than minimum value 128.")
    # (the least allowed given as a number, not a version or memory required: "... is less than
    # the minimum required", nor a running best: "less than the minimum so far")
    r"|\b(?:is|are) (?:less|smaller|lower|fewer) than (?:the )?min(?:imum)?(?: allowed)?"
    r"(?: value)?\s*\(?-?\d"
    # (or "The max KV cache length of input sequences (1500) exceeds the KV cache manager's
    # maximum supported length (1024)": a limit the engine was set up with, not memory)
    r"|\bexceeds?(?!.{0,100}?\b(?:memory|allocation)\b) (?:the )?(?:[\w']+ ){0,4}?max(?:imum)? "
    r"(?:supported|allowed|permitted) "
    # (a request longer than the context: "The input is too long for the available context")
    r"|\btoo long for the (?:[\w']+ )?context\b"
    # a layer's input of fewer dimensions than it takes (TensorRT's network check: "[Convolution]:
    # at least three non-batch dimensions are required for input")
    r"|\b(?:at least|exactly) \w+ (?:non-batch |spatial )?dimensions (?:are|is) required\b"
)
