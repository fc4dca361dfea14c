"""Wordings of the libraries themselves, for the rules widened to generalise beyond the corpus.

Every line here is written from the error text the library prints (CUDA's runtime error strings,
c10's and NCCL's messages, llama.cpp's server, TensorRT, JAX/XLA, transformers and diffusers),
with paths and numbers of our own, so a rule that only fits one corpus log fails here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_blackwell.failures import classify_log
from pytest_blackwell.failures.normalize import logical_lines


@pytest.mark.parametrize(
    ("line", "category"),
    [
        # CUDA's own assert, printed per failing thread before the kernel faults
        (
            "/pytorch/aten/src/ATen/native/cuda/ScatterGatherKernel.cu:144: operator(): block: "
            "[3,0,0], thread: [17,0,0] Assertion `idx_dim >= 0 && idx_dim < index_size` failed.",
            "illegal_memory_access",
        ),
        # cudaGetErrorString of the stream-capture error codes
        ("RuntimeError: CUDA error: capturing stream has unjoined work", "stream_capture"),
        (
            "RuntimeError: CUDA error: operation would result in a merge of separate capture "
            "sequences",
            "stream_capture",
        ),
        (
            "RuntimeError: CUDA error: capture was not initiated in this stream",
            "stream_capture",
        ),
        (
            "RuntimeError: CUDA error: operation not permitted on an event last recorded in a "
            "capturing stream",
            "stream_capture",
        ),
        # llama.cpp: no free KV cells for a batch
        ("decode: failed to find KV cache slot for ubatch of size 512", "kv_cache_oom"),
        (
            "srv  update_slots: failed to find free space in the KV cache, retrying with smaller "
            "batch size, i = 0, n_batch = 2048, ret = 1",
            "kv_cache_oom",
        ),
        ("RuntimeError: No memory left for the KV cache after loading weights", "kv_cache_oom"),
        ("RuntimeError: Insufficient free memory for KV cache blocks", "kv_cache_oom"),
        # an architecture check worded "only support"
        (
            "[TensorRT-LLM][ERROR] Assertion failed: this GEMM only support Blackwell (sm100)",
            "dispatch_failure",
        ),
        # ptxas logs its fatal without an error word
        (
            "ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'",
            "dispatch_failure",
        ),
        ("RuntimeError: cutlassB: no kernel found to launch!", "dispatch_failure"),
        (
            "RuntimeError: Unable to initialize backend 'cuda': FAILED_PRECONDITION: No visible "
            "GPU devices.",
            "env_mismatch",
        ),
        (
            "[TRT] [E] 6: The engine plan file is not compatible with this version of TensorRT, "
            "expecting library version 10.3.0 got 10.7.0, please rebuild.",
            "env_mismatch",
        ),
        (
            "ImportError: cannot import name 'cached_download' from 'huggingface_hub' "
            "(/usr/lib/python3/site-packages/huggingface_hub/__init__.py)",
            "env_mismatch",
        ),
        (
            "OSError: It looks like the config file at 'models/tiny/config.json' is not a valid "
            "JSON file.",
            "unsupported_config",
        ),
        (
            "OSError: Error no file named diffusion_pytorch_model.bin found in directory ./unet.",
            "unsupported_config",
        ),
        ("Error: open tokenizer.json: no such file or directory", "unsupported_config"),
        # nccl-tests' NCCLCHECK and c10d's heartbeat monitor
        (
            "node-3: Test NCCL failure common.cu:1005 'remote process exited or there was a "
            "network error'",
            "nccl_error",
        ),
        (
            "[rank1]:[E1111 17:10:53.123456 ProcessGroupNCCL.cpp:1500] [PG ID 0 Rank 1] "
            "ProcessGroupNCCL's watchdog got stuck for 600 seconds without making progress in "
            "monitoring enqueued collectives.",
            "nccl_error",
        ),
        (
            "CRITICAL 02-28 03:25:56 launcher.py:99] MQLLMEngine is already dead, terminating "
            "server process",
            "engine_died",
        ),
    ],
)
def test_library_wordings(line: str, category: str, tmp_path: Path) -> None:
    assert (failure := classify_log([line])) is not None
    assert failure.category == category, failure
    log = tmp_path / "x.log"  # the file path: quick scan, then the thorough one with keywords
    log.write_text("INFO 01-01 00:00:00 [x.py:1] starting\n" * 50 + line + "\n")
    from_file = classify_log(log)
    assert from_file is not None
    assert (from_file.category, from_file.first_error) == (category, failure.first_error)


@pytest.mark.parametrize(
    "line",
    [
        # XLA falls back to the driver and goes on: a warning that quotes ptxas
        "2024-05-01 10:00:00.123456: W xla/stream_executor/cuda/cuda_asm_compiler.cc:100] "
        "Falling back to the CUDA driver for PTX compilation; ptxas error was: ptxas fatal   : "
        "Value 'sm_90a' is not defined for option 'gpu-name'",
        # JAX probes every backend; one that is absent is logged at INFO
        "I0403 15:25:16.346253 140180234358912 xla_bridge.py:897] Unable to initialize backend "
        "'rocm': NOT_FOUND: Could not find registered platform with name: \"rocm\"",
        # a host-side C assert is not a kernel fault
        "python3: ../nptl/pthread_mutex_lock.c:81: __pthread_mutex_lock: Assertion "
        "`mutex->__data.__owner == 0' failed.",
    ],
)
def test_quiet_or_host_lines_are_not_those_failures(line: str) -> None:
    failure = classify_log([line])
    assert failure is None or failure.category not in (
        "dispatch_failure",
        "env_mismatch",
        "illegal_memory_access",
    ), failure


@pytest.mark.parametrize(
    ("line", "level", "text"),
    [
        ("W0429 13:55:49.384000 12345 gpu_timer.cc:100] slow", "WARNING", "slow"),
        ("E0429 13:55:49.384000 12345 cuda_dnn.cc:535] boom", "ERROR", "boom"),
        ("[E429 13:55:49.384372190 ProcessGroupNCCL.cpp:1743] boom", "ERROR", "boom"),
        ("2021-02-27 01:33:51.779607: W tf/asm_compiler.cc:235] old", "WARNING", "old"),
    ],
)
def test_glog_levels_with_and_without_brackets(line: str, level: str, text: str) -> None:
    (logical,) = logical_lines(line)
    assert (logical.level, logical.text) == (level, text)


def test_a_glog_error_record_is_never_a_silent_miss(tmp_path: Path) -> None:
    log = tmp_path / "x.log"
    log.write_text(
        "step 1 loss 2.3\n" * 40
        + "[rank3]:[E1024 08:00:00.1 ProcessGroupNCCL.cpp:900] [Rank 3] something went awry\n"
    )
    failure = classify_log(log)
    assert failure is not None
    assert failure.category == "unknown"


SITE = "/usr/lib/python3.12/site-packages/vllm"


@pytest.mark.parametrize("cut", [40, 47, 58])  # mid-word, right before and right after a space
def test_a_message_wrapped_at_a_fixed_width_is_read_whole(cut: int) -> None:
    message = (
        "ValueError: To serve at least one request with the model's max seq len (32768), "
        "(8.00 GiB KV cache is needed, which is larger than the available KV cache memory "
        "(6.50 GiB). Based on the available memory, the estimated maximum model length is 26000."
    )
    head = message[: message.index("(8.00") + cut - 40]
    rest = message[len(head) :]
    lines = [
        "Traceback (most recent call last):",
        f'  File "{SITE}/v1/core/kv_cache_utils.py", line 700, in check_enough_kv_cache_memory',
        "    raise ValueError(",
        head,
        *(rest[i : i + 60] for i in range(0, len(rest), 60)),
    ]
    failure = classify_log(lines)
    assert failure is not None
    assert (failure.category, failure.stage) == ("kv_cache_oom", "kv_alloc"), failure
    assert failure.evidence["category"] == "rule kv_needed_larger"


def test_a_plain_value_error_followed_by_other_lines_stays_a_config_rejection() -> None:
    lines = [
        "ValueError: max_num_batched_tokens (512) is smaller than max_model_len (4096).",
        "INFO 01-01 00:00:00 [launcher.py:1] Shutting down",
    ]
    failure = classify_log(lines)
    assert failure is not None
    assert failure.category == "unsupported_config"
    assert failure.first_error.startswith("ValueError: max_num_batched_tokens")


def test_frames_whose_indentation_was_lost_still_tell_the_stage() -> None:
    lines = [
        f'File "{SITE}/engine/arg_utils.py", line 318, in create_engine_config',
        "model_config = ModelConfig(",
        f'File "{SITE}/config.py", line 204, in _verify_quantization',
        "raise ValueError(",
        "ValueError: Unknown quantization method: fp3. Must be one of ['awq', 'fp8'].",
    ]
    failure = classify_log(lines)
    assert failure is not None
    assert (failure.category, failure.stage) == ("unsupported_config", "startup"), failure


def _frame(path: str, func: str) -> str:
    return f'  File "/usr/lib/python3.12/site-packages/{path}", line 10, in {func}'


@pytest.mark.parametrize(
    ("lines", "stage"),
    [
        # engine functions: vLLM's async output loop, its older start-up wait, SGLang's overlap
        # scheduler thread
        (
            [
                "Traceback (most recent call last):",
                _frame("vllm/v1/engine/core_client.py", "get_output_async"),
                "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue.",
            ],
            "execute",
        ),
        (
            [
                "Traceback (most recent call last):",
                _frame("vllm/v1/engine/core_client.py", "_wait_for_engine_startup"),
                "RuntimeError: Engine core initialization failed. See root cause above.",
            ],
            "startup",
        ),
        (
            [
                "Traceback (most recent call last):",
                _frame("sglang/srt/managers/tp_worker_overlap_thread.py", "forward_thread_func"),
                "RuntimeError: CUDA error: an illegal memory access was encountered",
            ],
            "execute",
        ),
        # what the message says was being done, when nothing else tells
        (
            [
                "Error: an error was encountered while running the model: CUDA error: misaligned "
                "address"
            ],
            "execute",
        ),
        (["ValueError: --enable-lora is not supported with --speculative-model"], "startup"),
        (["NotImplementedError: not supported with --kv-cache-dtype fp8_e5m2"], "startup"),
        (
            [
                "[TRT] [E] 1: [runtime.cpp::deserializeCudaEngine::50] Error Code 1: Internal "
                "Error (Engine deserialization failed.)"
            ],
            "loading",
        ),
        # the API server answering requests (a status poll) before a hang
        (
            [
                'INFO:     10.0.0.1:5000 - "GET /v1/models HTTP/1.1" 200 OK',
                "WARNING 01-01 00:00:00 [shm_broadcast.py:1] No available shared memory broadcast "
                "block found in 60 seconds.",
            ],
            "execute",
        ),
    ],
)
def test_stage_from_frames_phrases_and_markers(lines: list[str], stage: str) -> None:
    failure = classify_log(lines)
    assert failure is not None
    assert failure.stage == stage, failure


def test_a_phrase_naming_a_consequence_does_not_override_the_rule_hint() -> None:
    line = (
        "RuntimeError: Worker failed with error 'max_num_seqs (512) exceeds available Mamba cache "
        "blocks (300). Each decode sequence needs one block, so CUDA graph capture cannot go on.'"
    )
    failure = classify_log([line])
    assert failure is not None
    assert (failure.category, failure.stage) == ("kv_cache_oom", "kv_alloc"), failure


@pytest.mark.parametrize(
    ("line", "tag", "level"),
    [
        # colour codes whose escape byte was lost in the paste
        (
            "[1;36m(APIServer pid=1)[0;0m ERROR 09-11 06:29:59 [f.py:1] boom",
            "APIServer pid=1",
            "ERROR",
        ),
        # a deployment's label in front of the record
        ("[vllm]: [rank0]: RuntimeError: boom", "rank0", ""),
        ("[Stage-1] ERROR 01-29 19:03:10 [f.py:1] boom", "", "ERROR"),
    ],
)
def test_paste_damage_around_the_record_header(line: str, tag: str, level: str) -> None:
    (logical,) = logical_lines(line)
    assert (logical.tag, logical.level) == (tag, level)
    assert logical.text.endswith("boom")


def test_a_bracketed_word_like_a_colour_code_is_kept_without_a_reset_code() -> None:
    (logical,) = logical_lines("ERROR: retry after [5m] of waiting")
    assert "[5m]" in logical.text


def test_a_tagged_message_wrapped_onto_an_untagged_line() -> None:
    lines = [
        "(EngineCore pid=9) Traceback (most recent call last):",
        f'(EngineCore pid=9)   File "{SITE}/v1/core/kv_cache_utils.py", line 1, in '
        "get_kv_cache_config",
        "(EngineCore pid=9)     raise ValueError(",
        "(EngineCore pid=9) ValueError: To serve at least one request with the model's max seq len "
        "(8192), (2.00 GiB KV cach",
        "e is needed, which is larger than the available KV cache memory (1.00 GiB).",
    ]
    failure = classify_log(lines)
    assert failure is not None
    assert (failure.category, failure.stage) == ("kv_cache_oom", "kv_alloc"), failure
