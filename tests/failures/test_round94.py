"""Mechanisms of the ninety-fourth round, tuned on the read half of the twenty-fifth batch (vLLM
V1, llama.cpp's GPU backends, torch.compile, ONNX to TensorRT).

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both, classify_mid_log

_ENGINE = "(EngineCore_DP0 pid=7) ERROR 01-02 10:00:00 [core.py:700] "


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # IPython's plain traceback (Spyder's console): frames indented, "path:line in func"
        # without arguments; cut before its exception line, it is still a traceback
        (
            [
                "Traceback (most recent call last):",
                "",
                "  Cell In[3], line 2",
                "    y = model(x)",
                "",
                "  File C:\\env\\torch\\_inductor\\compile_fx.py:900 in fx_codegen",
                "    return compile_fx_inner(gm)",
                "",
                "  File C:\\env\\torch\\_inductor\\graph.py:120 in compile_to_mod",
                "    mod = self.codegen()",
                "",
                "  File C:\\env\\Li",
            ],
            "unknown",
            "compile",
        ),
        # torch's logging with a Windows path and the compiled frame's id ("[1/0] ") before the
        # message: the record's level and its text are read as on Linux
        (
            [
                "E0102 10:00:00.100000 4321 site-packages\\torch\\_inductor\\runtime\\"
                "triton_heuristics.py:400] [1/0] triton.compiler.errors.CompilationError: at 3:4:",
                "E0102 10:00:00.100000 4321 site-packages\\torch\\_inductor\\runtime\\"
                "triton_heuristics.py:400] [1/0] def triton_(in_ptr0, xnumel, XBLOCK):",
            ],
            "unknown",
            "compile",
        ),
        (
            [
                "E0102 10:00:00.100000 4321 torch/_inductor/runtime/triton_heuristics.py:400] "
                '[0/1_1]   File "/env/triton/compiler/compiler.py", line 280, in compile',
                "E0102 10:00:00.100000 4321 torch/_inductor/runtime/triton_heuristics.py:400] "
                "[0/1_1]     next_module = compile_ir(module, metadata)",
            ],
            "unknown",
            "compile",
        ),
        # inline code inside bold, the paste's markdown around a native abort
        (["**`ggml/src/ggml.c:100: GGML_ASSERT(a == b || c == 0) fail"], "unknown", "unknown"),
        # a crash handler naming where an access violation struck
        (["Exception 0xc0000005 in ggml_graph_compute", "rax=0x0"], "engine_died", "unknown"),
        (["Exception 0xC0000005 at 0x7FF6A0B1C2D3"], "engine_died", "unknown"),
        # clang refusing a GPU builtin the target's instruction set lacks
        (
            [
                "[10/90] Building HIP object src/CMakeFiles/k.dir/k.cu.o",
                "FAILED: src/CMakeFiles/k.dir/k.cu.o",
                "/src/k.cuh:10:5: error: '__builtin_amdgcn_mfma_f32_32x32x8f16' needs target "
                "feature mai-insts",
            ],
            "dispatch_failure",
            "compile",
        ),
        # CMake's test of a compiler that cannot build anything
        (
            [
                "-- Check for working CUDA compiler: /usr/local/cuda/bin/nvcc - broken",
                "CMake Error at /usr/share/cmake/Modules/CMakeTestCUDACompiler.cmake:56 (message):",
                "  The CUDA compiler",
                "",
                '    "/usr/local/cuda/bin/nvcc"',
                "",
                "  is not able to compile a simple test program.",
            ],
            "env_mismatch",
            "compile",
        ),
        # the device itself refusing a feature (Metal's validation layer)
        (
            ["-[MTLDevice newHeap:]:42: failed assertion `device does not support x.'"],
            "dispatch_failure",
            "unknown",
        ),
        # Ollama's runner gone with no error at all (Go prints a nil error as "%!w(<nil>)")
        (
            ["Error: llama runner process has terminated: %!w(<nil>)"],
            "engine_died",
            "unknown",
        ),
        # MSVC's compiler, which Triton builds its C helper with on Windows, failing
        (
            [
                "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:",
                "CalledProcessError: Command '['C:\\\\VS\\\\bin\\\\x64\\\\cl.exe', "
                "'C:\\\\Temp\\\\main.c', '/LD']' returned non-zero exit status 2.",
            ],
            "env_mismatch",
            "compile",
        ),
        # a stub library looking up the real one's function
        (
            [
                "2020-01-02 10:00:00.000001: F tensorflow/compiler/tf2tensorrt/stub/"
                "nvinfer_plugin_stub.cc:49] getPluginRegistry symbol not found."
            ],
            "env_mismatch",
            "startup",
        ),
        # TensorRT's ONNX parser importing a node as a plugin it cannot find
        (
            [
                '[E] [TRT] ModelImporter.cpp:720: While parsing node number 5 [Foo -> "y"]:',
                "[E] [TRT] ModelImporter.cpp:726: ERROR: builtin_op_importers.cpp:4000 In function "
                "importFallbackPluginImporter:",
                '[8] Assertion failed: creator && "Plugin not found, are the plugin name, version, '
                'and namespace correct?"',
            ],
            "env_mismatch",
            "compile",
        ),
        # TensorRT's kernel generator refusing a node for its operand type, in the builder
        (
            [
                "[E] 2: [myelinBuilderUtils.cpp::operator()::700] Error Code 2: Internal Error "
                "([Cast 0] requires bool or uint8 I/O but node can not be handled by Myelin. "
                "Operation is not supported.)"
            ],
            "dispatch_failure",
            "compile",
        ),
        (
            [
                "[E] 1: [standardEngineBuilder.cpp::buildEngine::100] Error Code 1: Internal Error "
                "(Assertion node != nullptr failed.)"
            ],
            "unknown",
            "compile",
        ),
        # an engine's traceback logged at ERROR, its header and its last tag cut by the paste
        (
            [
                "```",
                _ENGINE + '  File "/env/vllm/v1/engine/core.py", line 90, in __init__',
                _ENGINE + "    self._initialize_kv_caches(vllm_config)",
                _ENGINE + '  File "/env/vllm/core.py", line 190, in _initialize_kv_caches',
                _ENGINE + "    self.model_executor.determine_available_memory())",
                "(EngineCor",
            ],
            "unknown",
            "profile",
        ),
        # a binding's native library that cannot be loaded, in LLamaSharp's newer words
        (
            ["LLama.Exceptions.RuntimeError: Failed to load the native library. Check the log."],
            "env_mismatch",
            "startup",
        ),
        # a short flag's value refused while the arguments are read
        (
            ['error while handling argument "-ctk": Unsupported cache type: foo'],
            "unsupported_config",
            "startup",
        ),
        # ggml's ROCm build setting up its BLAS library for the device
        (
            [
                "ggml_cuda_init: initializing rocBLAS on device 0",
                "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: "
                "No such file or directory for GPU arch : gfx803",
            ],
            "dispatch_failure",
            "startup",
        ),
        # a JIT build failing, then the engine's traceback: the build ran in graph capture
        (
            [
                "/tmp/tmpab/main.c:5:10: fatal error: Python.h: No such file or directory",
                "compilation terminated.",
                "Exception in run_scheduler_process:",
                "Traceback (most recent call last):",
                '  File "/env/sglang/srt/model_executor/cuda_graph_runner.py", line 200, in '
                "capture_one_batch_size",
                "    run_once()",
                '  File "/env/sglang/srt/models/llama.py", line 300, in forward',
                "    return self.model(x)",
            ],
            "env_mismatch",
            "graph_capture",
        ),
        # (a training step's traceback is read both ways by the labels: the build stays compile)
        (
            [
                "/tmp/tmpab/main.c:5:10: fatal error: Python.h: No such file or directory",
                "compilation terminated.",
                "Traceback (most recent call last):",
                '  File "/work/train.py", line 40, in train',
                "    loss = model(batch)",
            ],
            "env_mismatch",
            "compile",
        ),
        # an engine read back from its plan, in the API's name
        (
            [
                "ERROR: IRuntime::deserializeCudaEngine: Error Code 1: Serialization ("
                "Serialization assertion creator failed.Cannot deserialize plugin since "
                "corresponding IPluginCreator not found in Plugin Registry)"
            ],
            "env_mismatch",
            "loading",
        ),
        # Torch-TensorRT's converter logging as it builds, then TensorRT's assertion
        (
            [
                "WARNING: [Torch-TensorRT TorchScript Conversion Context] - Detected a layer",
                "ERROR: [Torch-TensorRT] - 2: [node.cpp::compute::17] Error Code 2: Internal "
                "Error (Assertion a == b failed.)",
            ],
            "unknown",
            "compile",
        ),
        # GLib's warning of a plugin it skips is no error; the error after it is the first
        (
            [
                "(gst-plugin-scanner:26): GStreamer-WARNING **: 10:00:00.000: Failed to load "
                "plugin '/usr/lib/gst/libx.so': liby.so: cannot open shared object file: No such "
                "file or directory",
                "ERROR: [TRT]: INVALID_ARGUMENT: getPluginCreator could not find plugin Foo "
                "version 1",
            ],
            "env_mismatch",
            "unknown",
        ),
    ],
)
def test_round94_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


@pytest.mark.parametrize(
    "lines",
    [
        # a warning of GLib's alone
        [
            "(app:12): GStreamer-WARNING **: 10:00:00.000: Failed to load plugin "
            "'/usr/lib/gst/libx.so': liby.so: cannot open shared object file: No such file",
            "Now playing: sample.mp4",
        ],
        # a builder's notice that the hardware lacks a feature it then leaves off
        ["[I] [TRT] BuilderFlag::kTF32 is set but hardware does not support TF32. Disabling TF32."],
    ],
)
def test_round94_no_failure(tmp_path: Path, lines: list[str]) -> None:
    assert classify_both(tmp_path, lines) is None


def test_the_cuda_runtime_missing_symbol_stays_a_missing_kernel(tmp_path: Path) -> None:
    line = "RuntimeError: CUDA error: named symbol not found"
    classify_as(tmp_path, [line], "dispatch_failure", "unknown")


@pytest.mark.parametrize(
    ("line", "category"),
    [
        ("Exception 0xc0000005 at 0x00401000", "engine_died"),
        ("  is not able to compile a simple test program.", "env_mismatch"),
        ("getInferLibVersion symbol not found.", "env_mismatch"),
        ('level=ERROR msg="llama runner process has terminated: %!w(<nil>)"', "engine_died"),
        ("/src/k.cuh:10:5: error: '__builtin_amdgcn_x' needs target feature y", "dispatch_failure"),
    ],
)
def test_a_round94_line_is_found_mid_log(tmp_path: Path, line: str, category: str) -> None:
    classify_mid_log(tmp_path, line, category)
