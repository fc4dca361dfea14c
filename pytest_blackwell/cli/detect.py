"""``detect`` and ``profiles``: what hardware the tests would see, and what can be simulated."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from pytest_blackwell.device.model import DeviceInfo
from pytest_blackwell.units import GIB, KIB


def register(subparsers: Any) -> None:
    """Add the ``detect`` and ``profiles`` sub-commands."""
    from pytest_blackwell.device.detect import REQUEST_ENV_VAR

    detect = subparsers.add_parser(
        "detect",
        help="show the devices tests would run on",
        description=(
            "Detect the GPUs the way the pytest plugin does (simulated profile, NVML, torch in "
            "a subprocess, architecture table, no GPU) and say why providers were passed over."
        ),
    )
    detect.add_argument("--json", action="store_true", help="print JSON instead of a table")
    detect.add_argument(
        "--device",
        metavar="NAME",
        default=None,
        help=(
            "simulate a built-in profile (NAME, NAME*N) or a JSON file of custom hardware "
            f"instead of detecting (default: ${REQUEST_ENV_VAR})"
        ),
    )
    detect.add_argument(
        "--timeout",
        type=float,
        default=20.0,
        metavar="SECONDS",
        help="time limit for the torch subprocess (default: %(default)s)",
    )
    detect.set_defaults(func=run_detect)

    profiles = subparsers.add_parser(
        "profiles",
        help="list the built-in device profiles",
        description="List the device profiles --blackwell-device accepts by name.",
    )
    profiles.add_argument("--json", action="store_true", help="print JSON instead of a table")
    profiles.add_argument(
        "--features",
        action="store_true",
        help="print the hardware-feature table (which profile has which feature) instead",
    )
    profiles.set_defaults(func=run_profiles)


def run_detect(args: argparse.Namespace) -> int:
    from pytest_blackwell.device.detect import REQUEST_ENV_VAR, detect_devices
    from pytest_blackwell.device.features import features_of
    from pytest_blackwell.device.profiles import DeviceProfileError

    request, origin = args.device, "--device"
    if request is None and os.environ.get(REQUEST_ENV_VAR, "").strip():
        request, origin = os.environ[REQUEST_ENV_VAR], f"environment variable {REQUEST_ENV_VAR}"
    try:
        report = detect_devices(request, origin=origin, timeout=args.timeout)
    except DeviceProfileError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        data = report.to_dict()
        for entry, device in zip(data.get("devices", []), report.devices, strict=False):
            entry["features"] = features_of(device)
        print(json.dumps(data, indent=2))
        return 0
    print(_device_table(report.devices))
    for device in report.devices:
        if device.is_gpu:
            print(f"features of #{device.index}: {', '.join(features_of(device)) or 'none'}")
    if report.skipped:
        print("\npassed over:")
        for provider, reason in report.skipped:
            print(f"  {provider}: {reason}")
    for note in report.notes:
        print(f"note: {note}")
    return 0


def run_profiles(args: argparse.Namespace) -> int:
    from pytest_blackwell.device.features import FEATURES, features_of
    from pytest_blackwell.device.profiles import PROFILES

    if args.json:
        profiles = [{**d.to_dict(), "features": features_of(d)} for d in PROFILES.values()]
        table = {
            f.name: {
                "description": f.description,
                "available": f.requirement_text(),
                "source": f.source,
            }
            for f in FEATURES.values()
        }
        print(json.dumps({"profiles": profiles, "features": table}, indent=2))
        return 0
    if args.features:
        print(_feature_table())
        return 0
    rows = [["profile", "name", "cc", "smem/SM", "smem/block (opt-in)", "memory", "SMs"]]
    for key, device in PROFILES.items():
        rows.append([key, *_device_columns(device)[1:7]])
    print(_format_rows(rows))
    print("\nAdd *N or :N for N devices (e.g. h100*4), or pass the path of a JSON file.")
    return 0


def _feature_table() -> str:
    from pytest_blackwell.device.features import ALIASES, FEATURES
    from pytest_blackwell.device.profiles import PROFILES

    gpus = {key: d for key, d in PROFILES.items() if d.is_gpu}
    rows = [["feature", "where", *gpus]]
    for feature in FEATURES.values():
        marks = ["yes" if feature.available(d.compute_capability) else "-" for d in gpus.values()]
        rows.append([feature.name, feature.requirement_text(), *marks])
    aliases = ", ".join(f"{alias} = {name}" for alias, name in ALIASES.items())
    return f"{_format_rows(rows)}\n\naliases: {aliases}\nsources: docs/features.md"


def _device_table(devices: Sequence[DeviceInfo]) -> str:
    header = ["#", "name", "cc", "smem/SM", "smem/block (opt-in)", "memory", "SMs", "source"]
    return _format_rows([header, *(_device_columns(d) for d in devices)])


def _device_columns(device: DeviceInfo) -> list[str]:
    source = device.source
    if device.profile:
        source = f"{source} ({device.profile})"
    elif providers := device.extra.get("providers"):
        source = f"{source} ({'+'.join(str(p) for p in providers)})"
    if not device.is_gpu:
        return [str(device.index), device.name, "no GPU", "-", "-", "-", "-", source]
    return [
        str(device.index),
        device.name,
        device.cc_string or "-",
        _kb(device.smem_per_sm_bytes),
        f"{_kb(device.smem_per_block_bytes)} ({_kb(device.smem_per_block_optin_bytes)})",
        f"{device.total_memory_bytes / GIB:.1f} GiB" if device.total_memory_bytes else "?",
        str(device.multiprocessor_count or "?"),
        source,
    ]


def _kb(size: int) -> str:
    if not size:
        return "?"
    return f"{size // KIB} KB" if size % KIB == 0 else f"{size / KIB:.1f} KB"


def _format_rows(rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in rows
    )
