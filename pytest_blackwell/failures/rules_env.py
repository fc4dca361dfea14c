"""Rules for an environment that cannot run the engine (``env_mismatch``).

Drivers too old for the runtime, versions that do not fit together, compilers and libraries that
are missing, packages built without GPU support. They are the last of the known causes in
:data:`pytest_blackwell.failures.rules.DEFAULT_RULES` (after memory, kernel faults and missing
kernels, whose causes say more) and come before the configurations rejected.
"""

from __future__ import annotations

from pytest_blackwell.failures.rule import COMPILER_LAUNCH, QUIET, Rule, rule

# fmt: off
#: The environment cannot run it, tried after the other causes of :mod:`.rules`.
ENV_RULES: tuple[Rule, ...] = (
    rule("driver_too_old", "env_mismatch",
       r"CUDA driver version is insufficient|cudaErrorInsufficientDriver|NVIDIA driver on your "
       r"system is too old|Found no NVIDIA driver|CUDA_ERROR_UNSUPPORTED_PTX_VERSION"
       r"|PTX was compiled with an unsupported toolchain|unsupported display driver"
       r"|cudaErrorSystemDriverMismatch|CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"
       # cudaErrorCallRequiresNewerDriver, as cudaGetErrorString words it
       r"|API call is not supported in the installed CUDA driver|cudaErrorCallRequiresNewerDriver"
       r"|CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER|cudaErrorUnsupportedPtxVersion"
       # the driver's PTX JIT library missing (cudaErrorJitCompilerNotFound)
       r"|PTX JIT compiler library not found|cudaErrorJitCompilerNotFound"
       r"|CUDA_ERROR_JIT_COMPILER_NOT_FOUND|hipErrorInsufficientDriver"),
    # versions that do not fit together, in the wordings of drivers, container runtimes, ptxas,
    # loaders and packages that say what they were built for
    rule("version_mismatch", "env_mismatch",
       r"(?i)please update your (?:nvidia |gpu |display )?driver|unsatisfied condition: cuda"
       r"|forward compatibility was attempted on non supported HW"
       r"|\bCUDNN_STATUS_(?:SUBLIBRARY_)?VERSION_MISMATCH\b"
       # XLA loading a cuDNN older than the one it was built with
       r"|\bbut source was compiled with\b"
       # NVRTC unable to link its own builtins library (nvrtc-builtins of another release)
       r"|\bbuiltins: link error\b"
       # torch.utils.cpp_extension comparing the toolkit it finds with torch's own
       r"|\bThe detected CUDA version \([\d.]+\) mismatches the version that was used to compile"
       r"|Unsupported \.version \d+\.\d+; current version is"
       r"|(?:compiled|built) (?:for|with|against) (?:a )?(?:different|another|newer|older) "
       r"(?:version|cuda|torch|pytorch|driver|toolkit)"
       r"|(?:version|abi) mismatch\b"
       # DeepSpeed's op builder: "Installed CUDA version 9.1 does not match the version torch was
       # compiled with 11.8"
       r"|version [\w.+]+ does(?: not|n't) match the version \w+ was (?:compiled|built) with"
       r"|(?:was )?(?:compiled|built) for:?.{0,80}?\(you have [\w.+]+\)"
       r"|(?:cuda|driver|toolkit|torch|pytorch) version .{0,60}?(?:is )?"
       r"(?:not compatible|incompatible)"
       r"|CUDA (?:SETUP|detection) failed|CUDA SETUP: (?:Required library|Problem)"
       r"|Required library version not found"
       # bitsandbytes' set-up finding no CUDA runtime for its native library
       r"|CUDA runtime files not found in any environmental path",
       keywords=("driver", "HW", ".version", "SETUP", "you have", "source was compiled with")),
    # cudaErrorSystemNotReady: the node's GPU services (NVSwitch fabric manager) are not running
    rule("system_not_ready", "env_mismatch",
       r"system not yet initialized|cudaErrorSystemNotReady|CUDA_ERROR_SYSTEM_NOT_READY",
       stage_hint="startup"),
    rule("ipc_path_too_long", "env_mismatch",
       r"ipc path .{0,300}? is longer than (?P<limit>\d+) characters"),
    rule("missing_compiler", "env_mismatch",
       r"No working C\+\+ compiler found|InvalidCxxCompiler|Failed to find C compiler"
       r"|Python\.h: No such file or directory|gcc: (?:error|fatal)"
       r"|Command '\[[^\]]{0,40}?(?:gcc|g\+\+|clang|/cc)'|\w+\.h: No such file or directory"
       # a compiler or build tool the JIT build runs is not installed
       r"|No such file or directory: '(?:[^']*/)?(?:nvcc|ninja|hipcc|ptxas|gcc|g\+\+|c\+\+"
       r"|clang(?:\+\+)?)'"
       # torch.utils.cpp_extension's own checks before it builds
       r"|Ninja is required to load C\+\+ extensions|CUDA_HOME environment variable is not set"
       # a program that builds its kernels at run time unable to start the compiler (OpenMM)
       # (its status is the raw wait status: 32512 is exit 127, the compiler not found; another
       # code is a compiler that ran and failed, whose own error follows: a wrapper, below)
       r"|" + COMPILER_LAUNCH + r"(?!: (?!32512\b)\d)",
       stage_hint="compile"),
    # xFormers installed without CUDA kernels, or with extensions built for another torch
    # xFormers' extensions built for another torch, which it reports when it is imported
    rule("xformers_extensions", "env_mismatch", r"xFormers can't load C\+\+/CUDA extensions",
       stage_hint="startup", keywords=("xFormers can't load",)),
    # a linker that cannot find a library it was told to link (a JIT build's "-lcuda")
    rule("link_library_missing", "env_mismatch", r"\bld(?:\.\w+)?: cannot find -l\w+",
       stage_hint="compile"),
    # Docker asked for GPUs without the NVIDIA container runtime set up
    rule("container_gpu_driver", "env_mismatch",
       r'could not select device driver "\w*" with capabilities', stage_hint="startup"),
    rule("dnn_init_failed", "env_mismatch",
       r"\bDNN library initialization failed\b|\bCUDNN_STATUS_NOT_INITIALIZED\b"
       r"|(?i:\bCould not create cudnn handle\b)"),  # XLA's and TensorFlow's wording of it
    rule("no_device", "env_mismatch",
       r"Torch not compiled with CUDA enabled|no CUDA-capable device is detected|CUDA-capable "
       r"device\(s\) is/are busy or unavailable|Failed to infer device type"
       r"|No (?:CUDA|HIP|XPU) GPUs are available|all CUDA-capable devices are busy or unavailable"
       # the kernel driver not loaded or not answering (nvidia-smi, the container runtime)
       r"|couldn't communicate with the NVIDIA driver|\bnvml error: driver not loaded\b"
       r"|(?:cuda|hip)ErrorNoDevice\b|CUDA_ERROR_NO_DEVICE\b"
       r"|\bdevice is unavailable: (?:cuda|gpu)|(?i:\b(?:cuda|gpu) device (?:is )?(?:not available"
       r"|unavailable)\b)"
       # torch.load of tensors saved on a GPU, in a process that sees none
       r"|deserialize object on a CUDA device but torch\.cuda\.is_available\(\) is False"
       # a package built without GPU support ("This CTranslate2 package was not compiled with
       # CUDA support")
       r"|\b(?:package|library|build|binary|wheel|installation) (?:was |is )?not (?:compiled|built)"
       r" with (?:CUDA|GPU|ROCm|HIP)(?: support)?\b"
       r"|\[Errno 28\] No space left on device"),
    rule("backend_init_failed", "env_mismatch",
       r"Unable to initialize backend '(?:cuda|gpu|rocm)'|no supported devices found for platform",
       stage_hint="startup", ignore_at=QUIET),
    # JAX's CUDA plugin and XLA's stream executor: the CUDA stack itself cannot start (JAX then
    # falls back to the CPU, logging this at WARNING level)
    rule("cuda_init_failed", "env_mismatch",
       r"(?i:cuda|gpu) backend failed to initiali[sz]e|failed call to cuInit"
       # JAX: "Backend 'cuda' failed to initialize: ..." (its CUDA libraries or plugin)
       r"|\b[Bb]ackend '(?:cuda|gpu|rocm)' failed to initiali[sz]e"
       r"|CUDA error\(3\), initialization error|cudaErrorInitializationError"
       # torch's lazy CUDA set-up finding no driver it can use
       r"|CUDA driver initiali[sz]ation failed",
       stage_hint="startup",
       keywords=("backend failed to initiali", "cuInit", "initialization error", "Initialization",
                 "driver initiali")),
    # TensorRT: a serialized engine (plan) built by another TensorRT version
    # a TensorRT plugin whose library was not loaded: an op missing from the installation
    rule("trt_plugin_missing", "env_mismatch",
       r"\bgetPluginCreator could not find plugin\b|Plugin not found, are the plugin name, "
       r"version, and namespace correct", keywords=("getPluginCreator", "Plugin not found")),
    rule("trt_plan_version", "env_mismatch",
       # (not the magic tag: a file that is no plan at all, see rules_config.model_file_rejected)
       r"Version tag does not match|Serialization assertion (?!magicTag)\w+ == \w+ failed"
       r"|plan file is not compatible with this version of TensorRT"
       # TensorRT-LLM's plugins checking the size of their serialized fields while the engine is
       # read: an engine serialized by another TensorRT-LLM release
       r"|Assertion failed: d == a \+ length\b"
       # TensorRT's own reader finding a plan of another size than its format expects
       r"|Mismatch between allocated memory size and expected size of serialized engine"
       # TensorRT's plan reader itself failing: a plan it cannot read (another version's)
       r"|\bstdArchiveReader\b(?!.*[Mm]agic)",
       stage_hint="loading"),
    # A name missing from an installed package: packages of versions that do not fit together
    rule("import_name_missing", "env_mismatch",
       r"^(?:[\w.]+\.)?ImportError: cannot import name '(?P<name>\w+)' from '(?P<module>[\w.]+)'",
       ignore_at=QUIET),
    # a runtime library that cannot be found or loaded: cuDNN's own loader ("Could not locate
    # cudnn_ops64_9.dll", "Unable to load any of {libcudnn_ops.so.9...}", "Invalid handle. Cannot
    # load symbol cudnnCreateTensorDescriptor"), Windows' LoadLibrary (126: a module or one it
    # depends on is missing; 127: a procedure), ONNX Runtime's CUDA provider, vLLM's NCCL wrapper
    rule("library_not_loaded", "env_mismatch",
       r"Could not locate (?P<library>\S+\.dll)\b|Unable to load any of \{(?P<any_of>lib[^,}]+)"
       r"|\bCannot load symbol (?P<symbol>\w+)|LoadLibrary failed with error 12[67]\b"
       r"|CUDA_PATH is set but CUDA\b.{0,30}?\bloaded"
       r"|Failed to load NCCL library from",
       keywords=("Could not locate", "Unable to load any of", "Cannot load symbol", "LoadLibrary",
                 "able to be loaded", "Failed to load NCCL library")),
    rule("library_mismatch", "env_mismatch",
       r"undefined symbol: (?P<symbol>\S+)|cannot open shared object file|version `(?P<glibc>"
       r"GLIBC\w*_[\d.]+)' not found|operator [\w:]+ does not exist",
       ignore_at=QUIET),
    rule("jit_build_failed", "env_mismatch",
       r"Error building extension '|ninja: build stopped: subcommand failed|Ninja build failed"
       r"|^:?/\S*/nvcc\s+-|^FAILED: \S+\.(?:cuda\.)?o\b"
       r"|CalledProcessError: Command '\[['\"]ninja['\"]",
       weak=True, stage_hint="compile"),
    rule("backend_not_installed", "env_mismatch",
       r"(?i)is not available or (?:is )?outdated"
       r"|(?:not installed|is outdated)\W+please (?:install|upgrade)"
       # an exception that asks for a package to be installed: it is missing or too old
       r"|^(?:[\w.]+\.)?(?:Value|Runtime|Import|Assertion)Error: .{0,300}?"
       r"\bplease (?:pip )?install\b"),
    rule("extension_not_loaded", "env_mismatch",
       r"'_OpNamespace' '_C\w*' object has no attribute '(?P<op>\w+)'"),
    rule("module_missing", "env_mismatch", r"No module named '(?P<module>[\w.]+)'",
       ignore_at=QUIET),
    # any other import that fails: a package, or a compiled part of one, is missing or broken
    # (not CPython's import refused while the interpreter shuts down)
    rule("import_failed", "env_mismatch",
       r"^(?:[\w.]+\.)?ImportError: (?!sys\.meta_path is None)\S", ignore_at=QUIET),
)
# fmt: on
