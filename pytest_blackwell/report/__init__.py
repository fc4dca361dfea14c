"""Reports: environment fingerprint, redaction, JUnit-safe text, CI matrix and bug reports.

Nothing in this package launches an engine or imports torch/vLLM; junitparser is imported only
where shards are read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_blackwell._lazy import lazy_getattr

if TYPE_CHECKING:
    from pytest_blackwell.report.bugreport import render_bug_report, write_bug_reports
    from pytest_blackwell.report.envinfo import collect_environment, suite_properties
    from pytest_blackwell.report.matrix import (
        Matrix,
        MatrixError,
        apply_baseline,
        build_matrix,
        load_baseline,
        read_shards,
    )
    from pytest_blackwell.report.redact import REDACTED, Redactor, is_secret_name
    from pytest_blackwell.report.render import render
    from pytest_blackwell.report.xmltext import facts_to_properties, sanitize_text

_LAZY = {
    "render_bug_report": "bugreport",
    "write_bug_reports": "bugreport",
    "collect_environment": "envinfo",
    "suite_properties": "envinfo",
    "Matrix": "matrix",
    "MatrixError": "matrix",
    "apply_baseline": "matrix",
    "build_matrix": "matrix",
    "load_baseline": "matrix",
    "read_shards": "matrix",
    "REDACTED": "redact",
    "Redactor": "redact",
    "is_secret_name": "redact",
    "render": "render",
    "facts_to_properties": "xmltext",
    "sanitize_text": "xmltext",
}

__getattr__ = lazy_getattr(__name__, _LAZY)

__all__ = [
    "REDACTED",
    "Matrix",
    "MatrixError",
    "Redactor",
    "apply_baseline",
    "build_matrix",
    "collect_environment",
    "facts_to_properties",
    "is_secret_name",
    "load_baseline",
    "read_shards",
    "render",
    "render_bug_report",
    "sanitize_text",
    "suite_properties",
    "write_bug_reports",
]
