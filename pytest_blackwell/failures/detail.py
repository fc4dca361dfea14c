"""Turn the named groups of a rule match into plain, typed detail values.

Conventions on group names (a trailing ``__2``, ``__3``... lets one pattern use a name twice):

- ``*_bytes``: a size, ``"20.00 MiB"`` or a bare number of bytes, becomes an ``int`` of bytes
  (a bare ``MB``/``GB`` is binary, as vLLM and torch print it: see :mod:`pytest_blackwell.units`);
- ``*_gib``: a number of GiB becomes ``<name>_bytes``, an ``int`` of bytes;
- ``compute_capability`` / ``*_capability``: ``"120"``, ``"sm_120a"``, ``"12.0"`` become ``"12.0"``;
- ``signal``: ``"11"``, ``"SIGSEGV"``, ``"Segmentation fault"`` become ``"SIGSEGV"``;
- ``exit_code``: an ``int``; a negative code or a shell code above 128 also sets ``signal``;
- anything else: digits become ``int``, decimals ``float``, other text stays ``str``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pytest_blackwell.units import parse_logged_size

_CAPABILITY = re.compile(r"(\d+)(?:[.,]\s*(\d+))?")
_SIGNAL_NUMBERS = {
    1: "SIGHUP", 2: "SIGINT", 4: "SIGILL", 6: "SIGABRT", 7: "SIGBUS", 8: "SIGFPE",
    9: "SIGKILL", 11: "SIGSEGV", 13: "SIGPIPE", 15: "SIGTERM",
}  # fmt: skip
_SIGNAL_WORDS = {
    "segmentation fault": "SIGSEGV", "segfault": "SIGSEGV", "aborted": "SIGABRT",
    "abort": "SIGABRT", "killed": "SIGKILL", "bus error": "SIGBUS",
    "illegal instruction": "SIGILL", "floating point exception": "SIGFPE",
    "terminate called": "SIGABRT",
}  # fmt: skip


def normalize_capability(text: str) -> str:
    """``"120"`` / ``"sm_120a"`` / ``"(12, 0)"`` / ``"12.0"`` -> ``"12.0"``."""
    m = _CAPABILITY.search(text)
    if not m:
        return text.strip()
    major, minor = m.group(1), m.group(2)
    if minor is None:
        if len(major) <= 1:
            return f"{major}.0"
        major, minor = major[:-1], major[-1]
    return f"{int(major)}.{int(minor)}"


def normalize_signal(text: str) -> str:
    """``"11"`` / ``"-11"`` / ``"SIGSEGV"`` / ``"Segmentation fault"`` -> ``"SIGSEGV"``."""
    word = text.strip()
    if word.lstrip("-").isdigit():
        number = abs(int(word))
        return _SIGNAL_NUMBERS.get(number, f"signal {number}")
    if word.upper().startswith("SIG"):
        return word.upper()
    return _SIGNAL_WORDS.get(word.lower(), word)


def _plain(text: str) -> Any:
    stripped = text.strip()
    if stripped.lstrip("-").isdigit():
        return int(stripped)
    try:
        return float(stripped) if re.fullmatch(r"-?\d+\.\d+", stripped) else stripped
    except ValueError:  # pragma: no cover - fullmatch guards the conversion
        return stripped


def convert_groups(groups: Mapping[str, str | None]) -> dict[str, Any]:
    """Convert a match's named groups into detail values (see the module docstring)."""
    detail: dict[str, Any] = {}
    for raw_name, value in groups.items():
        if value is None:
            continue
        name = raw_name.split("__", 1)[0]
        if name in detail:
            continue
        if name.endswith("_gib"):
            size = parse_logged_size(value + " GiB")
            detail[name[: -len("_gib")] + "_bytes"] = size if size is not None else value
        elif name.endswith("_bytes"):
            size = parse_logged_size(value)
            detail[name] = size if size is not None else value.strip()
        elif name.endswith("capability"):
            detail[name] = normalize_capability(value)
        elif name == "signal":
            detail[name] = normalize_signal(value)
        elif name == "exit_code":
            code = int(value)
            detail[name] = code
            if code < 0:
                detail.setdefault("signal", normalize_signal(str(code)))
            elif 128 < code < 160:
                detail.setdefault("signal", normalize_signal(str(code - 128)))
        else:
            detail[name] = _plain(value)
    return detail
