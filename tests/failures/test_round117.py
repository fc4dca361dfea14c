"""Mechanisms of the hundred-and-seventeenth round, tuned on the read half of the forty-seventh
batch (TensorRT-LLM of 2025 and 2026, LMDeploy, GPUs on Windows and WSL2, managed GPU runtimes).

The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as, classify_both

from pytest_blackwell.failures.native_stacks import debugger_frame


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        # a weight loader checking a tensor's shape against the parameter's
        (
            [
                "AssertionError: Attempted to load weight (torch.Size([4096, 512])) into "
                "parameter (torch.Size([4096, 1024]))"
            ],
            "unsupported_config",
            "loading",
        ),
        # Python's subprocess not finding the program it runs
        (
            ["FileNotFoundError: [Errno 2] No such file or directory: 'gunicorn': 'gunicorn'"],
            "env_mismatch",
            "unknown",
        ),
        # kubectl's description of a container restarted after each crash
        (
            [
                "    State:          Waiting",
                "      Reason:       CrashLoopBackOff",
                "    Last State:     Terminated",
                "      Reason:       Error",
                "      Exit Code:    2",
                "    Ready:          False",
            ],
            "unknown",
            "unknown",
        ),
        # a managed platform's word that the model server died
        (
            ["FailedPrecondition: 400 Model server exited unexpectedly. Model server logs ..."],
            "engine_died",
            "unknown",
        ),
        # LMDeploy's check of a component its engine needs, as it starts
        (
            [
                "2025-01-02 10:00:00,000 - lmdeploy - ERROR - <Triton> test failed!",
                "Please ensure it has been installed correctly.",
            ],
            "env_mismatch",
            "startup",
        ),
        # TensorRT-LLM's backtrace: its KV cache pools allocated, an allocation failing there
        (
            [
                "RuntimeError: [TensorRT-LLM][ERROR] CUDA runtime error in ::cudaMalloc(ptr, n): "
                "out of memory (/src/cpp/tensorrt_llm/runtime/tllmBuffers.h:92)",
                "1       0x7f0000000438 void tensorrt_llm::common::check<cudaError>(cudaError, "
                "char const*, char const*, int) + 88",
                "2       0x7f00000006e3 tensorrt_llm::runtime::BufferManager::gpuSync("
                "nvinfer1::Dims64, nvinfer1::DataType) + 339",
                "3       0x7f00000003ab tensorrt_llm::batch_manager::kv_cache_manager::"
                "BlockManager::allocatePools(bool) + 635",
            ],
            "kv_cache_oom",
            "kv_alloc",
        ),
        # a TimeoutException with no message, as a JVM's chained cause
        (["Caused by: java.util.concurrent.TimeoutException"], "timeout", "unknown"),
    ],
)
def test_round117_mechanism(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_tensorrt_llm_s_backtrace_frames() -> None:
    """TensorRT-LLM's own backtrace: the namespaces and class are the path; only its methods
    that tell a stage by themselves name a function (review: ``loadModel`` sets up buffers and
    the decoder too, ``LoraCache::loadWeights`` runs per request)."""
    assert debugger_frame(
        "4       0x7f0000000964 tensorrt_llm::batch_manager::kv_cache_manager::"
        "KVCacheManager::allocatePools(bool) + 36"
    ) == ("tensorrt_llm::batch_manager::kv_cache_manager::KVCacheManager::", "allocate_pools")
    for line in (
        "3       0x7f0000000964 tensorrt_llm::layers::LookaheadDecodingLayer<__half>::"
        "LookaheadDecodingLayer(int) + 36",
        "5       0x7f0000000964 tensorrt_llm::executor::Executor::Impl::loadModel(int) + 36",
        "6       0x7f0000000964 tensorrt_llm::runtime::LoraCache::loadWeights(int) + 36",
    ):
        found = debugger_frame(line)
        assert found is not None
        assert found[1] == ""


def test_a_block_given_to_a_request_is_no_kv_allocation(tmp_path: Path) -> None:
    """(review) TensorRT-LLM's KV cache manager hands a running request a block on every step
    (allocateBlock under addToken): the executor's loop, not the cache being sized."""
    failure = classify_both(
        tmp_path,
        [
            "Traceback (most recent call last):",
            '  File "/py/tensorrt_llm/_torch/pyexecutor/py_executor.py", line 1234, in '
            "_executor_loop",
            "    self.resource_manager.prepare_resources(scheduled_batch)",
            "RuntimeError: [TensorRT-LLM][ERROR] Assertion failed: Can't allocate new blocks. No "
            "free blocks left. (/src/cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp:1032)",
            "3       0x7f492ce5b765 tensorrt_llm::batch_manager::kv_cache_manager::"
            "WindowBlockManager::allocateBlock(GenerationRequest&, bool) + 954",
            "4       0x7f492ce5c765 tensorrt_llm::batch_manager::kv_cache_manager::"
            "KVCacheManager::addToken(unsigned long) + 100",
        ],
    )
    assert failure is not None
    assert failure.stage == "execute"


def test_kubectl_s_oom_killed_container_is_a_death(tmp_path: Path) -> None:
    """(review) a container the kernel's OOM killer stopped, as kubectl describes it."""
    classify_as(
        tmp_path,
        [
            "    State:          Running",
            "    Last State:     Terminated",
            "      Reason:       OOMKilled",
            "      Exit Code:    137",
            "    Ready:          True",
        ],
        "engine_died",
        "unknown",
    )


@pytest.mark.parametrize(
    "lines",
    [
        # a program named twice by another message than subprocess's is no missing program
        ["No such file or directory: 'a.json': 'b.json' (copying)", "done"],
        # LMDeploy's check of the model's config follows the error it saw: not a component
        ["some line", "2025-01-02 10:00:00,000 - lmdeploy - ERROR - <Model> test failed!"],
    ],
)
def test_the_new_words_keep_their_limits(tmp_path: Path, lines: list[str]) -> None:
    failure = classify_both(tmp_path, lines)
    assert failure is None or failure.category != "env_mismatch"
