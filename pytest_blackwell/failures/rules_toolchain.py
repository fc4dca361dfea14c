"""Rules for a build toolchain that is not there or cannot link (``env_mismatch`` at ``compile``).

JIT builds (torch's extension builder, Triton's C helper, FlashInfer, Inductor) and package
builds need a compiler, its headers and the libraries it links against; a missing one is the
environment's fault, whatever the build was for. :mod:`.rules_env` lists these rules in its
table, in their place among the other environment rules.
"""

from __future__ import annotations

from pytest_blackwell.failures.rule import COMPILER_LAUNCH, QUIET, Rule, rule

# fmt: off
#: A compiler, a header or a build tool missing, or unable to build anything.
MISSING_COMPILER: Rule = rule("missing_compiler", "env_mismatch",
   r"No working C\+\+ compiler found|InvalidCxxCompiler|Failed to find C compiler"
   # (Inductor's check of the compiler it was told to use: "Compiler: cl is not found.")
   r"|\bCompiler: (?:cl|gcc|g\+\+|clang(?:\+\+)?|c\+\+|cc)(?:\.exe)? is not found\b"
   r"|Python\.h: No such file or directory|gcc: (?:error|fatal)"
   # (a compiler driver of any name without a part of itself: "x86_64-conda-linux-gnu-cc:
   # error trying to exec 'cc1plus': execvp: No such file or directory")
   r"|\berror trying to exec '[\w+\-]+'"
   r"|Command '\[[^\]]{0,40}?(?:gcc|g\+\+|clang|/cc)'|\b\w+\.h: No such file or directory"
   # (or the C compiler Triton ships on Windows, wherever it lies: "...\\tcc\\tcc.exe'")
   r"|Command '\[[^\],]{0,160}?tcc\.exe'"
   # (or MSVC's, which Triton builds its C helper with on Windows: "...\\x64\\cl.EXE'")
   r"|Command '\['(?:[^',]{0,200}?\\)?cl(?:\.[Ee][Xx][Ee])?'"
   r"|\berror: include file '[\w/.]+\.h' not found"  # (tcc, the C compiler Triton ships)
   # (or one that cannot build the helper sources Triton generates: MSVC's "error C2059" on
   # "__triton_launcher.c(123)")
   r"|\b(?:__triton_launcher|cuda_utils)\.c(?:\(\d+\)|:\d+(?::\d+)?): (?:fatal )?error\b"
   # clang's words for a header it cannot find (also Metal's compiler, built on it)
   r"|\bfatal error: '[\w/.\-]+\.(?:h|hh|hpp|cuh)' file not found"
   # (gcc's and nvcc's own words for an include it cannot find, a header without an
   # extension too: "cutlass.h:43:35: fatal error: cuda/std/utility: No such file or
   # directory")
   r"|\.(?:h|hh|hpp|cuh|cu|cc|cpp)(?::\d+){1,2}: fatal error: [\w/.\-]+: No such file or "
   r"directory"
   # (NVRTC's and the EDG front end's words: 'catastrophic error: cannot open source file
   # "cuda_runtime.h"')
   r'|\bcatastrophic error: cannot open source file "[\w/.\-]+"'
   # a compiler or build tool the JIT build runs is not installed
   r"|No such file or directory: '(?:[^']*/)?(?:nvcc|ninja|hipcc|ptxas|gcc|g\+\+|c\+\+"
   r"|clang(?:\+\+)?)'"
   # the same said by the program that looked for it (Inductor on Windows: "Cannot find
   # ptxas.exe")
   r"|\b(?:Cannot|Could not|Unable to) find (?:nvcc|ptxas|ninja|hipcc)(?:\.exe)?\b"
   # (or an error saying so: "failed to JIT-compile: ninja (build tool) not found")
   r"|\b(?:[Ee]rror|failed)\b.{0,80}?\b(?:nvcc|ptxas|ninja|hipcc)(?:\.exe)?(?: \([\w ]+\))?"
   r" (?:not found|is not installed)\b"
   # XLA without the CUDA toolkit's parts it compiles with ("No PTX compilation provider is
   # available. Neither ptxas/nvlink nor nvjtlink is available", "libdevice not found at
   # ./libdevice.10.bc")
   r"|\bNo PTX compilation provider is available\b|\blibdevice not found\b"
   # (at its warning level, as XLA compiles a module that needs it: "libdevice is required
   # by this HLO module but was not found at ./libdevice.10.bc")
   r"|\blibdevice is required by this \w+ module but was not found\b"
   # torch.utils.cpp_extension's own checks before it builds
   # (and DeepSpeed's op builder: "CUDA_HOME does not exist, unable to compile CUDA op(s)")
   r"|Ninja is required to load C\+\+ extensions|CUDA_HOME (?:environment variable is not set"
   r"|does not exist)"
   # a program that builds its kernels at run time unable to start the compiler (OpenMM)
   # (its status is the raw wait status: 32512 is exit 127, the compiler not found; another
   # code is a compiler that ran and failed, whose own error follows: a wrapper, below)
   r"|" + COMPILER_LAUNCH + r"(?!: (?!32512\b)\d)"
   # CMake's test of the compiler it found, which cannot build anything ('The HIP compiler
   # "/opt/rocm/llvm/bin/clang" is not able to compile a simple test program.')
   r"|\bis not able to compile a simple test program\b"
   # the CUDA toolkit's check of the host compiler ("... unsupported GNU version! gcc ...")
   r"|#error:? +-- unsupported (?:GNU|clang|Microsoft Visual Studio) version!"
   # (or a header's check of the language standard the compiler was run with: '#error
   # "MPark.Variant requires C++11 support."', "C++17 or later compatible compiler is required")
   r"|#error(?: directive)?:? +\"?[^\"\n]{0,120}?\b[Cc]\+\+ ?"
   r"(?:11|14|17|20|23|2011|2014|2017|2020)\b",
   stage_hint="compile", keywords=("simple test program",))

#: The linker of a build that cannot find a library or resolve a symbol: what it links against
#: is missing or was built for another ABI, version or toolchain ("cannot find -lcuda",
#: "undefined reference to `f()'").
LINK_FAILED: Rule = rule("link_failed", "env_mismatch",
   r"\bld(?:\.\w+)?: cannot find -l\w+|\bundefined reference to [`'\u2018]"
   # (MSVC's linker by its codes, in any language: "error LNK2001: unresolved external symbol")
   r"|\berror LNK(?:2001|2019|1120)\b"
   # (clang's words for its linker failing, as gcc's collect2 says "ld returned 1 exit status")
   r"|\bclang(?:\+\+)?(?:\.exe)?: error: linker command failed\b",
   stage_hint="compile")

#: A compiler of the toolchain that could not be started (XLA's "ptxas returned an error during
#: compilation of ptx to sass: 'Internal: Failed to launch ptxas'", a fatal record); not
#: TensorFlow's warning that it relies on the driver instead ("W ... redzone_allocator.cc:314]
#: Internal: Failed to launch ptxas", then "Relying on driver to perform ptx compilation.").
TOOL_NOT_STARTED: Rule = rule("compiler_not_started", "env_mismatch",
   r"\bFailed to (?:launch|execute) (?:nvcc|ptxas|nvlink|hipcc)\b",
   stage_hint="compile", ignore_at=QUIET, keywords=("Failed to launch", "Failed to execute"))

#: A package that cannot be built here: pip's build of a wheel, cargo's build script (both
#: compile native code with the toolchain the environment has); the builder's own error,
#: when shown, is more precise and replaces this
PACKAGE_BUILD_FAILED: Rule = rule("package_build_failed", "env_mismatch",
   r"\berror: subprocess-exited-with-error\b|\bFailed building wheel for\b"
   r"|\bERROR: Command errored out with exit status \d+:"  # (older pip's words)
   r"|\berror: failed to run custom build command for\b"
   # (uv's words, and pip's for a legacy setup.py: "python setup.py develop did not run ...")
   r"|\bFailed to build `[^`\s]+|\bpython setup\.py \w+ did not run successfully\b"
   # (pip's summary, older and newer: "Could not build wheels for", "Failed to build
   # installable wheels", "failed-wheel-build-for-install")
   r"|\bCould not build wheels for\b|\bFailed to build installable wheels\b"
   r"|\bfailed-wheel-build-for-install\b"
   # (setuptools' build of an extension, its compiler failing: "error: command
   # '/usr/local/cuda/bin/nvcc' failed with exit code 1", "error: command 'gcc' failed ...")
   r"|^\s*error: command '(?:[^']*[/\\])?(?:[\w.\-]+-)?"
   r"(?:nvcc|hipcc|gcc|g\+\+|c\+\+|cc|clang\+\+|clang|cl|link)(?:-[\d.]+)?(?:\.exe)?'"
   r" failed with exit (?:code|status) \d+"
   # (pip's summary by the packages' names, "Failed to build flash-attn grouped_gemm"; not a
   # program's own build step: TensorRT's "Failed to build engine")
   r"|^Failed to build (?!(?:the |an? )?(?:engine|model|network|graph|pipeline|plan|index|kernel"
   r"|program|module|project|target|image|cache|tree|solution|context|executor)s?\.?\s*$)"
   # (several names only when each is a package's, with a dash, underscore or digit; each name
   # matched one way only, so a long line cannot make it backtrack)
   r"(?:[\w.\-]+|(?=[\w.]*[\-_\d])[\w.\-]+(?: (?=[\w.]*[\-_\d])[\w.\-]+)+)\s*$",
   weak=True, stage_hint="compile",
   keywords=("subprocess-exited", "Failed building wheel", "custom build command",
             "Failed to build ", "did not run successfully", "Could not build wheels",
             "installable wheels", "failed-wheel-build", "error: command '"))

#: An op torch.ops does not have: the extension that registers it (vLLM's _C, _moe_C, any
#: package's namespace) is not loaded or was built without it
EXTENSION_NOT_LOADED: Rule = rule("extension_not_loaded", "env_mismatch",
   r"'_OpNamespace' '\w+' object has no attribute '(?P<op>\w+)'"
   # (or a compiled extension's module named so, "module 'torchsparse_cuda' has no attribute
   # 'insertion_forward'": built from other sources than the Python code calling it)
   r"|\bmodule '(?:[\w.]+\.)?\w*_(?:cuda|ext)' has no attribute '(?P<op__2>\w+)'"
   # (or a module without its CUDA extension: "module 'quant' has no attribute 'quant_cuda'")
   # (not a query a CPU build has too: "is_compiled_with_cuda", "has_cuda", "from_cuda")
   r"|\bmodule '[\w.]+' has no attribute '(?P<op__3>(?!(?:is|has|from|to|with|use)_)\w+_cuda)'"
   # (MediaPipe's graph naming a calculator the linked framework does not hold, as the task's
   # engine is set up: "No registered object with name: TokenizerCalculator; Unable to find
   # Calculator")
   r"|\bNo registered object with name: \S+; Unable to find Calculator\b")

#: A program that could not start another because it is not there (enroot's "enroot-switchroot:
#: failed to execute: /bin/bash: No such file or directory", coreutils' "/usr/bin/env:
#: 'python3': No such file or directory", Slurm's "execve(): train.py: ...", runc's "exec
#: /entrypoint.sh: no such file or directory"), as "command not found" is.
PROGRAM_MISSING: Rule = rule("program_missing", "env_mismatch",
   r"\b(?:failed to|cannot|can't|could not|couldn't) exec(?:ute)?:? ['\"\u2018]?[\w./+\-]+"
   r"['\"\u2019]?: No such file or directory\b"
   r"|^(?:/usr/bin/)?env: ['\"\u2018]?[\w./+\-\\]+['\"\u2019]?: No such file or directory\b"
   r"|\bexecve\(\): [\w./+\-]+: No such file or directory\b"
   r"|^exec [\w./+\-]+: no such file or directory\b|\bexec user process caused:? \"?no such file"
   r"|\bexec: \"[^\"]+\": stat [^:]+: no such file or directory"
   r"|\bcannot execute: required file not found"
   # (dash's words for a command it cannot find, also behind a build's step prefix: "#8 0.23
   # /bin/sh: 1: nvcc: not found")
   r"|(?<![\w.-])(?:/bin/)?(?:sh|dash|ash): \d+: \S+: not found\s*$",
   weak=True, keywords=("execute", "execve(", "env: ", "exec ", "exec: ", "exec user process",
                        "required file not found", ": not found"))
# fmt: on
