"""Mechanisms of the thirty-fourth round (tuned on fresh98-fresh105): the function a frame's
source line calls (a remote call whose own frame is a wrapper's), not what a program's entry
calls; the standard library's frames, which name no engine's work; a shared library that
Windows or macOS cannot load; a JSON parse error, which names no category by itself; the
interpreter's own report of a module it cannot run; a router's warm-up error; an inference
server answering a request its model failed. The lines are of our own, in the shapes the
tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as

#: A remote call's result fetched by a decorator's wrapper: the called function has no frame.
_REMOTE = [
    "Traceback (most recent call last):",
    '  File "/srv/app/trainer.py", line 88, in fit',
    "    batch = self.rollout_group.generate_sequences(prompts)",
    '  File "/srv/app/remote.py", line 12, in wrapped',
    "    return ray.get(refs)",
    "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.",
]


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        (_REMOTE, "engine_died", "execute"),
        # what a script's main calls is the whole program's job, no stage of it
        (
            [
                "Traceback (most recent call last):",
                '  File "/srv/train.py", line 40, in main',
                "    train_from_config()",
                '  File "/env/lib/python3.11/site-packages/gin/config.py", line 9, in wrapper',
                "    return fn()",
                "ray.exceptions.ActorDiedError: The actor died unexpectedly.",
            ],
            "engine_died",
            "unknown",
        ),
        # json's own "decode" is no model decoding
        (
            [
                "Traceback (most recent call last):",
                '  File "/env/lib/python3.12/site-packages/app/parser.py", line 31, in parse',
                "    args = json.loads(text)",
                '  File "/usr/lib/python3.12/json/__init__.py", line 346, in loads',
                "    return _default_decoder.decode(s)",
                '  File "/usr/lib/python3.12/json/decoder.py", line 340, in decode',
                '    raise JSONDecodeError("Extra data", s, end)',
                "json.decoder.JSONDecodeError: Extra data: line 2 column 1 (char 41)",
            ],
            "unknown",
            "unknown",
        ),
        (
            [
                "[E:onnxruntime:Default, provider_bridge_ort.cc:1744 TryGetProviderInfo_CUDA] "
                'LoadLibrary failed with error 126 "" when trying to load '
                '"C:\\app\\onnxruntime_providers_cuda.dll"'
            ],
            "env_mismatch",
            "startup",
        ),
        (["/srv/venv/bin/python: No module named serving_kit"], "env_mismatch", "startup"),
        (
            [
                'Error: Warmup(Generation("CUDA error: an illegal memory access was encountered"))',
            ],
            "illegal_memory_access",
            "warmup",
        ),
        (
            [
                "tritonclient.utils.InferenceServerException: [StatusCode.INTERNAL] Failed to "
                "process the request(s) for model instance 'det_0', message: Stub process is "
                "not healthy.",
            ],
            "engine_died",
            "execute",
        ),
    ],
)
def test_round34_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)


def test_the_called_function_is_evidence_of_its_own(tmp_path: Path) -> None:
    failure = classify_as(tmp_path, _REMOTE, "engine_died", "execute")
    assert failure.evidence["stage"].startswith("call generate_sequences")


def test_a_test_function_called_is_no_stage(tmp_path: Path) -> None:
    lines = [
        "Traceback (most recent call last):",
        '  File "/srv/tests/conftest.py", line 5, in run_case',
        "    test_batch_decode(case)",
        '  File "/srv/tests/helpers.py", line 8, in inner',
        "    return fn(*args)",
        "RuntimeError: CUDA error: an illegal memory access was encountered",
    ]
    classify_as(tmp_path, lines, "illegal_memory_access", "unknown")


def test_the_standard_library_on_windows_is_no_engine_work(tmp_path: Path) -> None:
    lines = [
        "Traceback (most recent call last):",
        '  File "C:\\\\app\\\\Lib\\\\site-packages\\\\tool\\\\reply.py", line 8, in parse',
        "    return json.loads(text)",
        '  File "C:\\\\Python312\\\\Lib\\\\json\\\\decoder.py", line 340, in decode',
        '    raise JSONDecodeError("Extra data", s, end)',
        "json.decoder.JSONDecodeError: Extra data: line 2 column 1 (char 41)",
    ]
    classify_as(tmp_path, lines, "unknown", "unknown")
