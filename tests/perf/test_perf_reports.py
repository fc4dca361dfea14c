"""Comparisons in reports: matrix cells with the ratio, the HTML plot, baselines, bug reports."""

from __future__ import annotations

import json
from pathlib import Path

from pytest_blackwell.cli import main
from pytest_blackwell.report.bugreport import render_bug_report, write_bug_reports
from pytest_blackwell.report.perfcell import perf_from_facts, perf_regressed, perf_text
from pytest_blackwell.report.perfplot import parse_rounds, rounds_svg

CASE = """
  <testcase classname="tests.test_perf" name="{name}">
    <properties>
      <property name="blackwell.device" value="NVIDIA GeForce RTX 5090"/>
      <property name="blackwell.compute_capability" value="12.0"/>
      <property name="blackwell.config" value="kv=fp8-seqs=1"/>
      <property name="blackwell.outcome" value="{outcome}"/>
      <property name="blackwell.perf.metric" value="output_tokens_per_s"/>
      <property name="blackwell.perf.ratio" value="{ratio}"/>
      <property name="blackwell.perf.ci_low" value="{low}"/>
      <property name="blackwell.perf.ci_high" value="{high}"/>
      <property name="blackwell.perf.verdict" value="{verdict}"/>
      <property name="blackwell.perf.variable" value="kv_cache_dtype"/>
      <property name="blackwell.perf.a" value="auto"/>
      <property name="blackwell.perf.b" value="fp8"/>
      <property name="blackwell.perf.a_rounds" value="100,102,98,101"/>
      <property name="blackwell.perf.b_rounds" value="{b_rounds}"/>
    </properties>{failure}
  </testcase>"""


def shard(path: Path, **values: str) -> Path:
    failure = '\n    <failure message="performance regression">slow</failure>'
    text = CASE.format(
        name="test_fp8_overhead",
        failure=failure if values["outcome"] == "failed" else "",
        **values,
    )
    path.write_text(f'<?xml version="1.0"?>\n<testsuite name="pytest">{text}\n</testsuite>\n')
    return path


SAME = {
    "outcome": "passed",
    "ratio": "0.99",
    "low": "0.96",
    "high": "1.02",
    "verdict": "same",
    "b_rounds": "99,101,97,100",
}
SLOWER = {
    "outcome": "failed",
    "ratio": "0.7",
    "low": "0.66",
    "high": "0.74",
    "verdict": "slower",
    "b_rounds": "70,71,68,72",
}


def test_matrix_cells_show_the_ratio_and_html_draws_the_rounds(tmp_path: Path) -> None:
    same = shard(tmp_path / "same.xml", **SAME)
    out = tmp_path / "m.html"
    assert main(["matrix", str(same), "--format", "html", "-o", str(out)]) == 0
    html = out.read_text()
    assert "pass 0.99x" in html
    assert html.count("<svg") == 1
    assert html.count("<circle") == 8  # every round of both values
    assert "kv_cache_dtype=fp8" in html
    md = tmp_path / "m.md"
    assert main(["matrix", str(shard(tmp_path / "slow.xml", **SLOWER)), "-o", str(md)]) == 0
    assert "slower 0.70x" in md.read_text()


def test_baseline_flags_a_ratio_that_fell_beyond_both_intervals(tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.json"
    old = shard(tmp_path / "old.xml", **SAME)
    assert main(["matrix", str(old), "--format", "json", "-o", str(baseline)]) == 0
    cells = json.loads(baseline.read_text())["rows"][0]["cells"]
    assert next(iter(cells.values()))["perf"]["ci_low"] == 0.96
    # Slightly lower, within the noise of both runs: not a regression.
    noisy = shard(tmp_path / "noisy.xml", **{**SAME, "ratio": "0.97", "low": "0.94", "high": "1.0"})
    assert main(["matrix", str(noisy), "--baseline", str(baseline), "--fail-on-regression"]) == 0
    # Still passing its own tolerance, but clearly below last run: flagged.
    drop = {**SAME, "ratio": "0.91", "low": "0.9", "high": "0.93"}
    dropped = shard(tmp_path / "drop.xml", **drop)
    report = tmp_path / "diff.md"
    args = ["matrix", str(dropped), "--baseline", str(baseline), "-o", str(report)]
    assert main([*args, "--fail-on-regression"]) == 1
    text = report.read_text()
    assert "pass 0.91x (regression, was pass 0.99x)" in text


def test_perf_cell_helpers() -> None:
    facts = {
        "perf.metric": "ttft_p50_s",
        "perf.median": "0.02",
        "perf.min": "0.018",
        "perf.max": "0.025",
    }
    perf = perf_from_facts(facts)
    assert perf is not None
    assert perf_text("pass", perf) == "pass 0.02"
    worse = {"metric": "ttft_p50_s", "median": 0.04, "min": 0.035, "max": 0.05}
    assert perf_regressed(perf, worse)  # a latency that doubled
    assert not perf_regressed(worse, perf)
    assert not perf_regressed(perf, {**worse, "metric": "tpot_p50_s"})
    assert perf_from_facts({"perf.metric": "x", "perf.ratio": "abc"}) is None
    assert perf_from_facts({"config": "a"}) is None
    assert parse_rounds("1.5, 2,3") == [1.5, 2.0, 3.0]
    assert parse_rounds("1,x") == []


def test_svg_is_self_contained_and_escaped() -> None:
    svg = rounds_svg("tokens/s", [("a=<auto>", [1.0, 2.0]), ("b", [3.0])])
    assert svg.startswith('<svg xmlns="http://www.w3.org/2000/svg"')
    assert "a=&lt;auto&gt;" in svg
    assert svg.count("<circle") == 3
    assert rounds_svg("m", [("a", [])]) == ""


def comparison_entry(verdict: str) -> dict[str, object]:
    return {
        "config_id": "seqs=1",
        "config": {"max_num_seqs": 1, "engine_args": {}, "env": {}},
        "outcome": "passed",
        "launches": 1,
        "tests": ["t.py::test_batching"],
        "perf": [
            {
                "test": "t.py::test_batching",
                "variable": "max_num_seqs",
                "values": ["8", "1"],
                "config_ids": ["seqs=8", "seqs=1"],
                "workload": {"prompts": 8, "max_tokens": 16},
                "coexist": True,
                "comparison": {
                    "metric": "output_tokens_per_s",
                    "ratio": 0.3,
                    "ci_low": 0.28,
                    "ci_high": 0.33,
                    "verdict": verdict,
                    "max_slowdown": 0.1,
                    "rounds": 3,
                    "a_values": [900.0, 910.0, 905.0],
                    "b_values": [270.0, 280.0, 300.0],
                },
                "summary": {
                    "a": {
                        "output_tokens_per_s": {
                            "median": 905,
                            "min": 900,
                            "max": 910,
                            "spread": 0.01,
                        }
                    },
                    "b": {
                        "output_tokens_per_s": {
                            "median": 280,
                            "min": 270,
                            "max": 300,
                            "spread": 0.1,
                        }
                    },
                },
            }
        ],
    }


def test_a_slower_configuration_gets_a_bug_report_with_the_plot(tmp_path: Path) -> None:
    results = {
        "configs": [comparison_entry("slower"), {**comparison_entry("same"), "config_id": "x"}]
    }
    written = write_bug_reports(results, tmp_path)
    assert [p.name for p in written] == ["seqs=1.md"]
    text = written[0].read_text()
    assert text.startswith("# performance regression: configuration `seqs=1`")
    assert "## Performance comparison" in text
    assert "ratio B/A: **0.300** (95% CI 0.280-0.330, 3 paired rounds): **slower**" in text
    assert text.count("<circle") == 6
    assert "| max_num_seqs=1 | output_tokens_per_s | 280 | 270 | 300 | 10.0% |" in text
    assert "## Performance comparison" in render_bug_report(comparison_entry("same"))
