"""Gates that real public GPU test suites wrote by hand, replaced by markers.

Each case states the hand-written condition (as the project wrote it, over the compute
capability and the versions) and the markers that replace it; both are evaluated on every
built-in profile and must agree, except where a difference is the point and is written down
(docs/features.md lists the same cases with their sources).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import pytest

from pytest_blackwell.device.features import known_names
from pytest_blackwell.device.model import DeviceInfo
from pytest_blackwell.device.profiles import PROFILES
from pytest_blackwell.markers import MarkInput, parse_requirements, unmet

CC = tuple[int, int]


@dataclass(frozen=True)
class Gate:
    project: str
    where: str
    #: The hand-written condition: does the suite run the test on this device?
    runs: Callable[[CC, str], bool]
    markers: tuple[MarkInput, ...]
    #: Profiles where the marker deliberately says otherwise (the docs say why).
    differs_on: tuple[str, ...] = ()
    #: The same, for runners whose torch was built with CUDA 12.0.
    differs_on_cuda_12_0: tuple[str, ...] = ()


def _m(name: str, *args: object, **kwargs: object) -> MarkInput:
    return MarkInput(name, args, kwargs)


def _cuda_at_least(version: str, wanted: tuple[int, int]) -> bool:
    major, minor = (int(p) for p in version.split(".")[:2])
    return (major, minor) >= wanted


GATES = [
    Gate(
        "vLLM",
        "tests/kernels/quantization/test_nvfp4_quant.py: skip unless has_device_capability(100)",
        lambda cc, cuda: cc >= (10, 0),
        (_m("requires_feature", "nvfp4"),),
    ),
    Gate(
        "vLLM",
        "tests/kernels/quantization/test_cutlass_scaled_mm.py: FP8 cases skip unless "
        "has_device_capability(89)",
        lambda cc, cuda: cc >= (8, 9),
        (_m("requires_feature", "fp8"),),
    ),
    Gate(
        "TileLang",
        "FP8 GEMM example tests: skip when major < 9 and not (major == 8 and minor >= 9), "
        "'FP8 tensor core MMA requires SM89 or higher'",
        lambda cc, cuda: not (cc[0] < 9 and not (cc[0] == 8 and cc[1] >= 9)),
        (_m("requires_feature", "fp8"),),
    ),
    Gate(
        "TileLang",
        "DeepGEMM FP8 example test: requires_cuda_compute_version_eq(9, 0) (a wgmma kernel)",
        lambda cc, cuda: cc == (9, 0),
        (_m("requires_feature", "wgmma"),),
    ),
    Gate(
        "TransformerEngine",
        "check_fp8_support: compute capability >= 9.0, or 8.9 with CUDA >= 12.1 (and cuBLASLt "
        ">= 12.1.3, a package requirement)",
        lambda cc, cuda: cc >= (9, 0) or (cc >= (8, 9) and _cuda_at_least(cuda, (12, 1))),
        (_m("requires_feature", "fp8"), _m("requires_cuda", ">=12.1", of="torch")),
        # Markers cannot say "CUDA >= 12.1 on Ada only": on Hopper with CUDA 12.0 they skip
        # where TransformerEngine runs.
        differs_on_cuda_12_0=("h100", "h200"),
    ),
    Gate(
        "FlashInfer",
        "is_sm100a_supported: major == 10 and torch's CUDA >= 12.8",
        lambda cc, cuda: cc[0] == 10 and _cuda_at_least(cuda, (12, 8)),
        (_m("requires_feature", "tcgen05"), _m("requires_cuda", ">=12.8", of="torch")),
    ),
    Gate(
        "DeepSpeed",
        "bf16 tests: skip unless the accelerator supports bf16 (torch: compute capability >= 8.0)",
        lambda cc, cuda: cc >= (8, 0),
        (_m("requires_feature", "bf16"),),
    ),
    Gate(
        "a common mistake",
        "a tcgen05 (UMMA) kernel gated on 'compute capability >= 10', as if every Blackwell were "
        "an sm_100",
        lambda cc, cuda: cc >= (10, 0),
        (_m("requires_feature", "tcgen05"),),
        differs_on=("rtx-pro-6000", "rtx-5090", "rtx-pro-4000", "gb10"),
    ),
]

GPU_PROFILES = [name for name, device in PROFILES.items() if device.is_gpu]

#: The oldest CUDA toolkit that can build for an architecture family: a runner with an older
#: torch build cannot exist, so those combinations are not compared.
MIN_TOOLKIT = {8: (11, 1), 9: (11, 8), 10: (12, 8), 12: (12, 8)}


def _runner(profile: str, torch_cuda: str) -> DeviceInfo:
    """A built-in profile described as a CI runner with a given torch CUDA version."""
    device = PROFILES[profile]
    return replace(
        device,
        driver_version="580.65.06",
        cuda_version="13.0",
        extra={**device.extra, "torch_cuda": torch_cuda},
    )


@pytest.mark.parametrize("torch_cuda", ["12.8", "12.0"])
@pytest.mark.parametrize("gate", GATES, ids=lambda g: f"{g.project}:{g.where[:40]}")
def test_marker_reproduces_the_hand_written_gate(gate: Gate, torch_cuda: str) -> None:
    disagreements = []
    for profile in GPU_PROFILES:
        device = _runner(profile, torch_cuda)
        cc = device.compute_capability
        assert cc is not None
        if not _cuda_at_least(torch_cuda, MIN_TOOLKIT[cc[0]]):
            continue
        requirements = parse_requirements(gate.markers, known_features=known_names([device]))
        marker_runs = unmet(requirements, [device]) is None
        if marker_runs != gate.runs(cc, torch_cuda):
            disagreements.append(profile)
    expected = gate.differs_on_cuda_12_0 if torch_cuda == "12.0" else gate.differs_on
    expected = tuple(p for p in expected if p in GPU_PROFILES and _realistic(p, torch_cuda))
    assert disagreements == list(expected)


def _realistic(profile: str, torch_cuda: str) -> bool:
    cc = PROFILES[profile].compute_capability
    return cc is not None and _cuda_at_least(torch_cuda, MIN_TOOLKIT[cc[0]])


def test_the_mistake_is_exactly_consumer_blackwell() -> None:
    """The wrong gate runs a tcgen05 kernel on every sm_12x card, where it cannot work."""
    mistake = GATES[-1]
    wrongly_run = [
        p for p in mistake.differs_on if mistake.runs(PROFILES[p].compute_capability or (0, 0), "")
    ]
    assert wrongly_run == list(mistake.differs_on)
    assert {PROFILES[p].arch for p in wrongly_run} == {"sm120", "sm121"}
