"""Bug reports from results.json: content maintainers ask for, reproductions, redaction, CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_blackwell.cli import main
from pytest_blackwell.report.bugreport import render_bug_report, write_bug_reports
from pytest_blackwell.report.redact import REDACTED, Redactor
from pytest_blackwell.report.reproduce import fp8_meaning, memory_budget, serve_command

GIB = 1024**3
TOKEN = "hf_PlantedTokenValue0123456789"
FIRST = (
    "ValueError: No available memory for the cache blocks. Try increasing gpu_memory_utilization"
)

LOG = [
    "\x1b[32mINFO\x1b[0m 03-10 15:07:20 [core.py:61] Initializing a V1 LLM engine",
    f"INFO downloading from https://user:{TOKEN}@huggingface.co/org/model",
    "INFO Loading weights took 0.20 seconds",
    "INFO Available KV cache memory: 0.01 GiB",
    "ERROR (EngineCore_DP0 pid=42) Traceback (most recent call last):",
    f"ERROR (EngineCore_DP0 pid=42) {FIRST}",
    "ERROR after the first error: must not be in the excerpt",
]


def results(tmp_path: Path) -> dict[str, Any]:
    (tmp_path / "logs").mkdir(exist_ok=True)
    (tmp_path / "logs" / "kv=fp8-gmu=0.5.log").write_bytes(
        "\n".join(LOG).encode() + b"\n\xff\xfe binary tail\n"
    )
    failing = {
        "config_id": "kv=fp8-gmu=0.5",
        "ok": False,
        "config": {
            "model": "org/tiny-llama",
            "dtype": "bfloat16",
            "max_model_len": 4096,
            "kv_cache_dtype": "fp8",
            "attention_backend": "FLASHINFER",
            "gpu_memory_utilization": 0.5,
            "kv_cache_memory_bytes": None,
            "enforce_eager": True,
            "max_num_seqs": 4,
            "engine_args": {"quantization": "fp8", "api_key": "engine-arg-secret"},
            "env": {"VLLM_USE_V1": "1", "HF_TOKEN": TOKEN},
        },
        "launches": 1,
        "outcome": "failed",
        "failure": {
            "category": "kv_cache_oom",
            "stage": "kv_alloc",
            "first_error": FIRST,
            "line": 0,
            "detail": {"required_bytes": 123456},
            "evidence": {"category": "rule kv_no_memory", "stage": "stage event kv_alloc"},
            "traceback": [
                '  File "vllm/v1/core/kv_cache_utils.py", line 700, in check',
                f"    {FIRST}",
            ],
        },
        "timings": {"startup": 1.5, "loading": 0.2},
        "tokens_per_s": None,
        "log_path": "logs/kv=fp8-gmu=0.5.log",
        "versions": {"vllm": "0.11.0"},
        "exit_status": 1,
        "requested_backend": "FLASHINFER",
        "actual_backend": "CPU_ATTN",
        "tests": ["tests/test_x.py::test_generate[kv=fp8-gmu=0.5]"],
    }
    passing = {**failing, "config_id": "kv=auto", "ok": True, "outcome": "passed", "failure": None}
    return {
        "schema": 2,
        "devices": [
            {
                "name": "NVIDIA RTX PRO 6000 Blackwell Workstation Edition",
                "compute_capability": "12.0",
                "smem_per_block_optin_bytes": 101376,
                "smem_per_sm_bytes": 102400,
                "smem_per_block_bytes": 49152,
                "total_memory_bytes": 96 * GIB,
                "multiprocessor_count": 188,
                "driver_version": "580.65.06",
                "cuda_version": "13.0",
                "index": 0,
                "source": "nvml",
            }
        ],
        "environment": {
            "driver": "580.65.06",
            "cuda": "13.0",
            "torch": "2.9.0+cu130",
            "vllm": "0.11.1",
            "flashinfer": "0.5.2",
            "python": "3.12.3",
            "platform": "Linux-x86_64",
            "env": {"CUDA_VISIBLE_DEVICES": "0"},
        },
        "configs": [passing, failing],
    }


@pytest.fixture
def report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    data = results(tmp_path)
    return render_bug_report(
        data["configs"][1], data["devices"], data["environment"], log_root=tmp_path
    )


def test_report_has_what_maintainers_ask_for(report: str) -> None:
    for needle in (
        "# kv_cache_oom at kv_alloc: configuration `kv=fp8-gmu=0.5`",
        "NVIDIA RTX PRO 6000 Blackwell Workstation Edition",
        "12.0 (sm_120)",
        "99 KiB",  # opt-in shared memory per block
        "| NVIDIA driver | 580.65.06 |",
        "| CUDA | 13.0 |",
        "| PyTorch | 2.9.0+cu130 |",
        "| vLLM | 0.11.1 |",
        "| FlashInfer | 0.5.2 |",
        "`org/tiny-llama`",
        "- requested: `FLASHINFER`",
        "- actually used: `CPU_ATTN`",
        "**mismatch**",
        "48.00 GiB of 96.00 GiB",
        "- stage: `kv_alloc`",
        "- required_bytes: `123456`",
        "- why: category from `rule kv_no_memory`, stage from `stage event kv_alloc`",
        'File "vllm/v1/core/kv_cache_utils.py", line 700',
        "| max_model_len | `4096` |",
        "| enforce_eager | `True` |",
    ):
        assert needle in report, needle


def test_fp8_meaning_in_the_report(report: str) -> None:
    assert "FP8 is used in several places: KV cache and weights." in report
    assert "KV-cache storage: FP8 (E4M3 on NVIDIA GPUs) via `kv_cache_dtype=fp8`" in report
    assert "Weights: FP8 via `quantization=fp8`." in report
    assert "Activations: FP8 with dynamic scales (W8A8) on compute capability 12.0." in report


def test_reproductions_are_runnable_text(report: str) -> None:
    assert "vllm serve org/tiny-llama \\\n    --dtype bfloat16 \\\n" in report
    assert "    --kv-cache-dtype fp8 \\\n    --attention-backend FLASHINFER \\\n" in report
    assert "    --enforce-eager \\\n" in report
    python = report.split("```python\n", 1)[1].split("\n```", 1)[0]
    compile(python, "reproduction.py", "exec")
    assert "llm = LLM(\n    model='org/tiny-llama',\n" in python
    assert "    kv_cache_dtype='fp8',\n" in python


def test_startup_log_stops_at_the_first_error(report: str) -> None:
    log = report.split("## Startup log up to the first error", 1)[1]
    assert "Initializing a V1 LLM engine" in log
    assert "\x1b" not in log
    assert FIRST in log
    assert "must not be in the excerpt" not in log


def test_no_secret_reaches_the_report(report: str) -> None:
    assert TOKEN not in report
    assert "engine-arg-secret" not in report
    assert REDACTED in report
    assert "https://[REDACTED]@huggingface.co" in report


def test_fp8_meaning_variants() -> None:
    none = fp8_meaning({"kv_cache_dtype": "auto", "dtype": "float16"}, "9.0")
    assert none[0] == "This configuration does not ask for FP8 anywhere."
    kv_only = fp8_meaning({"kv_cache_dtype": "fp8_e5m2"}, "8.0")
    assert kv_only[0].startswith("KV-cache storage: FP8 E5M2")
    assert "Weights and activations: not FP8" in kv_only[1]
    ampere = fp8_meaning({"engine_args": {"quantization": "fp8"}}, "8.0")
    assert any("weight-only (W8A16, Marlin kernels)" in n for n in ampere)
    other = fp8_meaning({"engine_args": {"quantization": "modelopt"}}, "10.0")
    assert any("decided by the checkpoint's quantization config" in n for n in other)


def test_memory_budget_translation() -> None:
    notes = memory_budget({"kv_cache_memory_bytes": 64 * 1024**2}, None)
    assert notes == [
        "`kv_cache_memory_bytes=67108864` (0.06 GiB): the KV cache is sized explicitly; "
        "`gpu_memory_utilization` does not size it."
    ]
    default = memory_budget({}, 80 * GIB)
    assert default == [
        "vLLM's default budget (`gpu_memory_utilization=0.9` = 72.00 GiB of 80.00 GiB)."
    ]


def test_serve_command_flags() -> None:
    text = serve_command(
        {
            "model": None,
            "enforce_eager": False,
            "engine_args": {"compilation_config": {"level": 0}},
        },
        env={"VLLM_CPU_KVCACHE_SPACE": "1"},
    )
    assert text.splitlines()[0] == "VLLM_CPU_KVCACHE_SPACE=1 vllm serve TINY_MODEL_DIR \\"
    assert "--no-enforce-eager" in text
    assert """--compilation-config '{"level":0}'""" in text


def test_isolation_table_when_present(tmp_path: Path) -> None:
    from pytest_blackwell.engine.config import EngineConfig
    from pytest_blackwell.engine.isolate import IsolationRequest, compare
    from pytest_blackwell.engine.result import EngineResult
    from pytest_blackwell.failures.model import Failure

    def run(config: EngineConfig, *, again: bool = False) -> EngineResult:
        if config.kv_cache_dtype == "fp8":
            return EngineResult("x", False, Failure("kv_cache_oom", "kv_alloc", "No memory"))
        return EngineResult("x", True, tokens_per_s=10.0)

    base = EngineConfig(kv_cache_dtype="fp8")
    comparison = compare(run, IsolationRequest(base, (), {"kv_cache_dtype": ("auto",)}))
    isolation = comparison.to_dict()
    data = results(tmp_path)
    entry = {**data["configs"][1], "follows": isolation["follows"], "isolation": isolation}
    text = render_bug_report(entry, data["devices"], data["environment"], log_root=tmp_path)
    section = text.split("## One-variable comparison", 1)[1]
    assert "The failure follows: `kv_cache_dtype`." in section
    assert f"**{isolation['summary']}**" in section
    assert f"- {isolation['verdicts'][0]['text']} (`outcome`)" in section
    assert "| variable | value | outcome | effect | tok/s |" in section
    assert "| kv_cache_dtype | kv_cache_dtype=auto | passed | outcome | 10.0 |" in section
    assert "Launches: 3 (at most 3)." in section
    plain = render_bug_report(data["configs"][1], data["devices"], data["environment"])
    assert "One-variable comparison" not in plain


def test_missing_log_is_said(tmp_path: Path) -> None:
    data = results(tmp_path)
    entry = {**data["configs"][1], "log_path": "logs/gone.log"}
    text = render_bug_report(entry, [], {}, log_root=tmp_path)
    assert "The log `logs/gone.log` could not be read" in text
    assert "No device information was recorded." in text


def test_write_bug_reports_only_for_failures(tmp_path: Path) -> None:
    paths = write_bug_reports(results(tmp_path), tmp_path, redactor=Redactor([TOKEN]))
    assert paths == [tmp_path / "reports" / "kv=fp8-gmu=0.5.md"]
    text = paths[0].read_text(encoding="utf-8")
    assert FIRST in text
    assert TOKEN not in text


def test_cli_report_prints_and_writes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    path = tmp_path / "results.json"
    path.write_text(json.dumps(results(tmp_path)), encoding="utf-8")
    assert main(["report", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# kv_cache_oom at kv_alloc: configuration `kv=fp8-gmu=0.5`")
    assert FIRST in out
    assert TOKEN not in out

    args = ["report", str(path), "--config", "kv=auto", "--output-dir", str(tmp_path / "o")]
    assert main(args) == 0, "an explicitly chosen passing config gets a report too"
    assert capsys.readouterr().out.strip() == str(tmp_path / "o" / "reports" / "kv=auto.md")
    assert (tmp_path / "o" / "reports" / "kv=auto.md").is_file()


def test_cli_report_errors_name_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "results.json"
    path.write_text(json.dumps(results(tmp_path)), encoding="utf-8")
    assert main(["report", str(path), "--config", "nope"]) == 2
    err = capsys.readouterr().err
    assert "no configuration 'nope'" in err
    assert "results.json" in err
    assert "kv=auto" in err
    bad = tmp_path / "other.json"
    bad.write_text("[1, 2]", encoding="utf-8")
    assert main(["report", str(bad)]) == 2
    assert "other.json is not a pytest-blackwell results.json" in capsys.readouterr().err
    assert main(["report", str(tmp_path / "missing.json")]) == 2
    assert "cannot read" in capsys.readouterr().err
