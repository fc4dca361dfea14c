"""pytest glue for pytest-html: device, configuration, category and stage as report columns.

Active only when pytest-html writes a report (``--html``). The values travel on each report's
``user_properties`` (``blackwell.device`` ...), so they reach the xdist controller too.
"""

from __future__ import annotations

import html
from collections.abc import Generator
from typing import Any

import pytest

from pytest_blackwell.plugin.settings import (
    report_facts,
)

#: (column title, fact name) in the order the columns appear, after the test's name.
COLUMNS = (
    ("Device", "device"),
    ("Configuration", "config"),
    ("Category", "category"),
    ("Stage", "stage"),
)
_PREFIX = "blackwell."


def pytest_configure(config: pytest.Config) -> None:
    if config.pluginmanager.hasplugin("html") and config.getoption("htmlpath", None):
        config.pluginmanager.register(HtmlColumns(), "blackwell-html")


def column_values(properties: list[tuple[str, object]]) -> list[str]:
    """The cells of one row, from a report's ``user_properties`` (empty when not recorded)."""
    found = dict(properties)
    return [
        "" if found.get(_PREFIX + key) is None else str(found[_PREFIX + key]) for _, key in COLUMNS
    ]


class HtmlColumns:
    """The pytest-html hooks (only registered when pytest-html is writing a report)."""

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        facts = report_facts(item)
        if facts and report.when in ("setup", "call"):
            present = {name for name, _ in report.user_properties}
            report.user_properties.extend(
                (_PREFIX + key, str(facts[key]))
                for _, key in COLUMNS
                if facts.get(key) is not None and _PREFIX + key not in present
            )
        return report

    def pytest_html_results_table_header(self, cells: list[str]) -> None:
        at = min(2, len(cells))
        cells[at:at] = [f"<th>{title}</th>" for title, _ in COLUMNS]

    def pytest_html_results_table_row(self, report: Any, cells: list[str]) -> None:
        at = min(2, len(cells))
        values = column_values(list(getattr(report, "user_properties", [])))
        cells[at:at] = [f'<td class="col-blackwell">{html.escape(v)}</td>' for v in values]
