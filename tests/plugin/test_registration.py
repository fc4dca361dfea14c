"""How the plugin registers its sibling modules: once each, in order, and all of them blocked
together by ``-p no:blackwell``."""

from __future__ import annotations

import sys

import pytest

from pytest_blackwell.plugin import SIBLINGS

DEVICE = "--blackwell-device=rtx-pro-6000"


def _ours(config: pytest.Config) -> list[str]:
    return [
        name
        for name, plugin in config.pluginmanager.list_name_plugin()
        if plugin is not None
        and (name in ("blackwell", "pytest_blackwell.plugin") or name in SIBLINGS)
    ]


def test_every_sibling_is_registered_once_in_order(pytester: pytest.Pytester) -> None:
    config = pytester.parseconfigure(DEVICE)
    manager = config.pluginmanager
    assert _ours(config) == ["blackwell", *SIBLINGS]
    for name in SIBLINGS:
        module = sys.modules[name]
        assert manager.get_plugin(name) is module
        hooks = [n for n in vars(module) if n.startswith("pytest_") and callable(vars(module)[n])]
        assert hooks, name
        for hook in hooks:
            impls = [i for i in getattr(manager.hook, hook).get_hookimpls() if i.plugin is module]
            assert len(impls) == 1, f"{name}.{hook} is registered {len(impls)} times"


def test_siblings_get_the_plugins_hook_specifications(pytester: pytest.Pytester) -> None:
    config = pytester.parseconfigure(DEVICE)
    assert config.pluginmanager.hook.pytest_blackwell_detect_devices.has_spec()
    assert config.getoption("blackwell_device") == "rtx-pro-6000"


def test_no_blackwell_blocks_every_sibling(pytester: pytest.Pytester) -> None:
    config = pytester.parseconfigure("-p", "no:blackwell")
    assert _ours(config) == []
    assert not hasattr(config.pluginmanager.hook, "pytest_blackwell_detect_devices")
    pytester.makepyfile("def test_nothing(): pass\n")
    result = pytester.runpytest("-p", "no:blackwell", DEVICE)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unrecognized arguments: --blackwell-device*"])
    pytester.runpytest("-p", "no:blackwell").assert_outcomes(passed=1)


def test_one_sibling_can_be_blocked_alone(pytester: pytest.Pytester) -> None:
    config = pytester.parseconfigure("-p", "no:pytest_blackwell.plugin.html", DEVICE)
    assert _ours(config) == [
        "blackwell",
        *(n for n in SIBLINGS if n != "pytest_blackwell.plugin.html"),
    ]


def test_loaded_by_name_without_entry_points(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    config = pytester.parseconfigure("-p", "pytest_blackwell.plugin", DEVICE)
    assert _ours(config) == ["pytest_blackwell.plugin", *SIBLINGS]
    pytester.makepyfile("import pytest\n@pytest.mark.sm120\ndef test_sm120(): pass\n")
    result = pytester.runpytest("-p", "pytest_blackwell.plugin", DEVICE, "--strict-markers")
    result.assert_outcomes(passed=1)
