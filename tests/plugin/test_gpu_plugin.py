"""The compile cache option: one persistent cache per vLLM version, or none."""

from __future__ import annotations

import pytest

from pytest_blackwell.engine.compilecache import compile_cache_dir, installed_vllm_version

TEST = """
from pytest_blackwell.plugin.runtime import compile_cache, pool_options

def test_cache(pytestconfig):
    path = compile_cache(pytestconfig)
    print("CACHE=" + str(path))
    assert pool_options(pytestconfig)["vllm_cache_dir"] == path
    assert pool_options(pytestconfig)["preflight"] is None  # no GPU on this host
"""


@pytest.fixture
def cache_root(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> str:
    root = pytester.path / "user-cache"
    monkeypatch.setenv("PYTEST_BLACKWELL_CACHE_DIR", str(root))
    pytester.makepyfile(TEST)
    return str(root)


def test_default_is_a_per_version_folder_in_the_user_cache(
    pytester: pytest.Pytester, cache_root: str
) -> None:
    version = installed_vllm_version()
    result = pytester.runpytest("-s", "-p", "no:randomly")
    result.assert_outcomes(passed=1)
    expected = "None" if version is None else f"{cache_root}/compile/vllm-{version}"
    result.stdout.fnmatch_lines([f"*CACHE={expected}"])


def test_off_and_an_explicit_folder(pytester: pytest.Pytester, cache_root: str) -> None:
    off = pytester.runpytest("-s", "--blackwell-compile-cache=off")
    off.assert_outcomes(passed=1)
    off.stdout.fnmatch_lines(["*CACHE=None"])
    pytester.makeini("[pytest]\nblackwell_compile_cache = ci-cache\n")
    ini = pytester.runpytest("-s")
    ini.assert_outcomes(passed=1)
    if installed_vllm_version() is not None:
        ini.stdout.fnmatch_lines(["*CACHE=ci-cache/vllm-*"])


def test_a_file_is_not_a_cache_folder(pytester: pytest.Pytester, cache_root: str) -> None:
    (pytester.path / "afile").write_text("x")
    result = pytester.runpytest("--blackwell-compile-cache=afile")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--blackwell-compile-cache: 'afile' exists and is not a directory"]
    )


def test_compile_cache_dir_is_keyed_by_version(tmp_path: pytest.TempPathFactory) -> None:
    assert compile_cache_dir(None, None) is None or installed_vllm_version() is not None
    assert str(compile_cache_dir(tmp_path, "0.34.0+cu129")).endswith("vllm-0.34.0+cu129")  # type: ignore[arg-type]
