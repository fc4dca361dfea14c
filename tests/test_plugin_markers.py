"""Hardware markers end to end: pytester runs against simulated devices."""

from __future__ import annotations

import pytest

TESTS = """
import pytest

@pytest.mark.sm120
def test_sm120(): pass

@pytest.mark.sm100
def test_sm100(): pass

@pytest.mark.sm90
def test_sm90(): pass

@pytest.mark.sm12x
def test_family(): pass

@pytest.mark.requires_smem(kb=120)
def test_big_smem(): pass

@pytest.mark.compute_capability(">=9.0")
def test_hopper_or_later(): pass

def test_plain(): pass
"""


@pytest.mark.parametrize(
    ("device", "passed", "skipped"),
    [("rtx-pro-6000", 4, 3), ("b200", 4, 3), ("h100", 4, 3), ("cpu", 1, 6), ("a100", 2, 5)],
)
def test_markers_skip_or_run_per_device(
    pytester: pytest.Pytester, device: str, passed: int, skipped: int
) -> None:
    pytester.makepyfile(TESTS)
    result = pytester.runpytest("--strict-markers", f"--blackwell-device={device}", "-rs")
    result.assert_outcomes(passed=passed, skipped=skipped)


def test_skip_reasons_are_precise(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(TESTS)
    result = pytester.runpytest("--blackwell-device=rtx-pro-6000", "-rs")
    result.stdout.fnmatch_lines(
        [
            "SKIPPED*requires sm100; NVIDIA RTX PRO 6000 Blackwell* (sm_120) is sm120",
            "SKIPPED*requires 120 KB shared memory per block; "
            "NVIDIA RTX PRO 6000 Blackwell* (sm_120) allows 99 KB",
        ]
    )


def test_no_gpu_reason(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(TESTS)
    result = pytester.runpytest("--blackwell-device=cpu", "-rs")
    result.stdout.fnmatch_lines(["SKIPPED*:3: requires sm120; no GPU detected*"])


def test_dash_m_selects_by_marker(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(TESTS)
    result = pytester.runpytest("--blackwell-device=rtx-pro-6000", "-m", "sm120 or sm12x")
    result.assert_outcomes(passed=2, deselected=5)


def test_markers_are_registered_with_help(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--markers")
    result.stdout.fnmatch_lines(
        [
            "@pytest.mark.sm120: run only on an sm120 GPU (compute capability 12.0 exactly)*",
            "@pytest.mark.sm12x: run only on a GPU of compute capability 12.x.",
            "@pytest.mark.requires_smem(kb=N, scope='block'):*",
        ]
    )


@pytest.mark.parametrize(
    ("decorator", "message"),
    [
        ('requires_smem(kb="lots")', "expected kb=<positive number>, got 'lots'"),
        ("requires_smem(kb=-1)", "expected kb=<positive number>, got -1"),
        ('requires_smem(kb=1, scope="warp")', "scope must be 'block'*got 'warp'"),
        ('compute_capability("sm_120")', "cannot parse 'sm_120'*"),
        ("sm125", "unknown architecture; expected one of*"),
    ],
)
def test_bad_marker_is_a_collection_error_naming_the_test(
    pytester: pytest.Pytester, decorator: str, message: str
) -> None:
    pytester.makepyfile(
        f"""
        import pytest

        @pytest.mark.{decorator}
        def test_bad(): pass

        def test_fine(): pass
        """
    )
    result = pytester.runpytest("--blackwell-device=rtx-pro-6000")
    result.assert_outcomes(errors=1)
    name = decorator.split("(")[0]
    result.stdout.fnmatch_lines([f"*test_bad_marker*::test_bad: @pytest.mark.{name}*{message}*"])
    result.stdout.no_fnmatch_line("*Traceback*")
    result.stdout.no_fnmatch_line("*INTERNALERROR*")


def test_class_and_module_marks_apply(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest
        pytestmark = pytest.mark.sm12x

        class TestSmem:
            pytestmark = pytest.mark.requires_smem(kb=100)
            def test_a(self): pass

        def test_b(): pass
        """
    )
    result = pytester.runpytest("--blackwell-device=rtx-5090", "-rs")
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(["*requires 100 KB shared memory per block*allows 99 KB"])


def test_header_says_simulated(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_x(): pass")
    result = pytester.runpytest("--blackwell-device=rtx-pro-6000")
    result.stdout.fnmatch_lines(
        [
            "blackwell: NVIDIA RTX PRO 6000 Blackwell* (sm_120), * GiB, "
            "smem 128 KB/SM 99 KB/block [[]simulated]"
        ]
    )


def test_device_precedence_cli_env_ini(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makeini("[pytest]\nblackwell_device = h100\n")
    pytester.makepyfile("def test_x(): pass")
    assert "(sm_90)" in pytester.runpytest().stdout.str()
    monkeypatch.setenv("PYTEST_BLACKWELL_DEVICE", "b200")
    assert "(sm_100)" in pytester.runpytest().stdout.str()
    assert "(sm_120)" in pytester.runpytest("--blackwell-device=rtx-5090").stdout.str()


def test_unknown_device_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_x(): pass")
    result = pytester.runpytest("--blackwell-device=rtx-9999")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*rtx-9999*"])
    result.stderr.fnmatch_lines(["*rtx-pro-6000*"])


def test_declared_marker_from_ini(pytester: pytest.Pytester) -> None:
    pytester.makeini(
        """
        [pytest]
        blackwell_hardware_markers =
            datacenter_blackwell: {"compute_capability": ">=10.0,<11", "requires_smem": {"kb": 200}}
        """
    )
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.datacenter_blackwell
        def test_dc(): pass
        """
    )
    assert pytester.runpytest("--strict-markers", "--blackwell-device=b200").ret == 0
    result = pytester.runpytest("--strict-markers", "--blackwell-device=rtx-pro-6000", "-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*requires compute capability >=10.0,<11*has 12.0"])


def test_bad_declared_marker_names_the_ini_line(pytester: pytest.Pytester) -> None:
    pytester.makeini(
        """
        [pytest]
        blackwell_hardware_markers =
            dc: {"requires_smem": {"kb": "big"}}
        """
    )
    pytester.makepyfile("def test_x(): pass")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*blackwell_hardware_markers, line 1: marker 'dc'*got 'big'*"])


def test_xdist_workers_receive_the_controllers_device(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
        from pytest_blackwell.device.model import DeviceInfo

        def pytest_blackwell_detect_devices(config, request, origin):
            with open("detections.log", "a") as f:
                f.write("detected\\n")
            return [DeviceInfo(name="Lab GPU", compute_capability=(12, 1),
                               smem_per_sm_bytes=128 * 1024,
                               smem_per_block_optin_bytes=99 * 1024, source="nvml")]
        """
    )
    pytester.makepyfile(
        """
        import os
        import pytest

        @pytest.mark.sm121
        @pytest.mark.parametrize("i", range(4))
        def test_on_worker(i, blackwell_device):
            assert os.environ.get("PYTEST_XDIST_WORKER")
            assert blackwell_device.name == "Lab GPU"
        """
    )
    result = pytester.runpytest_subprocess("-n", "2", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=4)
    assert (pytester.path / "detections.log").read_text() == "detected\n"


def test_device_profiles_hook_adds_a_sku(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
        from pytest_blackwell.device.model import DeviceInfo

        def pytest_blackwell_device_profiles(config):
            return {"rtx-pro-5000": DeviceInfo(
                name="NVIDIA RTX PRO 5000 Blackwell", compute_capability=(12, 0),
                smem_per_sm_bytes=128 * 1024, smem_per_block_optin_bytes=99 * 1024,
                total_memory_bytes=48 * 1024**3)}
        """
    )
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.sm120
        @pytest.mark.requires_gpu(count=2)
        def test_two(blackwell_devices):
            assert [d.index for d in blackwell_devices] == [0, 1]
            assert {d.source for d in blackwell_devices} == {"simulated"}
        """
    )
    result = pytester.runpytest("--blackwell-device=rtx-pro-5000*2")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["blackwell: 2x NVIDIA RTX PRO 5000 Blackwell (sm_120)*"])


def test_json_device_in_ini_is_relative_to_the_ini_file(pytester: pytest.Pytester) -> None:
    sub = pytester.mkdir("conf")
    (sub / "gpu.json").write_text(
        '{"name": "Custom Spark", "compute_capability": "12.1", "smem_per_sm_bytes": 131072,'
        ' "smem_per_block_optin_bytes": 101376, "total_memory_bytes": 137438953472}'
    )
    (sub / "pytest.ini").write_text("[pytest]\nblackwell_device = gpu.json\n")
    pytester.makepyfile("import pytest\n@pytest.mark.sm121\ndef test_x(): pass\n")
    result = pytester.runpytest("-c", str(sub / "pytest.ini"), "--rootdir", str(pytester.path))
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["blackwell: Custom Spark (sm_121)*[[]simulated]"])


def test_each_xdist_worker_gets_its_own_gpu(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "4,5,6,7")
    pytester.makepyfile(
        """
        import os

        def test_assignment(blackwell_visible_devices):
            worker = int(os.environ["PYTEST_XDIST_WORKER"][2:])
            # The outer CUDA_VISIBLE_DEVICES is what gets handed out, one GPU per worker.
            assert blackwell_visible_devices == str(4 + worker)
        """
    )
    (pytester.path / "test_again.py").write_text(
        (pytester.path / "test_each_xdist_worker_gets_its_own_gpu.py").read_text()
    )
    result = pytester.runpytest_subprocess("-n", "2", "--blackwell-device=h100*4")
    result.assert_outcomes(passed=2)


def test_a_bad_marker_is_reported_even_after_an_equal_looking_good_one(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.requires_gpu(count=1)
        def test_one(): pass

        @pytest.mark.requires_gpu(count=True)
        def test_true(): pass
        """
    )
    result = pytester.runpytest("--blackwell-device=h100")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*::test_true: @pytest.mark.requires_gpu: expected count=*True"])


def test_header_warns_when_workers_must_share_gpus(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_x(): pass\n")
    shared = pytester.runpytest_subprocess("-n", "2", "--blackwell-device=h100")
    shared.stdout.fnmatch_lines(["blackwell: 2 xdist workers x 1 GPU(s) each > 1 GPU(s)*share*"])
    enough = pytester.runpytest_subprocess("-n", "2", "--blackwell-device=h100*2")
    enough.stdout.no_fnmatch_line("*will share GPUs*")
