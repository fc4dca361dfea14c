"""Failure vocabulary and first-error classification of engine logs.

``classify_log(path_or_lines)`` names the first error of a log: its category, the stage it
happened in, the line that carries it, structured detail and its traceback.
``StreamClassifier`` does the same incrementally for a log that is still being written.
"""

from __future__ import annotations

from pytest_blackwell.failures.classify import StreamClassifier
from pytest_blackwell.failures.model import Failure
from pytest_blackwell.failures.rules import DEFAULT_RULES, Rule
from pytest_blackwell.failures.scan import LogReadError, classify_log, classify_stream
from pytest_blackwell.failures.vocabulary import CATEGORIES, STAGES

__all__ = [
    "CATEGORIES",
    "DEFAULT_RULES",
    "STAGES",
    "Failure",
    "LogReadError",
    "Rule",
    "StreamClassifier",
    "classify_log",
    "classify_stream",
]
