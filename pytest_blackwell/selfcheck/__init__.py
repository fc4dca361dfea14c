"""Runner self-check: does detection agree with torch, and are real GPU failures classified?

The steps take their readings through callables (torch's view of the devices, each detection
provider, a child process that produces a failure), so the comparison and the verdicts are
tested with plain data; ``python -m pytest_blackwell selfcheck`` passes the real ones.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from pytest_blackwell.device.model import DeviceInfo
from pytest_blackwell.failures import Failure, classify_log
from pytest_blackwell.units import KIB

PASS, FAIL, SKIP = "pass", "fail", "skip"

#: NVML counts memory the driver reserves; CUDA's total is a little smaller (about 0.5 %).
MEMORY_TOLERANCE = 0.03

#: Printed by the child when the kernel that should have failed did not.
NO_ERROR_MARKER = "PYTEST_BLACKWELL_SELFCHECK_NO_ERROR"
#: Printed by the child when a step cannot run here (e.g. Triton missing), then the reason.
SKIP_MARKER = "PYTEST_BLACKWELL_SELFCHECK_SKIP "

#: The failure steps: name -> (expected category, what the child does).
FAILURE_STEPS: dict[str, tuple[str, str]] = {
    "smem": ("smem_limit", "a Triton kernel asks for more shared memory than a block may have"),
    "fault": ("illegal_memory_access", "a kernel writes far outside its buffer"),
}


@dataclass(frozen=True)
class Check:
    """One line of the self-check table."""

    step: str
    what: str
    status: str
    expected: str = ""
    found: str = ""
    note: str = ""

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


@dataclass(frozen=True)
class ChildRun:
    """What a failure-producing child did: exit status, its output, whether it timed out."""

    returncode: int
    output: str
    timed_out: bool = False


#: ``() -> devices`` or a reason (str) why there is nothing to read.
Reader = Callable[[], "list[DeviceInfo] | str"]
#: ``(step) -> ChildRun`` for a step of :data:`FAILURE_STEPS`.
ChildRunner = Callable[[str], ChildRun]

_FIELDS: tuple[tuple[str, str], ...] = (
    ("compute capability", "cc_string"),
    ("smem per block (opt-in)", "smem_per_block_optin_bytes"),
    ("smem per SM", "smem_per_sm_bytes"),
    ("memory", "total_memory_bytes"),
)


def _show(field: str, value: Any) -> str:
    if field == "total_memory_bytes":
        return f"{value / 1024**3:.2f} GiB"
    if field.startswith("smem"):
        return f"{value // KIB} KB" if value % KIB == 0 else f"{value} B"
    return str(value)


def _pair(found: Sequence[DeviceInfo], reference: Sequence[DeviceInfo]) -> list[tuple[Any, Any]]:
    """Pair devices by UUID where both sides know it, else by position."""
    by_uuid = {d.uuid: d for d in found if d.uuid}
    pairs: list[tuple[Any, Any]] = []
    for position, ref in enumerate(reference):
        match = by_uuid.get(ref.uuid) if ref.uuid else None
        if match is None and position < len(found):
            match = found[position]
        pairs.append((ref, match))
    return pairs


def compare_devices(
    provider: str, found: list[DeviceInfo] | str, reference: Sequence[DeviceInfo]
) -> list[Check]:
    """Checks of one provider's devices against torch's (fields it does not report: skip)."""
    step = f"detect: {provider}"
    if isinstance(found, str):
        return [Check(step, "devices", SKIP, note=found)]
    gpus = [d for d in found if d.is_gpu]
    checks = []
    if len(gpus) != len(reference):
        checks.append(Check(step, "device count", FAIL, str(len(reference)), str(len(gpus))))
    for ref, device in _pair(gpus, reference):
        where = f"GPU {ref.index}"
        if device is None:
            continue
        for label, field in _FIELDS:
            want, got = getattr(ref, field), getattr(device, field)
            what = f"{where} {label}"
            if not want:
                checks.append(Check(step, what, SKIP, note="torch does not report it"))
            elif not got:
                checks.append(Check(step, what, SKIP, note=f"{provider} does not report it"))
            else:
                same = (
                    abs(got - want) <= MEMORY_TOLERANCE * want
                    if field == "total_memory_bytes"
                    else got == want
                )
                checks.append(
                    Check(step, what, PASS if same else FAIL, _show(field, want), _show(field, got))
                )
    return checks


def check_failure(
    step: str, run: ChildRun, failure: Failure | None, reference: DeviceInfo | None
) -> list[Check]:
    """Verdict on a failure step: the right category (and, for shared memory, the figures)."""
    category, _ = FAILURE_STEPS[step]
    name = f"failure: {category}"
    skip_line = next((ln for ln in run.output.splitlines() if ln.startswith(SKIP_MARKER)), None)
    if skip_line is not None:
        return [Check(name, "produced", SKIP, note=skip_line[len(SKIP_MARKER) :].strip())]
    if run.timed_out:
        return [Check(name, "produced", FAIL, category, "no answer", "the child timed out")]
    if NO_ERROR_MARKER in run.output:
        return [Check(name, "produced", FAIL, category, "no error", "the kernel ran cleanly")]
    if failure is None:
        last = next((ln for ln in reversed(run.output.splitlines()) if ln.strip()), "no output")
        return [Check(name, "classified", FAIL, category, "nothing classified", last.strip())]
    checks = [
        Check(
            name,
            "classified",
            PASS if failure.category == category else FAIL,
            category,
            failure.category,
            failure.first_error[:160],
        )
    ]
    if category == "smem_limit" and failure.category == category:
        required = failure.detail.get("required_bytes")
        limit = failure.detail.get("limit_bytes")
        if not isinstance(required, int) or not isinstance(limit, int):
            checks.append(
                Check(name, "required and limit bytes", FAIL, "both", json.dumps(failure.detail))
            )
        else:
            checks.append(
                Check(
                    name,
                    "required > limit",
                    PASS if required > limit else FAIL,
                    f"> {limit} B",
                    f"{required} B",
                )
            )
            optin = reference.smem_per_block_optin_bytes if reference is not None else 0
            if optin:
                checks.append(
                    Check(
                        name,
                        "limit = smem per block (opt-in)",
                        PASS if limit == optin else FAIL,
                        f"{optin} B",
                        f"{limit} B",
                    )
                )
    return checks


def run_selfcheck(
    reference: Reader,
    providers: Mapping[str, Reader],
    child: ChildRunner,
    *,
    steps: Sequence[str] = tuple(FAILURE_STEPS),
) -> list[Check]:
    """All checks: torch's reading, each provider against it, then each failure step."""
    devices = reference()
    if isinstance(devices, str) or not devices:
        reason = devices if isinstance(devices, str) else "torch sees no CUDA device"
        skipped = [Check("torch", "devices", SKIP, note=reason)]
        skipped += [Check(f"detect: {name}", "devices", SKIP, note="no GPU") for name in providers]
        skipped += [Check(f"failure: {FAILURE_STEPS[s][0]}", "produced", SKIP, note="no GPU")
                    for s in steps]  # fmt: skip
        return skipped
    names = ", ".join(f"{d.describe()} {d.total_memory_bytes / 1024**3:.1f} GiB" for d in devices)
    checks = [Check("torch", "devices", PASS, found=names)]
    for name, reader in providers.items():
        checks += compare_devices(name, reader(), devices)
    for step in steps:
        run = child(step)
        failure = classify_log(run.output.splitlines()) if run.output.strip() else None
        checks += check_failure(step, run, failure, devices[0])
    return checks


def exit_status(checks: Sequence[Check]) -> int:
    """1 when any check failed, else 0 (skips are not failures)."""
    return 1 if any(c.status == FAIL for c in checks) else 0


def render_table(checks: Sequence[Check]) -> str:
    rows = [["step", "check", "torch / expected", "found", "verdict", "note"]]
    rows += [[c.step, c.what, c.expected, c.found, c.status.upper(), c.note] for c in checks]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    lines = []
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        lines.append("  ".join([*cells, row[-1]]).rstrip())
    return "\n".join(lines)
