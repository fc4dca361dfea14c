"""Rules for an environment that cannot run the engine (``env_mismatch``).

Drivers too old for the runtime, versions that do not fit together, compilers and libraries that
are missing, packages built without GPU support. They are the last of the known causes in
:data:`pytest_blackwell.failures.rules.DEFAULT_RULES` (after memory, kernel faults and missing
kernels, whose causes say more) and come before the configurations rejected.
"""

from __future__ import annotations

from pytest_blackwell.failures.rule import PINNED_POOL, QUIET, Rule, rule
from pytest_blackwell.failures.rules_toolchain import (
    EXTENSION_NOT_LOADED,
    LINK_FAILED,
    MISSING_COMPILER,
    PACKAGE_BUILD_FAILED,
    PROGRAM_MISSING,
    TOOL_NOT_STARTED,
)

#: Not JAX probing a platform its build does not have, as on every start of a CUDA build for
#: 'rocm' ("Unable to initialize backend 'rocm': NOT_FOUND: Could not find registered platform").
_NOT_REGISTERED = r"(?!: NOT_FOUND: Could not find registered)"

# fmt: off
#: The environment cannot run it, tried after the other causes of :mod:`.rules`.
ENV_RULES: tuple[Rule, ...] = (
    rule("driver_too_old", "env_mismatch",
       # (not as Triton gives its pinned memory pool up for it: ``pinned_pool_no_gpu``)
       r"(?<!" + PINNED_POOL + r")CUDA driver version is insufficient|cudaErrorInsufficientDriver"
       r"|NVIDIA driver on your system is too old|Found no NVIDIA driver"
       r"|CUDA_ERROR_UNSUPPORTED_PTX_VERSION"
       r"|PTX was compiled with an unsupported toolchain|unsupported display driver"
       r"|\bUnsupported PTX version\b"  # (Cycles' words for it, loading its kernels)
       r"|cudaErrorSystemDriverMismatch|CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"
       # cudaErrorCallRequiresNewerDriver, as cudaGetErrorString words it
       r"|API call is not supported in the installed CUDA driver|cudaErrorCallRequiresNewerDriver"
       r"|CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER|cudaErrorUnsupportedPtxVersion"
       # the driver's PTX JIT library missing (cudaErrorJitCompilerNotFound)
       r"|PTX JIT compiler library not found|cudaErrorJitCompilerNotFound"
       r"|CUDA_ERROR_JIT_COMPILER_NOT_FOUND|hipErrorInsufficientDriver"
       # (as its number after the call, Ollama's GPU discovery: "cudaSetDevice err: 35")
       r"|\bcuda[A-Z]\w* err(?:or)?:? 35\b"
       # FFmpeg's NVENC and NVDEC wrappers checking the driver's codec API before they open
       # ("Driver does not support the required nvenc API version. Required: 12.1 Found: 12.0")
       r"|\bDriver does not support the required nv(?:enc|dec) API version\b"),
    # an NVIDIA (NGC) container's entry point checking the host's driver before the program runs
    rule("container_driver_too_old", "env_mismatch",
       r"\bThis container was built for NVIDIA Driver Release [\d.]+ or later\b",
       stage_hint="startup"),
    # versions that do not fit together, in the wordings of drivers, container runtimes, ptxas,
    # loaders and packages that say what they were built for
    rule("version_mismatch", "env_mismatch",
       r"(?i)please update your (?:nvidia |gpu |display )?driver|unsatisfied condition: cuda"
       # (or the release it needs: Redshift's "Please make sure you have NVIDIA driver 551.78 or
       # later installed")
       r"|\b(?:(?:make sure|ensure)(?: that)? you have|you need|please (?:install|update to"
       r"|upgrade to)) (?:the )?(?:nvidia |gpu "
       r"|graphics )?driver (?:version )?[\d.]+ or (?:later|newer|higher)\b"
       r"|forward compatibility was attempted on non supported HW"
       # (its number: cudaErrorCompatNotSupportedOnDevice)
       r"|(?i:\bcuda (?:driver )?error[ :=(#]*804\b)"
       r"|\bCUDNN_STATUS_(?:SUBLIBRARY_)?VERSION_MISMATCH\b"
       r"|\bbut source was compiled with\b"  # (XLA loading a cuDNN older than its build's)
       # NVRTC unable to link its own builtins library (nvrtc-builtins of another release)
       r"|\bbuiltins: link error\b"
       # torch.utils.cpp_extension comparing the toolkit it finds with torch's own
       r"|\bThe detected CUDA version \([\d.]+\) mismatches the version that was used to compile"
       r"|Unsupported \.version \d+\.\d+; current version is"
       r"|(?:compiled|built) (?:for|with|against) (?:a )?(?:different|another|newer|older) "
       r"(?:version|cuda|torch|pytorch|driver|toolkit)"
       r"|(?:version|abi) mismatch\b"
       # (DeepSpeed's op builder: "Installed CUDA version 9.1 does not match the version ...")
       r"|version [\w.+]+ does(?: not|n't) match the version \w+ was (?:compiled|built) with"
       # (NumPy's own check of an extension built against another NumPy: "module was compiled
       # against NumPy C-API version 0x10 ...", "compiled using NumPy 1.x cannot be run in")
       r"|\bcompiled against NumPy C-API version\b|\bcompiled using NumPy \d\.x cannot be run\b"
       # (or two packages that must be of one release: "flashinfer-cubin version (0.6.8) does
       # not match flashinfer version (0.6.10)")
       r"|\bversion \(v?\d[\w.+]*\) does(?: not|n't) match [\w.\-]+ version \(v?\d"
       r"|(?:was )?(?:compiled|built) for:?.{0,80}?\(you have [\w.+]+\)"
       r"|(?:cuda|driver|toolkit|torch|pytorch) version .{0,60}?(?:is )?"
       r"(?:not compatible|incompatible)"
       r"|CUDA (?:SETUP|detection) failed|CUDA SETUP: (?:Required library|Problem)"
       r"|Required library version not found"
       # bitsandbytes' set-up finding no CUDA runtime for its native library
       r"|CUDA runtime files not found in any environmental path"
       # a file written by a newer release than the one reading it (CTranslate2's "Unsupported
       # model binary version ... generated by a later version of CTranslate2")
       r"|\b(?:generated|created|saved|serialized|written) (?:by|with) a (?:later|newer|more "
       r"recent) version of\b"
       r"|\bbackend API version does(?: not|n't) support\b"  # (Triton server's backends)
       # an installer's own check of what it installed ("vLLM version is '0.26.0', expected
       # '0.26.0+cu128'")
       r"|\bversion is '[^']+', expected '[^']+'"
       # a program's check of the CUDA it found against the oldest it supports ("Triton only
       # support CUDA 10.0 or higher, but got CUDA version: 12.8")
       r"|\bonly supports? CUDA [\d.]+ or (?:higher|newer|later|above)\b"
       # the kernel module and the user-space driver of two releases ("NVRM: API mismatch: the
       # client has the version 535.54.03, but this kernel module has the version 530.30.02")
       r"|\bNVRM: API mismatch\b",
       keywords=("driver", "HW", ".version", "SETUP", "you have", "source was compiled with",
                 "version of", "API version", "or higher", "API mismatch")),
    # cudaErrorSystemNotReady: the node's GPU services (NVSwitch fabric manager) are not running
    # (not as NCCL relays a CUDA call's failure in its own chain, "Cuda failure 802 'system not
    # yet initialized'": that is the collective's failure, as NCCL's "Cuda failure 217" is)
    rule("system_not_ready", "env_mismatch",
       r"(?<!Cuda failure 802 ')system not yet initialized|cudaErrorSystemNotReady"
       r"|CUDA_ERROR_SYSTEM_NOT_READY", stage_hint="startup"),
    rule("ipc_path_too_long", "env_mismatch",
       r"ipc path .{0,300}? is longer than (?P<limit>\d+) characters"),
    MISSING_COMPILER,
    TOOL_NOT_STARTED,
    PROGRAM_MISSING,
    # xFormers' extensions built for another torch, which it reports when it is imported
    rule("xformers_extensions", "env_mismatch", r"xFormers can't load C\+\+/CUDA extensions",
       stage_hint="startup", keywords=("xFormers can't load",)),
    LINK_FAILED,
    # Docker asked for GPUs without the NVIDIA container runtime set up
    rule("container_gpu_driver", "env_mismatch",
       r'could not select device driver "\w*" with capabilities'
       r"|\bunknown or invalid runtime name: nvidia\b"  # (its runtime not registered at all)
       # (Podman's Container Device Interface without a specification of the GPUs asked for:
       # "Error: setting up CDI devices: unresolvable CDI devices nvidia.com/gpu=all")
       r"|\bunresolvable CDI devices?\b"
       # (or the NVIDIA container CLI that cannot give the container the GPU: "nvidia-container-
       # cli: initialization error: WSL environment detected but no adapters were found"; not a
       # permission the host refused it, which names no category)
       r"|\bnvidia-container-cli: (?:initialization|mount|requirement|detection|ldcache) error\b"
       r"(?!.{0,300}?\bpermission denied\b)",
       stage_hint="startup"),
    # a file an installed package needs, missing from its own directory (a broken or partial
    # installation: "FileNotFoundError: [WinError 3] ...: '...\\site-packages\\ctranslate2/..'")
    rule("package_file_missing", "env_mismatch",
       r"^(?:[\w.]+\.)?FileNotFoundError: .{0,120}?[\\/](?:site|dist)-packages[\\/]+\w",
       keywords=("FileNotFoundError",)),
    # a Vulkan driver without an extension, a layer ("createDevice: ErrorExtensionNotPresent")
    # or the API version the program asks for as its instance is created (Omniverse's "VkResult:
    # ERROR_INCOMPATIBLE_DRIVER", start-up)
    rule("vulkan_driver_lacks", "env_mismatch",
       r"\bError(?:Extension|Layer)NotPresent\b|\bVK_ERROR_(?:EXTENSION|LAYER)_NOT_PRESENT\b",
       keywords=("NotPresent", "NOT_PRESENT")),
    rule("vulkan_incompatible_driver", "env_mismatch",
       r"\bErrorIncompatibleDriver\b|\b(?:VK_)?ERROR_INCOMPATIBLE_DRIVER\b"
       # (or by its number, -9, as ncnn prints it; or that cannot initialise, -3: "... failed
       # -3", vulkan-hpp's instance or device not created; not ggml's pinned memory given up)
       r"|\bVK_ERROR_INITIALIZATION_FAILED\b"
       r"|\bvk::create(?:Instance|Device): ErrorInitializationFailed\b"
       r"|\bvk[A-Z]\w+ failed -(?:3|9)\b", stage_hint="startup",
       keywords=("IncompatibleDriver", "INCOMPATIBLE_DRIVER", "INITIALIZATION_FAILED",
                 "InitializationFailed", "failed -3", "failed -9")),
    rule("dnn_init_failed", "env_mismatch",
       r"\bDNN library initialization failed\b|\bCUDNN_STATUS_NOT_INITIALIZED\b"
       r"|(?i:\bCould not create cudnn handle\b)"  # XLA's and TensorFlow's wording of it
       r"|\bbecause cuDNN failed to initialize\b"  # (TensorFlow's convolution, which needs it)
       r"|\bDNN library is not found\b"),  # (TensorFlow: no cuDNN it can load)
    rule("no_device", "env_mismatch",
       r"Torch not compiled with CUDA enabled"
       r"|(?<!" + PINNED_POOL + r")(?i:no (?:CUDA|ROCm|HIP)-capable) device is "
       r"detected|CUDA-capable "
       r"device\(s\) is/are busy or unavailable|Failed to infer device type"
       r"|No (?:CUDA|HIP|XPU) (?:GPUs|devices) are available"
       r"|all CUDA-capable devices are busy or unavailable"
       # the kernel driver not loaded or not answering (nvidia-smi, the container runtime)
       r"|couldn't communicate with the NVIDIA driver|\bnvml error: driver not loaded\b"
       # (or its module that the kernel refuses as it is installed: nvidia-installer's "Unable to
       # load the kernel module 'nvidia.ko'", modprobe's "could not insert 'nvidia'")
       r"|\bUnable to load the kernel module '?nvidia|\bcould not insert '?nvidia"
       # (or the module loaded, finding no GPU it may own: "NVRM: No NVIDIA graphics adapter
       # probed!", another driver such as nouveau holding them)
       r"|\bNVRM: No NVIDIA (?:graphics adapter|GPU)s? (?:probed|found)\b"
       # (an NPU runtime asking for its kernel module: RKNN's "failed to open rknpu module, need
       # to insmod rknpu driver!")
       r"|\bneed to (?:insmod|modprobe)\b"
       # a Jetson's memory manager (nvmap) that the process cannot open: no GPU it may use
       r"|\bNvRmMemInit\w* failed\b"
       r"|(?:cuda|hip)ErrorNoDevice\b|CUDA_ERROR_NO_DEVICE\b"
       r"|\bdevice is unavailable: (?:cuda|gpu)|(?i:\b(?:cuda|gpu) device (?:is )?(?:not available"
       r"|unavailable)\b)"
       # torch.load of tensors saved on a GPU, in a process that sees none
       r"|deserialize object on a CUDA device but torch\.cuda\.is_available\(\) is False"
       # a package built without GPU support ("This CTranslate2 package was not compiled with
       # CUDA support")
       r"|\b(?:package|library|build|binary|wheel|installation) (?:was |is )?not (?:compiled|built)"
       r" with (?:CUDA|GPU|ROCm|HIP)(?: support)?\b"
       # (or the feature that needs the GPU: "Not compiled with GPU decoder support"; libtorch's
       # "PyTorch is not linked with support for cuda devices"; OpenCV's CUDA stubs:
       # "The called functionality is disabled for current build ... in function throw_no_cuda")
       r"|^(?:\w+: )?Not compiled with (?:CUDA|GPU|ROCm|HIP)\b"
       r"|\bnot linked with support for (?:cuda|hip|gpu|xpu|mps)\b"
       r"|\bin (?:function '?)?throw_no_cuda\b"
       # a torch build without the collective backend asked for (torch on Windows has no NCCL)
       r"|\bDistributed package doesn't have (?:NCCL|MPI|Gloo|UCC) built in\b"
       # (CuPy's: "NCCL is not available. Please confirm that NCCL is enabled in CuPy."; vLLM's
       # NIXL connector: "NIXL is not available")
       r"|\b(?:NCCL|NIXL|UCX) is not available\b"
       r"|\[Errno 28\] No space left on device"
       r"|\bNo supported gpu backend found\b"  # (Lightning's Trainer, given no GPU it can use)
       # a program's own check for a GPU raising ("Unsloth: No NVIDIA GPU found?", torch's "...
       # only supported with GPUs, no GPUs found!"), not its notice of running on the CPU
       r"|^(?:[\w.]+\.)?\w+(?:Error|Exception): .{0,60}?\b[Nn]o (?:NVIDIA |AMD |CUDA )?GPUs? "
       r"(?:was |were )?(?:found|detected)\b"
       # a torch built without a feature asked for ("use_libuv was requested but PyTorch was
       # build without libuv support", TCPStore on Windows)
       r"|\bwas requested but \w+ was buil[dt] without \w+ support\b"
       r"|\bCannot open libOpenCL\b"  # (TVM's OpenCL runtime, MLC-LLM on a phone without it)
       r"|\bCould not initialize Tensile host: No devices found",  # (rocBLAS finding no GPU)
       keywords=("NVRM: No NVIDIA",)),
    # TensorFlow that found a GPU but cannot open the libraries it needs, so skips registering it
    # (a warning, yet no GPU is used after it; not its "Ignore above cudart dlerror if ...")
    # (weak: the error a run on the CPU then dies of says more)
    rule("gpu_libraries_skipped", "env_mismatch", r"\bCannot dlopen some GPU\b",
       stage_hint="startup", weak=True, keywords=("Cannot dlopen",)),
    # vLLM finding no platform to run on as it is imported (no CUDA, ROCm or CPU build it can
    # use), which it says at INFO before it fails on the missing device
    rule("no_platform", "env_mismatch",
       r"\bNo platform detected, vLLM is running on UnspecifiedPlatform\b", stage_hint="startup"),
    # the loader of an Actually Portable Executable (llamafile, cosmopolitan builds) that cannot
    # map or start the program on this system ("ape error: ./x.llamafile: prog mmap failed w/
    # errno 1"): the program never ran
    rule("ape_loader", "env_mismatch", r"^ape error: \S", stage_hint="startup"),
    # JAX unable to set up its CUDA backend, which it logs at INFO and then runs on the CPU: the
    # GPU is not used (not a backend left out of its configured ones)
    rule("cuda_backend_failed", "env_mismatch",
       r"Unable to initialize backend '(?:cuda|gpu)'" + _NOT_REGISTERED
       + r"(?!: Backend '\w+' is not in the list of known backends)",
       stage_hint="startup", ignore_at=("DEBUG",)),
    rule("backend_init_failed", "env_mismatch",
       r"Unable to initialize backend 'rocm'" + _NOT_REGISTERED +
       r"|no supported devices found for platform"
       # (llamafile: "support for --gpu nvidia was explicitly requested, but it wasn't available")
       r"|\bsupport for --gpu \w+ was explicitly requested, but it wasn't available",
       stage_hint="startup", ignore_at=QUIET),
    # JAX's CUDA plugin and XLA's stream executor: the CUDA stack itself cannot start (JAX then
    # falls back to the CPU, logging this at WARNING level)
    rule("cuda_init_failed", "env_mismatch",
       r"(?i:cuda|gpu) backend failed to initiali[sz]e|failed call to cuInit"
       # (a program's report of the init call and what it returned: Cycles' "CUDA cuInit:
       # Unknown CUDA error value"; not its "HIP hipInit: Invalid device", printed on NVIDIA)
       r"|\bCUDA cuInit: (?!(?i:no error|success|cuda_success)\b)\S"
       r"|\bCall to cuInit results in (?!CUDA_SUCCESS)"  # (Numba's, its status's name after it)
       # ggml's CUDA backend that cannot set CUDA up, whatever the runtime answered
       # ("ggml_cuda_init: failed to initialize CUDA: operation not supported"): it runs on the CPU
       r"|\bggml_cuda_init: failed to initiali[sz]e (?:CUDA|HIP|ROCm|MUSA)\b"
       # (or the device a program selects refused as not supported, the same reading: Kokkos'
       # "cudaSetDevice(cuda_device_id) error( cudaErrorNotSupported): operation not supported")
       r"|\bcudaSetDevice\b.{0,80}?\b(?:cudaErrorNotSupported|operation not supported)\b"
       # JAX: "Backend 'cuda' failed to initialize: ..." (its CUDA libraries or plugin)
       r"|\b[Bb]ackend '(?:cuda|gpu|rocm)' failed to initiali[sz]e"
       r"|CUDA error\(3\), initialization error|cudaErrorInitializationError"
       # (NVIDIA's containers checking CUDA at entry: "The NVIDIA Driver is present, but CUDA
       # failed to initialize.")
       r"|\bCUDA failed to initiali[sz]e\b"
       # (Triton server's: "Failed to initialize CUDA memory manager: unable to get number of
       # CUDA devices: initialization error", the runtime's string for error 3)
       r"|\bCUDA devices: initialization error\b"
       # (or after the CUDA source file and line whose check printed it: xgboost's
       # "device_helpers.cuh: 103: initialization error")
       r"|\.cuh?(?::\s*|\()\d+\)?:\s*initialization error\s*$"
       # (or after the driver call that returned it: "cuModuleLoadDataEx failed: initializ...")
       r"|\bcu[A-Z]\w+ failed: initialization error\b"
       # a CUDA sample's device count failing with error 3, its string on the next line
       # ("cudaGetDeviceCount returned 3" / "-> initialization error")
       r"|\b(?:cuda|hip)GetDeviceCount(?:\(\))? returned 3\b|^-> initialization error\s*$"
       # torch's lazy CUDA set-up finding no driver it can use
       r"|CUDA driver initiali[sz]ation failed"
       # torch's warning when its lazy CUDA set-up fails (whatever the reason it gives: no
       # driver, a driver too old, a device count it cannot read); is_available() is False
       r"|UserWarning: CUDA initiali[sz]ation: \S"
       # the driver's entry points that cannot be had (CUDA error 34, cudaErrorStubLibrary: the
       # stub libcuda of a toolkit found instead of the driver's; Warp's "Failed to get driver
       # entry point 'cuDriverGetVersion' (CUDA error 34)")
       r"|\bFailed to get driver entry point\b|\bcudaErrorStubLibrary\b"
       # TensorRT's builder and runtime finding CUDA unusable as they start ("Cuda
       # initialization failure with error 2. Please check cuda installation")
       r"|\bCuda initiali[sz]ation failure with error \d+"
       # the driver's management library (NVML) that cannot be loaded or set up, as nvidia-smi,
       # Kubernetes' device plugin or DCGM start ("Failed to initialize NVML: could not load NVML
       # library", "Cannot init NVML library; err: ERROR_LIBRARY_NOT_FOUND"); not its "Unknown
       # Error", which names no cause
       r"|\bFailed to initiali[sz]e NVML(?:\W*$|: (?!Unknown Error))|\bCannot init NVML\b"
       r"|\bcould not load NVML\b",
       stage_hint="startup",
       keywords=("backend failed to initiali", "cuInit", "initialization error", "Initialization",
                 "driver initiali", "CUDA initiali", "GetDeviceCount", "driver entry point",
                 "StubLibrary", "failed to initiali", "NVML")),
    # TensorRT: a serialized engine (plan) built by another TensorRT version
    # a TensorRT plugin whose library was not loaded: an op missing from the installation
    rule("trt_plugin_missing", "env_mismatch",
       r"\bgetPluginCreator could not find plugin\b|Plugin not found, are the plugin name, "
       r"version, and namespace correct"
       # (an engine using the plugin, deserialized: "Cannot deserialize plugin since
       # corresponding IPluginCreator not found in Plugin Registry")
       r"|\bIPluginCreator not found in Plugin Registry\b",
       keywords=("getPluginCreator", "Plugin not found", "IPluginCreator")),
    rule("trt_plan_version", "env_mismatch",
       # (not the magic tag: a file that is no plan at all, see rules_config.model_file_rejected)
       r"Version tag does not match|Serialization assertion (?!magicTag)\w+ == \w+ failed"
       r"|plan file is not compatible(?: with this version of TensorRT|\s*$)"  # (or cut there)
       # TensorRT-LLM's plugins checking the size of their serialized fields while the engine is
       # read: an engine serialized by another TensorRT-LLM release
       r"|Assertion failed: d == a \+ length\b"
       # TensorRT's own reader finding a plan of another size than its format expects
       r"|Mismatch between allocated memory size and expected size of serialized engine"
       # TensorRT's plan reader itself failing: a plan it cannot read (another version's)
       r"|\bstdArchiveReader\b(?!.*[Mm]agic)",
       stage_hint="loading"),
    # A name missing from an installed package: packages of versions that do not fit together
    # (also as a program relays the message: ComfyUI's "Cannot import x module for custom nodes:
    # cannot import name '_ignored_ops' from 'torch.utils.checkpoint'"; its executor's banner
    # in front of a node's exception message: "!!! Exception during processing !!! cannot ...")
    rule("import_name_missing", "env_mismatch",
       r"(?:(?:^(?:[\w.]+\.)?ImportError|^Cannot import \S.{0,300}?):"
       r"|^!!! Exception during processing !!!) cannot import name "
       r"'(?P<name>\w+)' from '(?P<module>[\w.]+)'",
       ignore_at=QUIET, keywords=("cannot import name",)),
    # a runtime library that cannot be found or loaded: cuDNN's own loader ("Could not locate
    # cudnn_ops64_9.dll", "Unable to load any of {libcudnn_ops.so.9...}", "Invalid handle. Cannot
    # load symbol cudnnCreateTensorDescriptor"), Windows' LoadLibrary (126: a module or one it
    # depends on is missing; 127: a procedure), ONNX Runtime's CUDA provider, vLLM's NCCL wrapper
    rule("library_not_loaded", "env_mismatch",
       r"Could not locate (?P<library>\S+\.dll)\b|Unable to load any of \{(?P<any_of>lib[^,}]+)"
       r"|\bCould not load library (?P<library__2>\S+?\.(?:dll|so[\d.]*))\.? Error"
       r"|\bCannot load symbol (?P<symbol>\w+)|LoadLibrary failed with error 12[67]\b"
       r"|CUDA_PATH is set but CUDA\b.{0,30}?\bloaded"
       r"|Failed to load NCCL library from"
       r"|\bUnable to load NCCL library\b"  # (XLA's words for it)
       # a package's loader for its own native library (bitsandbytes' "library load error:
       # Configured CUDA binary not found at .../libbitsandbytes_cuda131.so")
       r"|\b(?:native |CUDA |shared )?(?:library|binary) (?:load error|not found at)\b"
       # Windows: a DLL whose initialisation fails as it is loaded (ERROR_DLL_INIT_FAILED)
       r"|\bA dynamic link library \(DLL\) initialization routine failed\b|\bWinError 1114\b"
       r"|\bFailed to load dynlib/dll\b"  # (PyInstaller's loader, for a bundled one)
       # ctypes-based bindings looking for their native library (llama-cpp-python's "Shared
       # library with base name 'llama' not found")
       r"|\bShared library with base name '(?P<library__3>[\w.-]+)' not found\b"
       # Windows' words for LoadLibrary's error 126 (a DLL, or one it needs, is missing)
       r"|\bThe specified module could not be found\b"
       # and for its error 127: a DLL of another build than the one loading it
       r"|\bThe specified procedure could not be found\b"
       # (Python's words for either, whatever language Windows gives the reason in)
       r"|\bDLL load failed\b"
       # a package trying each build of its own kernels library (sgl_kernel: "Could not load any
       # common_ops library!")
       r"|\bCould not load any \w+ library\b"
       # NCCL's "Last error:" naming a library it could not open (NVML: "Failed to open
       # libnvidia-ml.so.1"), as a line of its own: not its WARN about an optional transport
       r"|^Failed to open (?P<library__4>lib[\w\-]+\.so[\d.]*)$",
       keywords=("Could not locate", "Could not load library", "Unable to load any of",
                 "Could not load any", "Failed to open lib",
                 "Cannot load symbol", "LoadLibrary",
                 "able to be loaded", "load NCCL library", "load error", "not found at",
                 "WinError 1114", "initialization routine failed", "dynlib/dll",
                 "specified module could not", "Shared library with base name",
                 "specified procedure could not", "DLL load failed"), ignore_at=QUIET),
    rule("library_mismatch", "env_mismatch",
       r"undefined symbol: (?P<symbol>\S+)|cannot open shared object file"
       # the loader: a versioned symbol the library found does not define ("symbol X version
       # libcublasLt.so.11 not defined in file libcublasLt.so.11 with link time reference")
       r"|\bnot defined in file \S+ with link time reference\b|version `(?P<glibc>"
       r"GLIBC\w*_[\d.]+)' not found|operator [\w:]+ does not exist"
       # macOS' loader (dyld) in its words: "dlopen(x.dylib, 0x0006): Symbol not found: _f"
       r"|\bSymbol not found: (?P<symbol__2>\S+)"
       # (a stub library looking up the real one's function: TF-TRT's "getInferLibVersion symbol
       # not found."; not the CUDA runtime's "named symbol not found", a kernel missing)
       r"|\b(?!named\b)(?P<symbol__3>[A-Za-z_]\w*) symbol not found\b"
       # Android's linker (bionic): 'CANNOT LINK EXECUTABLE "x": library "libomp.so" not found',
       # 'cannot locate symbol "__emutls_get_address" referenced by "libggml.so"'
       r"|\bCANNOT LINK EXECUTABLE\b|\bcannot locate symbol \"[^\"]+\" referenced by\b"
       # (or a weakly linked symbol that is missing, called: "dyld: missing symbol called")
       r"|^dyld(?:\[\d+\])?: missing symbol called\b"
       # (its report's last line, naming the library that lacks it: "Referenced from: x.so",
       # then "Expected in: /usr/lib/libc++.1.dylib")
       r"|^\s*Expected in:\s+\S+\.dylib\b"
       # the loader out of room for a library's thread-local storage ("libgomp-d22c30c5.so.1:
       # cannot allocate memory in static TLS block"): a library load, no device memory
       r"|\.so[.\d]*: cannot allocate memory in\b"
       # a library built for another CPU (dyld: "(mach-o file, but is an incompatible architecture
       # (have 'x86_64', need 'arm64'))"; glibc: "wrong ELF class: ELFCLASS32")
       r"|\bincompatible architecture \(have '?\w+'?, need '?\w+'?\)|\bwrong ELF class\b",
       ignore_at=QUIET,
       keywords=("CANNOT LINK EXECUTABLE", "cannot locate symbol", " symbol not found")),
    # a compiled extension's operator (its module named `_C`) called with the arguments of another
    # release of its Python side ("_moe_C::f() expected at most 29 argument(s) but received 30
    # argument(s)"), not an operator registered from Python ("auto_deploy::f()": a program's call)
    rule("op_schema_mismatch", "env_mismatch",
       r"\b\w*_C::\w+\(\) (?:expected at most \d+ argument\(s\) but received \d+"
       r"|is missing value for argument '\w+')", ignore_at=QUIET),
    rule("jit_build_failed", "env_mismatch",
       r"Error building extension '|ninja: build stopped: subcommand failed|Ninja build failed"
       # (ninja's failed edge, newer ninja with its exit code: "FAILED: [code=1] x.so")
       r"|^:?/\S*/nvcc\s+-|^\s*FAILED: (?:\[code=\d+\] )?\S+\.(?:(?:cuda\.)?o|so)\b"
       r"|CalledProcessError: Command '\[['\"]ninja['\"]"
       # XLA's JIT running ptxas on a kernel it generated, the tool failing without a word of
       # its own ("ptxas exited with non-zero error code 139, output: ")
       r"|\b(?:ptxas|nvlink) exited with non-zero error code -?\d+"  # (or its device linker)
       # (Triton's, for the kernels it compiles: "`ptxas` failed with error code 4294967295:")
       r"|`ptxas` failed with error code -?\d+"
       # AITER's JIT build of one of its modules ("[aiter] failed jit build [module_x]", and in
       # other releases "failed build jit [module_x]")
       r"|\bfailed (?:jit build|build jit) \["
       # a GPU program built at run time by the OpenCL runtime ("CL_BUILD_PROGRAM_FAILURE",
       # "clBuildProgram failed with error code -11", LightGBM's "Cannot build GPU program:
       # Build Program Failure", "Compilation of OpenCL kernels failed.")
       r"|\bCL_BUILD_PROGRAM_FAILURE\b|\bBuild Program Failure\b|\bclBuildProgram(?:\(\))? failed\b"
       r"|(?i:\b(?:cannot|can't|could not|failed to|unable to) build (?:the )?(?:GPU|OpenCL|CUDA)"
       r" (?:program|kernels?)\b|\b(?:compilation|build) of (?:the )?(?:OpenCL|GPU|CUDA) "
       r"(?:programs?|kernels?) failed\b)"
       r"|\bCode object build failed\b"  # (MIOpen's, for the kernels it builds at run time)
       # (NVRTC's and HIPRTC's status for a program that did not compile, its log elsewhere)
       r"|\b(?:NVRTC|HIPRTC)_ERROR_COMPILATION\b"
       r"|^nvrtc compilation failed\b",  # (torch's fuser, its log below: "nvrtc compilation ...")
       weak=True, stage_hint="compile"),
    rule("backend_not_installed", "env_mismatch",
       r"(?i)is not available or (?:is )?outdated"
       r"|(?:not installed|is outdated)\W+please (?:install|upgrade)"
       # an exception that asks for a package to be installed: it is missing or too old
       r"|^(?:[\w.]+\.)?(?:Value|Runtime|Import|Assertion)Error: .{0,300}?"
       r"\bplease (?:pip )?install\b"
       # a package the program asks for by its installed metadata, not there (importlib's
       # "PackageNotFoundError: No package metadata was found for x", pkg_resources' "The 'x>=1'
       # distribution was not found and is required by this application")
       r"|\bNo package metadata was found for\b|\bdistribution was not found and is required by\b"),
    EXTENSION_NOT_LOADED,
    # (MLX's loaders import a module named for the checkpoint's model type: one that is not there
    # is a model type the installed release does not support, ``unsupported_config``)
    rule("model_type_module_missing", "unsupported_config",
       r"No module named '(?P<module>mlx_(?:lm|vlm)\.models\.(?P<architecture>\w+))'",
       stage_hint="loading", keywords=("mlx_",)),
    rule("module_missing", "env_mismatch", r"No module named '?(?P<module>[\w.]+)",
       ignore_at=QUIET),
    # a part of the installation the program needs and does not find: a server's backend (Triton's
    # "failed to stat file /opt/tritonserver/backends/python", LocalAI's "Backend not found"),
    # CUDA's unified addressing the platform lacks (vLLM's "UVA is not available", under WSL)
    rule("component_missing", "env_mismatch",
       r"\bfailed to stat file \S*/backends/(?P<backend>[\w-]+)"
       r"|(?i:\bbackend not found\b)|\bUVA is not available\b"
       # a device or backend asked for by name that the build does not have, with those it has
       # ("GGML_BACKEND=CUDA0 not found. Available: Vulkan0 CPU")
       r"|(?i:backend|device)\S{0,40} not found\. Available: \S"
       # a program the environment lacks, in Go's words (docker's 'exec: "nvidia-smi"', fork/exec)
       r"|\bexecutable file not found in \$PATH\b|\bfork/exec \S+: no such file or directory"
       # a build without the part asked for ("The FastDeploy didn't compile with TrtBackend.")
       r"|\bdid(?:n't| not) compile with \w+",
       keywords=("/backends/", "ackend not found", "UVA is not", "not found. Available",
                 "executable file not found", "fork/exec"),
       ignore_at=QUIET),
    # any other import that fails: a package, or a compiled part of one, is missing or broken
    # (not CPython's import refused while the interpreter shuts down)
    rule("import_failed", "env_mismatch",
       r"^(?:[\w.]+\.)?ImportError: (?!sys\.meta_path is None)\S"
       # the lazy import of transformers' and diffusers' modules, raised again as a
       # RuntimeError ("Failed to import diffusers.models.x because of the following error (look
       # up to see its traceback):"); a module imported from native code (a Rust launcher's
       # "Failed to import python 'vllm' module")
       r"|\bFailed to import (?:[\w.]+ because of the following error\b"
       r"|(?:python )?'?(?P<module>[\w.]+)'? module\b)", ignore_at=QUIET),
    # ggml's Metal backend failing to set itself up (its shader library cannot be found, loaded
    # or compiled: "ggml_metal_init: error: Error Domain=MTLLibraryErrorDomain Code=3 ..."): the
    # installed build cannot run here; the Metal counterpart of CUDA failing to start
    rule("metal_init_failed", "env_mismatch", r"\bggml_metal_init: error: ", stage_hint="startup"),
    # torch counting the devices and the runtime failing (its UserWarning "CUDA initialization:
    # Unexpected error from cudaGetDeviceCount() ... Error 101: hipErrorInvalidDevice"): the
    # runtime cannot use the GPUs it sees; a known cause in the same line is read first
    rule("device_count_failed", "env_mismatch",
       r"\bUnexpected error from (?:cuda|hip)GetDeviceCount\(\)"
       # (its other warning: "cudaGetDeviceCount() returned cudaErrorNotSupported, likely using
       # older driver or on CPU machine")
       r"|\b(?:cuda|hip)GetDeviceCount\(\) returned (?:cuda|hip)Error\w+", stage_hint="startup",
       keywords=("GetDeviceCount",)),
    # Numba's NVVM (the toolkit's compiler library) missing or knowing no target of this GPU:
    # the installed toolkit does not fit the driver or the device
    rule("nvvm_unsupported", "env_mismatch", r"\bNvvmSupportError\b", stage_hint="compile",
       keywords=("NvvmSupportError",)),
    PACKAGE_BUILD_FAILED,
    # an accelerator runtime's library that cannot be loaded or set up: Qualcomm's QNN (its
    # DSP skeleton, its transport, its interface: "Failed to load skel, error: 4000",
    # "getQnnInterface FAILED!"), a binding's native libraries ("Torch libraries are installed
    # but loading them was unsuccessful")
    rule("runtime_unloadable", "env_mismatch",
       r"\bFailed to (?:load skel|create transport for device)\b|\bgetQnnInterface FAILED\b"
       r"|\bopenSession qnn_open failed\b"
       r"|\blibraries are installed but loading them was unsuccessful\b", stage_hint="startup",
       keywords=("skel", "transport", "QnnInterface", "unsuccessful", "qnn_open")),
    # a GPU encoder finding no device that can run it (FFmpeg's NVENC: "No capable devices
    # found"), also printed after the session's own error, which says more
    rule("no_capable_device", "env_mismatch", r"\bNo capable devices found\b", weak=True,
       keywords=("capable devices",)),
    # a saved model, engine or checkpoint written by another release of the library that reads
    # it ("Cannot deserialize model from a different version of Treelite")
    rule("saved_by_other_version", "env_mismatch",
       r"(?i:\b(?:model|engine|plan|checkpoint|file)s? (?:\w+ ){0,3}?(?:from|by|with) )a different "
       r"version of\b", stage_hint="loading", keywords=("different version",)),
    # a compiled extension's module that was never bound: its import failed earlier and was
    # swallowed ("NameError: name 'exllamav2_ext' is not defined", "... 'vllm_ops' ...")
    rule("extension_unbound", "env_mismatch",
       r"\bNameError: name '(?P<module>\w*(?:_ext|_ops|_C|_cuda|_kernels?)|ops)' is not defined",
       keywords=("NameError",)),
)
# fmt: on
