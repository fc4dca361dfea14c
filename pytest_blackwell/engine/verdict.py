"""Judging a one-variable comparison: what the failure follows, in one line, plus a table.

:func:`judge` turns a base :class:`EngineResult` and the results of its one-variable variants
into an :class:`Isolation`: a row per run (with its effect relative to the base and its tokens/s
relative to the base's), a :class:`Verdict` per variable, the variables the failure follows, and
a one-line summary such as ``fails only with kv_cache_dtype=fp8 (passes with auto);
memory_budget does not matter``. Pure logic on plain data; no engine runs here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pytest_blackwell.engine.config import EngineConfig, format_size

if TYPE_CHECKING:
    from pytest_blackwell.engine.result import EngineResult

MEMORY = "memory_budget"
#: A variant below this fraction of the base's tokens/s is reported as a slowdown.
SLOWDOWN_BELOW = 0.9
#: Characters of a first error kept in a table row (results.json has the full text per config).
ROW_ERROR_CHARS = 160

#: Effects of a variant relative to the base.
EFFECTS = ("base", "same", "passes", "changes", "breaks", "untested")


@dataclass(frozen=True)
class Run:
    """One row of the comparison: the base (``variable`` None) or one variant."""

    variable: str | None
    setting: str | None
    value: Any
    config_id: str
    result: EngineResult
    effect: str
    relative_tokens_per_s: float | None = None
    budget_bytes: int | None = None
    #: The base row's label: its values of the variables compared (``kv_cache_dtype=fp8``).
    base_label: str = "base"

    @property
    def label(self) -> str:
        if self.setting is None:
            return self.base_label
        return f"{self.setting}={describe(self.setting, self.value)}"

    @property
    def outcome(self) -> str:
        failure = self.result.failure
        if failure is not None:
            return f"{failure.category}@{failure.stage}"
        return "passed" if self.result.ok else "not run"

    def to_dict(self) -> dict[str, Any]:
        failure = self.result.failure
        error = "" if failure is None else failure.first_error
        if len(error) > ROW_ERROR_CHARS:
            error = error[: ROW_ERROR_CHARS - 3] + "..."
        tps = self.result.tokens_per_s
        return {
            "variable": self.variable or "base",
            "value": self.label,
            "config": self.config_id,
            "outcome": self.outcome,
            "effect": self.effect,
            "tokens_per_s": None if tps is None else round(tps, 2),
            "relative": None
            if self.relative_tokens_per_s is None
            else round(self.relative_tokens_per_s, 2),
            "budget": None if self.budget_bytes is None else human_size(self.budget_bytes),
            "backend": self.result.actual_backend,
            "first_error": error or None,
        }


@dataclass(frozen=True)
class Verdict:
    """Whether the failure follows one variable, and the phrase that says why."""

    variable: str
    follows: bool
    tested: bool
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "variable": self.variable,
            "follows": self.follows,
            "tested": self.tested,
            "text": self.text,
        }


@dataclass(frozen=True)
class Isolation:
    """A finished one-variable comparison (see the module docstring); ``to_dict()`` is what
    lands under ``isolation`` in ``results.json`` (a single list, ``runs``, is the table)."""

    base: EngineConfig
    runs: tuple[Run, ...]
    verdicts: tuple[Verdict, ...]
    summary: str
    costs: tuple[str, ...] = ()
    device_memory_bytes: int | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def base_result(self) -> EngineResult:
        return self.runs[0].result

    @property
    def follows(self) -> list[str]:
        """The variables whose change changes the outcome."""
        return [v.variable for v in self.verdicts if v.follows]

    @property
    def follows_text(self) -> str:
        """``kv_cache_dtype`` / ``kv_cache_dtype,memory_budget`` / ``none`` (for JUnit)."""
        return ",".join(self.follows) or "none"

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "summary": self.summary,
            "follows": self.follows_text,
            "base": self.base.id,
            "base_outcome": self.runs[0].outcome,
        }
        for verdict in self.verdicts:
            data[f"verdict {verdict.variable}"] = verdict.text
        if self.costs:
            data["relative_cost"] = "; ".join(self.costs)
        if self.device_memory_bytes:
            data["device_memory"] = human_size(self.device_memory_bytes)
        if self.notes:
            data["notes"] = "; ".join(self.notes)
        data["runs"] = [run.to_dict() for run in self.runs]
        return data


def describe(setting: str, value: Any) -> str:
    """A value as people write it: sizes in MiB/GiB, fractions without trailing zeros."""
    if value is None:
        return "default"
    if setting == "kv_cache_memory_bytes" and isinstance(value, int):
        return format_size(value)
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True, separators=(",", ":"))
    return str(value)


def human_size(nbytes: int) -> str:
    """``4MiB`` when exact, else rounded: ``36.5GiB``, ``1.2MiB``."""
    exact = format_size(nbytes)
    if not exact.isdigit() or nbytes < 1024:
        return exact
    for unit, factor in (("TiB", 1024**4), ("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if nbytes >= factor:
            return f"{nbytes / factor:.1f}{unit}"
    return exact


def budget_bytes(setting: str, value: Any, device_memory_bytes: int | None) -> int | None:
    """The memory budget in bytes (a ``gpu_memory_utilization`` needs the device's memory)."""
    if setting == "kv_cache_memory_bytes" and value is not None:
        return int(value)
    if setting == "gpu_memory_utilization" and value is not None and device_memory_bytes:
        return int(float(value) * device_memory_bytes)
    return None


def _signature(result: EngineResult) -> tuple[str, str] | None:
    failure = result.failure
    return None if failure is None else (failure.category, failure.stage)


def _effect(base: EngineResult, variable: str, result: EngineResult) -> str:
    if variable == "attention_backend" and result.backend_mismatch:
        return "untested"  # vLLM fell back to another backend: the requested one never ran
    if not result.ok and result.failure is None:
        return "untested"
    before, after = _signature(base), _signature(result)
    if before == after:
        return "same"
    if after is None:
        return "passes"
    return "breaks" if before is None else "changes"


def _sig_text(result: EngineResult) -> str:
    failure = result.failure
    return "passes" if failure is None else f"{failure.category} at {failure.stage}"


def _values(runs: Sequence[Run]) -> str:
    return ", ".join(describe(r.setting or "", r.value) for r in runs)


def _memory_phrase(base_run: Run, runs: Sequence[Run], failing_sig: str) -> str | None:
    points = [r for r in (base_run, *runs) if r.effect != "untested" and r.budget_bytes]
    failing = [r.budget_bytes or 0 for r in points if r.result.failure is not None]
    passing = [r.budget_bytes or 0 for r in points if r.result.ok]
    if (
        not failing
        or not passing
        or len({_sig_text(r.result) for r in points if r.result.failure is not None}) != 1
    ):
        return None
    if max(failing) < min(passing):
        return (
            f"the failure tracks the memory budget: {failing_sig} at or below "
            f"{human_size(max(failing))}, passes from {human_size(min(passing))}"
        )
    if max(passing) < min(failing):
        return (
            f"the failure tracks the memory budget: passes at or below "
            f"{human_size(max(passing))}, {failing_sig} from {human_size(min(failing))}"
        )
    return None


def _verdict(variable: str, base_run: Run, runs: Sequence[Run], base_label: str) -> Verdict:
    tried = [r for r in runs if r.effect != "untested"]
    untested = [r for r in runs if r.effect == "untested"]
    if not runs:
        return Verdict(variable, False, False, "not varied (no other value to try)")
    if not tried:
        ran = ", ".join(sorted({r.result.actual_backend or "nothing" for r in untested}))
        return Verdict(
            variable, False, False, f"not tested: {_values(untested)} did not run (vLLM ran {ran})"
        )
    base_ok = base_run.result.ok
    same = [r for r in tried if r.effect == "same"]
    passes = [r for r in tried if r.effect == "passes"]
    changes = [r for r in tried if r.effect in ("changes", "breaks")]
    if not passes and not changes:
        what = "passes" if base_ok else "same failure"
        return Verdict(
            variable, False, True, f"does not matter ({what} with {variable}={_values(same)})"
        )
    phrases: list[str] = []
    sig = _sig_text(base_run.result)
    if variable == MEMORY and not base_ok:
        memory = _memory_phrase(base_run, tried, sig)
        if memory is not None:
            return Verdict(variable, True, True, memory)
    if passes:
        failing = [base_label, *(describe(r.setting or "", r.value) for r in same)]
        only = "only " if len(failing) == 1 else ""
        phrases.append(
            f"fails {only}with {variable}={', '.join(failing)} (passes with {_values(passes)})"
        )
    for run in changes:
        if base_ok:
            phrases.append(
                f"passes as configured but fails with {run.label} ({_sig_text(run.result)})"
            )
        else:
            phrases.append(f"{run.label} changes it to {_sig_text(run.result)}")
    return Verdict(variable, True, True, "; ".join(phrases))


def _join(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _summary(base_run: Run, verdicts: Sequence[Verdict]) -> str:
    followed = [v for v in verdicts if v.follows]
    neutral = [v.variable for v in verdicts if v.tested and not v.follows]
    untested = [v.variable for v in verdicts if not v.tested]
    sig = _sig_text(base_run.result)
    parts: list[str] = []
    if base_run.result.ok:
        if followed:
            parts += [v.text for v in followed]
        elif neutral:
            parts.append(f"passes with every variant of {_join(neutral)}")
        else:
            parts.append("passes; nothing could be varied")
    elif not followed:
        if neutral:
            parts.append(f"the failure follows none of {_join(neutral)}: {sig} whatever changes")
        else:
            parts.append(f"nothing could be varied: {sig}")
    else:
        parts += [v.text for v in followed]
    if neutral and followed:
        parts.append(f"{_join(neutral)} {'does' if len(neutral) == 1 else 'do'} not matter")
    if untested:
        parts.append(f"not tested: {_join(untested)}")
    return "; ".join(parts)


def _costs(runs: Sequence[Run], base_labels: Mapping[str, str]) -> list[str]:
    costs: list[str] = []
    for run in runs:
        if run.relative_tokens_per_s is None or run.variable is None:
            continue
        costs.append(
            f"{run.label}: {run.relative_tokens_per_s:.2f}x tokens/s of "
            f"{base_labels.get(run.variable, '=base').split('=', 1)[1]}"
        )
    return costs


def judge(
    config: EngineConfig,
    base: EngineResult,
    variants: Sequence[tuple[str, str, Any, str, EngineResult]],
    *,
    variables: Sequence[str],
    base_values: Mapping[str, tuple[str, Any]],
    device_memory_bytes: int | None = None,
) -> Isolation:
    """The comparison of ``base`` (the result of ``config``) with its variants.

    ``variants``: ``(variable, setting, value, config id, result)`` per variant;
    ``variables``: every variable asked for, in order; ``base_values``: variable ->
    ``(setting, value)`` of the base (unset fields resolved to their defaults).
    """
    reference = base.tokens_per_s if base.ok and base.tokens_per_s else None

    def relative(result: EngineResult) -> float | None:
        if reference is None or not result.ok or not result.tokens_per_s:
            return None
        return result.tokens_per_s / reference

    memory_setting, memory_value = base_values.get(MEMORY, (None, None))
    base_budget = budget_bytes(memory_setting or "", memory_value, device_memory_bytes)
    base_labels: dict[str, str] = {}
    for name in variables:
        setting, value = base_values.get(name, (name, None))
        if name == "attention_backend" and value is None:
            value = base.actual_backend
        base_labels[name] = f"{setting}={describe(setting, value)}"
    base_run = Run(
        None,
        None,
        None,
        config.id,
        base,
        "base",
        1.0 if reference else None,
        base_budget,
        ", ".join(base_labels.values()) or "base",
    )
    runs = [
        Run(
            variable,
            setting,
            value,
            config_id,
            result,
            _effect(base, variable, result),
            relative(result),
            budget_bytes(setting, value, device_memory_bytes) if variable == MEMORY else None,
        )
        for variable, setting, value, config_id, result in variants
    ]
    verdicts = [
        _verdict(
            name,
            base_run,
            [r for r in runs if r.variable == name],
            base_labels[name].split("=", 1)[1],
        )
        for name in variables
    ]
    notes: list[str] = []
    if memory_setting == "gpu_memory_utilization" and device_memory_bytes and base_budget:
        notes.append(
            f"gpu_memory_utilization={describe(memory_setting, memory_value)} of "
            f"{human_size(device_memory_bytes)} is about "
            f"{human_size(base_budget)} for weights, activations and KV cache together"
        )
    elif memory_setting == "kv_cache_memory_bytes" and device_memory_bytes and base_budget:
        notes.append(
            f"kv_cache_memory_bytes={format_size(base_budget)} is "
            f"gpu_memory_utilization={base_budget / device_memory_bytes:.4g} of "
            f"{human_size(device_memory_bytes)} (KV cache only; gpu_memory_utilization also "
            "covers weights and activations)"
        )
    costs = _costs(runs, base_labels)
    summary = _summary(base_run, verdicts)
    slower = [r for r in runs if (r.relative_tokens_per_s or 1.0) < SLOWDOWN_BELOW]
    slow = _costs(slower, base_labels)
    if slow:
        summary += "; slower: " + "; ".join(slow)
    return Isolation(
        config,
        (base_run, *runs),
        tuple(verdicts),
        summary,
        tuple(costs),
        device_memory_bytes,
        tuple(notes),
    )


#: Columns of the text table, with their headers.
_TABLE_COLUMNS = (
    ("variable", "variable"),
    ("value", "value"),
    ("outcome", "outcome"),
    ("effect", "effect"),
    ("tokens_per_s", "tok/s"),
    ("relative", "rel"),
    ("budget", "budget"),
)


def table_lines(data: Mapping[str, Any]) -> list[str]:
    """A plain-text table and the verdict from :meth:`Isolation.to_dict` data (for terminals)."""
    runs = [r for r in data.get("runs") or [] if isinstance(r, Mapping)]
    columns = [(k, h) for k, h in _TABLE_COLUMNS if any(r.get(k) is not None for r in runs)]
    cells = [[h for _, h in columns]]
    cells += [["—" if r.get(k) is None else str(r.get(k)) for k, _ in columns] for r in runs]
    widths = [max(len(row[i]) for row in cells) for i in range(len(columns))]
    lines = [f"{data.get('base', '?')}: {data.get('summary', '')}"]
    lines += [
        "  " + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
        for row in cells
    ]
    for key in ("relative_cost", "notes"):
        if data.get(key):
            lines.append(f"  {key.replace('_', ' ')}: {data[key]}")
    return lines
