# The public names of pytest_blackwell.report, each listed once: __init__.py reads this list.
from pytest_blackwell.report.bugreport import render_bug_report as render_bug_report
from pytest_blackwell.report.bugreport import write_bug_reports as write_bug_reports
from pytest_blackwell.report.envinfo import collect_environment as collect_environment
from pytest_blackwell.report.envinfo import suite_properties as suite_properties
from pytest_blackwell.report.matrix import Matrix as Matrix
from pytest_blackwell.report.matrix import MatrixError as MatrixError
from pytest_blackwell.report.matrix import apply_baseline as apply_baseline
from pytest_blackwell.report.matrix import build_matrix as build_matrix
from pytest_blackwell.report.matrix import load_baseline as load_baseline
from pytest_blackwell.report.matrix import read_shards as read_shards
from pytest_blackwell.report.redact import REDACTED as REDACTED
from pytest_blackwell.report.redact import Redactor as Redactor
from pytest_blackwell.report.redact import is_secret_name as is_secret_name
from pytest_blackwell.report.render import render as render
from pytest_blackwell.report.xmltext import facts_to_properties as facts_to_properties
from pytest_blackwell.report.xmltext import sanitize_text as sanitize_text
