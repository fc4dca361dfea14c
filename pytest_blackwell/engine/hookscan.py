"""Which stage points and log markers a vLLM release has, read statically (nothing imported).

:func:`scan` takes a vLLM wheel (``.whl``), a source checkout (the folder holding ``vllm/``) or
an installed ``vllm`` package folder, parses the modules of
:data:`~pytest_blackwell.engine.stagepoints.STAGE_POINTS` with :mod:`ast` and searches every
``.py`` file of the package for the stage tracker's log markers
(:data:`pytest_blackwell.failures.stages.STAGE_MARKERS`).
"""

from __future__ import annotations

import ast
import re
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pytest_blackwell.engine.stagepoints import STAGE_POINTS, StagePoint, expected_in

#: Implicitly concatenated string literals (``"a, " "b"``, across lines too): read as one.
_ADJACENT_STRINGS = re.compile(r"""(["'])\s+\1""")
_VERSION_RE = re.compile(r"""__version__\s*=\s*(?:version\s*=\s*)?['"]([^'"]+)['"]""")


class SourceError(ValueError):
    """The path is not a vLLM wheel, source tree or package folder."""


@dataclass(frozen=True)
class PointStatus:
    point: StagePoint
    present: bool
    #: What was found: ``def``, ``imported`` (a module-level name bound by an import),
    #: or why it is absent.
    how: str
    #: Keyword-only / positional parameter names of the found ``def`` (empty otherwise).
    params: tuple[str, ...] = ()
    expected: bool = True


@dataclass(frozen=True)
class ScanResult:
    source: str
    version: str
    points: tuple[PointStatus, ...]
    #: marker fragment -> True when some ``.py`` file of the release contains it.
    markers: dict[str, bool] = field(default_factory=dict)

    def missing(self) -> list[PointStatus]:
        """Points absent although the release is inside their ``since``/``until`` range."""
        return [s for s in self.points if s.expected and not s.present]


class _Source:
    """Read-only access to ``vllm/**.py`` of a wheel or a folder."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._zip: zipfile.ZipFile | None = None
        self._root: Path | None = None
        if path.is_file() and zipfile.is_zipfile(path):
            self._zip = zipfile.ZipFile(path)
            if "vllm/__init__.py" not in self._zip.namelist():
                raise SourceError(f"{path}: a zip file without vllm/__init__.py (not a vLLM wheel)")
        elif (path / "vllm" / "__init__.py").is_file():
            self._root = path
        elif path.name == "vllm" and (path / "__init__.py").is_file():
            self._root = path.parent
        else:
            raise SourceError(
                f"{path}: expected a vLLM wheel (.whl), a source tree holding vllm/, or an "
                "installed vllm package folder"
            )

    def read(self, relative: str) -> str | None:
        if self._zip is not None:
            try:
                return self._zip.read(relative).decode("utf-8", errors="replace")
            except KeyError:
                return None
        assert self._root is not None
        file = self._root / relative
        return file.read_text(encoding="utf-8", errors="replace") if file.is_file() else None

    def python_files(self) -> Iterator[str]:
        if self._zip is not None:
            for name in self._zip.namelist():
                if name.startswith("vllm/") and name.endswith(".py"):
                    yield self._zip.read(name).decode("utf-8", errors="replace")
            return
        assert self._root is not None
        for file in sorted((self._root / "vllm").rglob("*.py")):
            yield file.read_text(encoding="utf-8", errors="replace")

    def version(self) -> str:
        if self._zip is not None:
            for name in self._zip.namelist():
                if name.endswith(".dist-info/METADATA"):
                    text = self._zip.read(name).decode("utf-8", errors="replace")
                    for line in text.splitlines():
                        if line.startswith("Version:"):
                            return line.split(":", 1)[1].strip()
        text = self.read("vllm/_version.py") or ""
        match = _VERSION_RE.search(text)
        return match.group(1) if match else "unknown"


def _module_file(module: str) -> tuple[str, str]:
    base = module.replace(".", "/")
    return f"{base}.py", f"{base}/__init__.py"


def _params(node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[str, ...]:
    args = node.args
    return tuple(a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs))


def _find(tree: ast.Module, point: StagePoint) -> tuple[bool, str, tuple[str, ...]]:
    body: list[ast.stmt] = tree.body
    if point.owner:
        classes = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == point.owner]
        if not classes:
            return False, f"no class {point.owner}", ()
        body = classes[-1].body
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == point.attr:
            return True, "def", _params(node)
        if not point.owner and isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if (alias.asname or alias.name) == point.attr:
                    return True, "imported", ()
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == point.attr for t in node.targets
        ):
            return True, "assigned", ()
    where = f"class {point.owner}" if point.owner else "the module"
    return False, f"{where} has no {point.attr}", ()


def _point_status(source: _Source, point: StagePoint, version: str) -> PointStatus:
    expected = expected_in(point, version)
    text = None
    for candidate in _module_file(point.module):
        text = source.read(candidate)
        if text is not None:
            break
    if text is None:
        return PointStatus(point, False, "no such module", expected=expected)
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        return PointStatus(point, False, f"cannot parse: {exc.msg}", expected=expected)
    present, how, params = _find(tree, point)
    if present and point.skip_if_true is not None and how == "def":
        how = f"def ({point.skip_if_true}: {'yes' if point.skip_if_true in params else 'no'})"
    return PointStatus(point, present, how, params, expected)


def scan(path: str | Path, markers: tuple[str, ...] | None = None) -> ScanResult:
    """The stage points and log markers of the vLLM at ``path`` (see the module docstring)."""
    if markers is None:
        from pytest_blackwell.failures.stages import STAGE_MARKERS

        markers = tuple(fragment for fragment, _ in STAGE_MARKERS)
    source = _Source(Path(path))
    version = source.version()
    points = tuple(_point_status(source, p, version) for p in STAGE_POINTS)
    found = dict.fromkeys(markers, False)
    for text in source.python_files():
        joined: str | None = None
        for fragment in found:
            if found[fragment] or fragment in text:
                found[fragment] = True
                continue
            if joined is None:
                joined = _ADJACENT_STRINGS.sub("", text)
            found[fragment] = fragment in joined
        if all(found.values()):
            break
    return ScanResult(str(path), version, points, found)


def render_markdown(results: list[ScanResult]) -> str:
    """One table of points and one of markers, a column per release."""
    ordered = sorted(results, key=lambda r: _sort_key(r.version))
    head = "| | " + " | ".join(r.version for r in ordered) + " |"
    rule = "|---|" + "---|" * len(ordered)
    lines = ["### Stage points (module, class, method)", "", head, rule]
    for i, point in enumerate(STAGE_POINTS):
        cells = []
        for result in ordered:
            status = result.points[i]
            mark = "yes" if status.present else "**no**" if status.expected else "no"
            extra = status.how.removeprefix("def").strip() if status.present else ""
            cells.append(f"{mark} {extra}".strip())
        label = f"`{point.name}` -> {point.before}"
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines += ["", "### Log markers of the stage tracker", "", head, rule]
    fragments = list(ordered[0].markers) if ordered else []
    for fragment in fragments:
        cells = ["yes" if r.markers.get(fragment) else "no" for r in ordered]
        lines.append(f"| `{fragment}` | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _sort_key(version: str) -> tuple[int, ...]:
    from pytest_blackwell.engine.stagepoints import version_tuple

    return version_tuple(version)
