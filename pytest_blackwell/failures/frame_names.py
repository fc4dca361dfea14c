"""The names and paths of engine functions whose frames tell a stage or a category.

Function names from the engines' own sources (vLLM V0 and V1, SGLang, TensorRT-LLM, TGI, ...),
library paths (Dynamo/Inductor, the model loaders, CUDA graphs), checks that raise for one
reason only, and the shapes of names that tell a stage in any program (a function named for
setting up the collectives, a settings module checking its values).
:mod:`pytest_blackwell.failures.frames` reads tracebacks against these tables.
"""

from __future__ import annotations

import re

#: Function names that tell the stage wherever they appear on the stack.
DECISIVE: dict[str, str] = {
    # start-up: argument and config validation, device and process-group setup
    "create_engine_config": "startup",
    "from_cli_args": "startup",
    "parse_args": "startup",
    "parse_args_into_dataclasses": "startup",  # Hugging Face's argument parser (TrainingArguments)
    "check_server_args": "startup",
    "init_device": "startup",
    "init_worker_distributed_environment": "startup",
    "init_distributed_environment": "startup",
    "ensure_model_parallel_initialized": "startup",
    "initialize_model_parallel": "startup",
    "init_torch_distributed": "startup",
    "initialize_torch_distributed": "startup",  # TGI's process-group set-up
    "_verify_args": "startup",
    "_verify_quantization": "startup",
    "_verify_cuda_graph": "startup",
    "verify_with_parallel_config": "startup",
    "get_attn_backend": "startup",
    "wait_for_engine_startup": "startup",
    "_wait_for_engine_startup": "startup",  # vLLM V1's core client, older name
    "_wait_until_server_is_live": "startup",  # DeepSpeed-MII waiting for its model server
    "popen_launch_server": "startup",  # SGLang's test launcher waiting for its server to be up
    "_wait_for_scheduler_ready": "startup",  # SGLang's launcher waiting for its schedulers to be up
    # llama.cpp's native set-up, in a debugger's backtrace: the model file read, its tensors
    # loaded, the context (and its KV cache) created, adapters read; its common set-up does those
    # and then runs an empty warm-up batch, so what none of them names under it is the warm-up
    "llama_model_load_from_file": "loading",
    "llama_load_model_from_file": "loading",
    "llama_model_load": "loading",
    "load_tensors": "loading",
    "llama_init_from_model": "kv_alloc",
    "llama_new_context_with_model": "kv_alloc",
    "graph_reserve": "kv_alloc",  # (a new context reserving its compute graph's buffers)
    "llama_adapter_lora_init": "loading",  # a LoRA adapter read (older: llama_lora_adapter_init)
    "llama_lora_adapter_init": "loading",
    "llama_control_vector_load": "loading",
    "common_init_from_params": "warmup",
    "llama_init_from_gpt_params": "warmup",
    # vLLM V0's API server building its client of the engine process it started
    "build_async_engine_client_from_engine_args": "startup",
    "_init_distributed_environment": "startup",
    "_check_if_gpu_supports_dtype": "startup",
    "_init_executor": "startup",
    # vLLM's engines building their executor (the call on the engine's source line, V0 and V1);
    # the model it loads next shows its own frames
    "executor_class": "startup",
    "_init_workers_ray": "startup",
    "_start_executor_workers": "startup",  # TensorRT-LLM's executor proxy starting its workers
    "_try_inspect_model_cls": "startup",
    "inspect_model_cls": "startup",
    "wait_for_ready": "startup",
    "init_process_group": "startup",
    # PyTorch's DistributedDataParallel checking and broadcasting the parameters as it is built:
    # the process group's first collectives
    "_verify_params_across_processes": "startup",
    "_verify_param_shape_across_processes": "startup",  # the same check, in torch's utils
    # torchelastic's agent meeting the other nodes and handing out ranks before it starts its
    # workers (the rendezvous)
    "_rendezvous": "startup",
    "next_rendezvous": "startup",
    "_assign_worker_ranks": "startup",
    "_initialize_workers": "startup",
    # an engine setting up the NIXL agents of its KV transfers as it is built
    "_initialize_nixl": "startup",
    "initialize_nixl": "startup",
    "_verify_model_across_ranks": "startup",
    "_sync_module_states": "startup",
    # DeepSpeed's engine broadcasting rank 0's weights as it is built
    "_broadcast_model": "startup",
    # Ultralytics' trainer setting itself up before its first epoch (the model, the AMP check
    # broadcast from rank 0, the data loaders)
    "_setup_train": "startup",
    # (Horovod's counterparts, called once before training: rank 0's variables to every rank)
    "broadcast_global_variables": "startup",
    "broadcast_parameters": "startup",
    # DeepSpeed's engine setting its model and optimizer up in deepspeed.initialize (the model
    # moved and wrapped, ZeRO allocating the optimizer states), before any training step
    "_configure_distributed_model": "startup",
    "_prepare_deepspeed": "startup",  # Accelerate building the DeepSpeed engine (its initialize)
    "_configure_optimizer": "startup",
    "_configure_zero_optimizer": "startup",
    "initialize_optimizer_states": "startup",
    "in_the_same_node_as": "startup",  # vLLM's check of which ranks share a node, at set-up
    "_find_and_load": "startup",  # an import
    "get_open_port": "startup",  # ports and addresses for the engine's processes
    "get_distributed_init_method": "startup",
    "init_parallel_env": "startup",  # PaddlePaddle setting its process group up
    # weights
    "load_model": "loading",
    "load_weights": "loading",
    # AOTInductor reading a model it compiled before, from its package (a load, though under
    # torch/_inductor/)
    "load_package": "loading",
    "aoti_load_package": "loading",
    "get_model": "loading",
    "_prepare_weights": "loading",
    "download_weights_from_hf": "loading",
    "safetensors_weights_iterator": "loading",
    "initialize_model": "loading",
    "_initialize_model": "loading",
    "load_checkpoint": "loading",
    # transformers' from_pretrained reading a checkpoint into the model it built
    "_load_pretrained_model": "loading",
    "_load_state_dict_into_meta_model": "loading",
    "load_state_dict": "loading",
    "load_single_module": "loading",
    "create_weights": "loading",
    "make_layers": "loading",
    "init_inference": "loading",
    "process_weights_after_loading": "loading",
    # vLLM's quantized weights repacked for the Marlin kernels once they are read
    "gptq_marlin_repack": "loading",
    "awq_marlin_repack": "loading",
    "repack_gptq_for_marlin": "loading",  # (TGI's, from its quantized layers' weight loaders)
    "get_weights_row": "loading",  # TGI's weight loaders, one per quantization (layers/...)
    "get_weights_col": "loading",
    "from_dir": "loading",
    # ComfyUI's (and Fooocus') model management putting models' weights onto the GPU
    "load_models_gpu": "loading",
    "build_engine": "compile",
    "backend_compile": "compile",  # JAX handing a computation to XLA's compiler
    "build_serialized_network": "compile",
    "build_cuda_engine": "compile",
    "build_and_load": "compile",
    "jit_load": "compile",  # DeepSpeed's op builder building an op just in time (its checks too)
    "parallel_build": "compile",  # trtllm-build building the engines of a checkpoint
    "build_and_save": "compile",
    "get_nvcc_flags_list": "compile",
    # Triton's backends building (and loading) their C helper module from source
    "compile_module_from_src": "compile",
    # OpenVINO compiling a read model for its device plugin (GPU, NPU): its kernels are built
    "compile_model": "compile",
    # AOTAutograd tracing a graph for torch.compile's backend (functorch's and torch._functorch's;
    # its runtime wrappers, which run the compiled graph, are other functions)
    "aot_module_simplified": "compile",
    "create_aot_dispatcher_function": "compile",
    "aot_dispatch_base": "compile",
    "aot_dispatch_autograd": "compile",
    # memory profiling
    # TensorRT-LLM's KV cache manager allocating its pools as the executor starts (C++, in its
    # own backtrace; its request-time methods name a block or a sequence)
    "allocate_pools": "kv_alloc",
    "profile_run": "profile",
    "dummy_data_for_profiling": "profile",  # vLLM building the profiling run's dummy inputs
    "determine_available_memory": "profile",
    "determine_num_available_blocks": "profile",
    "profile_max_num_token": "profile",
    "estimate_max_tokens": "profile",
    # KV cache sizing and allocation
    "get_kv_cache_config": "kv_alloc",
    "get_kv_cache_configs": "kv_alloc",
    "check_enough_kv_cache_memory": "kv_alloc",
    "_check_enough_kv_cache_memory": "kv_alloc",
    "initialize_from_config": "kv_alloc",
    "initialize_kv_cache": "kv_alloc",
    "initialize_kv_cache_tensors": "kv_alloc",
    "register_kv_caches": "kv_alloc",  # a KV connector handed the caches just allocated
    "_allocate_kv_cache_tensors": "kv_alloc",
    "_reshape_kv_cache_tensors": "kv_alloc",
    "initialize_cache": "kv_alloc",
    "_init_cache_engine": "kv_alloc",
    "raise_if_cache_size_invalid": "kv_alloc",
    "init_memory_pool": "kv_alloc",
    "init_memory_pools": "kv_alloc",  # (SGLang's later names, the scheduler's own)
    "init_memory_pool_and_cache": "kv_alloc",
    "unify_hybrid_kv_cache_specs": "kv_alloc",
    "_create_kv_cache_manager": "kv_alloc",
    "build_managers": "kv_alloc",
    # CUDA graphs
    "capture_model": "graph_capture",
    # a graph runner's capture of one graph (vLLM's CUDAGraphRunner and V1 cudagraph_utils,
    # SGLang's cuda_graph_runner)
    "capture": "graph_capture",
    "_capture_cudagraphs": "graph_capture",
    "init_cuda_graphs": "graph_capture",
    "capture_one_batch_size": "graph_capture",
    "_warmup_and_capture": "graph_capture",
    # warm-up
    "_warm_up_model": "warmup",
    "compile_or_warm_up_model": "warmup",
    "_run_warmup": "warmup",
    "_execute_server_warmup": "warmup",
    "_wait_and_warmup": "warmup",  # SGLang's server thread sending its warm-up request
    "warmup": "warmup",  # TGI's model warm-up (its launcher's Warmup method)
    "kernel_warmup": "warmup",
    # the HPU and XPU model runners of vLLM's forks, running each bucket's scenario once
    "warmup_model": "warmup",
    "warmup_scenario": "warmup",
    # teardown
    "__del__": "shutdown",
    "__dealloc__": "shutdown",  # Cython's destructor
    "moduleUnload": "shutdown",  # cupy unloading a kernel module as its object is freed
    "shutdown": "shutdown",
    # the distributed state torn down as a process exits
    "destroy_model_parallel": "shutdown",
    "destroy_distributed_environment": "shutdown",
    "destroy_process_group": "shutdown",
    "_shutdown_backend": "shutdown",
}

#: Function names that tell the stage only when no decisive name is on the stack.
CONTEXTUAL: dict[str, str] = {
    "_apply": "loading",  # torch's Module.to()/cuda(): parameters moved onto the device
    "get_tensor": "loading",  # safetensors' safe_open(...).get_tensor: a checkpoint tensor read
    "safe_open": "loading",  # safetensors opening a checkpoint file
    "from_pretrained": "loading",  # Hugging Face: a model, tokenizer or config read from files
    # a serving platform waiting for a worker to load its model (Xinference's wait_for_load;
    # not its launch_model, which also places the model and starts its worker process)
    "wait_for_load": "loading",
    # a chat module (re)loading its model library and weights (MLC LLM's ChatModule.reload,
    # its Python _reload)
    "reload": "loading",
    "_reload": "loading",
    # an RL trainer's rollout engine receiving new weights (OpenRLHF's update_weight method)
    "update_weight": "loading",
    # an engine reading the model's tokenizer files (vLLM's get_tokenizer and the functions
    # that wrap it for the engine's configuration)
    "get_tokenizer": "loading",
    "init_tokenizer_from_configs": "loading",
    "_dummy_sampler_run": "warmup",
    "execute_model": "execute",
    "execute_prompt": "execute",  # (a command-line chat running the prompt it was given)
    "compute_logits": "execute",  # (onnxruntime-genai's generator step, vLLM's model runner)
    # vLLM V1 preparing a scheduled batch's inputs (its dummy runs build their own)
    "_prepare_inputs": "execute",
    "synchronize_input_prep": "execute",
    "start_worker_execution_loop": "execute",  # vLLM V0's workers running the scheduled steps
    "retract_decode": "execute",  # SGLang's decode scheduler making room for running requests
    "execute_model_with_error_logging": "execute",
    "sample_tokens": "execute",
    "step": "execute",
    "step_with_batch_queue": "execute",
    "run_busy_loop": "execute",
    "_process_engine_step": "execute",
    "run_batch": "execute",
    "forward_batch_generation": "execute",
    "event_loop_normal": "execute",
    "event_loop_overlap": "execute",
    "run_event_loop": "execute",  # (SGLang's scheduler entering the one of the two it runs)
    "event_loop": "execute",  # (SGLang's diffusion scheduler: one loop for both)
    "add_one_req": "execute",  # SGLang's scheduler admitting a request into a prefill batch
    "_executor_loop": "execute",
    "_forward_step": "execute",
    "generate": "execute",
    "handle_per_step": "execute",  # TensorRT-LLM's generation session, one decoding step
    "output_handler": "execute",
    "create_chat_completion": "execute",
    "create_messages": "execute",  # (the Anthropic-style messages endpoint of vLLM's server)
    "create_completion": "execute",
    "engine_step": "execute",
    "step_async": "execute",
    "run_engine_loop": "execute",
    "_run_engine": "execute",
    "get_output": "execute",
    "get_output_async": "execute",  # vLLM V1's AsyncLLM output loop, only while serving
    "process_inputs": "execute",
    "add_request": "execute",
    "_validate_model_input": "execute",
    "get_model_worker_batch": "execute",  # SGLang's scheduler building a batch of requests
    "_lazy_init": "startup",  # torch initialising CUDA on first use
    "set_device": "startup",
    "ggml_cuda_set_device": "startup",  # ggml's CUDA backend selecting the device
    # TensorRT-LLM's worker setting up its PyExecutor (what else it does has frames of its own)
    "setup_engine": "startup",
    "_create_py_executor": "startup",
    "_init_backend": "startup",  # JAX initialising a platform backend
    # SGLang's (older) model RPC and batch preparation, TGI's token generation and RPC methods
    "exposed_step": "execute",
    "forward_thread_func": "execute",  # SGLang's overlap scheduler thread that runs batches
    "forward_step": "execute",
    "forward_fill_batch": "execute",
    # SGLang's and LightLLM's serving loops and the batch steps they run
    "loop_for_forward": "execute",
    "loop_for_fwd": "execute",
    # Gradio serving a request of its web UI (the app's function runs under these)
    "process_api": "execute",
    "call_process_api": "execute",
    "call_prediction": "execute",
    "forward_prefill_batch": "execute",
    "forward_extend": "execute",
    "get_new_batch_prefill": "execute",
    "forward_decode_batch": "execute",
    "prepare_for_extend": "execute",
    "prepare_for_decode": "execute",
    "generate_token": "execute",
    "prefill": "execute",
    "decode": "execute",
    "swap_blocks": "execute",  # KV-cache swaps/offloads, native frames included
    "swap_blocks_batch": "execute",
    # native engines, in a debugger's backtrace: llama.cpp's and stable-diffusion.cpp's model
    # loaders reading the tensors, llama.cpp's batch decode, whisper.cpp's transcription, a
    # program initialising CUDA (torch's extension set-up)
    "llama_decode": "execute",
    # llama.cpp's server running its slots (each a request being served) and sampling a token
    "update_slots": "execute",
    "common_sampler_sample": "execute",
    "whisper_full": "execute",
    "whisper_full_with_state": "execute",
    "whisper_encode_internal": "execute",
    "whisper_decode_internal": "execute",
    "init_cuda": "startup",
}

#: Frames of an application's dispatcher, which runs whatever work it was given: ComfyUI's
#: executor running a node of a queued workflow (a loader node too). They tell the stage only
#: when neither the error's words nor the lines before it do (a ComfyUI error report's
#: ``Node Type: CheckpointLoaderSimple`` says more), like a frame's words.
DISPATCHERS: dict[str, str] = {
    "recursive_execute": "execute",
    "get_output_data": "execute",
    "map_node_over_list": "execute",
    "_async_map_node_over_list": "execute",
    "invoke_internal": "execute",  # InvokeAI's invocation of a node of a queued session
}
#: The same, by the file of the frame where the function's name says nothing: the
#: stable-diffusion-webui family's queue of UI jobs (``modules/call_queue.py``'s ``f``, which runs
#: a txt2img, an img2img or a settings change alike).
DISPATCHER_PATHS: tuple[tuple[str, str], ...] = (("modules/call_queue.py", "execute"),)

#: Library paths whose frames tell the stage like a decisive name (fragment of the file path).
PATHS: tuple[tuple[str, str], ...] = (
    ("torch/serialization.py", "loading"),  # torch.load reading a checkpoint
    # torch's distributed checkpoint read back (its planners run inside the load)
    ("torch/distributed/checkpoint/state_dict_loader.py", "loading"),
    # a safetensors checkpoint read (its Python API; Candle's reader in a Rust backtrace)
    ("safetensors/torch.py", "loading"),
    ("::safetensors::", "loading"),
    # JAX connecting its processes to the coordination service (jax.distributed.initialize)
    ("jax/_src/distributed.py", "startup"),
    # torchelastic's rendezvous of the nodes before it starts its workers
    ("torch/distributed/elastic/rendezvous/", "startup"),
    # DeepSpeed's ``initialize`` building its engine around the model (its JIT builds of ops
    # inside it are their own compile frames, further in)
    ("deepspeed/__init__.py", "startup"),
    # JAX finding and initialising its PJRT plugins and backends (the CUDA plugin's set-up)
    ("jax/_src/xla_bridge.py", "startup"),
    # Megatron-Core building a model's layers from their specs (its ``build_module``; the name
    # alone is also TVM's and CUTLASS DSL's compile)
    ("megatron/core/transformer/spec_utils.py", "loading"),
    # TVM lowering and building a module, and running its passes over one
    ("tvm/build_module.py", "compile"),
    ("tvm/driver/build_module.py", "compile"),
    ("tvm/ir/transform.py", "compile"),
    # vLLM reading the model's configuration while it builds the engine's config
    ("vllm/transformers_utils/config.py", "startup"),
    ("torch/_dynamo/", "compile"),
    ("torch/_inductor/", "compile"),
    ("torch_tensorrt/", "compile"),  # Torch-TensorRT converting a module into an engine
    # (not its CUDA-graph wrapper, which captures the compiled pieces)
    ("vllm/compilation/cuda_graph.py", "graph_capture"),
    ("vllm/compilation/", "compile"),
    ("triton/compiler/", "compile"),
    ("triton/compiler.py", "compile"),  # (Triton 2.0's compiler, one module)
    ("triton/backends/nvidia/compiler", "compile"),  # Triton 3's backends: ptxas, make_cubin
    ("triton/backends/amd/compiler", "compile"),
    # Triton's compiler library itself, in a debugger's backtrace (its IR passes, MLIR, LLVM)
    ("triton/_C/libtriton", "compile"),
    ("torch/utils/cpp_extension.py", "compile"),  # torch's JIT build of C++/CUDA extensions
    ("<pip-setuptools-caller>", "compile"),  # pip running a package's setup.py to build it
    ("/pip-req-build-", "compile"),  # (the source tree pip unpacked it to, older pips')
    ("/pip-install-", "compile"),
    ("triton/runtime/build.py", "compile"),  # Triton building its launcher or driver module
    ("flashinfer/jit/", "compile"),
    ("torch/cuda/graphs.py", "graph_capture"),
    ("model_loader/", "loading"),
    # TGI's weights: a shard reading its slice of the checkpoint (get_multi_weights_col, ...)
    ("text_generation_server/utils/weights.py", "loading"),
    ("openai/resources/", "execute"),  # the OpenAI client sending a request to the server
    # Lightning's progress bar, updated from the loop's batches (the running loss it shows)
    ("lightning/callbacks/progress/", "execute"),
    ("lightning/pytorch/callbacks/progress/", "execute"),
    ("entrypoints/openai/serving_", "execute"),  # an OpenAI-compatible server serving a request
    ("uvicorn/protocols/http/", "execute"),  # uvicorn running the app for an HTTP request
)

#: Frames that raise for one reason only: they tell the category of an unrecognised message.
CATEGORY_FRAMES: dict[str, str] = {
    "check_enough_kv_cache_memory": "kv_cache_oom",
    "_check_enough_kv_cache_memory": "kv_cache_oom",
    "raise_if_cache_size_invalid": "kv_cache_oom",
    "_init_handles": "smem_limit",  # Triton: the launch-time shared-memory check
    "_check_if_gpu_supports_dtype": "dispatch_failure",
    # torch's JIT extension build: raises only when ninja fails to build the extension
    "_run_ninja_build": "env_mismatch",
    # torch.cuda.graphs: ending a capture fails only when the capture was invalidated
    "capture_end": "stream_capture",
    # vLLM V1's AsyncLLM output loop raises what its engine-core client queued: the error that
    # ended the engine core's output socket, i.e. the engine core is gone (EngineDeadError)
    "get_output_async": "engine_died",
    # SGLang's launcher waiting for its schedulers: raises only when one died (its pipe closed)
    # or reported that its start failed (a relay of the error it logged)
    "_wait_for_scheduler_ready": "engine_died",
    # SGLang's KV token pool: these raise only when the pool has no free slots for a batch
    "alloc_token_slots": "kv_cache_oom",
    "alloc_paged_token_slots_extend": "kv_cache_oom",
    "alloc_paged_token_slots_decode": "kv_cache_oom",
}


#: Functions named for setting up the collectives' communicators or the process group
#: ("_func_init_nccl", "init_nccl_comm", "nccl_init", fairseq's "distributed_init", DeepSpeed's
#: "init_distributed", "setup_distributed"): a distributed program's start.
COMMS_SETUP = re.compile(
    r"(?:^|_)(?:init_nccl|nccl_init|init_comms?|init_communicators?|distributed_init"
    r"|init_distributed|init_dist|setup_distributed|dist_init)(?:_|$)"
)
#: Classes whose construction sets a communicator up between the ranks (vLLM's
#: ``PyNcclCommunicator``, ``CustomAllreduce``, a ``ProcessGroupNCCL``): distributed start-up.
COMMUNICATOR_CLASS = re.compile(
    r"^[A-Z]\w*(?:Communicator|ProcessGroup\w*|Allreduce)$|^\w*ParallelContext$"
    # (TransformerEngine's userbuffers for overlapping GEMMs with their communication:
    # "UbufP2PCommOverlap", "CommOverlapP2P")
    r"|^[A-Z]\w*CommOverlap\w*$"
    # the process groups of every parallel dimension set up at once (nanotron's and ColossalAI's
    # ParallelContext); Accelerate's state, built first: it sets the process group and the
    # device up
    r"|^(?:Accelerator|AcceleratorState|PartialState)$"
)


#: Modules of KV caches (vLLM's cache engine, SGLang's memory pool, ExLlamaV2's and
#: transformers' cache classes): building one there is allocating the KV cache.
CACHE_MODULE = re.compile(
    r"(?:^|/)(?:\w*kv_?cache\w*|cache|cache_engine|cache_manager|cache_utils|memory_pool)\.py$"
)
#: Modules of arguments and settings (Hugging Face's ``training_args.py``, vLLM's ``arg_utils.py``
#: and ``config/`` package): a dataclass there checking itself as it is built checks arguments.
SETTINGS_MODULE = re.compile(
    r"(?:^|/)\w*(?:args|arguments|config|configs|configuration\w*|settings|options)\.py$|/config/"
)
#: Functions named for reading arguments ("get_train_args", "parse_infer_args", Megatron's
#: "validate_args"): a program's start (not "_check_arguments", which an engine runs on each
#: request's arguments too).
ARGS_FUNC = re.compile(r"^_?(?:get|parse|read|validate)_(?:\w+_)?(?:args|arguments|argv)$")
#: Functions named for checking settings ("_get_and_verify_max_len", "verify_with_parallel_config",
#: "validate_config"): in a settings module, the configuration is being checked.
CHECKS = re.compile(r"^_?(?:get_and_)?(?:verify|validate|check)(?:_\w+)?$")
BUILDS = re.compile(r"^(?:__init__|_?(?:alloc\w*|allocate|create|init\w*|build|make|setup)_\w+)$")
