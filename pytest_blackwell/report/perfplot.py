"""Performance comparisons for people: a small inline SVG of the rounds, and a markdown section.

The plot draws every measured round of each value as a dot on one shared axis, with the median
as a bar: whether two clouds overlap reads at a glance. No plotting library: the SVG is a few
dozen elements written by hand, safe to inline in HTML and in markdown that renders HTML.
"""

from __future__ import annotations

import html
import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from pytest_blackwell.engine.perfstats import CONFIDENCE, ci_label

_WIDTH = 320
_ROW = 22
_LEFT = 90
_RIGHT = 12
_COLOURS = ("#4477aa", "#cc6677")


def _fmt(value: float) -> str:
    return f"{value:.4g}"


def rounds_svg(metric: str, series: Sequence[tuple[str, Sequence[float]]]) -> str:
    """One row per ``(label, values)``: a dot per round and a bar at the median."""
    values = [v for _, vs in series for v in vs]
    if not values:
        return ""
    low, high = min(values), max(values)
    pad = (high - low) * 0.08 or abs(high) * 0.05 or 1.0
    low, high = low - pad, high + pad
    span = _WIDTH - _LEFT - _RIGHT
    height = _ROW * len(series) + 26

    def x(value: float) -> float:
        return _LEFT + (value - low) / (high - low) * span

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_WIDTH}" height="{height}" '
        f'viewBox="0 0 {_WIDTH} {height}" role="img" font-family="sans-serif" font-size="10">',
        f"<title>{html.escape(metric)}: rounds per value</title>",
    ]
    for row, (label, row_values) in enumerate(series):
        y = 12 + row * _ROW
        colour = _COLOURS[row % len(_COLOURS)]
        parts.append(
            f'<text x="{_LEFT - 6}" y="{y + 4}" text-anchor="end">{html.escape(label)}</text>'
        )
        parts.append(f'<line x1="{_LEFT}" y1="{y}" x2="{_WIDTH - _RIGHT}" y2="{y}" stroke="#ddd"/>')
        for value in row_values:
            parts.append(
                f'<circle cx="{x(value):.1f}" cy="{y}" r="3" fill="{colour}" '
                f'fill-opacity="0.6"><title>{_fmt(value)}</title></circle>'
            )
        if row_values:
            mid = x(statistics.median(row_values))
            parts.append(
                f'<line x1="{mid:.1f}" y1="{y - 7}" x2="{mid:.1f}" y2="{y + 7}" '
                f'stroke="{colour}" stroke-width="2"/>'
            )
    axis_y = height - 6
    parts.append(f'<text x="{_LEFT}" y="{axis_y}">{_fmt(low + pad)}</text>')
    parts.append(
        f'<text x="{_WIDTH - _RIGHT}" y="{axis_y}" text-anchor="end">{_fmt(high - pad)} '
        f"{html.escape(metric)}</text>"
    )
    parts.append("</svg>")
    return "".join(parts)


def parse_rounds(text: str | None) -> list[float]:
    """Round values as written into a report property (``"812.3,799.1,..."``)."""
    out: list[float] = []
    for piece in (text or "").split(","):
        piece = piece.strip()
        if not piece:
            continue
        try:
            out.append(float(piece))
        except ValueError:
            return []  # not ours: draw nothing rather than something wrong
    return out


def perf_section(entry: Mapping[str, Any]) -> list[str]:
    """Markdown lines of a results.json entry's comparisons (empty when it has none)."""
    lines: list[str] = []
    for perf in entry.get("perf") or []:
        comparison: Mapping[str, Any] = perf.get("comparison") or {}
        variable = perf.get("variable", "?")
        a, b = [*(perf.get("values") or []), "A", "B"][:2]
        metric = str(comparison.get("metric", "?"))
        how = (
            "both engines up, rounds interleaved" if perf.get("coexist") else "launches alternated"
        )
        ratio, low, high = (float(comparison.get(k, 0.0)) for k in ("ratio", "ci_low", "ci_high"))
        label = ci_label(float(comparison.get("confidence", CONFIDENCE)))
        lines += [
            "## Performance comparison",
            "",
            f"- test: `{perf.get('test', '?')}`",
            f"- compared: `{variable}={b}` (B) against `{variable}={a}` (A), {how}",
            f"- {metric} ratio B/A: **{ratio:.3f}** ({label} {low:.3f}-{high:.3f}, "
            f"{comparison.get('rounds', '?')} paired rounds): **{comparison.get('verdict')}** "
            f"(tolerance {float(comparison.get('max_slowdown', 0.0)):.0%})",
            f"- workload: `{_workload_text(perf.get('workload') or {})}`",
            f"- configurations: A `{(perf.get('config_ids') or ['?'])[0]}`, "
            f"B `{(perf.get('config_ids') or ['?', '?'])[-1]}`",
            "",
        ]
        svg = rounds_svg(
            metric,
            [
                (f"{variable}={a}", list(comparison.get("a_values") or [])),
                (f"{variable}={b}", list(comparison.get("b_values") or [])),
            ],
        )
        if svg:
            lines += [svg, ""]
        summary: Mapping[str, Any] = perf.get("summary") or {}
        if summary:
            lines += [
                "| value | metric | median | min | max | spread |",
                "|---|---|---|---|---|---|",
            ]
            for label, value in (("a", a), ("b", b)):
                for name, stats in (summary.get(label) or {}).items():
                    lines.append(
                        f"| {variable}={value} | {name} | {_fmt(stats['median'])} | "
                        f"{_fmt(stats['min'])} | {_fmt(stats['max'])} | {stats['spread']:.1%} |"
                    )
            lines.append("")
    return lines


def _workload_text(workload: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in workload.items())


def slower(entry: Mapping[str, Any]) -> bool:
    """Whether any comparison recorded on this entry found B slower."""
    return any(
        (p.get("comparison") or {}).get("verdict") == "slower" for p in entry.get("perf") or []
    )


__all__ = ["parse_rounds", "perf_section", "rounds_svg", "slower"]
