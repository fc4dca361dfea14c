"""markers.py as a specification: parsing and evaluation without pytest in the loop."""

from __future__ import annotations

import re
from typing import Any

import pytest

from pytest_blackwell.device.model import DeviceInfo
from pytest_blackwell.markers import (
    MarkerError,
    MarkInput,
    parse_marker_definition,
    parse_requirements,
    unmet,
)

KB = 1024
SM120 = DeviceInfo(
    name="NVIDIA RTX PRO 6000 Blackwell",
    compute_capability=(12, 0),
    smem_per_sm_bytes=128 * KB,
    smem_per_block_bytes=48 * KB,
    smem_per_block_optin_bytes=99 * KB,
    total_memory_bytes=97_887 * 1024**2,
    source="simulated",
)
SM100 = DeviceInfo(
    name="NVIDIA B200",
    compute_capability=(10, 0),
    smem_per_sm_bytes=228 * KB,
    smem_per_block_bytes=48 * KB,
    smem_per_block_optin_bytes=227 * KB,
    total_memory_bytes=180 * 1000**3,
    source="simulated",
)
CPU = DeviceInfo(name="cpu", compute_capability=None, source="none")


def reqs(name: str, *args: Any, **kwargs: Any) -> list[Any]:
    return parse_requirements([MarkInput(name, args, kwargs)])


def test_exact_arch_never_matches_a_later_arch() -> None:
    assert unmet(reqs("sm100"), [SM120]) == (
        "requires sm100; NVIDIA RTX PRO 6000 Blackwell (sm_120) is sm120"
    )
    assert unmet(reqs("sm120"), [SM120]) is None
    assert unmet(reqs("sm12x"), [SM120]) is None
    assert unmet(reqs("sm10x"), [SM120]) is not None


def test_several_arch_markers_mean_any_of_them() -> None:
    marks = [MarkInput("sm100", (), {}), MarkInput("sm120", (), {})]
    assert unmet(parse_requirements(marks), [SM120]) is None
    assert unmet(parse_requirements(marks), [SM100]) is None
    reason = unmet(parse_requirements([*marks[:1], MarkInput("sm90", (), {})]), [SM120])
    assert reason == "requires sm100 or sm90; NVIDIA RTX PRO 6000 Blackwell (sm_120) is sm120"


def test_smem_precise_reason_and_scopes() -> None:
    assert unmet(reqs("requires_smem", kb=120), [SM120]) == (
        "requires 120 KB shared memory per block; "
        "NVIDIA RTX PRO 6000 Blackwell (sm_120) allows 99 KB"
    )
    assert unmet(reqs("requires_smem", kb=99), [SM120]) is None
    assert unmet(reqs("requires_smem", kb=128, scope="sm"), [SM120]) is None
    assert unmet(reqs("requires_smem", 129, "sm"), [SM120]) is not None
    assert unmet(reqs("requires_smem", kb=120), [SM100]) is None


@pytest.mark.parametrize(
    ("spec", "sm120", "sm100"),
    [
        (">=9.0", True, True),
        ("==12.0", True, False),
        (">=8.9,<10", False, False),
        ("<12", False, True),
    ],
)
def test_compute_capability_specifiers(spec: str, sm120: bool, sm100: bool) -> None:
    requirement = reqs("compute_capability", spec)
    assert (unmet(requirement, [SM120]) is None) is sm120
    assert (unmet(requirement, [SM100]) is None) is sm100


def test_memory_and_count() -> None:
    assert unmet(reqs("requires_gpu_memory", gb=96), [SM120]) is None
    assert unmet(reqs("requires_gpu_memory", gb=141), [SM120]) == (
        "requires 141 GB of GPU memory; NVIDIA RTX PRO 6000 Blackwell (sm_120) reports 95.6 GiB"
    )
    assert unmet(reqs("requires_gpu", count=2), [SM120]) == (
        "requires 2 GPUs; 1 visible (NVIDIA RTX PRO 6000 Blackwell (sm_120))"
    )
    assert unmet(reqs("requires_gpu", count=2), [SM120, SM120]) is None
    assert unmet(reqs("requires_gpu"), [SM120]) is None


@pytest.mark.parametrize(
    "marks",
    [
        [MarkInput("sm120", (), {})],
        [MarkInput("requires_smem", (), {"kb": 1})],
        [MarkInput("requires_gpu", (), {})],
        [MarkInput("compute_capability", (">=8.0",), {})],
    ],
)
def test_no_gpu_says_so(marks: list[MarkInput]) -> None:
    reason = unmet(parse_requirements(marks), [CPU])
    assert reason is not None
    assert "no GPU detected (cpu)" in reason


@pytest.mark.parametrize(
    ("name", "args", "kwargs", "expected"),
    [
        ("requires_smem", (), {"kb": "lots"}, "expected kb=<positive number>, got 'lots'"),
        ("requires_smem", (), {"kb": -4}, "expected kb=<positive number>, got -4"),
        ("requires_smem", (), {}, "expected kb=<positive number>, got nothing"),
        ("requires_smem", (), {"kb": 1, "scope": "grid"}, "scope must be 'block'"),
        ("requires_smem", (), {"kb": 1, "size": 2}, "unknown argument(s) size"),
        ("compute_capability", ("twelve",), {}, "cannot parse 'twelve'"),
        ("compute_capability", (">=sm_120",), {}, "cannot parse '>=sm_120'"),
        ("compute_capability", (), {}, "expected one specifier string"),
        ("requires_gpu_memory", (), {"gb": 0}, "expected gb=<positive number>, got 0"),
        ("requires_gpu", (), {"count": 0}, "expected count=<integer >= 1>, got 0"),
        ("sm120", (1,), {}, "takes no arguments"),
        ("sm122", (), {}, "unknown architecture; expected one of sm80"),
    ],
)
def test_bad_input_names_marker_and_expectation(
    name: str, args: tuple[Any, ...], kwargs: dict[str, Any], expected: str
) -> None:
    with pytest.raises(MarkerError) as info:
        parse_requirements([MarkInput(name, args, kwargs)])
    assert f"@pytest.mark.{name}" in str(info.value)
    assert expected in str(info.value)


def test_declared_marker_combines_requirements() -> None:
    spec = {"compute_capability": ">=10.0,<11", "requires_smem": {"kb": 200}}
    requirements = parse_marker_definition("datacenter_blackwell", spec, "conftest")
    assert unmet(requirements, [SM100]) is None
    assert unmet(requirements, [SM120]) == (
        "requires compute capability >=10.0,<11; NVIDIA RTX PRO 6000 Blackwell (sm_120) has 12.0"
    )
    with pytest.raises(MarkerError, match="conftest: marker 'x': unknown requirement 'smem'"):
        parse_marker_definition("x", {"smem": 1}, "conftest")
    with pytest.raises(MarkerError, match=r"conftest: marker 'y': .*requires_smem"):
        parse_marker_definition("y", {"requires_smem": {"kb": "big"}}, "conftest")


@pytest.mark.parametrize(
    ("name", "args", "kwargs", "expected"),
    [
        ("requires_smem", (99, "sm", "extra"), {}, "takes at most 2 argument(s)"),
        ("requires_gpu_memory", (1, 2), {}, "takes at most 1 argument(s)"),
        ("requires_smem", (99, "sm"), {"scope": "block"}, "scope given twice"),
        ("requires_gpu", (True,), {}, "expected count=<integer >= 1>, got True"),
    ],
)
def test_extra_or_doubled_arguments_are_errors(
    name: str, args: tuple[Any, ...], kwargs: dict[str, Any], expected: str
) -> None:
    with pytest.raises(MarkerError, match=re.escape(expected)):
        parse_requirements([MarkInput(name, args, kwargs)])
