"""``selfcheck``: run on a GPU runner before trusting it with the suite.

Reads the devices through torch in this process, compares every detection provider with that
reading, then produces real failures in child processes (a Triton kernel over the shared-memory
limit, a faulting kernel) and checks that they are classified as ``smem_limit`` and
``illegal_memory_access``. Needs torch (Triton if present), not vLLM.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_blackwell.device.detect import Provider
    from pytest_blackwell.device.model import DeviceInfo
    from pytest_blackwell.selfcheck import ChildRun, Reader


def register(subparsers: Any) -> None:
    """Add the ``selfcheck`` sub-command."""
    parser = subparsers.add_parser(
        "selfcheck",
        help="check a GPU runner: detection against torch, real failures classified",
        description=(
            "Compare what every detection provider reports with torch (compute capability, "
            "shared memory per block opt-in and per SM, memory), then produce a shared-memory "
            "failure and a kernel fault in child processes and check their classification. "
            "Exits 1 on any disagreement; without a GPU every step is skipped (exit 0)."
        ),
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument(
        "--timeout",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="time limit of each child process (default: %(default)s; Triton compiles)",
    )
    parser.set_defaults(func=run_selfcheck_command)


def torch_devices() -> list[DeviceInfo] | str:
    """The GPUs as torch sees them in this process, or why there are none."""
    from pytest_blackwell.device.model import DeviceInfo
    from pytest_blackwell.device.torch_probe import missing_driver_reason

    reason = missing_driver_reason()
    if reason is not None:
        return f"no GPU: {reason}"
    try:
        import torch
    except ImportError as exc:
        return f"no GPU check possible: selfcheck needs torch ({exc})"
    if not torch.cuda.is_available():
        return f"no GPU: torch {torch.__version__} sees no CUDA device (CUDA {torch.version.cuda})"
    devices = []
    for index in range(torch.cuda.device_count()):
        props = torch.cuda.get_device_properties(index)
        uuid = getattr(props, "uuid", None)
        devices.append(
            DeviceInfo(
                name=str(props.name),
                compute_capability=(int(props.major), int(props.minor)),
                smem_per_sm_bytes=int(getattr(props, "shared_memory_per_multiprocessor", 0) or 0),
                smem_per_block_bytes=int(getattr(props, "shared_memory_per_block", 0) or 0),
                smem_per_block_optin_bytes=int(
                    getattr(props, "shared_memory_per_block_optin", 0) or 0
                ),
                total_memory_bytes=int(props.total_memory),
                multiprocessor_count=int(props.multi_processor_count),
                index=index,
                source="torch",
                uuid=None if uuid is None else f"GPU-{uuid}",
            )
        )
    return devices


def _provider(provider: Provider, name: str) -> Reader:
    def read() -> list[DeviceInfo] | str:
        from pytest_blackwell.device.detect import DetectContext, ProviderSkipped

        try:
            found = provider(DetectContext())
        except ProviderSkipped as exc:
            return f"passed over: {exc}"
        except Exception as exc:  # a provider's crash is a finding, shown as such
            return f"{name} failed: {type(exc).__name__}: {exc}"
        return list(found or [])

    return read


def providers(reference: Reader) -> dict[str, Reader]:
    """Every way the plugin learns about devices, each read on its own, plus the full chain."""
    from dataclasses import replace

    from pytest_blackwell.device.detect import detect_devices, nvml_provider, torch_provider
    from pytest_blackwell.device.profiles import with_arch_smem

    def table() -> list[DeviceInfo] | str:
        devices = reference()
        if isinstance(devices, str):
            return devices
        # Only the compute capability goes in; the table answers for shared memory only.
        bare = [
            replace(
                d,
                smem_per_sm_bytes=0,
                smem_per_block_bytes=0,
                smem_per_block_optin_bytes=0,
                total_memory_bytes=0,
            )
            for d in devices
        ]
        return [with_arch_smem(d) for d in bare]

    def chain() -> list[DeviceInfo] | str:
        return list(detect_devices(None).devices)

    return {
        "nvml": _provider(nvml_provider, "nvml"),
        "torch subprocess": _provider(torch_provider, "torch"),
        "architecture table": table,
        "detection chain": chain,
    }


def child_runner(timeout: float) -> Any:
    from pytest_blackwell.selfcheck import ChildRun

    def run(step: str) -> ChildRun:
        command = [sys.executable, "-m", "pytest_blackwell.selfcheck.kernels", step]
        try:
            done = subprocess.run(
                command,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                timeout=timeout,
                stdin=subprocess.DEVNULL,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            output = exc.output if isinstance(exc.output, str) else ""
            return ChildRun(-1, output, timed_out=True)
        return ChildRun(done.returncode, done.stdout)

    return run


def run_selfcheck_command(args: argparse.Namespace) -> int:
    from pytest_blackwell.cli._common import input_error
    from pytest_blackwell.selfcheck import exit_status, render_table, run_selfcheck

    if args.timeout <= 0:
        problem = f"--timeout: expected a positive number, got {args.timeout}"
        return input_error("selfcheck", problem)
    reference = cache(torch_devices)
    checks = run_selfcheck(reference, providers(reference), child_runner(args.timeout))
    if args.json:
        print(json.dumps({"checks": [c.to_dict() for c in checks]}, indent=2))
    else:
        print(render_table(checks))
        devices = reference()
        if isinstance(devices, str):
            print(f"\n{devices}: every step skipped")
    return exit_status(checks)
