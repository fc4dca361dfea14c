"""What the sub-commands share: the input-error exit, reading JSON files, picking a config."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

#: Exit status of a command whose input (a file, an option) cannot be used.
EXIT_INPUT_ERROR = 2


def input_error(command: str, message: str) -> int:
    """Say what is wrong with the input on stderr; return :data:`EXIT_INPUT_ERROR`."""
    print(f"pytest-blackwell {command}: error: {message}", file=sys.stderr)
    return EXIT_INPUT_ERROR


def read_json(path: Path) -> Any:
    """The JSON in ``path``; ``ValueError`` naming the file when it is unreadable or not JSON."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise ValueError(f"{path} is not JSON: {exc}") from None


def pick_config(entries: Sequence[Mapping[str, Any]], config_id: str, path: Path) -> Any:
    """The results.json entry with id ``config_id``; ``ValueError`` listing the known ids."""
    for entry in entries:
        if entry.get("config_id") == config_id:
            return entry
    known = ", ".join(str(e.get("config_id")) for e in entries) or "none"
    raise ValueError(f"no configuration {config_id!r} in {path}; known: {known}")
