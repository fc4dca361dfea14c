"""Fakes for device detection: an NVML module object and torch-probe runners.

The NVML fake mimics the parts of ``pynvml`` (from nvidia-ml-py) that detection calls, so the
provider is tested without the package or a GPU.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest

from pytest_blackwell.device.torch_probe import PROBE_MARKER

KIB = 1024
GIB = 1024**3


class NVMLError(Exception):
    """Stands in for ``pynvml.NVMLError``."""


@dataclass
class FakeGPU:
    name: str
    cc: tuple[int, int]
    uuid: str
    memory: int | None = 24 * GIB  # None: NVML says "not supported" (GB10)
    sms: int | None = None  # None: attributes query not supported
    mig: dict[str, FakeGPU] = field(default_factory=dict)


class FakeNVML:
    """A ``pynvml``-shaped object over a list of fake GPUs (PCI order)."""

    NVMLError = NVMLError

    def __init__(
        self,
        gpus: Sequence[FakeGPU],
        *,
        init_error: str | None = None,
        count_error: str | None = None,
        driver: Any = "580.65.06",
        cuda: int = 12080,
    ) -> None:
        self.gpus = list(gpus)
        self.init_error = init_error
        self.count_error = count_error
        self.driver = driver
        self.cuda = cuda
        self.calls: list[str] = []

    def nvmlInit(self) -> None:
        self.calls.append("init")
        if self.init_error:
            raise NVMLError(self.init_error)

    def nvmlShutdown(self) -> None:
        self.calls.append("shutdown")

    def nvmlSystemGetDriverVersion(self) -> Any:
        return self.driver

    def nvmlSystemGetCudaDriverVersion(self) -> int:
        return self.cuda

    def nvmlDeviceGetCount(self) -> int:
        if self.count_error:
            raise NVMLError(self.count_error)
        return len(self.gpus)

    def nvmlDeviceGetHandleByIndex(self, index: int) -> FakeGPU:
        return self.gpus[index]

    def nvmlDeviceGetHandleByUUID(self, uuid: str) -> FakeGPU:
        for gpu in self.gpus:
            if uuid in gpu.mig:
                return gpu.mig[uuid]
        raise NVMLError("Not Found")

    def nvmlDeviceGetDeviceHandleFromMigDeviceHandle(self, handle: FakeGPU) -> FakeGPU:
        return next(gpu for gpu in self.gpus if handle in gpu.mig.values())

    def nvmlDeviceGetName(self, handle: FakeGPU) -> str:
        return handle.name

    def nvmlDeviceGetCudaComputeCapability(self, handle: FakeGPU) -> tuple[int, int]:
        if handle.cc == (0, 0):
            raise NVMLError("Not Supported")
        return handle.cc

    def nvmlDeviceGetMemoryInfo(self, handle: FakeGPU) -> SimpleNamespace:
        if handle.memory is None:
            raise NVMLError("Not Supported")
        return SimpleNamespace(total=handle.memory, free=handle.memory, used=0)

    def nvmlDeviceGetAttributes(self, handle: FakeGPU) -> SimpleNamespace:
        if handle.sms is None:
            raise NVMLError("Not Supported")
        return SimpleNamespace(multiprocessorCount=handle.sms)

    def nvmlDeviceGetUUID(self, handle: FakeGPU) -> str:
        return handle.uuid


Runner = Callable[[Sequence[str], float, Mapping[str, str]], tuple[int, str, str]]


def torch_device(
    name: str,
    cc: tuple[int, int],
    uuid: str | None,
    *,
    per_sm_kb: int,
    optin_kb: int,
    memory: int = 24 * GIB,
    sms: int = 100,
) -> dict[str, Any]:
    """One device as the torch child reports it."""
    return {
        "name": name,
        "compute_capability": list(cc),
        "total_memory_bytes": memory,
        "multiprocessor_count": sms,
        "smem_per_sm_bytes": per_sm_kb * KIB,
        "smem_per_block_bytes": 48 * KIB,
        "smem_per_block_optin_bytes": optin_kb * KIB,
        "uuid": None if uuid is None else f"GPU-{uuid}",
    }


def probe_output(devices: list[dict[str, Any]], *, cuda: str | None = "12.8") -> str:
    payload = {"torch": "2.9.0+cu128", "cuda": cuda, "devices": devices}
    return "some warning on stdout\n" + PROBE_MARKER + json.dumps(payload) + "\n"


class RecordingRunner:
    """A torch-probe runner that returns canned output and records how it was called."""

    def __init__(self, stdout: str = "", *, returncode: int = 0, stderr: str = "") -> None:
        self.result = (returncode, stdout, stderr)
        self.calls: list[tuple[list[str], float, dict[str, str]]] = []

    def __call__(
        self, command: Sequence[str], timeout: float, env: Mapping[str, str]
    ) -> tuple[int, str, str]:
        self.calls.append((list(command), timeout, dict(env)))
        return self.result


@pytest.fixture
def no_torch_gpu() -> RecordingRunner:
    """A torch child that sees no CUDA device (a CPU-only torch build)."""
    return RecordingRunner(probe_output([], cuda=None))


@pytest.fixture
def fakes() -> SimpleNamespace:
    """The fake classes and helpers above, for tests (conftest modules are not imported)."""
    return SimpleNamespace(
        NVML=FakeNVML,
        GPU=FakeGPU,
        NVMLError=NVMLError,
        Runner=RecordingRunner,
        torch_device=torch_device,
        probe_output=probe_output,
    )
