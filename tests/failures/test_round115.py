"""Mechanisms of the hundred-and-fifteenth round, tuned on the read half of the forty-fifth
batch (vision-language serving, Jetson, ML compilers, DeepSpeed).

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both, classify_mid_log


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # a model's configuration without a field the engine reads from it
        (
            ["AttributeError: 'Qwen3MoeConfig' object has no attribute 'num_key_value_heads'"],
            "unsupported_config",
            "unknown",
        ),
        (
            [
                "2025-01-02 10:00:00,000 - lmdeploy - ERROR - AttributeError: 'GemmaConfig' "
                "object has no attribute 'vision_config'"
            ],
            "unsupported_config",
            "unknown",
        ),
        # vLLM's prompt-length checks, raised or relayed by its OpenAI client: the request's
        (
            ["ValueError: Prompt length of 9000 is longer than the maximum model length of 4096."],
            "unsupported_config",
            "execute",
        ),
        (
            [
                "ValueError: The prompt (total length 20000) is too long to fit into the model "
                "(context length 16384)."
            ],
            "unsupported_config",
            "execute",
        ),
        (
            [
                "openai.BadRequestError: Error code: 400 - {'object': 'error', 'message': 'The "
                "decoder prompt (length 9100) is longer than the maximum model length of 8192.'}"
            ],
            "unsupported_config",
            "execute",
        ),
        # the OpenAI SDK's status error without its body
        (["openai.InternalServerError: Error code: 502"], "unknown", "execute"),
        # gcc's, clang's and an MLIR tool's diagnostics on a source line
        (
            ["/tmp/build/kernel_wrapper.cpp:88:4: error: 'foo' was not declared in this scope"],
            "unknown",
            "compile",
        ),
        (
            ["model.mlir:120:7: error: 'func.call' op operand type mismatch"],
            "unknown",
            "compile",
        ),
        # TVM built without the GPU target it is asked to build for
        (
            [
                "Traceback (most recent call last):",
                '  File "/opt/tvm/python/tvm/driver/build_module.py", line 250, in build',
                "    rt_mod_host = _driver_ffi.tir_to_runtime(annotated_mods, target_host)",
                "tvm._ffi.base.TVMError: Check failed: bf != nullptr Target rocm is not enabled",
            ],
            "env_mismatch",
            "compile",
        ),
        # TVM running a pass over a module: the compiler at work
        (
            [
                "Traceback (most recent call last):",
                '  File "/opt/tvm/python/tvm/ir/transform.py", line 238, in __call__',
                "    return _ffi_transform_api.RunPass(self, mod)",
                "tvm.error.InternalError: Check failed: (n->loop_var.dtype() == dtype) is false",
            ],
            "unknown",
            "compile",
        ),
        # JAX setting up its CUDA plugin: start-up
        (
            [
                "Jax plugin configuration error: Exception when calling "
                "jax_plugins.xla_cuda12.initialize()",
                "Traceback (most recent call last):",
                '  File "/venv/lib/python3.12/site-packages/jax/_src/xla_bridge.py", line 600, '
                "in discover_pjrt_plugins",
                "    plugin_module.initialize()",
                "RuntimeError: plugin set-up raised",
            ],
            "unknown",
            "startup",
        ),
        # Megatron-Core building its layers from their specs
        (
            [
                "Traceback (most recent call last):",
                '  File "/w/Megatron-LM/megatron/core/transformer/spec_utils.py", line 99, '
                "in build_module",
                "    return module(*args, **kwargs)",
                "RuntimeError: layer construction raised",
            ],
            "unknown",
            "loading",
        ),
    ],
)
def test_round115_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_a_prompt_too_long_mid_log(tmp_path: Path) -> None:
    """The prompt-length refusal is found amid a long log."""
    classify_mid_log(
        tmp_path,
        "ValueError: The decoder prompt (length 17000) is longer than the maximum model length "
        "of 16384.",
        "unsupported_config",
    )


@pytest.mark.parametrize(
    "lines",
    [
        # the engine's own settings objects without a field: parts of two versions, not a model
        ["AttributeError: 'VllmConfig' object has no attribute 'model_type'"],
        ["AttributeError: 'ModelConfig' object has no attribute 'hidden_size'"],
        # a config of the program's own, lacking a field of its own
        ["AttributeError: 'TrainConfig' object has no attribute 'output_dir'"],
        # (review) configs named for a part of a program, or private, with a model field's name
        ["AttributeError: '_DummyConfig' object has no attribute 'model_type'"],
        ["AttributeError: 'TransformerConfig' object has no attribute 'head_dim'"],
        ["AttributeError: 'LoRAConfig' object has no attribute 'vocab_size'"],
        ["AttributeError: 'GRPOConfig' object has no attribute 'pad_token_id'"],
        ["AttributeError: 'BitsAndBytesConfig' object has no attribute 'model_type'"],
        ["AttributeError: 'GenerationConfig' object has no attribute 'pad_token_id'"],
    ],
)
def test_other_config_objects_are_no_model_config(tmp_path: Path, lines: list[str]) -> None:
    failure = classify_both(tmp_path, lines)
    assert failure is not None
    assert failure.category != "unsupported_config"


def test_a_library_traceback_as_the_message_is_no_refused_setting(tmp_path: Path) -> None:
    """TVM raises its native traceback as a ValueError's message: its cause is further down (or
    cut), never a configuration the ValueError refused."""
    failure = classify_both(
        tmp_path,
        [
            '  File "/opt/tvm/python/tvm/_ffi/base.py", line 468, in raise_last_ffi_error',
            "    raise py_err",
            "ValueError: Traceback (most recent call last):",
        ],
    )
    assert failure is not None
    assert failure.category == "unknown"


def test_a_destructor_s_report_lends_no_stage_to_the_error_above(tmp_path: Path) -> None:
    """The garbage collector's report of a destructor that raised after the error ("Exception
    ignored in: ... __del__") is its own; the error above it takes no shutdown from it."""
    failure = classify_both(
        tmp_path,
        [
            "AttributeError: module 'fused_op' has no attribute 'create_state'",
            "Exception ignored in: <function FusedOp.__del__ at 0x7f00>",
            "Traceback (most recent call last):",
            '  File "/venv/lib/python3.10/site-packages/pkg/ops/fused.py", line 110, in __del__',
            "    self.impl.destroy_state(self.id)",
            "AttributeError: module 'fused_op' has no attribute 'destroy_state'",
        ],
    )
    assert failure is not None
    assert failure.first_error.endswith("'create_state'")
    assert failure.stage == "unknown"


def test_a_built_tvm_module_running_is_no_compile(tmp_path: Path) -> None:
    """(review) TVM's executors run a built module from wrappers in relay's build_module.py: an
    error there is the run's, not the build's."""
    failure = classify_both(
        tmp_path,
        [
            "Traceback (most recent call last):",
            '  File "/w/run.py", line 12, in <module>',
            "    out = executor.evaluate()(data)",
            '  File "/opt/tvm/python/tvm/relay/build_module.py", line 590, in _graph_wrapper',
            "    gmodule.run()",
            "tvm._ffi.base.TVMError: CUDA: an illegal memory access was encountered",
        ],
    )
    assert failure is not None
    assert failure.category == "illegal_memory_access"
    assert failure.stage != "compile"


@pytest.mark.parametrize(
    "line",
    [
        "tvm._ffi.base.TVMError: Check failed: (bf != nullptr) is false: target.build.cuda is "
        "not enabled",
        "tvm._ffi.base.TVMError: Check failed: bf != nullptr Target cuda -libs=cudnn is not "
        "enabled",
    ],
)
def test_tvm_s_other_wordings_of_a_missing_target(tmp_path: Path, line: str) -> None:
    """(review) newer TVM names the build function of the target, older TVM its options too."""
    failure = classify_both(tmp_path, [line])
    assert failure is not None
    assert failure.category == "env_mismatch"


@pytest.mark.parametrize(
    "lines",
    [
        ["extracting", "cat: data/x.txt: No such file or directory"],
        [
            "extracting",
            "tar (child): data/x.tar.gz: Cannot open: No such file or directory",
            "tar (child): Error is not recoverable: exiting now",
            "tar: Child returned status 2",
            "tar: Error is not recoverable: exiting now",
        ],
    ],
)
def test_a_tool_s_missing_path_at_the_end_is_never_silent(tmp_path: Path, lines: list[str]) -> None:
    """(review) cat and tar put their own name first, and tar says more after it."""
    failure = classify_both(tmp_path, lines)
    assert failure is not None
    assert failure.category == "unknown"


def test_a_missing_path_mid_log_is_no_failure(tmp_path: Path) -> None:
    """A tool's missing path that the script went on from is not what stopped it."""
    lines = ["cat: data/optional.txt: No such file or directory", "all 10 files processed"]
    assert classify_both(tmp_path, lines) is None


def test_a_kernel_s_own_wrong_type_is_no_missing_lowering(tmp_path: Path) -> None:
    """(review) Triton's type check refusing a 32-bit integer where a float belongs is the
    kernel's bug on every GPU; only an 8-bit type is one this target may have no path for."""
    failure = classify_both(
        tmp_path,
        [
            "/w/kernels/norm.py:40:17: error: 'tt.precise_sqrt' op operand #0 must be "
            "floating-point or ranked tensor of floating-point values, but got "
            "'tensor<64xi32, #blocked>'"
        ],
    )
    assert failure is not None
    assert failure.category != "dispatch_failure"
    classify_as(
        tmp_path,
        [
            "/w/k.py:18:23: error: 'tt.fp_to_fp' op operand #0 must be floating-point or ranked "
            "tensor of floating-point values, but got 'tensor<128x64xi8, #ttg.dot_op<{opIdx = 0}>>'"
        ],
        "dispatch_failure",
        "compile",
    )


def test_other_ranks_not_loaded_is_a_relay_whatever_it_guesses(tmp_path: Path) -> None:
    """(review) SGLang's rank that loaded tells that others did not, guessing why ("e.g., OOM"):
    a relay of their failure, at loading, not an out-of-memory nor a timeout of its own."""
    classify_as(
        tmp_path,
        [
            "ValueError: TP rank 0 could finish the model loading, but there are other ranks "
            "that didn't finish loading. It is likely due to unexpected failures (e.g., OOM) or a "
            "slow node."
        ],
        "unknown",
        "loading",
    )
