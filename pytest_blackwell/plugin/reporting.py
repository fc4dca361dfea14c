"""pytest glue for reports: JUnit testcase/testsuite properties and the terminal matrix.

The hooks are methods of :class:`ReportPlugin`, registered once in ``pytest_configure``
(:func:`register`). Each delegates to small helpers in :mod:`pytest_blackwell.report`; nothing
here launches an engine.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

import pytest

from pytest_blackwell.plugin.runtime import (
    devices_of,
)
from pytest_blackwell.plugin.settings import (
    report_facts,
    xdist_worker,
)
from pytest_blackwell.report.redact import Redactor
from pytest_blackwell.report.xmltext import (
    TEXT_LIMIT,
    facts_to_properties,
    properties_to_facts,
    sanitize_text,
)

if TYPE_CHECKING:
    from pytest_blackwell.report.matrix import Observation

PLUGIN_NAME = "blackwell-report"

#: The test's outcome so far (setup/call), kept until the teardown report carries the properties.
_OUTCOME_KEY = pytest.StashKey[str]()


def pytest_configure(config: pytest.Config) -> None:
    register(config)


def register(config: pytest.Config) -> None:
    """Register the report plugin once."""
    if not config.pluginmanager.has_plugin(PLUGIN_NAME):
        config.pluginmanager.register(ReportPlugin(config), PLUGIN_NAME)


def phase_outcome(report: pytest.TestReport) -> str | None:
    """What a phase report says about the test: ``passed``/``failed``/``skipped``/xfail."""
    wasxfail = hasattr(report, "wasxfail")
    if report.failed:
        return "failed"
    if report.skipped:
        return "expected_failure" if wasxfail else "skipped"
    if report.when == "call":
        return "passed"
    return None


def final_outcome(phase_outcomes: str | None, facts: dict[str, Any]) -> str:
    """``blackwell.outcome``: a passing test whose facts say ``expected_failure`` is one."""
    outcome = phase_outcomes or "passed"
    if outcome == "passed" and facts.get("outcome") == "expected_failure":
        return "expected_failure"
    return outcome


class ReportPlugin:
    """Adds ``blackwell.*`` properties to JUnit and prints the local matrix."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.redactor = Redactor.from_environ()
        self.observations: list[Observation] = []

    # -- testcase properties ------------------------------------------------------------------

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        # Recorded for every test: facts may appear only in a later phase.
        outcome = phase_outcome(report)
        if report.when == "setup" and _OUTCOME_KEY in item.stash:
            del item.stash[_OUTCOME_KEY]  # a rerun (pytest-rerunfailures) starts afresh
        if outcome is not None and item.stash.get(_OUTCOME_KEY, None) in (None, "passed"):
            item.stash[_OUTCOME_KEY] = outcome
        facts = report_facts(item)
        if facts is None:
            return report
        if report.failed and report.longrepr is not None:
            self._rewrite_failure(report, facts)
        report.sections = [
            (title, self.redactor.redact(content)) for title, content in report.sections
        ]
        if report.when == "teardown":
            # pytest's JUnit writer takes user properties from the teardown report.
            self._add_properties(item, report, facts)
        return report

    def _add_properties(
        self, item: pytest.Item, report: pytest.TestReport, facts: dict[str, Any]
    ) -> None:
        merged = dict(facts)
        devices = devices_of(item.config)
        if devices:
            merged.setdefault("device", devices[0].name)
            merged.setdefault("compute_capability", devices[0].cc_string or "none")
        merged["outcome"] = final_outcome(item.stash.get(_OUTCOME_KEY, None), facts)
        present = {name for name, _ in report.user_properties}
        report.user_properties.extend(
            (name, value)
            for name, value in facts_to_properties(merged, redactor=self.redactor)
            if name not in present
        )

    def _rewrite_failure(self, report: pytest.TestReport, facts: dict[str, Any]) -> None:
        """Redact a failure text, and cut it when it is megabytes long.

        Only a text that changes is replaced: then the crash message's first line (the classified
        summary) comes first, so it stays the JUnit failure message, and it is kept whole inside
        a cut text too. Captured output is redacted by the caller.
        """
        text = report.longreprtext
        huge = len(text) > TEXT_LIMIT
        redacted = self.redactor.redact(text) if not huge else text
        if not huge and redacted == text:
            return
        crash = getattr(getattr(report.longrepr, "reprcrash", None), "message", None)
        message = sanitize_text(str(crash or facts.get("first_error") or ""), TEXT_LIMIT)
        first = self.redactor.redact(message.strip("\n").partition("\n")[0])
        if huge:
            body = sanitize_text(text, TEXT_LIMIT, keep=first or None, redactor=self.redactor)
        else:
            body = redacted
        report.longrepr = f"{first}\n{body}" if first else body

    # -- local matrix -------------------------------------------------------------------------

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        # Runs in the xdist controller too, where the worker's properties arrive with the report.
        if report.when != "teardown":
            return
        facts = properties_to_facts((str(n), str(v)) for n, v in report.user_properties)
        if not facts:
            return
        config = facts.get("config", "")
        device = facts.get("device", "")
        from pytest_blackwell.report.matrix import (
            OUTCOME_STATUS,
            Observation,
            cell_from_facts,
            column_label,
            row_test_name,
        )

        test = row_test_name("", report.nodeid, config, [device])
        status = OUTCOME_STATUS.get(facts.get("outcome", ""), "pass")
        column = column_label(device, facts.get("compute_capability"))
        # A rerun (pytest-rerunfailures) reports the same test again: the last attempt counts.
        self.observations = [
            o for o in self.observations if (o.test, o.config, o.column) != (test, config, column)
        ]
        self.observations.append(
            Observation(
                test=test,
                config=config,
                column=column,
                cell=cell_from_facts(facts, status, None),
                device=device,
                compute_capability=facts.get("compute_capability"),
            )
        )

    def pytest_terminal_summary(
        self, terminalreporter: pytest.TerminalReporter, exitstatus: int
    ) -> None:
        verbosity = self.config.get_verbosity()
        if not self.observations or verbosity <= -2:
            return
        failures_only = verbosity < 0
        from pytest_blackwell.report.matrix import build_matrix
        from pytest_blackwell.report.render import render_text

        lines = render_text(build_matrix(self.observations), failures_only=failures_only)
        if not lines:
            return
        title = "blackwell matrix" + (" (failures)" if failures_only else "")
        terminalreporter.write_sep("=", title)
        for line in lines:
            terminalreporter.write_line(self.redactor.redact(line))

    # -- testsuite properties -----------------------------------------------------------------

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        # Before pytest's JUnit writer (a plain hook implementation) writes the file.
        if xdist_worker(self.config) is not None:
            return  # xdist worker: the controller writes the suite properties once
        logxml = find_logxml(self.config)
        if logxml is None:
            return
        devices = devices_of(self.config)
        from pytest_blackwell.report.envinfo import collect_environment, suite_properties

        environment = collect_environment(devices, redactor=self.redactor)
        for name, value in suite_properties(devices, environment):
            logxml.add_global_property(name, sanitize_text(value, redactor=self.redactor))


def find_logxml(config: pytest.Config) -> Any:
    """pytest's JUnit writer among the registered plugins (it has ``add_global_property``)."""
    for plugin in config.pluginmanager.get_plugins():
        if callable(getattr(plugin, "add_global_property", None)) and hasattr(
            plugin, "global_properties"
        ):
            return plugin
    return None
