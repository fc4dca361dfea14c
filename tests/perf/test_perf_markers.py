"""The perf_compare marker: parsing, and bad arguments as collection errors naming the test."""

from __future__ import annotations

import pytest

from pytest_blackwell.engine.config import EngineConfig
from pytest_blackwell.markers import MarkInput
from pytest_blackwell.markers.config import ConfigMarkerError
from pytest_blackwell.markers.perf import parse_perf_compare


def mark(**kwargs: object) -> MarkInput:
    return MarkInput("perf_compare", (), kwargs)


def test_defaults_and_settings() -> None:
    spec = parse_perf_compare(mark(kv_dtype=["auto", "fp8"], prompts=1, max_tokens=32, rounds=4))
    assert spec.variable == "kv_cache_dtype"
    assert spec.values == ("auto", "fp8")
    assert spec.metric == "output_tokens_per_s"
    assert spec.max_slowdown == 0.10
    assert (spec.workload.prompts, spec.workload.max_tokens, spec.workload.rounds) == (1, 32, 4)
    a, b = spec.configs(EngineConfig(max_model_len=256, max_num_seqs=1))
    assert (a.kv_cache_dtype, b.kv_cache_dtype) == ("auto", "fp8")
    assert a.max_num_seqs == b.max_num_seqs == 1


def test_any_engine_argument_is_a_variable() -> None:
    spec = parse_perf_compare(mark(seed=[0, 1], prompt_seed=3, metric="ttft_p90_s"))
    a, b = spec.configs(EngineConfig())
    assert (a.engine_args, b.engine_args) == ({"seed": 0}, {"seed": 1})
    assert spec.workload.seed == 3
    assert spec.metric == "ttft_p90_s"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({}, "exactly one configuration variable.*found variables: none"),
        ({"seed": [0, 1], "max_num_seqs": [1, 8]}, "found variables: max_num_seqs, seed"),
        ({"seed": 0}, "seed must be a list of two values"),
        ({"seed": [0, 1, 2]}, "seed must be a list of two values"),
        ({"seed": [1, 1]}, "compares 1 with itself"),
        ({"seed": [0, 1], "metric": "tokens"}, "unknown metric 'tokens'"),
        ({"seed": [0, 1], "max_slowdown": 10}, r"max_slowdown must be within \[0, 1\)"),
        ({"seed": [0, 1], "max_slowdown": "10%"}, "max_slowdown must be a fraction"),
        ({"seed": [0, 1], "rounds": 1}, "rounds must be at least 2"),
        ({"seed": [0, 1], "prompts": 0}, "prompts: expected an int >= 1"),
    ],
)
def test_bad_arguments_say_what_was_expected(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigMarkerError, match=message):
        parse_perf_compare(mark(**kwargs))


def test_values_must_make_different_engines() -> None:
    spec = parse_perf_compare(mark(kv_cache_memory_bytes=["64MiB", 64 * 1024**2]))
    with pytest.raises(ConfigMarkerError, match="same engine configuration"):
        spec.configs(EngineConfig())


def test_bad_marker_is_a_collection_error_naming_the_test(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.perf_compare(max_num_seqs=[1, 8], max_slowdown=2)
        def test_bad():
            pass

        @pytest.mark.perf_compare(max_num_seqs=[1, 8])
        @pytest.mark.kv_dtype("auto", "fp8")
        def test_good_with_config_markers():
            pass
        """
    )
    result = pytester.runpytest_subprocess("--collect-only", "-q", "-p", "no:randomly")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        ["*::test_bad: @pytest.mark.perf_compare: max_slowdown must be within [[]0, 1)*"]
    )
    result.stdout.no_fnmatch_line("*Traceback*")
    result.stdout.no_fnmatch_line("*test_good_with_config_markers*configuration markers need*")


def test_config_markers_expand_a_comparison(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.perf_compare(max_num_seqs=[1, 8])
        @pytest.mark.kv_dtype("auto", "fp8")
        def test_good():
            pass
        """
    )
    result = pytester.runpytest_subprocess("--collect-only", "-q", "-p", "no:randomly")
    result.stdout.fnmatch_lines(["*test_good[[]kv=auto]", "*test_good[[]kv=fp8]", "2 tests*"])


def test_the_comparison_fixture_needs_the_marker(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        def test_unmarked(vllm_perf_comparison):
            pass
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:randomly")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*vllm_perf_comparison fixture needs @pytest.mark.perf_compare*"])
