"""The JUnit file stays valid XML whatever an engine log holds; text helpers behave."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from report_helpers import RTX_5090, read_testcase_properties, write_conftest

from pytest_blackwell.report.redact import REDACTED, Redactor
from pytest_blackwell.report.xmltext import (
    facts_to_properties,
    properties_to_facts,
    sanitize_text,
    strip_ansi,
    truncate_text,
    xml_safe,
)

FIRST = "RuntimeError: CUDA error: an illegal memory access was encountered"

NASTY_TESTS = """
import pytest

RAW = b"\\x1b[1;31m" + b"RuntimeError: CUDA error: an illegal memory access was encountered" \\
    + b"\\x1b[0m\\x00\\x07\\x0b bad utf8: \\xff\\xfe\\xc3("
FIRST = RAW.decode("utf-8", errors="replace")
SURROGATES = RAW.decode("utf-8", errors="surrogateescape")
TRACE = "\\n".join(
    ["Traceback (most recent call last):"]
    + [f'  File "/x/engine.py", line {i}, in frame_{i}\\x1b[2m\\x00' for i in range(40000)]
    + [SURROGATES]
)


@pytest.mark.facts(config="kv=fp8", category="illegal_memory_access", stage="execute",
                   first_error=SURROGATES, outcome="failed", detail=FIRST + "\\x1b]8;;x\\x07")
def test_huge():
    print("captured \\x1b[32mstdout\\x00\\x1b[0m", SURROGATES)
    summary = "illegal_memory_access at execute: " + FIRST
    pytest.fail(summary + "\\n" + TRACE, pytrace=False)


@pytest.mark.facts(config="kv=auto", first_error=FIRST)
def test_small_nasty():
    pass
"""


def test_junit_valid_with_ansi_nul_control_invalid_utf8_and_megabytes(
    pytester: pytest.Pytester,
) -> None:
    from junitparser import Failure
    from junitparser.xunit2 import JUnitXml

    write_conftest(pytester, RTX_5090)
    pytester.makepyfile(test_nasty=NASTY_TESTS)
    result = pytester.runpytest("--junitxml=out.xml", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    xml = pytester.path / "out.xml"

    ET.parse(xml)  # strict XML 1.0 parser: raises on any illegal character
    assert xml.stat().st_size < 1024 * 1024, "the 2 MB traceback was truncated"

    props = read_testcase_properties(xml)
    huge = props["test_huge"]
    assert huge["blackwell.category"] == "illegal_memory_access"
    expected_first = FIRST + " bad utf8: \ufffd\ufffd\ufffd("
    assert huge["blackwell.first_error"] == expected_first.replace("\ufffd", "")  # surrogates go
    assert huge["blackwell.detail"] == expected_first
    assert props["test_small_nasty"]["blackwell.first_error"] == expected_first

    case = next(c for s in JUnitXml.fromfile(str(xml)) for c in s if c.name == "test_huge")
    (failure,) = [r for r in case.result if isinstance(r, Failure)]
    first_line = failure.message.splitlines()[0]
    assert first_line.endswith("illegal_memory_access at execute: " + expected_first)
    assert "truncated by pytest-blackwell" in failure.text
    assert "\x1b" not in failure.text
    # The first error line survives whole inside the truncated body too.
    assert ("illegal_memory_access at execute: " + expected_first) in failure.text.splitlines()[1:]


def test_strip_ansi_and_xml_safe() -> None:
    text = "\x1b[1;31mred\x1b[0m \x1b]8;;http://x\x07link\x1b]8;;\x07 \x9b2Kz"
    assert strip_ansi(text) == "red link z"
    assert xml_safe("a\x00b\x07c\td\ne\rf\ud800g\ufffeh\ufffd") == "abc\td\ne\rfgh\ufffd"


def test_sanitize_text_decodes_invalid_utf8() -> None:
    assert sanitize_text(b"ok \xff\x00 \x1b[31mred\x1b[0m") == "ok \ufffd red"


def test_truncate_keeps_first_error_line_whole_with_marker() -> None:
    first = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate " + "9" * 500
    text = "\n".join(["header"] * 3 + ["noise line"] * 100_000 + [first] + ["tail"] * 100_000)
    out = truncate_text(text, 4096, keep="torch.OutOfMemoryError")
    assert len(out) < 6000
    assert first in out.splitlines()
    assert out.startswith("header\n")
    assert out.rstrip().endswith("tail")
    assert out.count("characters truncated by pytest-blackwell") == 2


def test_truncate_long_first_line_whole_unless_beyond_limit() -> None:
    first = "E" * 900  # longer than the head budget (2/3 of the limit): still kept whole
    out = truncate_text(first + "\n" + "x\n" * 10_000, 1000)
    assert out.splitlines()[0] == first
    assert "truncated by pytest-blackwell" in out
    huge = truncate_text("E" * 50_000, 1000)  # one line longer than the limit itself
    assert len(huge) < 1100
    assert huge.startswith("E" * 1000)
    assert "characters truncated by pytest-blackwell" in huge
    assert truncate_text("short\ntext", 1000) == "short\ntext"


def test_facts_to_properties_plain_str_in_stable_order() -> None:
    facts = {
        "stage": "kv_alloc",
        "zeta": 1,
        "config": "kv=fp8",
        "device": "NVIDIA B200",
        "follows": None,
        "enforce_eager": True,
        "tests": ["a", "b"],
    }
    props = facts_to_properties(facts)
    assert props == [
        ("blackwell.device", "NVIDIA B200"),
        ("blackwell.config", "kv=fp8"),
        ("blackwell.stage", "kv_alloc"),
        ("blackwell.enforce_eager", "true"),
        ("blackwell.tests", "a, b"),
        ("blackwell.zeta", "1"),
    ]
    assert properties_to_facts([*props, ("other", "x")])["config"] == "kv=fp8"


def test_facts_to_properties_redacts_and_bounds() -> None:
    red = Redactor(["s3cr3t-value"])
    (prop,) = facts_to_properties(
        {"first_error": "auth s3cr3t-value " + "x" * 10_000}, redactor=red
    )
    assert "s3cr3t-value" not in prop[1]
    assert REDACTED in prop[1]
    assert len(prop[1]) < 5000
