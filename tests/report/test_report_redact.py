"""Secrets never reach a report: by name, by value, in arguments, URLs, bearer tokens, logs."""

from __future__ import annotations

import pytest

from pytest_blackwell.device.model import DeviceInfo
from pytest_blackwell.report.envinfo import collect_environment, relevant_env
from pytest_blackwell.report.redact import REDACTED, Redactor, is_secret_name, redact_patterns

HF = "hf_QmX8vTz2LpA9rKd4WnB7cYe1"
PLAIN = "correct-horse-battery"  # no token shape: only the value tells it is a secret


@pytest.fixture
def redactor() -> Redactor:
    return Redactor.from_environ(
        {
            "HF_TOKEN": HF,
            "DB_PASSWORD": PLAIN,
            "MY_SERVICE_KEY": "k3y-value-42",
            "PATH": "/usr/bin",
            "MAX_NUM_BATCHED_TOKENS": "8192",
            "SHORT_TOKEN": "ab",  # too short to replace by value
        }
    )


@pytest.mark.parametrize(
    "name",
    ["HF_TOKEN", "OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY", "db_password", "MY_SECRET", "api_key"],
)
def test_secret_names(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize(
    "name", ["MAX_NUM_BATCHED_TOKENS", "KV_CACHE_DTYPE", "CUDA_VISIBLE_DEVICES", "KEYBOARD", "PATH"]
)
def test_not_secret_names(name: str) -> None:
    assert not is_secret_name(name)


def test_env_values_redacted_wherever_they_appear(redactor: Redactor) -> None:
    log = f"(EngineCore pid=1) connecting with {PLAIN} and {HF}; cfg k3y-value-42 done"
    out = redactor.redact(log)
    for secret in (PLAIN, HF, "k3y-value-42"):
        assert secret not in out
    assert out.count(REDACTED) == 3
    assert "8192" in redactor.redact("max tokens 8192"), "non-secret values untouched"
    assert redactor.known_secret_count == 3


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("vllm serve m --api-key sk-live-0123456789abcdefXYZ --port 8000", "sk-live-0123456789"),
        ("vllm serve m --api-key=notashape99", "notashape99"),
        ("--hf-token mytok123", "mytok123"),
        ("git clone https://alice:p4ssw0rd@github.com/x/y.git", "p4ssw0rd"),
        ("curl -H 'Authorization: Bearer abc.def.ghi123456'", "abc.def.ghi123456"),
        ("export OPENAI_API_KEY=whatever123", "whatever123"),
        ("LLM(model='m', api_key='zzz-secret')", "zzz-secret"),
        ('{"hf_token": "json-secret"}', "json-secret"),
        ("token ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123 leaked", "ghp_ABCDEF"),
        ("key sk-proj-ABCDEFGHIJKLMNOPQRSTUV", "sk-proj-ABCDEF"),
        (f"downloading with {HF}", HF),
    ],
)
def test_pattern_redaction(text: str, secret: str) -> None:
    out = redact_patterns(text)
    assert secret not in out
    assert REDACTED in out


def test_patterns_leave_engine_arguments_alone() -> None:
    text = "--max-num-batched-tokens 8192 --kv-cache-dtype fp8 https://huggingface.co/org/m"
    assert redact_patterns(text) == text


def test_redact_args_vector(redactor: Redactor) -> None:
    args = ["serve", "m", "--api-key", "plainvalue", "--hf-token=abc", "--seed", "3", PLAIN]
    assert redactor.redact_args(args) == [
        "serve",
        "m",
        "--api-key",
        REDACTED,
        f"--hf-token={REDACTED}",
        "--seed",
        "3",
        REDACTED,
    ]


def test_redact_env_and_data(redactor: Redactor) -> None:
    env = {"HF_TOKEN": "anything", "VLLM_URL": f"https://u:{PLAIN}@h", "VLLM_X": "1"}
    assert redactor.redact_env(env) == {
        "HF_TOKEN": REDACTED,
        "VLLM_URL": f"https://{REDACTED}@h",
        "VLLM_X": "1",
    }
    data = {"engine_args": {"api_key": "value1", "note": f"uses {PLAIN}"}, "n": 3, "l": [HF]}
    assert redactor.redact_data(data) == {
        "engine_args": {"api_key": REDACTED, "note": f"uses {REDACTED}"},
        "n": 3,
        "l": [REDACTED],
    }


def test_environment_fingerprint_keeps_relevant_vars_redacted() -> None:
    environ = {
        "CUDA_VISIBLE_DEVICES": "1,0",
        "VLLM_ATTENTION_BACKEND": "FLASHINFER",
        "VLLM_API_KEY": "vllm-secret-1",
        "VLLM_LOG_NOTE": "started by vllm-secret-1",
        "HOME": "/home/me",
        "HF_TOKEN": HF,
    }
    env = relevant_env(environ)
    assert env == {
        "CUDA_VISIBLE_DEVICES": "1,0",
        "VLLM_API_KEY": REDACTED,
        "VLLM_ATTENTION_BACKEND": "FLASHINFER",
        "VLLM_LOG_NOTE": f"started by {REDACTED}",
    }
    device = DeviceInfo("NVIDIA B200", (10, 0), driver_version="580.65", cuda_version="13.0")
    info = collect_environment([device, device], environ=environ)
    assert (info["driver"], info["cuda"]) == ("580.65", "13.0")
    assert info["env"] == env
    assert info["python"]
    assert info["platform"]
    assert info["pytest"]
    for key in ("torch", "vllm", "flashinfer", "triton"):
        assert key in info
