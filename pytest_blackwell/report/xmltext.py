"""Text that is safe inside JUnit XML, and per-test facts as ``blackwell.<key>`` properties.

XML 1.0 forbids NUL and most C0 control characters, lone surrogates and U+FFFE/U+FFFF; engine
logs contain all of them, plus ANSI colour codes and megabyte tracebacks. Everything written into
a JUnit file by this plugin goes through :func:`sanitize_text` first.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from pytest_blackwell.report.redact import Redactor

#: Property name prefix for everything this plugin writes into JUnit.
PROPERTY_PREFIX = "blackwell."

#: Per-test fact keys in the order they are written (others follow, sorted).
FACT_KEYS = (
    "device",
    "compute_capability",
    "config",
    "kv_cache_dtype",
    "attention_backend",
    "outcome",
    "category",
    "stage",
    "first_error",
    "follows",
)

#: Default bound for a property value (one line of facts) and for a failure text.
PROPERTY_LIMIT = 4096
TEXT_LIMIT = 256 * 1024

_ANSI_RE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor movement
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC: titles, hyperlinks
    r"|\x1b[@-Z\\-_]"  # two-character escapes
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
)
_XML_ILLEGAL_RE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff]"
)


def strip_ansi(text: str) -> str:
    """Remove ANSI escape sequences (colours, cursor movement, hyperlinks)."""
    return _ANSI_RE.sub("", text)


def decode_bytes(data: bytes) -> str:
    """UTF-8 with invalid sequences replaced by U+FFFD (never raises)."""
    return data.decode("utf-8", errors="replace")


def xml_safe(text: str) -> str:
    """Drop characters that XML 1.0 cannot carry; tab, newline and carriage return stay."""
    return _XML_ILLEGAL_RE.sub("", text)


def truncation_marker(dropped: int) -> str:
    return f"[... {dropped} characters truncated by pytest-blackwell ...]"


def truncate_text(text: str, limit: int = TEXT_LIMIT, *, keep: str | None = None) -> str:
    """Bound ``text`` to about ``limit`` characters with a visible marker.

    The head and the tail are kept at line boundaries. The *first error line* is never cut:
    that is the line containing ``keep`` when given and present, else the first non-empty line.
    If it lies in the dropped middle it is kept there, between two markers. Only a first error
    line that is itself longer than ``limit`` is cut (at ``limit``, with a marker).
    """
    if len(text) <= limit:
        return text
    lines = text.splitlines(keepends=True)
    anchor_index = _anchor_index(lines, keep)
    head_budget = max(limit * 2 // 3, 1)
    tail_budget = max(limit - head_budget, 0)

    head: list[str] = []
    used = 0
    for index, line in enumerate(lines):
        if used + len(line) > head_budget and not (index == anchor_index and not head):
            break
        head.append(line)
        used += len(line)
    tail: list[str] = []
    tail_used = 0
    for line in reversed(lines[len(head) :]):
        if tail_used + len(line) > tail_budget:
            break
        tail.append(line)
        tail_used += len(line)
    tail.reverse()
    middle_start, middle_end = len(head), len(lines) - len(tail)

    pieces = head[:]
    if head and not head[-1].endswith("\n"):
        pieces.append("\n")
    if middle_start <= anchor_index < middle_end:
        before = sum(len(x) for x in lines[middle_start:anchor_index])
        after = sum(len(x) for x in lines[anchor_index + 1 : middle_end])
        anchor = lines[anchor_index]
        if before:
            pieces.append(truncation_marker(before) + "\n")
        pieces.append(anchor if anchor.endswith("\n") else anchor + "\n")
        if after:
            pieces.append(truncation_marker(after) + "\n")
    elif middle_end > middle_start:
        dropped = sum(len(x) for x in lines[middle_start:middle_end])
        pieces.append(truncation_marker(dropped) + "\n")
    pieces.extend(tail)
    out = "".join(pieces)
    if len(out) > 2 * limit:  # a single first-error line longer than the limit itself
        out = out[:limit] + "\n" + truncation_marker(len(out) - limit) + "\n"
    return out


def _anchor_index(lines: list[str], keep: str | None) -> int:
    if keep:
        needle = keep.strip()
        for index, line in enumerate(lines):
            if needle and needle in line:
                return index
    for index, line in enumerate(lines):
        if line.strip():
            return index
    return 0


def sanitize_text(
    text: str | bytes,
    limit: int = TEXT_LIMIT,
    *,
    keep: str | None = None,
    redactor: Redactor | None = None,
) -> str:
    """Decode, strip ANSI, drop XML-illegal characters, redact, then truncate."""
    if isinstance(text, bytes):
        text = decode_bytes(text)
    text = xml_safe(strip_ansi(text))
    if redactor is not None:
        text = redactor.redact(text)
    return truncate_text(text, limit, keep=keep)


def property_value(value: Any, *, redactor: Redactor | None = None) -> str:
    """A fact as one plain, XML-safe, bounded ``str`` (lists are joined with ``, ``)."""
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, (list, tuple)):
        text = ", ".join(str(v) for v in value)
    else:
        text = str(value)
    return sanitize_text(text, PROPERTY_LIMIT, redactor=redactor)


def facts_to_properties(
    facts: Mapping[str, Any], *, redactor: Redactor | None = None
) -> list[tuple[str, str]]:
    """``{"config": "kv=fp8", ...}`` -> ``[("blackwell.config", "kv=fp8"), ...]``.

    Known keys first in :data:`FACT_KEYS` order, then the others sorted; ``None`` values are
    left out. Values are plain ``str`` so they cross xdist and pytest's JUnit writer unchanged.
    """
    ordered = [k for k in FACT_KEYS if k in facts] + sorted(k for k in facts if k not in FACT_KEYS)
    return [
        (PROPERTY_PREFIX + key, property_value(facts[key], redactor=redactor))
        for key in ordered
        if facts[key] is not None
    ]


def properties_to_facts(properties: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Inverse of :func:`facts_to_properties` for the ``blackwell.*`` entries (last one wins)."""
    return {
        name[len(PROPERTY_PREFIX) :]: value
        for name, value in properties
        if name.startswith(PROPERTY_PREFIX)
    }
