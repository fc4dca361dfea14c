"""Ask torch about the GPUs from a short-lived child process.

``torch.cuda.get_device_properties`` knows the shared-memory limits NVML does not report, but
touching CUDA creates a context; doing it in a child keeps the pytest process free of CUDA. The
child prints one line, ``PROBE_MARKER`` followed by JSON, so stray output around it is harmless.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_blackwell.device.model import DeviceInfo

#: ``(command, timeout_s, env) -> (returncode, stdout, stderr)``; raises
#: ``subprocess.TimeoutExpired`` or ``OSError`` like :func:`subprocess.run`.
Runner = Callable[[Sequence[str], float, Mapping[str, str]], tuple[int, str, str]]

PROBE_MARKER = "PYTEST_BLACKWELL_TORCH_PROBE "

#: Device nodes and driver files of which at least one exists wherever CUDA can run on Linux
#: (bare metal and containers, WSL2, Tegra/Jetson).
DRIVER_PATHS = (
    "/proc/driver/nvidia",
    "/dev/nvidiactl",
    "/dev/nvidia0",
    "/dev/dxg",
    "/dev/nvgpu",
    "/dev/nvhost-ctrl-gpu",
)

# Kept to the standard library and torch; runs under whichever interpreter is given.
PROBE_SOURCE = f"""
import json
MARKER = {PROBE_MARKER!r}
try:
    import torch
except Exception as exc:
    error = "cannot import torch: %s: %s" % (type(exc).__name__, exc)
    print(MARKER + json.dumps({{"error": error}}))
    raise SystemExit(0)
out = {{"torch": str(torch.__version__), "cuda": torch.version.cuda, "devices": []}}
if torch.cuda.is_available():
    for i in range(torch.cuda.device_count()):
        p = torch.cuda.get_device_properties(i)
        uuid = getattr(p, "uuid", None)
        out["devices"].append({{
            "name": p.name,
            "compute_capability": [p.major, p.minor],
            "total_memory_bytes": int(p.total_memory),
            "multiprocessor_count": int(p.multi_processor_count),
            "smem_per_sm_bytes": int(getattr(p, "shared_memory_per_multiprocessor", 0) or 0),
            "smem_per_block_bytes": int(getattr(p, "shared_memory_per_block", 0) or 0),
            "smem_per_block_optin_bytes": int(getattr(p, "shared_memory_per_block_optin", 0) or 0),
            "uuid": None if uuid is None else "GPU-" + str(uuid),
        }})
print(MARKER + json.dumps(out))
"""


@dataclass(frozen=True)
class TorchProbe:
    """What the child saw: torch's version, its CUDA runtime version and the devices."""

    torch_version: str
    torch_cuda: str | None
    devices: list[DeviceInfo] = field(default_factory=list)


def missing_driver_reason(
    paths: Sequence[str] = DRIVER_PATHS, platform: str = sys.platform
) -> str | None:
    """Why CUDA cannot work on this host, when that is certain without starting torch.

    Starting torch takes seconds; on a host with no NVIDIA driver it can only say "no GPU".
    """
    if platform == "darwin":
        return "macOS has no CUDA driver, so torch was not started"
    if platform.startswith("linux") and not any(os.path.exists(p) for p in paths):
        return (
            f"no NVIDIA driver on this host (none of {', '.join(paths)} exists), "
            "so torch was not started"
        )
    return None


def run_subprocess(
    command: Sequence[str], timeout: float, env: Mapping[str, str]
) -> tuple[int, str, str]:
    """The default :data:`Runner`: :func:`subprocess.run` with output captured."""
    done = subprocess.run(
        list(command),
        capture_output=True,
        text=True,
        timeout=timeout,
        env=dict(env),
        stdin=subprocess.DEVNULL,
        check=False,
    )
    return done.returncode, done.stdout, done.stderr


def run_torch_probe(
    python: str, timeout: float, env: Mapping[str, str], runner: Runner | None = None
) -> TorchProbe:
    """Run the probe with ``python``; raise ``RuntimeError`` saying why it gave no answer."""
    command = [python, "-c", PROBE_SOURCE]
    try:
        returncode, stdout, stderr = (runner or run_subprocess)(command, timeout, env)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"torch subprocess ({python}) timed out after {timeout:g} s") from None
    except OSError as exc:
        raise RuntimeError(f"cannot run {python!r}: {exc.strerror or exc}") from None
    payload = _last_payload(stdout)
    if payload is None:
        last = next((ln.strip() for ln in reversed(stderr.splitlines()) if ln.strip()), "")
        raise RuntimeError(
            f"torch subprocess exited with status {returncode} without a result"
            + (f": {last}" if last else "")
        )
    return parse_probe(payload)


def parse_probe(payload: Any) -> TorchProbe:
    """Validate the child's JSON; ``RuntimeError`` names the malformed part."""
    if not isinstance(payload, dict):
        raise RuntimeError(f"torch subprocess printed {payload!r}, expected an object")
    if "error" in payload:
        raise RuntimeError(str(payload["error"]))
    version, cuda, entries = payload.get("torch"), payload.get("cuda"), payload.get("devices")
    if not isinstance(version, str) or not isinstance(entries, list):
        raise RuntimeError(
            "torch subprocess printed a malformed result: expected 'torch' (a string) and "
            f"'devices' (a list), got {payload!r}"
        )
    extra = {"torch_version": version, "torch_cuda": cuda}
    devices = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise RuntimeError(f"torch subprocess printed a malformed devices[{index}]: {entry!r}")
        try:
            device = DeviceInfo.from_dict(
                {
                    **entry,
                    "cuda_version": None if cuda is None else str(cuda),
                    "index": index,
                    "source": "torch",
                    "extra": {"providers": ["torch"], **extra},
                }
            )
        except (TypeError, ValueError) as exc:
            raise RuntimeError(
                f"torch subprocess printed a malformed devices[{index}]: {exc}"
            ) from None
        devices.append(device)
    return TorchProbe(version, None if cuda is None else str(cuda), devices)


def _last_payload(stdout: str) -> Any:
    for line in reversed(stdout.splitlines()):
        if line.startswith(PROBE_MARKER):
            try:
                return json.loads(line[len(PROBE_MARKER) :])
            except json.JSONDecodeError:
                return None
    return None
