"""One rule of the classifier: :class:`Rule`, a signature of a failure category.

The built-in tables live in :mod:`pytest_blackwell.failures.rules` (the causes),
:mod:`pytest_blackwell.failures.rules_driver` (kernel driver lines) and
:mod:`pytest_blackwell.failures.rules_late` (relays, wrappers and generic exception lines); the
last two come after every cause.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pytest_blackwell.failures.detail import convert_groups
from pytest_blackwell.failures.needles import Needles, needles
from pytest_blackwell.failures.vocabulary import LIFECYCLE_STAGES

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
QUIET = ("DEBUG", "INFO", "WARNING")


@dataclass(frozen=True)
class Rule:
    """One signature of a failure category.

    ``pattern`` is a regular expression searched in the cleaned message (no timestamp, process
    tag or logger prefix); its named groups become ``Failure.detail`` (see
    :mod:`pytest_blackwell.failures.detail` for how values are typed). ``stage_hint`` names the
    stage this error belongs to when the log's own stage markers say less (the later of the two
    wins). ``wrapper`` marks lines that only point at an earlier root cause; ``weak`` marks relays
    that a more specific cause in the same error block replaces. ``keywords`` are literal strings
    one of which appears in every line the pattern can match, for lines that carry no error word
    (``error``, ``Error``, ``ERROR``, ``Traceback``): the fast scan only looks closely at lines
    containing a keyword. ``ignore_at`` lists log levels at which the rule does not apply (for
    text that vLLM also logs harmlessly as a warning). ``fixed_detail`` is added to every match.
    """

    name: str
    category: str
    pattern: str
    stage_hint: str | None = None
    wrapper: bool = False
    weak: bool = False
    keywords: tuple[str, ...] = ()
    ignore_at: tuple[str, ...] = ()
    fixed_detail: tuple[tuple[str, Any], ...] = ()
    regex: re.Pattern[str] = field(init=False, repr=False, compare=False)
    needles: Needles = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        where = f"rule {self.name!r}"
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"rule name must be a non-empty string, got {self.name!r}")
        if not isinstance(self.category, str) or not _NAME.match(self.category):
            raise ValueError(
                f"{where}: category must be a lower_snake name such as 'device_oom', "
                f"got {self.category!r}"
            )
        if self.stage_hint is not None and self.stage_hint not in LIFECYCLE_STAGES:
            raise ValueError(
                f"{where}: stage_hint must be one of {', '.join(LIFECYCLE_STAGES)} or None, "
                f"got {self.stage_hint!r}"
            )
        if isinstance(self.keywords, str) or not all(
            isinstance(k, str) and k for k in self.keywords
        ):
            raise ValueError(f"{where}: keywords must be a tuple of non-empty strings")
        try:
            compiled = re.compile(self.pattern)
        except (re.error, TypeError) as exc:
            raise ValueError(
                f"{where}: pattern {self.pattern!r} is not a valid regular expression: {exc}"
            ) from None
        object.__setattr__(self, "regex", compiled)
        object.__setattr__(self, "needles", needles(self.pattern))

    def match(
        self, text: str, level: str = "", lowered: str | None = None
    ) -> dict[str, Any] | None:
        """The detail of a match of this rule in ``text`` (logged at ``level``), else ``None``.

        ``lowered`` is ``text.lower()`` when the caller has it (for the literal pre-test).
        """
        if level and level in self.ignore_at:
            return None
        if not self.needles.admits(text, lowered):
            return None
        m = self.regex.search(text)
        if m is None:
            return None
        detail = convert_groups(m.groupdict())
        for key, value in self.fixed_detail:
            detail.setdefault(key, value)
        return detail


def checked_rules(rules: Iterable[object]) -> tuple[Rule, ...]:
    """``rules`` as a tuple, after checking that each is a :class:`Rule`."""
    checked = []
    for item in rules:
        if not isinstance(item, Rule):
            raise TypeError(f"rules must be Rule objects, got {type(item).__name__}: {item!r}")
        checked.append(item)
    return tuple(checked)


#: A program that builds its kernels at run time reporting the compiler it launched (OpenMM's
#: "Error launching CUDA compiler: 256"); read by the missing-compiler rule and its wrapper.
COMPILER_LAUNCH = r"\bError launching (?:the )?(?:CUDA |HIP )?compiler\b"

#: Triton server giving its pinned memory pool up, the reason after it ("... will not be
#: available: CUDA driver version is insufficient ..."): read by its precursor rule, and left to
#: it by the causes the reason names (fixed width, for their look-behind).
PINNED_POOL = "pinned memory pool will not be available: "


def rule(name: str, category: str, pattern: str, **kw: Any) -> Rule:
    return Rule(name, category, pattern, **kw)
