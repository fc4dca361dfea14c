"""The public API: a small list of names at the top, each name listed once, loaded lazily."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import pytest_blackwell

PACKAGE = Path(pytest_blackwell.__file__).parent
LAZY_PACKAGES = ("pytest_blackwell", "pytest_blackwell.device", "pytest_blackwell.engine")
LAZY_PACKAGES += ("pytest_blackwell.report",)


def test_the_names_users_and_hook_authors_need_come_from_the_top() -> None:
    from pytest_blackwell import CATEGORIES, STAGES, DeviceInfo, EngineConfig, Failure, Rule
    from pytest_blackwell.device.model import DeviceInfo as ModelDeviceInfo
    from pytest_blackwell.failures.vocabulary import CATEGORIES as VOCABULARY

    assert DeviceInfo is ModelDeviceInfo
    assert CATEGORIES is VOCABULARY
    assert "kv_cache_oom" in CATEGORIES
    assert "startup" in STAGES
    assert EngineConfig(max_model_len=256).id == "len=256"
    assert Rule(name="r", category="kv_cache_oom", pattern="boom").name == "r"
    assert Failure("kv_cache_oom", "kv_alloc", "boom").summary == "kv_cache_oom at kv_alloc: boom"


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_every_exported_name_resolves_and_is_listed_once(package: str) -> None:
    module = importlib.import_module(package)
    stub = Path(module.__file__ or "").with_suffix(".pyi")
    listed = [
        alias.asname or alias.name
        for node in ast.parse(stub.read_text()).body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    ]
    assert len(listed) == len(set(listed))
    assert module.__all__ == sorted(listed)
    for name in module.__all__:
        assert getattr(module, name) is not None
        assert name in dir(module)
    with pytest.raises(AttributeError, match="has no attribute 'nothing_here'"):
        _ = module.nothing_here


def test_test_seams_stay_in_their_modules() -> None:
    import pytest_blackwell.device as device
    from pytest_blackwell.device.detect import PROVIDERS, DetectContext

    assert PROVIDERS
    assert DetectContext.__name__ == "DetectContext"
    for seam in ("PROVIDERS", "DetectContext"):
        assert seam not in device.__all__
        assert not hasattr(device, seam)


def test_importing_the_package_loads_no_module_of_it() -> None:
    code = (
        "import sys, pytest_blackwell\n"
        "print(sorted(m for m in sys.modules if m.startswith('pytest_blackwell')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "['pytest_blackwell', 'pytest_blackwell._lazy']"
