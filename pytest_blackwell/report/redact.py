"""Secret redaction for everything that lands in a report, a log copy, JUnit or the terminal.

Secrets are recognised two ways:

- by *name*: environment variables such as ``HF_TOKEN``, ``AWS_SECRET_ACCESS_KEY``, command
  arguments such as ``--api-key``, ``NAME=value`` assignments and ``api_key='...'`` reprs;
- by *value*: a :class:`Redactor` built from the environment knows the values of every
  secret-looking variable and replaces them wherever they appear, even in a log line that never
  names the variable. Well-known token shapes (``hf_...``, ``sk-...``, ``ghp_...``), credentials
  inside URLs and ``Bearer`` tokens are replaced by pattern.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

#: What a secret is replaced with.
REDACTED = "[REDACTED]"

#: Secret values shorter than this are not replaced by value (too likely to hit ordinary text).
MIN_SECRET_LENGTH = 6

#: ``*_TOKEN``, ``*_KEY`` (suffixes, so ``MAX_NUM_BATCHED_TOKENS`` is not one), ``*SECRET*``,
#: ``*PASSWORD*``.
_SECRET_NAME_RE = re.compile(
    r"(?:(?:^|_)(?:TOKEN|KEY|APIKEY|AUTH)$|SECRET|PASSWORD|PASSWD|CREDENTIAL)", re.I
)

#: Command-line options whose value is a secret: ``--api-key X``, ``--hf-token=X``.
_OPTION_NAME = r"--?[A-Za-z0-9_-]*?(?:api[-_]?key|token|secret|password|passwd)"
_OPTION_RE = re.compile(rf"(?P<opt>{_OPTION_NAME})(?P<sep>=|[ \t]+)(?P<value>[^\s'\",]+)", re.I)
_OPTION_ONLY_RE = re.compile(rf"^{_OPTION_NAME}$", re.I)

#: ``HF_TOKEN=abc`` / ``export OPENAI_API_KEY="abc"`` in logs and shell lines.
_ASSIGN_RE = re.compile(
    r"\b(?P<name>[A-Z0-9_]*(?:_TOKEN|_KEY|SECRET[A-Z0-9_]*|PASSWORD[A-Z0-9_]*|PASSWD))\b"
    r"(?P<sep>\s*=\s*)(?P<quote>['\"]?)(?P<value>[^\s'\",)]+)"
)

#: ``api_key='abc'`` / ``"token": "abc"`` in Python reprs and JSON.
_KEYWORD_RE = re.compile(
    r"(?P<name>['\"]?\b[A-Za-z0-9_]*(?:api_key|apikey|token|secret|password|passwd)['\"]?)"
    r"(?P<sep>\s*[:=]\s*)(?P<quote>['\"])(?P<value>[^'\"]+)(?P=quote)",
    re.I,
)

#: ``scheme://user:password@host``: the whole user-info part goes.
_URL_CREDENTIALS_RE = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)[^/\s:@]+:[^/\s@]+@")

#: ``Authorization: Bearer abc`` / ``Basic abc``.
_BEARER_RE = re.compile(r"\b(?P<kind>Bearer|Basic|Token)\s+(?P<value>[A-Za-z0-9._~+/=-]{8,})")

#: Token shapes issued by well-known services.
_TOKEN_SHAPES_RE = re.compile(
    r"\b(?:"
    r"hf_[A-Za-z0-9]{16,}"  # Hugging Face
    r"|sk-(?:proj-|ant-)?[A-Za-z0-9_-]{16,}"  # OpenAI / Anthropic style
    r"|gh[pousr]_[A-Za-z0-9]{20,}"  # GitHub
    r"|github_pat_[A-Za-z0-9_]{20,}"
    r"|glpat-[A-Za-z0-9_-]{20,}"  # GitLab
    r"|xox[abprs]-[A-Za-z0-9-]{10,}"  # Slack
    r"|AKIA[0-9A-Z]{16}"  # AWS access key id
    r"|nvapi-[A-Za-z0-9_-]{20,}"  # NVIDIA NGC
    r")"
)


def is_secret_name(name: str) -> bool:
    """True for variable or option names that hold credentials (``HF_TOKEN``, ``--api-key``)."""
    bare = name.lstrip("-").replace("-", "_")
    return bool(_SECRET_NAME_RE.search(bare))


def redact_patterns(text: str) -> str:
    """Replace secrets recognisable from the text alone (names, URLs, bearer tokens, shapes)."""
    text = _URL_CREDENTIALS_RE.sub(lambda m: f"{m['scheme']}{REDACTED}@", text)
    text = _BEARER_RE.sub(lambda m: f"{m['kind']} {REDACTED}", text)
    text = _OPTION_RE.sub(lambda m: f"{m['opt']}{m['sep']}{REDACTED}", text)
    text = _KEYWORD_RE.sub(
        lambda m: f"{m['name']}{m['sep']}{m['quote']}{REDACTED}{m['quote']}", text
    )
    text = _ASSIGN_RE.sub(lambda m: f"{m['name']}{m['sep']}{m['quote']}{REDACTED}", text)
    return _TOKEN_SHAPES_RE.sub(REDACTED, text)


class Redactor:
    """Replaces known secret values and secret-looking patterns in text, arguments and data.

    Build one with :meth:`from_environ`; it remembers the values of every secret-named
    environment variable so a token is caught even where its name does not appear.
    """

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        values = {s for s in secrets if isinstance(s, str) and len(s) >= MIN_SECRET_LENGTH}
        # Longest first, so a secret that contains another is replaced whole.
        self._values = sorted(values, key=len, reverse=True)
        self._value_re = (
            re.compile("|".join(re.escape(v) for v in self._values)) if self._values else None
        )

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] | None = None) -> Redactor:
        """A redactor that knows the values of every secret-named variable of ``environ``."""
        env = os.environ if environ is None else environ
        return cls(value for name, value in env.items() if is_secret_name(name))

    @property
    def known_secret_count(self) -> int:
        return len(self._values)

    def redact(self, text: str) -> str:
        """Known secret values first (by value), then the pattern rules."""
        if self._value_re is not None:
            text = self._value_re.sub(REDACTED, text)
        return redact_patterns(text)

    def redact_args(self, args: Sequence[str]) -> list[str]:
        """Redact an argument vector: ``["--api-key", "X"]`` and ``["--api-key=X"]`` alike."""
        out: list[str] = []
        hide_next = False
        for arg in args:
            if hide_next:
                out.append(REDACTED)
                hide_next = False
                continue
            if _OPTION_ONLY_RE.match(arg):
                hide_next = True
                out.append(arg)
                continue
            out.append(self.redact(arg))
        return out

    def redact_env(self, env: Mapping[str, str]) -> dict[str, str]:
        """Secret-named variables lose their value; every other value is redacted by value."""
        return {
            name: REDACTED if is_secret_name(name) else self.redact(str(value))
            for name, value in env.items()
        }

    def redact_data(self, data: Any) -> Any:
        """Recursively redact plain data (dicts, lists, str); keys named like secrets are hidden."""
        if isinstance(data, str):
            return self.redact(data)
        if isinstance(data, Mapping):
            return {
                key: (
                    REDACTED
                    if isinstance(key, str) and is_secret_name(key) and isinstance(value, str)
                    else self.redact_data(value)
                )
                for key, value in data.items()
            }
        if isinstance(data, (list, tuple)):
            return [self.redact_data(item) for item in data]
        return data
