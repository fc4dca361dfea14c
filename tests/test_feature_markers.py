"""Feature and software-version markers: the table, parsing, reasons, and end-to-end use."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from pytest_blackwell.device.features import FEATURES, features_of, known_names
from pytest_blackwell.device.model import DeviceInfo
from pytest_blackwell.device.profiles import PROFILES, load_profile
from pytest_blackwell.markers import MarkerError, MarkInput, parse_requirements, unmet
from pytest_blackwell.markers.software import installed_torch_cuda

# What each architecture has, written out per architecture from NVIDIA's documentation (not
# derived from the table's rules), so the table is checked against an independent statement.
AMPERE = {"tensor_cores", "int8", "bf16", "tf32", "sparse_mma", "cp_async"}
ADA = AMPERE | {"fp8"}
HOPPER = ADA | {"tma", "clusters", "wgmma"}
BLOCK_SCALED = {"nvfp4", "mxfp4", "mxfp8", "fp6"}
DATACENTER_BLACKWELL = ADA | {"tma", "clusters", "tcgen05"} | BLOCK_SCALED
CONSUMER_BLACKWELL = ADA | {"tma", "clusters"} | BLOCK_SCALED
EXPECTED = {
    (8, 0): AMPERE,
    (8, 6): AMPERE,
    (8, 9): ADA,
    (9, 0): HOPPER,
    (10, 0): DATACENTER_BLACKWELL,
    (12, 0): CONSUMER_BLACKWELL,
    (12, 1): CONSUMER_BLACKWELL,
}


@pytest.mark.parametrize("profile", [k for k, d in PROFILES.items() if d.is_gpu])
def test_feature_table_matches_every_built_in_profile(profile: str) -> None:
    device = PROFILES[profile]
    assert device.compute_capability in EXPECTED, f"add {profile}'s architecture to EXPECTED"
    assert set(features_of(device)) == EXPECTED[device.compute_capability]


def test_cpu_has_no_feature() -> None:
    assert features_of(PROFILES["cpu"]) == []


def test_consumer_blackwell_is_not_datacenter_blackwell() -> None:
    assert not FEATURES["tcgen05"].available((12, 0))
    assert not FEATURES["tcgen05"].available((12, 1))
    assert FEATURES["tcgen05"].available((10, 3))
    assert FEATURES["wgmma"].available((9, 0))
    assert not FEATURES["wgmma"].available((10, 0))
    # sm_100-style gates are not forward compatible: a future architecture is not assumed to
    # have them, while ISA features that every later architecture inherits are.
    assert not FEATURES["tcgen05"].available((13, 0))
    assert FEATURES["fp8"].available((13, 0))


def _marks(name: str, *args: object, **kwargs: object) -> list[MarkInput]:
    return [MarkInput(name, tuple(args), kwargs)]


def _reason(devices: list[DeviceInfo], name: str, *args: object, **kwargs: object) -> str | None:
    known = known_names(devices)
    return unmet(parse_requirements(_marks(name, *args, **kwargs), known_features=known), devices)


def test_missing_feature_reason_names_feature_device_and_capability() -> None:
    reason = _reason(load_profile("rtx-5090"), "requires_feature", "fp8", "tcgen05")
    assert reason == (
        "requires fp8 and tcgen05; NVIDIA GeForce RTX 5090 (compute capability 12.0) has no "
        "tcgen05 (sm_100 / sm_103 / sm_110 only)"
    )
    assert _reason(load_profile("b200"), "requires_feature", "fp8", "tcgen05") is None


def test_aliases_and_lists_are_accepted() -> None:
    assert _reason(load_profile("b200"), "requires_feature", ["tmem", "FP4"]) is None
    reason = _reason(load_profile("h100"), "requires_feature", "fp4")
    assert reason is not None
    assert "has no nvfp4" in reason


def test_unknown_feature_lists_the_known_names() -> None:
    with pytest.raises(MarkerError, match=r"unknown feature 'fp9'; known features: .*tcgen05"):
        parse_requirements(_marks("requires_feature", "fp9"))
    with pytest.raises(MarkerError, match="at least one feature name"):
        parse_requirements(_marks("requires_feature"))
    with pytest.raises(MarkerError, match="positional"):
        parse_requirements(_marks("requires_feature", feature="fp8"))


def test_a_device_can_declare_a_feature_of_its_own() -> None:
    device = replace(PROFILES["h100"], extra={"features": ["nvlink_sharp"]})
    assert _reason([device], "requires_feature", "nvlink_sharp") is None
    reason = _reason(load_profile("h200"), "requires_feature", "fp8")
    assert reason is None
    with pytest.raises(MarkerError, match="unknown feature 'nvlink_sharp'"):
        parse_requirements(_marks("requires_feature", "nvlink_sharp"))


RUNNER = DeviceInfo(
    "NVIDIA RTX PRO 6000 Blackwell",
    (12, 0),
    driver_version="575.57.08",
    cuda_version="12.9",
    source="simulated",
    profile="runner.json",
    extra={"torch_cuda": "12.8"},
)


@pytest.mark.parametrize(
    ("marker", "args", "kwargs", "reason"),
    [
        ("requires_cuda", (">=12.8",), {}, None),
        ("requires_cuda", (">=12.9",), {}, "requires CUDA >=12.9; torch's CUDA is 12.8"),
        ("requires_cuda", (">=12.9",), {"of": "driver"}, None),
        ("requires_cuda", ("12.8",), {"of": "torch"}, None),
        ("requires_cuda", (">=13",), {"of": "driver"}, "the driver's CUDA is 12.9"),
        ("requires_driver", (">=570",), {}, None),
        ("requires_driver", (">=580,<590",), {}, "runs driver 575.57.08"),
    ],
)
def test_version_requirements_on_a_described_runner(
    marker: str, args: tuple[str, ...], kwargs: dict[str, str], reason: str | None
) -> None:
    found = _reason([RUNNER], marker, *args, **kwargs)
    if reason is None:
        assert found is None
    else:
        assert found is not None
        assert reason in found


def test_a_simulated_profile_without_versions_does_not_pass() -> None:
    reason = _reason(load_profile("rtx-pro-6000"), "requires_driver", ">=570")
    assert reason is not None
    assert "driver version is unknown" in reason
    assert "device JSON file" in reason
    reason = _reason(load_profile("b200"), "requires_cuda", ">=12.8")
    assert reason is not None
    assert "torch's CUDA version is unknown" in reason


def test_no_gpu_means_no_cuda() -> None:
    reason = _reason(load_profile("cpu"), "requires_cuda", ">=12.8")
    assert reason == "requires CUDA >=12.8; no GPU detected (CPU)"


def test_installed_torch_is_read_without_importing_it() -> None:
    version, how = installed_torch_cuda()
    import torch  # the check below compares with what torch itself says

    assert version == torch.version.cuda
    assert how == (
        "the installed torch" if version else "the installed torch is a build without CUDA"
    )


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("twelve", "cannot parse 'twelve'"),
        (">>12", "cannot parse '>>12'"),
        ("", "expected a version specifier"),
        (12.8, "expected a version specifier such as '>=12.8', got 12.8"),
    ],
)
def test_malformed_cuda_specifier(spec: object, message: str) -> None:
    with pytest.raises(MarkerError, match=re.escape(message)):
        parse_requirements(_marks("requires_cuda", spec))


def test_cuda_of_must_be_known() -> None:
    with pytest.raises(MarkerError, match="of must be 'both', 'torch'"):
        parse_requirements(_marks("requires_cuda", ">=12", of="runtime"))


def test_packages_are_read_from_installed_metadata() -> None:
    import importlib.metadata

    pytest_version = importlib.metadata.version("pytest")
    devices = load_profile("cpu")  # packages do not depend on the device
    assert _reason(devices, "requires_package", "pytest>=8", "packaging") is None
    reason = _reason(devices, "requires_package", "pytest>=999")
    assert reason == f"requires pytest>=999; pytest {pytest_version} is installed"
    reason = _reason(devices, "requires_package", "no-such-distribution-xyz>=1")
    assert (
        reason == "requires no-such-distribution-xyz>=1; no-such-distribution-xyz is not installed"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("triton>>3",), "cannot parse 'triton>>3'"),
        ((3,), "expected requirement strings"),
        ((), "at least one requirement"),
        (("torch[cuda]>=2",), "drop the extras"),
    ],
)
def test_malformed_package_requirement(args: tuple[object, ...], message: str) -> None:
    with pytest.raises(MarkerError, match=re.escape(message)):
        parse_requirements(_marks("requires_package", *args))


# --------------------------------------------------------------------------- end to end

SUITE = """
import pytest

@pytest.mark.requires_feature("tcgen05")
def test_tcgen05_kernel(): pass

@pytest.mark.requires_feature("nvfp4", "tma")
def test_fp4_kernel(): pass

@pytest.mark.requires_package("pytest>=8")
def test_needs_pytest(): pass

@pytest.mark.requires_driver(">=570")
def test_new_driver(): pass
"""


def test_markers_skip_per_device_end_to_end(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(SUITE)
    result = pytester.runpytest("--blackwell-device=rtx-pro-6000", "-rs", "--strict-markers")
    result.assert_outcomes(passed=2, skipped=2)
    result.stdout.fnmatch_lines(
        [
            "SKIPPED*requires tcgen05; NVIDIA RTX PRO 6000 * (compute capability 12.0) has no "
            "tcgen05 (sm_100 / sm_103 / sm_110 only)",
            "SKIPPED*requires NVIDIA driver >=570; the driver version is unknown*",
        ]
    )
    result = pytester.runpytest("--blackwell-device=b200", "-rs")
    result.assert_outcomes(passed=3, skipped=1)


def test_marker_selection_sees_the_new_markers(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(SUITE)
    result = pytester.runpytest("--blackwell-device=b200", "-m", "requires_feature", "-q")
    result.assert_outcomes(passed=2, deselected=2)


def test_unknown_feature_is_a_collection_error_naming_the_test(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.requires_feature("tcgen5")
        def test_typo(): pass
        """
    )
    result = pytester.runpytest("--blackwell-device=b200")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        [
            "*test_unknown_feature_is_a_collection_error_naming_the_test.py::test_typo: "
            "@pytest.mark.requires_feature: unknown feature 'tcgen5'; known features: *tcgen05*"
        ]
    )


def test_a_runner_described_in_json_plans_versions(pytester: pytest.Pytester) -> None:
    runner = {
        "name": "NVIDIA RTX PRO 6000 Blackwell",
        "compute_capability": "12.0",
        "total_memory_bytes": 96 * 1024**3,
        "driver_version": "575.57.08",
        "cuda_version": "12.9",
        "extra": {"torch_cuda": "12.8", "features": ["gddr7"]},
    }
    Path(pytester.path, "runner.json").write_text(json.dumps(runner))
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.requires_cuda(">=12.8")
        @pytest.mark.requires_driver(">=570")
        @pytest.mark.requires_feature("nvfp4", "gddr7")
        def test_runs(): pass

        @pytest.mark.requires_cuda(">=13.0", of="torch")
        def test_needs_cuda_13(): pass
        """
    )
    result = pytester.runpytest("--blackwell-device=runner.json", "-rs")
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(
        ["SKIPPED*requires torch built with CUDA >=13.0; torch's CUDA is 12.8*"]
    )


def test_bad_declared_features_in_a_json_profile(pytester: pytest.Pytester) -> None:
    Path(pytester.path, "bad.json").write_text(
        json.dumps({"name": "X", "compute_capability": "9.0", "extra": {"features": "fp8"}})
    )
    pytester.makepyfile("def test_x(): pass")
    result = pytester.runpytest("--blackwell-device=bad.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*field 'extra.features' must be a list of feature names*"])


def test_features_in_markers_declared_as_data(pytester: pytest.Pytester) -> None:
    pytester.makeini(
        """
        [pytest]
        blackwell_hardware_markers =
            blackwell_fp4: {"requires_feature": ["nvfp4", "tma"], "requires_package": ["pytest>=8"]}
            tcgen05_kernels: {"requires_feature": "tcgen05"}
        """
    )
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.blackwell_fp4
        def test_fp4(): pass

        @pytest.mark.tcgen05_kernels
        def test_umma(): pass
        """
    )
    result = pytester.runpytest("--blackwell-device=gb10", "-rs")
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(
        ["SKIPPED*requires tcgen05; NVIDIA GB10 (compute capability 12.1)*"]
    )
