"""Markdown bug reports for failing configurations, from ``results.json`` data.

One report holds what an engine maintainer asks for: hardware and software versions, the model,
what FP8 means in the run, the attention backend, every engine argument with a ``vllm serve`` and
a Python reproduction, the memory budget, the stage, the first error with its traceback and the
startup log up to it. Everything passes through a :class:`Redactor` before it is written.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_blackwell.report.perfplot import perf_section, slower
from pytest_blackwell.report.redact import Redactor
from pytest_blackwell.report.reproduce import (
    TINY_MODEL,
    engine_arguments,
    fp8_meaning,
    memory_budget,
    model_name,
    python_reproduction,
    serve_command,
)
from pytest_blackwell.report.xmltext import decode_bytes, strip_ansi

#: Bounds of the startup-log excerpt.
LOG_MAX_LINES = 200
LOG_MAX_LINE_CHARS = 2000

_FILE_UNSAFE = re.compile(r"[^A-Za-z0-9._=+,-]+")


def report_file_name(config_id: str) -> str:
    """``<config id>.md`` with anything unsafe in a file name replaced."""
    return (_FILE_UNSAFE.sub("_", config_id).strip(".") or "config") + ".md"


def _fence(text: str, lang: str = "") -> str:
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}{lang}\n{text.rstrip()}\n{ticks}"


def _md(value: Any) -> str:
    """A value for a code span or table cell inside backticks (one line, no column break)."""
    text = "—" if value in (None, "") else str(value)
    return text.replace("|", "\\|").replace("\n", " ")


def _md_text(value: Any) -> str:
    """A value as plain markdown text: HTML-like fragments (``<frozen runpy>``) stay visible."""
    text = _md(value)
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _kib(nbytes: Any) -> str:
    return f"{int(nbytes) // 1024} KiB" if nbytes else "unknown"


def _gib(nbytes: Any) -> str:
    return f"{int(nbytes) / 1024**3:.1f} GiB" if nbytes else "unknown"


def hardware_section(devices: Sequence[Mapping[str, Any]]) -> list[str]:
    lines = ["## Hardware", ""]
    if not devices:
        return [*lines, "No device information was recorded."]
    lines += [
        "| # | GPU | compute capability | smem per block (opt-in) | smem per block | "
        "smem per SM | memory | SMs | driver | CUDA | source |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for pos, d in enumerate(devices):
        cc = d.get("compute_capability")
        arch = f" (sm_{str(cc).replace('.', '')})" if cc else " (no GPU)"
        lines.append(
            f"| {d.get('index', pos)} | {_md_text(d.get('name'))} | {_md(cc)}{arch} | "
            f"{_kib(d.get('smem_per_block_optin_bytes'))} | {_kib(d.get('smem_per_block_bytes'))} "
            f"| {_kib(d.get('smem_per_sm_bytes'))} | {_gib(d.get('total_memory_bytes'))} | "
            f"{_md(d.get('multiprocessor_count') or None)} | {_md(d.get('driver_version'))} | "
            f"{_md(d.get('cuda_version'))} | {_md(d.get('source'))} |"
        )
    return lines


def software_section(environment: Mapping[str, Any]) -> list[str]:
    rows = [
        ("NVIDIA driver", "driver"),
        ("CUDA", "cuda"),
        ("PyTorch", "torch"),
        ("vLLM", "vllm"),
        ("FlashInfer", "flashinfer"),
        ("Triton", "triton"),
        ("Python", "python"),
        ("platform", "platform"),
        ("pytest-blackwell", "pytest_blackwell"),
    ]
    lines = ["## Software", "", "| component | version |", "|---|---|"]
    lines += [
        f"| {label} | {_md_text(environment.get(key) or 'not installed')} |" for label, key in rows
    ]
    return lines


def backend_section(entry: Mapping[str, Any]) -> list[str]:
    config = entry.get("config") or {}
    requested = entry.get("requested_backend") or config.get("attention_backend")
    actual = entry.get("actual_backend")
    lines = [
        "## Attention backend",
        "",
        f"- requested: `{requested or 'default (chosen by vLLM)'}`",
        f"- actually used: `{actual or 'unknown (the engine did not get that far)'}`",
    ]
    if requested and actual and requested != actual:
        lines.append(
            f"- **mismatch**: {requested} was requested but vLLM ran {actual} (a silent fallback)."
        )
    return lines


def startup_log(
    path: Path, *, first_error: str | None, line: int = 0, max_lines: int = LOG_MAX_LINES
) -> tuple[list[str], bool, bool]:
    """The log up to and including the first error line, at most ``max_lines`` (the last ones).

    Returns ``(lines, cut, found)``: ``cut`` is True when earlier lines were left out, ``found``
    when the first error was reached (by its 1-based line number when known, else by its text).
    """
    needle = (first_error or "").strip()
    kept: deque[str] = deque(maxlen=max_lines)
    count = 0
    found = False
    with path.open("rb") as handle:
        for count, raw in enumerate(handle, 1):
            text = strip_ansi(decode_bytes(raw.rstrip(b"\r\n")))
            if len(text) > LOG_MAX_LINE_CHARS:
                text = text[:LOG_MAX_LINE_CHARS] + " [... line cut ...]"
            kept.append(text)
            if (line and count >= line) or (not line and needle and needle in text):
                found = True
                break
    return list(kept), count > len(kept), found


def failure_of(entry: Mapping[str, Any]) -> Mapping[str, Any]:
    """The ``failure`` of a results.json entry (``Failure.to_dict()``), or ``{}`` for none."""
    failure = entry.get("failure")
    return failure if isinstance(failure, Mapping) else {}


def _log_section(entry: Mapping[str, Any], log_root: Path | None) -> list[str]:
    lines = ["## Startup log up to the first error", ""]
    log = entry.get("log_path")
    if not log:
        return [*lines, "No log was recorded for this configuration."]
    path = Path(str(log))
    if not path.is_absolute() and log_root is not None:
        path = log_root / path
    failure = failure_of(entry)
    detail = failure.get("detail") or {}
    number = failure.get("line") or detail.get("line") or 0
    try:
        excerpt, cut, found = startup_log(
            path, first_error=failure.get("first_error"), line=int(number or 0)
        )
    except OSError as exc:
        return [*lines, f"The log `{log}` could not be read: {exc.strerror or exc}."]
    if not found:
        lines.append(f"The first error was not found in `{log}`; its last lines follow.")
        lines.append("")
    elif cut:
        lines.append(f"(last {len(excerpt)} lines before and including the first error of `{log}`)")
        lines.append("")
    return [*lines, _fence("\n".join(excerpt) or "(empty log)", "text")]


def _error_section(entry: Mapping[str, Any]) -> list[str]:
    lines = ["## First error", ""]
    failure = failure_of(entry)
    first = failure.get("first_error")
    if not first:
        return [*lines, "No error was recorded."]
    lines += [f"- category: `{failure.get('category')}`", f"- stage: `{failure.get('stage')}`"]
    evidence = failure.get("evidence") or {}
    if evidence:
        lines.append(
            f"- why: category from `{evidence.get('category', 'none')}`, "
            f"stage from `{evidence.get('stage', 'none')}`"
        )
    detail = failure.get("detail") or {}
    lines += [f"- {key}: `{value}`" for key, value in detail.items()]
    traceback = failure.get("traceback") or []
    lines += ["", _fence("\n".join([str(first), *map(str, traceback)]), "text")]
    return lines


def _arguments_section(config: Mapping[str, Any]) -> list[str]:
    args = engine_arguments(config)
    env = dict(config.get("env") or {})
    lines = ["## Engine arguments", "", "| argument | value |", "|---|---|"]
    lines.append(f"| model | `{_md(model_name(config))}` |")
    lines += [f"| {key} | `{_md(repr(value))}` |" for key, value in args.items()]
    lines += [f"| env {key} | `{_md(value)}` |" for key, value in sorted(env.items())]
    lines += ["", "Equivalent command line:", "", _fence(serve_command(config, env=env), "bash")]
    lines += [
        "",
        "Python reproduction:",
        "",
        _fence(python_reproduction(config, env=env), "python"),
    ]
    return lines


def _isolation_section(entry: Mapping[str, Any]) -> list[str]:
    """The one-variable comparison, from the result schema of
    :meth:`pytest_blackwell.engine.verdict.Comparison.to_dict` (same wording as the terminal)."""
    isolation = entry.get("isolation")
    if not isinstance(isolation, Mapping):
        return []
    from pytest_blackwell.engine.verdict import table_rows

    lines = ["## One-variable comparison", ""]
    follows = isolation.get("follows") or entry.get("follows")
    if follows == "none":
        lines += ["The failure follows none of the variables tried.", ""]
    elif follows:
        lines += [f"The failure follows: `{_md(follows)}`.", ""]
    if isolation.get("summary"):
        lines += [f"**{_md(isolation['summary'])}**", ""]
    verdicts = [v for v in isolation.get("verdicts") or [] if isinstance(v, Mapping)]
    lines += [f"- {_md(v.get('text', ''))} (`{_md(v.get('effect', ''))}`)" for v in verdicts]
    headers, cells = table_rows(isolation)
    if cells:
        lines += ["", "| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
        lines += ["| " + " | ".join(_md_text(c) for c in row) + " |" for row in cells]
    bound = isolation.get("launch_bound")
    launches = f"Launches: {isolation.get('launches', len(cells))}"
    lines += ["", launches + ("" if bound is None else f" (at most {bound})") + "."]
    lines += [f"Note: {_md(n)}" for n in isolation.get("notes") or []]
    return lines


def render_bug_report(
    entry: Mapping[str, Any],
    devices: Sequence[Mapping[str, Any]] = (),
    environment: Mapping[str, Any] | None = None,
    *,
    log_root: Path | None = None,
    redactor: Redactor | None = None,
) -> str:
    """Markdown for one ``results.json`` config entry (``log_path`` resolved against
    ``log_root``).

    Secret-named fields (``api_key``, ``HF_TOKEN`` ...) are hidden before rendering, and the
    finished text is redacted again by value and pattern (log lines included).
    """
    red = redactor if redactor is not None else Redactor.from_environ()
    entry = red.redact_data(entry)
    env_info = red.redact_data(environment or {})
    config: Mapping[str, Any] = entry.get("config") or {}
    config_id = str(entry.get("config_id", "unknown"))
    first_device = devices[0] if devices else {}
    failure = failure_of(entry)
    category, stage = failure.get("category"), failure.get("stage")
    title = f"{category} at {stage}" if category else f"{entry.get('outcome', 'unknown')}"
    if not category and slower(entry):
        title = "performance regression"
    tests = entry.get("tests") or []
    lines = [
        f"# {title}: configuration `{config_id}`",
        "",
        f"- outcome: `{entry.get('outcome')}`; launches: {entry.get('launches', '—')}; exit "
        f"status: `{entry.get('exit_status')}`",
        f"- first error: {_md_text(failure.get('first_error'))}",
        f"- tests: {', '.join(f'`{t}`' for t in tests) or '—'}",
        "",
        *hardware_section(devices),
        "",
        *software_section(env_info),
        "",
        "## Model",
        "",
        f"`{model_name(config)}`"
        + (
            " (the plugin's built-in tiny random-weight model)"
            if model_name(config) == TINY_MODEL
            else ""
        ),
        "",
        '## What "FP8" means in this run',
        "",
        *[f"- {n}" for n in fp8_meaning(config, first_device.get("compute_capability"))],
        "",
        *backend_section(entry),
        "",
        "## Memory budget",
        "",
        *[f"- {n}" for n in memory_budget(config, first_device.get("total_memory_bytes"))],
        "",
        *_arguments_section(config),
        "",
        *_error_section(entry),
        "",
        *_log_section(entry, log_root),
    ]
    perf = perf_section(entry)
    if perf:
        lines += ["", *perf]
    isolation = _isolation_section(entry)
    if isolation:
        lines += ["", *isolation]
    timings = entry.get("timings") or {}
    if timings:
        lines += ["", "## Timings", "", "| stage | seconds |", "|---|---|"]
        lines += [f"| {k} | {float(v):.2f} |" for k, v in timings.items()]
    env_vars = env_info.get("env") or {}
    if env_vars:
        lines += ["", "## Environment variables", ""]
        lines.append(_fence("\n".join(f"{k}={v}" for k, v in env_vars.items()), "text"))
    return red.redact("\n".join(lines) + "\n")


def failing_entries(results: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """Config entries that failed (outcome ``failed`` or a recorded category), or that a
    performance comparison found slower."""
    return [
        e
        for e in results.get("configs") or []
        if e.get("outcome") == "failed"
        or (failure_of(e) and e.get("outcome") != "passed")
        or slower(e)
    ]


def write_bug_reports(
    results: dict[str, Any],
    out_dir: Path,
    *,
    log_root: Path | None = None,
    redactor: Redactor | None = None,
) -> list[Path]:
    """Write ``out_dir/reports/<config id>.md`` for every failing configuration.

    ``log_path`` values in ``results`` are relative to the artifacts directory: ``log_root``
    (default ``out_dir``). Returns the written paths, in ``results`` order.
    """
    red = redactor if redactor is not None else Redactor.from_environ()
    devices = results.get("devices") or []
    environment = results.get("environment") or {}
    root = out_dir if log_root is None else log_root
    written: list[Path] = []
    entries = failing_entries(results)
    if entries:
        (out_dir / "reports").mkdir(parents=True, exist_ok=True)
    for entry in entries:
        path = out_dir / "reports" / report_file_name(str(entry.get("config_id", "config")))
        text = render_bug_report(entry, devices, environment, log_root=root, redactor=red)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
