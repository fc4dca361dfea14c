"""``python -m pytest_blackwell plan``: the CI matrix, decided by collection without a GPU."""

from __future__ import annotations

import json
import shlex
import sys
from typing import Any

import pytest

from pytest_blackwell.cli.plan import check_pytest_args, parse_devices, parse_labels
from pytest_blackwell.report.plan import (
    Collection,
    build_plan,
    github_matrix,
    render_markdown,
    shard_name,
)


def entry(nodeid: str, skip: str | None = None, group: str | None = None) -> dict[str, Any]:
    """One test as a device's collection describes it."""
    return {"nodeid": nodeid, "skip": skip, "group": group, "config": group and f"cfg-{group}"}


def test_plan_merges_one_collection_per_device() -> None:
    plan = build_plan(
        [
            Collection(
                "rtx-pro-6000",
                [
                    entry("t::a", group="g1"),
                    entry("t::b", group="g1"),
                    entry("t::c", "needs sm100"),
                ],
            ),
            Collection(
                "b200",
                [
                    entry("t::a", "needs sm120", group="g1"),
                    entry("t::b", group="g2"),
                    entry("t::c", group="g3"),
                ],
            ),
        ]
    )
    assert plan.to_dict()["devices"] == ["rtx-pro-6000", "b200"]
    rows = {t["nodeid"]: t for t in plan.to_dict()["tests"]}
    assert rows["t::a"]["outcomes"] == {"rtx-pro-6000": "run", "b200": "skip"}
    assert rows["t::a"]["reasons"] == {"b200": "needs sm120"}
    assert rows["t::c"]["reasons"] == {"rtx-pro-6000": "needs sm100"}
    assert rows["t::a"]["config"] == "cfg-g1"
    # Engines: distinct configurations among the tests that run there (a skip launches none).
    assert plan.launches == {"rtx-pro-6000": 1, "b200": 2}
    assert plan.unrunnable == []


def test_a_test_skipped_everywhere_is_unrunnable() -> None:
    plan = build_plan(
        [
            Collection("a", [entry("t::x", "no"), entry("t::y")]),
            Collection("b", [entry("t::x", "nope"), entry("t::y", "no")]),
        ]
    )
    assert plan.unrunnable == ["t::x"]
    text = render_markdown(plan)
    assert "Runs on none of these devices" in text
    assert "- `t::x`" in text


def test_a_test_missing_from_one_collection_counts_as_a_skip_there() -> None:
    plan = build_plan([Collection("a", [entry("t::x")]), Collection("b", [])])
    (row,) = plan.tests
    assert row["outcomes"] == {"a": "run", "b": "skip"}
    assert row["reasons"] == {"b": "not collected with this device"}


def test_markdown_numbers_each_distinct_reason_once() -> None:
    plan = build_plan(
        [
            Collection("a", [entry("t::x", "too | small"), entry("t::y", "too | small")]),
            Collection("b", [entry("t::x"), entry("t::y", group="g")]),
        ]
    )
    text = render_markdown(plan)
    assert "| `t::x` | - | skip (1) | run |" in text
    assert "| `t::y` | cfg-g | skip (1) | run |" in text
    assert "1. too \\| small" not in text  # reasons are plain text outside the table
    assert "1. too | small" in text
    assert "| **engines launched** | | 0 | 1 |" in text


def test_github_matrix_has_one_entry_per_device_with_tests_to_run() -> None:
    plan = build_plan(
        [
            Collection("rtx-pro-6000", [entry("t::x", group="g")]),
            Collection("h100*4", [entry("t::x")]),
            Collection("cpu", [entry("t::x", "no GPU")]),
            Collection("gpus/custom.json", [entry("t::x")]),
        ]
    )
    args = ["tests/gpu", "-m", "not slow and sm120"]
    matrix = github_matrix(plan, {"rtx-pro-6000": "gpu-sm120"}, args)
    assert [e["device"] for e in matrix["include"]] == [
        "rtx-pro-6000",
        "h100*4",
        "gpus/custom.json",
    ]
    first, second, third = matrix["include"]
    assert (first["runner"], first["shard"], first["engines"], first["tests"]) == (
        "gpu-sm120",
        "rtx-pro-6000",
        1,
        1,
    )
    assert (second["runner"], second["shard"]) == ("h100x4", "h100x4")
    assert (third["runner"], third["shard"]) == ("custom", "custom")
    assert shlex.split(first["pytest_args"]) == args


@pytest.mark.parametrize(
    ("device", "shard"),
    [("b200", "b200"), ("h100*4", "h100x4"), ("a100:2", "a100x2"), ("./my gpu.json", "my_gpu")],
)
def test_shard_names_are_file_safe(device: str, shard: str) -> None:
    assert shard_name(device) == shard


def test_devices_and_labels_are_checked() -> None:
    assert parse_devices("rtx-pro-6000, h100*2 ,x.json") == ["rtx-pro-6000", "h100*2", "x.json"]
    with pytest.raises(ValueError, match="comma-separated"):
        parse_devices("b200,,h100")
    with pytest.raises(ValueError, match="b200 listed more than once"):
        parse_devices("b200,h100,b200")
    assert parse_labels(["b200=dgx-b200"], ["b200"]) == {"b200": "dgx-b200"}
    with pytest.raises(ValueError, match="expected DEVICE=LABEL"):
        parse_labels(["b200"], ["b200"])
    with pytest.raises(ValueError, match=r"'h100' is not in --devices \(b200\)"):
        parse_labels(["h100=x"], ["b200"])
    check_pytest_args(["tests", "-m", "sm120", "--blackwell-max-engines=2"])
    for arg in (["--blackwell-device", "b200"], ["--blackwell-device=b200"]):
        with pytest.raises(ValueError, match="list the devices in --devices instead"):
            check_pytest_args(arg)


# --- end to end: a project collected once per device, in child processes ---------------------

PROJECT_CONFTEST = """
import pytest
from pytest_blackwell.device.profiles import PROFILES

def pytest_blackwell_device_profiles(config):
    # A lab's own SKU: an sm_120 card with only 16 GB.
    return {"lab-card": PROFILES["rtx-pro-4000"].__class__(
        name="Lab Card 16GB", compute_capability=(12, 0), smem_per_sm_bytes=128 * 1024,
        smem_per_block_bytes=48 * 1024, smem_per_block_optin_bytes=99 * 1024,
        total_memory_bytes=16 * 10**9, source="simulated", profile="lab-card")}

def pytest_configure(config):
    config.addinivalue_line("markers", "needs_lab: runs only where LAB is set")
"""

PROJECT_TESTS = """
import pytest

def test_everywhere():
    pass

@pytest.mark.sm120
def test_consumer_blackwell():
    pass

@pytest.mark.requires_gpu(count=2)
def test_two_gpus():
    pass

@pytest.mark.big_smem
def test_declared_in_ini():
    pass

@pytest.mark.requires_gpu_memory(gb=20)
def test_twenty_gb():
    pass

@pytest.mark.sm100
@pytest.mark.requires_smem(kb=200)
def test_sm100_only():
    pass

@pytest.mark.sm120
@pytest.mark.skipif("sys.platform != 'nonexistent'", reason="consumer-only option")
def test_nowhere():
    pass

@pytest.mark.sm120
@pytest.mark.memory_budget(gpu_memory_utilization=[0.5, 0.9])
def test_engine(vllm_engine_result):
    pass
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini(
        """
        [pytest]
        blackwell_hardware_markers =
            big_smem: {"requires_smem": {"kb": 200}}
        """
    )
    pytester.makeconftest(PROJECT_CONFTEST)
    pytester.makepyfile(test_suite=PROJECT_TESTS)
    pytester.path.joinpath("custom.json").write_text(
        json.dumps(
            {
                "name": "Custom sm_90",
                "compute_capability": "9.0",
                "total_memory_bytes": 80 * 10**9,
            }
        )
    )
    return pytester


def plan_json(pytester: pytest.Pytester, *args: str) -> dict[str, Any]:
    result = pytester.run(sys.executable, "-m", "pytest_blackwell", "plan", *args)
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    data = json.loads(result.stdout.str())
    assert isinstance(data, dict)
    return data


def test_plan_end_to_end_with_every_kind_of_device(project: pytest.Pytester) -> None:
    devices = "rtx-pro-6000,h100*2,custom.json,lab-card"
    data = plan_json(project, "--devices", devices, "--format", "json")
    assert set(data) == {"devices", "tests", "launches", "unrunnable"}
    assert data["devices"] == devices.split(",")
    rows = {t["nodeid"].split("::")[1]: t for t in data["tests"]}
    run = {name: [d for d, o in r["outcomes"].items() if o == "run"] for name, r in rows.items()}
    assert run["test_everywhere"] == data["devices"]
    assert run["test_consumer_blackwell"] == ["rtx-pro-6000", "lab-card"]
    assert run["test_two_gpus"] == ["h100*2"]
    assert run["test_declared_in_ini"] == ["h100*2", "custom.json"]
    assert run["test_twenty_gb"] == ["rtx-pro-6000", "h100*2", "custom.json"]
    assert rows["test_twenty_gb"]["reasons"]["lab-card"].startswith("requires 20 GB")
    assert run["test_sm100_only"] == []
    assert rows["test_sm100_only"]["reasons"]["lab-card"].startswith("requires sm100; Lab Card")
    # skipif conditions (strings too) count, and come first, as when pytest runs the test.
    assert run["test_nowhere"] == []
    assert rows["test_nowhere"]["reasons"]["rtx-pro-6000"] == "consumer-only option"
    assert data["unrunnable"] == [
        rows["test_sm100_only"]["nodeid"],
        rows["test_nowhere"]["nodeid"],
    ]
    engine_rows = [r for name, r in rows.items() if name.startswith("test_engine[")]
    assert sorted(r["config"] for r in engine_rows) == ["gmu=0.5", "gmu=0.9"]
    assert data["launches"] == {"rtx-pro-6000": 2, "h100*2": 0, "custom.json": 0, "lab-card": 2}
    # Nothing of the project's own artifacts was touched by planning.
    assert not (project.path / ".pytest_blackwell").exists()


def test_plan_github_matrix_and_fail_on_unrunnable(project: pytest.Pytester) -> None:
    result = project.run(
        sys.executable,
        "-m",
        "pytest_blackwell",
        "plan",
        "--devices",
        "rtx-pro-6000,cpu",
        "--format",
        "github",
        "--runner-label",
        "rtx-pro-6000=gpu-sm120",
        "--fail-on-unrunnable",
        "--",
        "-k",
        "not everywhere",
    )
    assert result.ret == 1
    matrix = json.loads(result.stdout.str())
    assert matrix == {
        "include": [
            {
                "device": "rtx-pro-6000",
                "runner": "gpu-sm120",
                "shard": "rtx-pro-6000",
                "pytest_args": "-k 'not everywhere'",
                "tests": 4,
                "engines": 2,
            }
        ]
    }
    result.stderr.fnmatch_lines(
        [
            "*4 test(s) run on none of rtx-pro-6000, cpu:",
            "*::test_two_gpus",
            "*::test_declared_in_ini",
            "*::test_sm100_only",
            "*::test_nowhere",
        ]
    )


def test_plan_reports_bad_devices_and_collection_errors(project: pytest.Pytester) -> None:
    result = project.run(sys.executable, "-m", "pytest_blackwell", "plan", "--devices", "b200,b900")
    assert result.ret == 2
    result.stderr.fnmatch_lines(["*device 'b900': collecting the tests failed*", "*b900*"])
    project.makepyfile(
        test_broken="""
        import pytest

        @pytest.mark.requires_smem(kb="lots")
        def test_bad():
            pass
        """
    )
    result = project.run(sys.executable, "-m", "pytest_blackwell", "plan", "--devices", "b200")
    assert result.ret == 2
    result.stderr.fnmatch_lines(["*device 'b200'*", "*test_broken.py::test_bad*"])


# --- skip marks read the way pytest evaluates them --------------------------------------------


@pytest.mark.parametrize(
    ("marks", "reason"),
    [
        ("", None),
        ("@pytest.mark.skipif(False, reason='never')", None),
        ("@pytest.mark.skipif(True, reason='always')", "always"),
        ("@pytest.mark.skipif(condition=True, reason='by keyword')", "by keyword"),
        (
            "@pytest.mark.skipif('sys.platform != \"nowhere\"')",
            'condition: sys.platform != "nowhere"',
        ),
        ("@pytest.mark.skipif('FLAG', reason='module global')", "module global"),
        ("@pytest.mark.skip('plain')", "plain"),
        ("@pytest.mark.skip", "unconditional skip"),
        ("@pytest.mark.skip(reason='b')\n@pytest.mark.skipif(True, reason='a')", "a"),
    ],
)
def test_skip_reason_follows_pytest(pytester: pytest.Pytester, marks: str, reason: str) -> None:
    from pytest_blackwell.plugin.plan import skip_reason

    item = pytester.getitem(f"import pytest\nFLAG = True\n{marks}\ndef test_func():\n    pass\n")
    assert skip_reason(item) == reason


def test_an_unevaluable_condition_names_the_test(pytester: pytest.Pytester) -> None:
    from pytest_blackwell.plugin.plan import skip_reason

    item = pytester.getitem(
        "import pytest\n@pytest.mark.skipif('no_such_name')\ndef test_func():\n    pass\n"
    )
    with pytest.raises(pytest.UsageError, match=r"test_func.*'no_such_name'.*NameError"):
        skip_reason(item)
