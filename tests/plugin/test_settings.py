"""The frozen Settings: every option read once, with where each value came from."""

from __future__ import annotations

import pytest


def test_settings_name_the_origin_of_each_value(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTEST_BLACKWELL_REQUEST_TIMEOUT", "12.5")
    pytester.makeini("[pytest]\nblackwell_max_engines = 3\nblackwell_engine_timeout = 60\n")
    pytester.makepyfile(
        """
        import dataclasses

        import pytest

        from pytest_blackwell.plugin.settings import settings_of

        def test_settings(pytestconfig):
            settings = settings_of(pytestconfig)
            assert settings is settings_of(pytestconfig)  # read once
            assert (settings.max_engines, settings.origin("max_engines")) == (
                3, "ini option blackwell_max_engines"
            )
            assert (settings.gpus_per_worker, settings.origin("gpus_per_worker")) == (
                2, "--blackwell-gpus-per-worker"
            )
            assert settings.engine_timeout == 60.0 and settings.stage_timeout is None
            assert (settings.request_timeout, settings.origin("request_timeout")) == (
                12.5, "$PYTEST_BLACKWELL_REQUEST_TIMEOUT"
            )
            assert settings.isolate is None and settings.compile_cache_off
            with pytest.raises(dataclasses.FrozenInstanceError):
                settings.max_engines = 4
        """
    )
    result = pytester.runpytest(
        "-p", "no:randomly", "--blackwell-gpus-per-worker=2", "--blackwell-compile-cache=off"
    )
    result.assert_outcomes(passed=1)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--blackwell-max-engines=0"],
            "--blackwell-max-engines: expected a positive int, got '0'",
        ),
        (
            ["-o", "blackwell_stage_timeout=soon"],
            "ini option blackwell_stage_timeout: expected a positive float, got 'soon'",
        ),
    ],
)
def test_bad_numbers_are_usage_errors_naming_their_source(
    pytester: pytest.Pytester, args: list[str], message: str
) -> None:
    pytester.makepyfile("def test_x(): pass")
    result = pytester.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{message}*"])
