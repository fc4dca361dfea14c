"""House rules as tests: lint, strict typing, module size, and a light import."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "pytest_blackwell"


def run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)


@pytest.mark.skipif(
    shutil.which("ruff") is None and sys.prefix == sys.base_prefix, reason="ruff is not installed"
)
def test_ruff_clean() -> None:
    done = run(
        sys.executable, "-m", "ruff", "check", "pytest_blackwell", "tests", "bench", "example_suite"
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_strict_clean() -> None:
    pytest.importorskip("mypy")
    done = run(sys.executable, "-m", "mypy", "pytest_blackwell")
    assert done.returncode == 0, done.stdout + done.stderr


def test_import_layers_hold() -> None:
    """The import-linter contracts in pyproject.toml: layers point down, no pytest below glue."""
    pytest.importorskip("importlinter")
    lint_imports = Path(sys.executable).with_name("lint-imports")
    done = run(str(lint_imports), "--no-cache")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def test_modules_stay_small() -> None:
    big = {
        str(path.relative_to(ROOT)): n
        for path in PACKAGE.rglob("*.py")
        if (n := len(path.read_text().splitlines())) > 500
    }
    assert big == {}


def test_importing_the_plugin_imports_no_heavy_dependency() -> None:
    code = (
        "import sys, pytest_blackwell.plugin, pytest_blackwell.plugin.settings, "
        "pytest_blackwell.plugin.devices, pytest_blackwell.plugin.engines, "
        "pytest_blackwell.plugin.params, pytest_blackwell.plugin.isolation, "
        "pytest_blackwell.plugin.perf, pytest_blackwell.plugin.gpu, "
        "pytest_blackwell.plugin.lifecycle, pytest_blackwell.plugin.xdist, "
        "pytest_blackwell.plugin.html, pytest_blackwell.plugin.reporting\n"
        "heavy = [m for m in ('torch', 'vllm', 'pynvml', 'junitparser') if m in sys.modules]\n"
        "print(','.join(heavy))"
    )
    done = run(sys.executable, "-c", code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""


def test_no_import_cycle_anywhere_in_the_package() -> None:
    """Imports inside functions count: a cycle through a lazy import is still a cycle."""
    grimp = pytest.importorskip("grimp")
    graph = grimp.build_graph("pytest_blackwell")
    modules = sorted(graph.modules)
    cycles = []
    for module in modules:
        for imported in graph.find_modules_directly_imported_by(module):
            if imported.startswith("pytest_blackwell") and graph.chain_exists(
                importer=imported, imported=module
            ):
                cycles.append(f"{module} <-> {imported}")
    assert cycles == []
