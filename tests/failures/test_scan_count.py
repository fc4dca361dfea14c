"""Counting the lines of windows the scan skips: numpy on large logs, ``bytes.count`` otherwise.

Whatever counts them, the first error must keep its exact line number.
"""

from __future__ import annotations

import io
import random
import sys

import pytest

from pytest_blackwell.failures import scan

SERVING = (
    "(APIServer pid=41) INFO 03-10 16:{m:02d}:{s:02d} [loggers.py:123] Engine 000: Avg prompt "
    "throughput: {a}.3 tokens/s, Running: {r} reqs, GPU KV cache usage: {u}.5%\n"
)
#: The wrapper's line, then the cause (line ``lines_before + 2``): the failure's line.
ERROR_LINES = (
    "(EngineCore_DP0 pid=42) ERROR 03-10 23:59:58 [core.py:708] EngineCore encountered a fatal "
    "error.\n"
    "(EngineCore_DP0 pid=42) ERROR 03-10 23:59:58 [core.py:708] torch.OutOfMemoryError: CUDA out "
    "of memory. Tried to allocate 2.32 GiB.\n"
)


def _log(lines_before: int, seed: int = 3) -> bytes:
    rng = random.Random(seed)
    parts = [
        SERVING.format(
            m=rng.randrange(60),
            s=rng.randrange(60),
            a=rng.randrange(4000),
            r=rng.randrange(64),
            u=rng.randrange(100),
        )
        for _ in range(lines_before)
    ]
    return "".join(parts).encode() + ERROR_LINES.encode()


@pytest.fixture
def numpy_counter() -> scan.Counter:
    pytest.importorskip("numpy")
    counter = scan._numpy_newlines()
    assert counter is not None
    return counter


def test_numpy_counts_as_bytes_count_does(numpy_counter: scan.Counter) -> None:
    body = _log(3000)
    rng = random.Random(11)
    spans = [(0, len(body)), (0, 0), (5, 4100), (len(body) - 1, len(body))]
    spans += [tuple(sorted(rng.sample(range(len(body) + 1), 2))) for _ in range(200)]
    for lo, hi in spans:
        assert numpy_counter(body, lo, hi) == body.count(b"\n", lo, hi), (lo, hi)


@pytest.mark.parametrize("with_numpy", [True, False])
def test_line_of_the_first_error_whichever_counts(
    monkeypatch: pytest.MonkeyPatch, with_numpy: bool
) -> None:
    counted: list[int] = []
    if with_numpy:
        pytest.importorskip("numpy")
        real = scan._numpy_newlines()
        assert real is not None

        def spy(body: bytes, lo: int, hi: int) -> int:
            counted.append(hi - lo)
            return real(body, lo, hi)

        monkeypatch.setattr(scan, "_numpy_newlines", lambda: spy)
    else:
        monkeypatch.setattr(scan, "_numpy_newlines", lambda: None)
    # several chunks, counted with numpy from the second one on
    monkeypatch.setattr(scan, "CHUNK_BYTES", 1 << 18)
    monkeypatch.setattr(scan, "NUMPY_COUNT_AFTER_BYTES", 1 << 18)
    monkeypatch.setattr(scan, "_numpy_imported", lambda: False)
    lines_before = 20_000  # about 2 MB
    failure = scan.classify_stream(io.BytesIO(_log(lines_before)))
    assert failure is not None
    assert (failure.category, failure.line) == ("device_oom", lines_before + 2)
    # the first chunk is counted by bytes.count, the later ones (all but a window) by numpy
    assert (sum(counted) > 1 << 20) is with_numpy


def test_small_logs_do_not_import_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[bool] = []
    monkeypatch.setattr(scan, "_numpy_newlines", lambda: calls.append(True))
    monkeypatch.setattr(scan, "_numpy_imported", lambda: False)
    failure = scan.classify_stream(io.BytesIO(_log(2000)))
    assert failure is not None
    assert failure.line == 2002
    assert calls == []


def test_without_numpy_the_count_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "numpy", None)  # "import numpy" raises ImportError
    assert scan._numpy_newlines.__wrapped__() is None


def test_a_numpy_that_fails_as_it_loads_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(name: str) -> object:
        raise RuntimeError(f"module {name} compiled against another ABI")

    monkeypatch.setattr(scan.importlib, "import_module", broken)
    assert scan._numpy_newlines.__wrapped__() is None
