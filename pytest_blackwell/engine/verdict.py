"""Judging a one-variable comparison: exactly what each variable was shown to do.

Pure logic on plain data (no engine runs here). :func:`judge` takes the base's result, the
result of a second launch of the base, and one :class:`Trial` per variant, and returns a
:class:`Comparison` whose :meth:`Comparison.to_dict` is the one result schema: what lands under
``isolation`` in ``results.json``, what the bug report and the terminal table render, and what
``python -m pytest_blackwell isolate --json`` prints.

Per variant (a row's ``effect``): ``outcome`` (fails <-> passes), ``category`` (another failure,
met past the base's failing stage), ``stage`` (the same failure at another stage), ``performance``
(both pass, tokens/s differ), ``none``, or ``unrelated`` (the variant failed before it could show
anything: an earlier stage, a setup error, a backend vLLM did not run).

Per variable (a verdict's ``effect``): ``outcome`` > ``category`` > ``inconclusive`` > ``stage`` >
``performance`` > ``nothing`` (the tried values cover the range that matters) or ``not_shown``
(they do not), and ``not_varied`` when there was no other value to try. ``follows`` lists the
variables whose verdict is ``outcome`` or ``category``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pytest_blackwell.engine.variables import MEMORY, describe, human_size
from pytest_blackwell.failures.vocabulary import STAGES

if TYPE_CHECKING:
    from pytest_blackwell.engine.result import EngineResult

#: Both variants pass and tokens/s differ by more than this factor: "only performance changes".
PERFORMANCE_FACTOR = 0.9
#: Characters of a first error kept in a row and in an inconclusive verdict.
ERROR_CHARS = 200
#: Categories that say the run could not be set up, not what the configuration does.
SETUP_CATEGORIES = ("env_mismatch",)
#: Verdict effects that mean "the failure follows this variable".
FOLLOWING = ("outcome", "category")


@dataclass(frozen=True)
class Trial:
    """One launch in the comparison: the base (``variable`` ``base``) or one variant."""

    variable: str
    setting: str | None
    value: Any
    config_id: str
    result: EngineResult
    budget_bytes: int | None = None

    @property
    def label(self) -> str:
        return "base" if self.setting is None else f"{self.setting}={self.shown}"

    @property
    def shown(self) -> str:
        return describe(self.setting or "", self.value)


@dataclass(frozen=True)
class MemoryScope:
    """How far a memory search could go: the setting varied, its ceiling and where that came
    from, and the relative precision of a threshold."""

    setting: str
    ceiling: Any
    ceiling_source: str
    precision: float
    searched: bool


@dataclass(frozen=True)
class Comparison:
    """A finished comparison (see the module docstring)."""

    base: str
    status: str
    summary: str
    follows: tuple[str, ...]
    verdicts: tuple[dict[str, Any], ...]
    runs: tuple[dict[str, Any], ...]
    launch_bound: int | None = None
    memory: dict[str, Any] | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def follows_text(self) -> str:
        """``kv_cache_dtype`` / ``kv_cache_dtype,memory_budget`` / ``none`` (JUnit, records)."""
        return ",".join(self.follows) or "none"

    def verdict(self, variable: str) -> dict[str, Any]:
        return next(v for v in self.verdicts if v["variable"] == variable)

    def to_dict(self) -> dict[str, Any]:
        return {
            "base": self.base,
            "status": self.status,
            "summary": self.summary,
            "follows": self.follows_text,
            "verdicts": [dict(v) for v in self.verdicts],
            "runs": [dict(r) for r in self.runs],
            "launches": len(self.runs),
            "launch_bound": self.launch_bound,
            "memory": self.memory,
            "notes": list(self.notes),
        }


def signature(result: EngineResult) -> str:
    """``passed``, ``kv_cache_oom at kv_alloc``, or ``not run``."""
    failure = result.failure
    if failure is not None:
        return f"{failure.category} at {failure.stage}"
    return "passed" if result.ok else "not run"


def _stage_index(stage: str) -> int:
    return STAGES.index(stage) if stage in STAGES else -1


def _relative(base: EngineResult, result: EngineResult) -> float | None:
    if not (base.ok and result.ok and base.tokens_per_s and result.tokens_per_s):
        return None
    return result.tokens_per_s / base.tokens_per_s


def row_effect(base: EngineResult, variable: str, result: EngineResult) -> str:
    """What changed from ``base`` to a variant's ``result`` (see the module docstring)."""
    if variable == "attention_backend" and result.backend_mismatch:
        return "unrelated"  # vLLM fell back to another backend: the requested one never ran
    before, after = base.failure, result.failure
    if not result.ok and after is None:
        return "unrelated"  # it never ran to a result
    if before is None and after is None:
        rel = _relative(base, result)
        slow = rel is not None and not PERFORMANCE_FACTOR <= rel <= 1 / PERFORMANCE_FACTOR
        return "performance" if slow else "none"
    if after is not None and after.category in SETUP_CATEGORIES:
        return "unrelated"
    if before is None or after is None:
        return "outcome"
    if before.category == after.category:
        return "none" if before.stage == after.stage else "stage"
    # another failure: it says something only if the variant got past where the base failed
    base_at, variant_at = _stage_index(before.stage), _stage_index(after.stage)
    return "category" if base_at >= 0 and variant_at > base_at else "unrelated"


def _short(text: str) -> str:
    return text if len(text) <= ERROR_CHARS else text[: ERROR_CHARS - 3] + "..."


def _row(trial: Trial, effect: str, base: EngineResult) -> dict[str, Any]:
    failure = trial.result.failure
    rel = _relative(base, trial.result)
    tps = trial.result.tokens_per_s
    return {
        "variable": trial.variable,
        "setting": trial.setting,
        "value": trial.value,
        "label": trial.label if trial.setting is not None else "base",
        "config": trial.config_id,
        "outcome": signature(trial.result),
        "category": None if failure is None else failure.category,
        "stage": None if failure is None else failure.stage,
        "effect": effect,
        "tokens_per_s": None if tps is None else round(tps, 2),
        "relative": None if rel is None else round(rel, 2),
        "budget_bytes": trial.budget_bytes,
        "backend": trial.result.actual_backend,
        "first_error": None if failure is None else _short(failure.first_error),
    }


def _values(rows: Sequence[Mapping[str, Any]]) -> str:
    return ", ".join(describe(r["setting"] or "", r["value"]) for r in rows)


def _threshold(
    base_row: Mapping[str, Any], rows: Sequence[Mapping[str, Any]], scope: MemoryScope | None
) -> dict[str, Any] | None:
    """Where the outcome flips along the memory budget, when the points say it cleanly."""
    points = [r for r in (base_row, *rows) if r["effect"] != "unrelated"]
    failing = [r for r in points if r["outcome"] != "passed"]
    passing = [r for r in points if r["outcome"] == "passed"]
    if not failing or not passing:
        return None
    hi_fail = max(failing, key=lambda r: _order(r))
    lo_pass = min(passing, key=lambda r: _order(r))
    if _order(hi_fail) >= _order(lo_pass):
        return None  # not one clean flip: the table says what happened
    return {
        "setting": hi_fail["setting"],
        "fails_at_or_below": hi_fail["value"],
        "passes_from": lo_pass["value"],
        "fails_at_or_below_bytes": hi_fail["budget_bytes"],
        "passes_from_bytes": lo_pass["budget_bytes"],
        "precision": None if scope is None or not scope.searched else scope.precision,
    }


def _order(row: Mapping[str, Any]) -> float:
    return float(row["budget_bytes"] if row["budget_bytes"] is not None else row["value"])


def _covered(
    variable: str,
    base_row: Mapping[str, Any],
    rows: Sequence[Mapping[str, Any]],
    domain: Sequence[Any],
    scope: MemoryScope | None,
) -> bool:
    if variable == MEMORY:
        if scope is None:
            return False
        top = max(float(r["value"]) for r in (base_row, *rows))
        return top >= float(scope.ceiling)
    tried = {repr(r["value"]) for r in (base_row, *rows)}
    return bool(domain) and all(repr(v) in tried for v in domain)


def _verdict(
    variable: str,
    base_row: Mapping[str, Any],
    rows: Sequence[Mapping[str, Any]],
    domain: Sequence[Any],
    scope: MemoryScope | None,
) -> dict[str, Any]:
    base_sig = base_row["outcome"]
    by_effect = {
        e: [r for r in rows if r["effect"] == e]
        for e in ("outcome", "category", "unrelated", "stage", "performance", "none")
    }
    threshold = _threshold(base_row, rows, scope) if variable == MEMORY else None
    error = None
    if not rows:
        effect, text = "not_varied", "not varied (no other value to try)"
    elif by_effect["outcome"]:
        effect = "outcome"
        text = _outcome_text(base_row, rows, by_effect["outcome"], threshold)
    elif by_effect["category"]:
        effect = "category"
        text = "; ".join(
            f"{describe(r['setting'], r['value'])} changes it to {r['outcome']}"
            for r in by_effect["category"]
        )
    elif by_effect["unrelated"]:
        effect, first = "inconclusive", by_effect["unrelated"][0]
        error = first["first_error"]
        why = first["outcome"] if error is None else f"{first['outcome']}: {error}"
        if first["outcome"] == "passed":
            why = f"vLLM ran {first['backend']} instead"
        text = (
            f"inconclusive: {describe(first['setting'], first['value'])} failed for another "
            f"reason ({why})"
        )
    elif by_effect["stage"]:
        effect = "stage"
        moved = ", ".join(
            f"{r['outcome']} with {describe(r['setting'], r['value'])}" for r in by_effect["stage"]
        )
        text = f"only the stage moves ({moved})"
    elif by_effect["performance"]:
        effect = "performance"
        text = (
            "only performance changes ("
            + ", ".join(
                f"{describe(r['setting'], r['value'])}: {r['relative']:.2f}x tokens/s"
                for r in by_effect["performance"]
            )
            + ")"
        )
    else:
        same = "passes" if base_sig == "passed" else "same failure"
        if _covered(variable, base_row, rows, domain, scope):
            effect = "nothing"
            reach = ""
            if variable == MEMORY and scope is not None:
                reach = (
                    f" up to the ceiling {describe(scope.setting, scope.ceiling)} "
                    f"({scope.ceiling_source})"
                )
            text = f"does not matter ({same} with {_values(rows)}{reach})"
        else:
            effect = "not_shown"
            short = ""
            if variable == MEMORY and scope is not None:
                short = f"; the ceiling {describe(scope.setting, scope.ceiling)} was not tried"
            text = f"not shown ({same} with {_values(rows)}, the only values tried{short})"
    return {
        "variable": variable,
        "effect": effect,
        "text": f"{variable}: {text}",
        "setting": base_row.get("settings", {}).get(variable),
        "base_value": base_row.get("values", {}).get(variable),
        "tried": [
            {
                "value": r["value"],
                "label": r["label"],
                "outcome": r["outcome"],
                "effect": r["effect"],
            }
            for r in rows
        ],
        "threshold": threshold,
        "error": error,
    }


def _outcome_text(
    base_row: Mapping[str, Any],
    rows: Sequence[Mapping[str, Any]],
    flipped: Sequence[Mapping[str, Any]],
    threshold: Mapping[str, Any] | None,
) -> str:
    base_ok = base_row["outcome"] == "passed"
    if threshold is not None:
        setting = threshold["setting"]
        low = describe(setting, threshold["fails_at_or_below"])
        high = describe(setting, threshold["passes_from"])
        within = threshold.get("precision")
        how = f"{setting}" + ("" if within is None else f", within {within:.0%}")
        return f"fails at or below {low}, passes from {high} ({how})"
    if base_ok:
        return "fails with " + ", ".join(
            f"{describe(r['setting'], r['value'])} ({r['outcome']})" for r in flipped
        )
    fails = [r for r in rows if r["outcome"] != "passed" and r["effect"] != "unrelated"]
    failing = ", ".join(
        [base_row["values_text"], *(describe(r["setting"], r["value"]) for r in fails)]
    )
    return f"passes with {_values(flipped)} (fails with {failing})"


def judge(
    base: Trial,
    variants: Sequence[Trial],
    *,
    variables: Sequence[str],
    base_values: Mapping[str, tuple[str, Any]],
    again: EngineResult | None = None,
    domains: Mapping[str, Sequence[Any]] | None = None,
    memory: MemoryScope | None = None,
    launch_bound: int | None = None,
    notes: Sequence[str] = (),
) -> Comparison:
    """The comparison of ``base`` with its ``variants`` (see the module docstring).

    ``again``: the base launched a second time (a failing base that does not reproduce is
    flaky: nothing is compared); ``base_values``: variable -> ``(setting, value)`` of the base;
    ``domains``: every value of a discrete variable the platform offers; ``memory``: how far the
    memory budget could go.
    """
    domains = domains or {}
    result = base.result
    base_row = _row(base, "base", result)
    rows = [base_row]
    if again is not None:
        rows.append(_row(Trial("base", None, None, base.config_id, again), "repeat", result))
    memory_dict = (
        None
        if memory is None
        else {
            "setting": memory.setting,
            "ceiling": memory.ceiling,
            "ceiling_source": memory.ceiling_source,
            "precision": memory.precision,
            "searched": memory.searched,
        }
    )
    if (
        again is not None
        and signature(again).split(" at ")[0] != signature(result).split(" at ")[0]
    ):
        summary = (
            f"flaky: {signature(result)} on the first launch, {signature(again)} on the second; "
            "nothing compared"
        )
        return Comparison(
            base.config_id,
            "flaky",
            summary,
            (),
            (),
            tuple(rows),
            launch_bound,
            memory_dict,
            tuple(notes),
        )
    variant_rows = [_row(t, row_effect(result, t.variable, t.result), result) for t in variants]
    rows += variant_rows
    verdicts = []
    for name in variables:
        setting, value = base_values.get(name, (name, None))
        anchor = {
            **base_row,
            "setting": setting,
            "value": value,
            "values_text": describe(setting, value),
            "settings": {name: setting},
            "values": {name: value},
        }
        if name == MEMORY:
            anchor["budget_bytes"] = base.budget_bytes
        mine = [r for r in variant_rows if r["variable"] == name]
        verdicts.append(_verdict(name, anchor, mine, domains.get(name, ()), memory))
    follows = tuple(v["variable"] for v in verdicts if v["effect"] in FOLLOWING)
    decisive = [v["text"] for v in verdicts if v["effect"] in FOLLOWING]
    rest = [v["text"] for v in verdicts if v["effect"] not in FOLLOWING]
    if not decisive:
        decisive = [f"nothing tried changes it: {signature(result)}"]
    summary = "; ".join([*decisive, *rest])
    return Comparison(
        base.config_id,
        "compared",
        summary,
        follows,
        tuple(verdicts),
        tuple(rows),
        launch_bound,
        memory_dict,
        tuple(notes),
    )


#: Columns of the comparison table (terminal and bug report), with their headers.
TABLE_COLUMNS = (
    ("variable", "variable"),
    ("label", "value"),
    ("outcome", "outcome"),
    ("effect", "effect"),
    ("tokens_per_s", "tok/s"),
    ("relative", "rel"),
)


def table_rows(data: Mapping[str, Any]) -> tuple[list[str], list[list[str]]]:
    """``(headers, cells)`` of the comparison table from :meth:`Comparison.to_dict` data."""
    runs = [r for r in data.get("runs") or [] if isinstance(r, Mapping)]
    columns = [(k, h) for k, h in TABLE_COLUMNS if any(r.get(k) is not None for r in runs)]
    cells = [["-" if r.get(k) is None else str(r.get(k)) for k, _ in columns] for r in runs]
    return [h for _, h in columns], cells


def table_lines(data: Mapping[str, Any]) -> list[str]:
    """The verdict line, the table and the launch count, for terminals."""
    headers, cells = table_rows(data)
    grid = [headers, *cells]
    widths = [max(len(row[i]) for row in grid) for i in range(len(headers))]
    lines = [f"{data.get('base', '?')}: {data.get('summary', '')}"]
    lines += [
        "  " + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
        for row in grid
    ]
    bound = data.get("launch_bound")
    launches = f"  launches: {data.get('launches', len(cells))}"
    lines.append(launches + ("" if bound is None else f" (at most {bound})"))
    lines += [f"  note: {note}" for note in data.get("notes") or []]
    return lines


__all__ = [
    "Comparison",
    "MemoryScope",
    "Trial",
    "human_size",
    "judge",
    "row_effect",
    "signature",
    "table_lines",
    "table_rows",
]
