"""Which tests run the perf comparison: every test a ``perf_compare`` mark reaches, however it
gets there, and no other test (which does not even resolve the comparison's fixture)."""

from __future__ import annotations

import pytest

CONFTEST = """
import pytest

@pytest.fixture
def vllm_perf_comparison(request):
    with open("compared.txt", "a") as out:
        out.write(request.node.nodeid.split("::", 1)[1] + "\\n")

def pytest_collection_modifyitems(items):
    for item in items:
        if item.name == "test_marked_late":
            item.add_marker(pytest.mark.perf_compare(max_num_seqs=[1, 8]))
"""

TESTS = """
import pytest

PERF = pytest.mark.perf_compare(max_num_seqs=[1, 8])
FIXTURE = "_blackwell_perf_compare"

@PERF
def test_marked(request):
    assert FIXTURE in request.fixturenames

def test_unmarked(request):
    assert FIXTURE not in request.fixturenames
    assert "_blackwell_variant" not in request.fixturenames

def test_marked_late():
    pass

@pytest.mark.parametrize("n", [1, pytest.param(2, marks=PERF)])
def test_param(n):
    pass

@PERF
class TestMarkedClass:
    def test_method(self):
        pass

class TestPlainClass:
    def test_method(self):
        pass

@PERF
@pytest.mark.kv_dtype("auto", "fp8")
def test_variants(request):
    assert request.getfixturevalue("_blackwell_variant").config.kv_cache_dtype in ("auto", "fp8")

@PERF
def helper_not_a_test():
    pass
"""


def test_every_marked_test_runs_the_comparison_and_no_other(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_perf=TESTS)
    pytester.makepyfile(
        test_module_mark="""
        import pytest
        pytestmark = pytest.mark.perf_compare(max_num_seqs=[1, 8])

        def test_in_marked_module():
            pass
        """
    )
    result = pytester.runpytest("-p", "no:randomly", "--blackwell-device=rtx-pro-6000")
    result.assert_outcomes(passed=10)
    compared = (pytester.path / "compared.txt").read_text().split()
    assert sorted(compared) == sorted(
        [
            "test_in_marked_module",
            "test_marked",
            "test_marked_late",
            "test_param[2]",
            "TestMarkedClass::test_method",
            "test_variants[kv=auto]",
            "test_variants[kv=fp8]",
        ]
    )


def test_a_function_collected_twice_is_marked_once(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(
        test_a="""
        import pytest

        @pytest.mark.perf_compare(max_num_seqs=[1, 8])
        def test_shared(request):
            marks = [m for m in request.node.iter_markers("usefixtures")]
            assert len(marks) == 1
        """,
        test_b="from test_a import test_shared\n",
    )
    result = pytester.runpytest("-p", "no:randomly", "--blackwell-device=rtx-pro-6000")
    result.assert_outcomes(passed=2)
    assert (pytester.path / "compared.txt").read_text().split() == ["test_shared"] * 2
