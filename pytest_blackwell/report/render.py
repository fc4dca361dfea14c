"""Renderers for a :class:`~pytest_blackwell.report.matrix.Matrix`: markdown, HTML, JSON, text."""

from __future__ import annotations

import html
import json

from pytest_blackwell.report.matrix import Cell, Change, Matrix

FORMATS = ("markdown", "html", "json")

_MISSING = "—"
_MD_ICON = {"pass": "✅", "skip": "⏭️", "fail": "❌", "expected": "☑️"}

_CSS = """
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #1b1b1b; }
table { border-collapse: collapse; }
th, td { border: 1px solid #9e9e9e; padding: 4px 8px; text-align: left; }
th { background: #eceff1; }
td.cell { font-family: ui-monospace, monospace; }
.pass { background: rgb(46, 160, 67); color: #ffffff; }
.fail { background: rgb(207, 34, 46); color: #ffffff; }
.expected { background: rgb(191, 135, 0); color: #ffffff; }
.skip { background: rgb(175, 184, 193); color: #1b1b1b; }
td.missing { background: #ffffff; color: #9e9e9e; }
td.regression { outline: 3px solid rgb(130, 80, 223); outline-offset: -3px; font-weight: bold; }
td.fix { font-style: italic; }
.legend span { display: inline-block; padding: 2px 6px; margin-right: 4px; }
"""


def cell_label(cell: Cell) -> str:
    """Cell text plus a change note: ``kv_cache_oom@kv_alloc (regression, was pass)``."""
    if cell.change in ("regression", "fix"):
        return f"{cell.text} ({cell.change}, was {cell.before})"
    return cell.text


def render_json(matrix: Matrix) -> str:
    return json.dumps(matrix.to_dict(), indent=2, sort_keys=False) + "\n"


def _md_escape(text: str) -> str:
    """Plain table text: no HTML, no column breaks, one line."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _md_code(text: str) -> str:
    """Text inside a code span (entities would show literally there)."""
    return "`" + text.replace("`", "'").replace("|", "\\|").replace("\n", " ") + "`"


def _md_cell(cell: Cell | None) -> str:
    if cell is None:
        return _MISSING
    text = f"{_MD_ICON.get(cell.status, '')} {_md_escape(cell_label(cell))}".strip()
    return f"**{text}**" if cell.change == "regression" else text


def _changes_md(title: str, changes: list[Change]) -> list[str]:
    if not changes:
        return []
    lines = ["", f"### {title} ({len(changes)})", ""]
    for c in changes:
        lines.append(
            f"- {_md_code(c.test)} {_md_code(c.config or '-')} on "
            f"{_md_escape(c.column)}: {_md_escape(c.before)} → {_md_escape(c.after)}"
        )
    return lines


def render_markdown(matrix: Matrix, *, title: str = "pytest-blackwell matrix") -> str:
    """A GitHub-flavoured table that fits a CI job summary."""
    lines = [f"## {title}", ""]
    if not matrix.rows:
        lines.append("No test carried `blackwell.*` properties.")
        return "\n".join(lines) + "\n"
    labels = [c.label for c in matrix.columns]
    header = ["test", "config", *labels]
    lines.append("| " + " | ".join(_md_escape(h) for h in header) + " |")
    lines.append("|" + "---|" * len(header))
    for row in matrix.rows:
        cells = [_md_cell(row.cells.get(label)) for label in labels]
        lines.append(
            "| " + " | ".join([_md_escape(row.test), _md_escape(row.config or "-"), *cells]) + " |"
        )
    if matrix.baseline:
        lines.append("")
        lines.append(
            f"Compared with baseline {_md_code(matrix.baseline)}: "
            f"{len(matrix.regressions)} regression(s), {len(matrix.fixes)} fix(es)."
        )
    lines += _changes_md("Regressions", matrix.regressions)
    lines += _changes_md("Fixes", matrix.fixes)
    lines += _first_errors_md(matrix)
    return "\n".join(lines) + "\n"


def _first_errors_md(matrix: Matrix, limit: int = 300, max_items: int = 100) -> list[str]:
    failing = [
        (row, label, cell)
        for row in matrix.rows
        for label, cell in row.cells.items()
        if cell.status == "fail" and cell.first_error
    ]
    if not failing:
        return []
    lines = ["", "### First errors", ""]
    for row, label, cell in failing[:max_items]:
        error = str(cell.first_error)
        error = error if len(error) <= limit else error[:limit] + " …"
        lines.append(
            f"- {_md_code(row.test)} {_md_code(row.config or '-')} on {_md_escape(label)}"
            f" ({_md_escape(cell.text)}): {_md_escape(error)}"
        )
    if len(failing) > max_items:  # a CI job summary is limited in size
        lines.append(f"- … and {len(failing) - max_items} more (see the JSON or HTML matrix)")
    return lines


def _html_cell(cell: Cell | None) -> str:
    if cell is None:
        return f'<td class="cell missing">{_MISSING}</td>'
    classes = ["cell", cell.status]
    if cell.change:
        classes.append(cell.change)
    hover = cell.first_error or cell.text
    if cell.change in ("regression", "fix"):
        hover = f"{cell.change}: was {cell.before}\n{hover}"
    return (
        f'<td class="{" ".join(classes)}" title="{html.escape(hover, quote=True)}">'
        f"{html.escape(cell_label(cell))}{_html_plot(cell)}</td>"
    )


def _html_plot(cell: Cell) -> str:
    """The rounds of a performance comparison, drawn (empty for other cells)."""
    perf = cell.perf or {}
    if not perf.get("a_rounds") or not perf.get("b_rounds"):
        return ""
    from pytest_blackwell.report.perfplot import rounds_svg

    variable = str(perf.get("variable", "value"))
    svg = rounds_svg(
        str(perf.get("metric", "")),
        [
            (f"{variable}={perf.get('a', 'A')}", perf["a_rounds"]),
            (f"{variable}={perf.get('b', 'B')}", perf["b_rounds"]),
        ],
    )
    return f"<br>{svg}" if svg else ""


def render_html(matrix: Matrix, *, title: str = "pytest-blackwell matrix") -> str:
    """One self-contained page (inline CSS, no script, no external resource)."""
    esc = html.escape
    labels = [c.label for c in matrix.columns]
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{esc(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{esc(title)}</h1>",
        '<p class="legend"><span class="pass">pass</span><span class="fail">'
        'category@stage</span><span class="expected">expected failure</span>'
        '<span class="skip">skip</span></p>',
        '<table id="matrix"><thead><tr><th>test</th><th>config</th>',
    ]
    parts += [f"<th>{esc(label)}</th>" for label in labels]
    parts.append("</tr></thead><tbody>")
    for row in matrix.rows:
        parts.append(f"<tr><td>{esc(row.test)}</td><td>{esc(row.config or '-')}</td>")
        parts += [_html_cell(row.cells.get(label)) for label in labels]
        parts.append("</tr>")
    parts.append("</tbody></table>")
    if matrix.baseline:
        parts.append(
            f"<p>Compared with baseline <code>{esc(matrix.baseline)}</code>: "
            f"{len(matrix.regressions)} regression(s), {len(matrix.fixes)} fix(es).</p>"
        )
    for heading, changes in (("Regressions", matrix.regressions), ("Fixes", matrix.fixes)):
        if changes:
            parts.append(f"<h2>{heading}</h2><ul>")
            parts += [
                f"<li><code>{esc(c.test)}</code> <code>{esc(c.config or '-')}</code> on "
                f"{esc(c.column)}: {esc(c.before)} &rarr; {esc(c.after)}</li>"
                for c in changes
            ]
            parts.append("</ul>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def render(matrix: Matrix, fmt: str) -> str:
    if fmt == "markdown":
        return render_markdown(matrix)
    if fmt == "html":
        return render_html(matrix)
    if fmt == "json":
        return render_json(matrix)
    raise ValueError(f"unknown matrix format {fmt!r}; expected one of {', '.join(FORMATS)}")


def render_text(matrix: Matrix, *, failures_only: bool = False) -> list[str]:
    """Aligned plain-text lines for the terminal summary (one row per configuration)."""
    labels = [c.label for c in matrix.columns]
    rows = [
        [row.test, row.config or "-", *[_text_cell(row.cells.get(lb)) for lb in labels]]
        for row in matrix.rows
        if not failures_only or any(c.status == "fail" for c in row.cells.values())
    ]
    if not rows:
        return []
    table = [["test", "config", *labels], *rows]
    widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
    return ["  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)).rstrip() for r in table]


def _text_cell(cell: Cell | None) -> str:
    return _MISSING if cell is None else cell.text
