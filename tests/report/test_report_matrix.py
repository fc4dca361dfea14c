"""Matrix across CI shards: merge, renderers, baseline diff, CLI exit codes and errors."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from report_helpers import H100, RTX_5090

from pytest_blackwell.cli import main
from pytest_blackwell.report.matrix import (
    OUTCOME_STATUS,
    Cell,
    MatrixError,
    Observation,
    apply_baseline,
    build_matrix,
    cell_from_facts,
    read_shards,
)
from pytest_blackwell.report.render import render_html, render_markdown

RunShard = Callable[..., tuple[pytest.RunResult, Path]]

RTX = "NVIDIA GeForce RTX 5090 (sm_120)"
HOPPER = "NVIDIA H100 80GB HBM3 (sm_90)"
TEST = "test_engine::test_generate"

SMEM = "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 232448"


@pytest.fixture
def two_devices(run_shard: RunShard) -> tuple[Path, Path]:
    _, blackwell = run_shard(
        "rtx5090",
        RTX_5090,
        {
            "kv=auto": ("pass",),
            "kv=fp8": ("fail", "smem_limit", "compile", SMEM),
            "kv=fp8_e5m2": ("skip",),
        },
    )
    _, hopper = run_shard(
        "h100",
        H100,
        {
            "kv=auto": ("pass",),
            "kv=fp8": ("pass",),
            "kv=fp8_e5m2": ("expected", "kv_cache_oom", "kv_alloc"),
        },
    )
    return blackwell, hopper


def cells(matrix_json: dict[str, object]) -> dict[tuple[str, str, str], str]:
    rows = matrix_json["rows"]
    assert isinstance(rows, list)
    return {
        (row["test"], row["config"], label): cell["text"]
        for row in rows
        for label, cell in row["cells"].items()
    }


def test_merge_shards_from_two_simulated_devices(two_devices: tuple[Path, Path]) -> None:
    matrix = read_shards(list(two_devices))
    assert [c.label for c in matrix.columns] == [RTX, HOPPER]
    assert [(r.test, r.config) for r in matrix.rows] == [
        (TEST, "kv=auto"),
        (TEST, "kv=fp8"),
        (TEST, "kv=fp8_e5m2"),
    ]
    got = cells(matrix.to_dict())
    assert got == {
        (TEST, "kv=auto", RTX): "pass",
        (TEST, "kv=auto", HOPPER): "pass",
        (TEST, "kv=fp8", RTX): "smem_limit@compile",
        (TEST, "kv=fp8", HOPPER): "pass",
        (TEST, "kv=fp8_e5m2", RTX): "skip",
        (TEST, "kv=fp8_e5m2", HOPPER): "kv_cache_oom@kv_alloc (expected)",
    }
    fp8 = matrix.rows[1].cells[RTX]
    assert fp8.first_error == SMEM


def test_shards_of_one_device_share_a_column(run_shard: RunShard) -> None:
    _, auto = run_shard("auto", RTX_5090, {"kv=auto": ("pass",)}, "-k", "auto")
    _, fp8 = run_shard("fp8", RTX_5090, {"kv=fp8": ("fail", "dispatch_failure", "kv_alloc", "x")})
    matrix = read_shards([auto, fp8])
    assert [c.label for c in matrix.columns] == [RTX]
    assert [r.cells[RTX].text for r in matrix.rows] == ["pass", "dispatch_failure@kv_alloc"]


def test_cli_markdown_html_json(
    two_devices: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shards = [str(p) for p in two_devices]
    assert main(["matrix", *shards]) == 0
    markdown = capsys.readouterr().out
    assert f"| test | config | {RTX} | {HOPPER} |" in markdown
    assert f"| {TEST} | kv=fp8 | ❌ smem_limit@compile | ✅ pass |" in markdown

    out = tmp_path / "m.html"
    assert main(["matrix", *shards, "--format", "html", "--output", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert 'class="cell fail" title="triton.runtime.errors.OutOfResources' in page
    assert "<script" not in page
    assert "http" not in page

    out_json = tmp_path / "m.json"
    assert main(["matrix", *shards, "--format", "json", "-o", str(out_json)]) == 0
    data = json.loads(out_json.read_text(encoding="utf-8"))
    assert data["kind"] == "pytest-blackwell-matrix"
    assert [c["label"] for c in data["columns"]] == [RTX, HOPPER]


def test_baseline_regressions_fixes_and_exit_code(
    run_shard: RunShard, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, old = run_shard(
        "old",
        RTX_5090,
        {
            "kv=auto": ("pass",),
            "kv=fp8": ("fail", "smem_limit", "compile", SMEM),
            "kv=fp8_e4m3": ("fail", "dispatch_failure", "kv_alloc", "no kernel"),
            "kv=bf16": ("fail", "device_oom", "warmup", "CUDA out of memory"),
        },
    )
    baseline = tmp_path / "baseline.json"
    assert main(["matrix", str(old), "--format", "json", "-o", str(baseline)]) == 0
    _, new = run_shard(
        "new",
        RTX_5090,
        {
            "kv=auto": ("fail", "kv_cache_oom", "kv_alloc", "No available memory"),  # regression
            "kv=fp8": ("pass",),  # fix
            "kv=fp8_e4m3": ("fail", "dispatch_failure", "compile", "no kernel"),  # other stage
            "kv=bf16": ("fail", "device_oom", "warmup", "CUDA out of memory"),  # unchanged
        },
    )
    capsys.readouterr()
    args = ["matrix", str(new), "--baseline", str(baseline)]
    assert main(args) == 0, "without --fail-on-regression a regression is only reported"
    markdown = capsys.readouterr().out
    assert "**❌ kv_cache_oom@kv_alloc (regression, was pass)**" in markdown
    assert "✅ pass (fix, was smem_limit@compile)" in markdown
    assert "dispatch_failure@compile (regression, was dispatch_failure@kv_alloc)" in markdown
    assert "### Regressions (2)" in markdown
    assert "### Fixes (1)" in markdown

    assert main([*args, "--fail-on-regression"]) == 1
    assert "2 regression(s), 1 fix(es)" in capsys.readouterr().err
    assert main(["matrix", str(old), "--baseline", str(baseline), "--fail-on-regression"]) == 0


def test_baseline_rules_on_plain_cells() -> None:
    def obs(config: str, cell: Cell) -> Observation:
        return Observation("t", config, "GPU (sm_100)", cell)

    matrix = build_matrix(
        [
            obs("a", Cell("fail", "timeout", "warmup")),
            obs("b", Cell("expected", "kv_cache_oom", "kv_alloc")),
            obs("c", Cell("fail", "unknown", "startup")),
            obs("d", Cell("skip")),
        ]
    )
    apply_baseline(
        matrix,
        {
            ("t", "a", "GPU (sm_100)"): Cell("expected", "timeout", "warmup"),
            ("t", "b", "GPU (sm_100)"): Cell("fail", "kv_cache_oom", "kv_alloc"),
            ("t", "d", "GPU (sm_100)"): Cell("pass"),
        },
    )
    assert [(c.config, c.before, c.after) for c in matrix.regressions] == [
        ("a", "timeout@warmup (expected)", "timeout@warmup")
    ]
    assert [c.config for c in matrix.fixes] == ["b"]
    assert matrix.rows[2].cells["GPU (sm_100)"].change == "new"
    assert matrix.rows[3].cells["GPU (sm_100)"].change is None  # pass -> skip is neither


def test_duplicate_observation_keeps_the_failure() -> None:
    matrix = build_matrix(
        [
            Observation("t", "c", "X", Cell("pass")),
            Observation("t", "c", "X", Cell("fail", "engine_died", "execute")),
            Observation("t", "c", "X", Cell("skip")),
        ]
    )
    assert matrix.rows[0].cells["X"].text == "engine_died@execute"


def test_hand_written_xunit1_shard_without_suite_properties(tmp_path: Path) -> None:
    shard = tmp_path / "legacy.xml"
    shard.write_text(
        """<?xml version="1.0" encoding="utf-8"?>
<testsuite name="pytest" tests="2">
  <testcase classname="tests.test_llm" name="test_chat[kv=fp8-seed1]" file="tests/test_llm.py">
    <properties>
      <property name="blackwell.device" value="NVIDIA B200"/>
      <property name="blackwell.compute_capability" value="10.0"/>
      <property name="blackwell.config" value="kv=fp8"/>
      <property name="blackwell.category" value="illegal_memory_access"/>
      <property name="blackwell.stage" value="graph_capture"/>
      <property name="blackwell.first_error" value="an illegal memory access | &lt;x&gt;"/>
    </properties>
    <failure message="illegal_memory_access at graph_capture">trace</failure>
  </testcase>
  <testcase classname="tests.test_llm" name="test_plain"/>
</testsuite>
""",
        encoding="utf-8",
    )
    matrix = read_shards([shard])
    assert [c.label for c in matrix.columns] == ["NVIDIA B200 (sm_100)"]
    (row,) = matrix.rows
    assert (row.test, row.config) == ("tests.test_llm::test_chat[seed1]", "kv=fp8")
    cell = row.cells["NVIDIA B200 (sm_100)"]
    assert (cell.status, cell.text) == ("fail", "illegal_memory_access@graph_capture")
    assert "an illegal memory access \\| &lt;x&gt;" in render_markdown(matrix)
    assert 'title="an illegal memory access | &lt;x&gt;"' in render_html(matrix)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (None, "cannot read JUnit shard"),
        ("not xml at all", "is not well-formed XML (expected JUnit XML)"),
        ("<html><body/></html>", "is not JUnit XML: expected a <testsuites> or <testsuite> root"),
    ],
)
def test_unusable_shard_is_a_clear_error_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None, expected: str
) -> None:
    shard = tmp_path / "shard-7.xml"
    if content is not None:
        shard.write_text(content, encoding="utf-8")
    assert main(["matrix", str(shard)]) == 2
    err = capsys.readouterr().err
    assert expected in err
    assert "shard-7.xml" in err
    with pytest.raises(MatrixError, match=r"shard-7\.xml"):
        read_shards([shard])


def test_unusable_baseline_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shard = tmp_path / "s.xml"
    shard.write_text('<testsuites><testsuite name="x"/></testsuites>', encoding="utf-8")
    baseline = tmp_path / "old.json"
    baseline.write_text('{"schema": 1}', encoding="utf-8")
    assert main(["matrix", str(shard), "--baseline", str(baseline)]) == 2
    err = capsys.readouterr().err
    assert "old.json is not a pytest-blackwell matrix" in err
    assert "matrix --format json" in err


@pytest.mark.parametrize(
    ("outcome", "status"),
    [("passed", "pass"), ("failed", "fail"), ("expected_failure", "expected"), ("skipped", "skip")],
)
def test_an_outcome_word_has_one_cell_status(outcome: str, status: str) -> None:
    assert OUTCOME_STATUS[outcome] == status
    assert cell_from_facts({"outcome": outcome}, "pass", None).status == status


def test_without_an_outcome_the_junit_result_decides() -> None:
    assert cell_from_facts({}, "fail", "boom").status == "fail"
