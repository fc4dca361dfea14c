"""Sizes in bytes: one meaning per unit word, whoever wrote it.

- ``KiB``, ``MiB``, ``GiB``, ``TiB`` (and a bare ``K``/``M``/``G``/``T``) are powers of 1024,
  everywhere.
- In a setting a person writes (a marker argument, an option, an ini value), ``kB``, ``MB``,
  ``GB``, ``TB`` are powers of 1000, as SI and IEC define them: :func:`parse_size`.
- In a log, a bare ``MB``/``GB`` means what the library that printed it meant: vLLM computes
  ``Loading model weights took 14.9888 GB`` as bytes / 2**30, and torch's allocator prints
  ``MiB``/``GiB``; so a log's ``MB``/``GB`` are powers of 1024: :func:`parse_logged_size`.
- A GPU vendor's "GB" of memory (the "80GB" of an H100 80GB) is a GiB: memory chips come in
  binary sizes (an A100 80GB reports exactly 80 GiB). A device reports up to about 6.3% less
  than its label: the driver keeps some, and ECC on GDDR memory takes 1/16 (an L40S sold as
  48 GB reports 44.99 GiB). :func:`vendor_gb` is the label in bytes; :func:`holds_vendor_gb`
  tells whether a device's reported memory is that of a GPU sold with at least that label.

Nothing here imports anything of the package: every layer may use it.
"""

from __future__ import annotations

import re

KIB = 1024
MIB = 1024**2
GIB = 1024**3
TIB = 1024**4

#: Unit words (lower case) in a setting: binary with ``i`` or without ``B``, decimal with ``B``.
_SETTING_UNITS: dict[str, int] = {
    "": 1,
    "b": 1,
    "k": KIB,
    "kib": KIB,
    "m": MIB,
    "mib": MIB,
    "g": GIB,
    "gib": GIB,
    "t": TIB,
    "tib": TIB,
    "kb": 1000,
    "mb": 1000**2,
    "gb": 1000**3,
    "tb": 1000**4,
}
#: Unit words (lower case) in a log: every multiple is binary, as vLLM and torch print them.
_LOG_UNITS: dict[str, int] = {
    **dict.fromkeys(("", "b", "byte", "bytes"), 1),
    **dict.fromkeys(("k", "kb", "kib"), KIB),
    **dict.fromkeys(("m", "mb", "mib"), MIB),
    **dict.fromkeys(("g", "gb", "gib"), GIB),
    **dict.fromkeys(("t", "tb", "tib"), TIB),
}
_SETTING_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$")
_LOG_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGT]?i?B|bytes?|[KMGT])?\s*$", re.IGNORECASE)

#: Reported bytes per labelled vendor GB that still count as that label: 10**9 of every 2**30
#: (the label less 6.9%, more than a driver's reserve and ECC's 1/16 take together).
_VENDOR_GB_FLOOR = 1000**3


def parse_size(value: int | str, *, what: str = "size") -> int:
    """Bytes from a setting: ``512MiB``, ``2GiB``, ``1.5G``, ``64MB`` (decimal) or a plain int.

    ``what`` names the value in the error message (e.g. the marker it came from); a value that
    is not a whole, non-negative number of bytes raises ``ValueError``.
    """
    if isinstance(value, bool):
        raise ValueError(f"{what}: expected a size like 512MiB, 2GiB or an int; got {value!r}")
    if isinstance(value, int):
        if value < 0:
            raise ValueError(f"{what}: expected a non-negative number of bytes; got {value}")
        return value
    if not isinstance(value, str):
        raise ValueError(
            f"{what}: expected a size like 512MiB, 2GiB or an int; got {type(value).__name__} "
            f"{value!r}"
        )
    match = _SETTING_RE.match(value)
    unit = match.group(2).lower() if match else None
    if match is None or unit not in _SETTING_UNITS:
        raise ValueError(
            f"{what}: cannot read {value!r} as a size; expected a number with an optional unit "
            f"(B, KiB, MiB, GiB, TiB, or decimal kB, MB, GB, TB), e.g. '512MiB' or '2GiB'"
        )
    number = float(match.group(1)) * _SETTING_UNITS[unit or ""]
    if number != int(number):
        raise ValueError(f"{what}: {value!r} is not a whole number of bytes")
    return int(number)


def parse_logged_size(text: str) -> int | None:
    """Bytes from a size a log printed: ``"20.00 MiB"`` -> 20971520, ``"1.5 GB"`` (vLLM's GiB)
    -> 1610612736, ``"232448"`` -> 232448; ``None`` when the text is not a size."""
    match = _LOG_RE.match(text)
    if not match:
        return None
    return int(float(match.group(1)) * _LOG_UNITS[(match.group(2) or "").lower()])


def format_size(nbytes: int) -> str:
    """Shortest exact binary form: ``64MiB``, ``2GiB``, ``1536KiB``, ``1000`` (bytes)."""
    for unit, factor in (("TiB", TIB), ("GiB", GIB), ("MiB", MIB), ("KiB", KIB)):
        if nbytes >= factor and nbytes % factor == 0:
            return f"{nbytes // factor}{unit}"
    return str(nbytes)


def vendor_gb(gb: float) -> int:
    """Bytes of memory a GPU labelled ``gb`` GB holds: ``vendor_gb(80)`` is 80 GiB."""
    return int(gb * GIB)


def holds_vendor_gb(total_memory_bytes: int, gb: float) -> bool:
    """Whether a device reporting ``total_memory_bytes`` is a GPU sold with ``gb`` GB or more.

    A device may report up to 6.9% less than its label (see the module docstring): an L40S
    (48 GB, 44.99 GiB reported) holds 48 GB, and so does a simulated 48 GiB profile.
    """
    return total_memory_bytes >= gb * _VENDOR_GB_FLOOR
