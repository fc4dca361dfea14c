"""The stage hooks change nothing by being installed: no import, no torch attribute replaced.

They wrap stage points only when the engine itself imports their module (vLLM's CPU worker
module, imported in a GPU engine, would replace torch.cuda.Event & co. with placeholders).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from pytest_blackwell.engine import events
from pytest_blackwell.engine.hooks import wrap_point
from pytest_blackwell.engine.stagepoints import RESTORE, StagePoint

ROOT = Path(__file__).resolve().parents[2]

needs_vllm = pytest.mark.skipif(
    importlib.util.find_spec("vllm") is None, reason="vLLM is not installed"
)

SNAPSHOT = """
import sys, json
import torch
{pre}
from pytest_blackwell.engine import hooks

def namespaces():
    spaces = {{"torch": torch, "torch.cuda": torch.cuda, "torch.Tensor": torch.Tensor,
               "TensorBase": torch._C.TensorBase}}
    for name in ("accelerator", "backends", "distributed"):
        if name in vars(torch):
            spaces["torch." + name] = vars(torch)[name]
    return spaces

def snapshot():
    # vars(), never getattr(): torch imports submodules lazily on attribute access.
    return {{name: {{k: id(v) for k, v in vars(ns).items()}} for name, ns in namespaces().items()}}

modules_before = set(sys.modules)
attrs_before = snapshot()
hooks.install_in_engine_process()
attrs_after = snapshot()
changed = sorted(
    f"{{ns}}.{{k}}" for ns in attrs_before for k in set(attrs_before[ns]) | set(attrs_after[ns])
    if attrs_before[ns].get(k) != attrs_after[ns].get(k)
)
print(json.dumps({{"new_modules": sorted(set(sys.modules) - modules_before),
                  "vllm": sorted(m for m in sys.modules if m.split(".")[0] == "vllm"),
                  "changed": changed}}))
"""


def _fresh(code: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "VLLM_LOGGING_LEVEL": "ERROR", **(env or {})},
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def test_installing_in_a_fresh_interpreter_imports_nothing_and_changes_no_torch_attribute() -> None:
    found = _fresh(SNAPSHOT.format(pre=""))
    assert found["new_modules"] == []
    assert found["vllm"] == []
    assert found["changed"] == []


@needs_vllm
def test_installing_after_vllm_is_imported_changes_nothing_either() -> None:
    found = _fresh(SNAPSHOT.format(pre="import vllm"))
    assert found["new_modules"] == []
    assert "vllm.v1.worker.cpu_worker" not in found["vllm"]
    assert found["changed"] == []


@needs_vllm
def test_a_module_the_engine_imports_later_gets_its_points_wrapped_and_keeps_its_loader() -> None:
    code = textwrap.dedent(
        """
        import importlib.util, inspect, json, sys
        from pytest_blackwell.engine import hooks
        hooks.install_in_engine_process()
        # Looking a module up without loading it must not use its hooks up.
        assert importlib.util.find_spec("vllm.v1.worker.gpu_worker") is not None
        import vllm.v1.worker.gpu_worker as gw
        method = gw.Worker.__dict__["determine_available_memory"]
        print(json.dumps({
            "wrapped": getattr(method, "_pytest_blackwell_hook", False),
            "loader": type(gw.__loader__).__name__,
            "spec_loader": type(gw.__spec__.loader).__name__,
            "source": "def determine_available_memory" in inspect.getsource(gw),
            "cpu_worker": "vllm.v1.worker.cpu_worker" in sys.modules,
        }))
        """
    )
    found = _fresh(code)
    assert found["wrapped"] is True
    assert found["loader"] == found["spec_loader"] == "SourceFileLoader"
    assert found["source"] is True


def test_dynamo_compilation_is_the_compile_stage_and_returns_to_the_stage_it_interrupted(
    tmp_path: Path,
) -> None:
    events_file = tmp_path / "events.jsonl"
    code = textwrap.dedent(
        """
        import torch
        from pytest_blackwell.engine import hooks
        from pytest_blackwell.engine.events import enter_stage
        hooks.install_in_engine_process()
        enter_stage("profile")
        compiled = torch.compile(lambda x: x * 2 + 1, backend="eager")
        compiled(torch.ones(3))

        def broken_backend(graph, example_inputs):
            raise RuntimeError("backend failed")

        try:
            torch.compile(lambda x: x - 1, backend=broken_backend)(torch.ones(3))
        except Exception:
            pass
        print('{"done": true}')
        """
    )
    _fresh(code, env={events.EVENTS_ENV: str(events_file)})
    # Compiling interrupts profiling and returns to it; a failed compile stays `compile`.
    assert _stages(events_file) == ["profile", "compile", "profile", "compile"]


def _stages(path: Path) -> list[str]:
    return [
        json.loads(line)["stage"]
        for line in path.read_text().splitlines()
        if json.loads(line)["event"] == "stage"
    ]


@pytest.fixture
def events_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "events.jsonl"
    monkeypatch.setenv(events.EVENTS_ENV, str(path))
    monkeypatch.setattr(events, "_fd", None)
    monkeypatch.setattr(events, "_current", None)
    return path


def test_capture_for_memory_profiling_is_not_the_capture_stage(events_file: Path) -> None:
    class Runner:
        def capture_model(self, *, profile_only: bool = False) -> int:
            return 7

    point = StagePoint("m", "Runner", "capture_model", "graph_capture", "warmup", "profile_only")
    assert wrap_point(Runner, point) is True
    assert wrap_point(Runner, point) is False  # already wrapped: never twice
    events.enter_stage("profile")
    assert Runner().capture_model(profile_only=True) == 7
    assert _stages(events_file) == ["profile"]
    assert Runner().capture_model() == 7
    assert _stages(events_file) == ["profile", "graph_capture", "warmup"]


def test_compile_returns_to_the_previous_stage_but_a_failure_stays_in_compile(
    events_file: Path,
) -> None:
    class Backend:
        def __call__(self, fail: bool) -> str:
            if fail:
                raise RuntimeError("inductor failed")
            return "graph"

    wrap_point(Backend, StagePoint("m", "Backend", "__call__", "compile", after=RESTORE))
    events.enter_stage("warmup")
    assert Backend()(False) == "graph"
    with pytest.raises(RuntimeError):
        Backend()(True)
    assert _stages(events_file) == ["warmup", "compile", "warmup", "compile"]
    assert events.current_stage() == "compile"
