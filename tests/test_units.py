"""Sizes: one meaning per unit word, for settings, logs and GPU vendors' labels."""

from __future__ import annotations

import pytest

from pytest_blackwell.units import (
    GIB,
    format_size,
    holds_vendor_gb,
    parse_logged_size,
    parse_size,
    vendor_gb,
)

MIB = 1024**2


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("512MiB", 512 * MIB),
        ("2GiB", 2 * GIB),
        ("1.5G", 3 * GIB // 2),
        ("64MB", 64_000_000),
        ("2GB", 2_000_000_000),
        (" 4096 ", 4096),
        ("10kib", 10 * 1024),
        (123, 123),
    ],
)
def test_a_setting_reads_binary_units_and_decimal_ones(text: str | int, expected: int) -> None:
    assert parse_size(text) == expected


@pytest.mark.parametrize("bad", ["lots", "12 parsecs", "-5MiB", "1.3B", -1, True, 2.5])
def test_a_bad_setting_is_refused_naming_where_it_came_from(bad: object) -> None:
    with pytest.raises(ValueError, match=r"memory_budget\(kv_cache_memory_bytes\)") as info:
        parse_size(bad, what="memory_budget(kv_cache_memory_bytes)")  # type: ignore[arg-type]
    assert repr(bad) in str(info.value) or str(bad) in str(info.value)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("20.00 MiB", 20 * MIB),
        ("232448", 232448),
        ("1.5 GiB", 3 * GIB // 2),
        # vLLM prints "Loading model weights took 1.5000 GB" from bytes / 2**30
        ("1.5 GB", 3 * GIB // 2),
        ("3 KB", 3072),
        ("64MB", 64 * MIB),
        ("12 bytes", 12),
        ("lots", None),
        ("12 parsecs", None),
    ],
)
def test_a_logged_size_reads_every_multiple_as_binary(text: str, expected: int | None) -> None:
    assert parse_logged_size(text) == expected


def test_the_same_words_mean_what_their_writer_meant() -> None:
    assert parse_size("1GiB") == parse_logged_size("1GiB") == parse_logged_size("1GB") == GIB
    assert parse_size("1GB") == 10**9


def test_format_size_is_the_inverse_for_round_units() -> None:
    sizes = (64 * MIB, 2 * GIB, 1536 * 1024, 1000)
    assert [format_size(n) for n in sizes] == ["64MiB", "2GiB", "1536KiB", "1000"]
    assert [parse_size(format_size(n)) for n in sizes] == list(sizes)


def test_a_vendor_gb_of_memory_is_a_gib() -> None:
    assert vendor_gb(80) == 80 * GIB


@pytest.mark.parametrize(
    ("reported_mib", "label_gb", "holds"),
    [
        (81920, 80, True),  # A100 80GB: exactly 80 GiB
        (81559, 80, True),  # H100 80GB HBM3: the driver keeps some
        (46068, 48, True),  # L40S 48GB with ECC on: 1/16 less
        (32607, 32, True),  # RTX 5090 32GB
        (24564, 32, False),  # RTX 4090 24GB is no 32 GB card
        (46068, 49, False),
    ],
)
def test_a_device_holds_its_label_despite_what_the_driver_keeps(
    reported_mib: int, label_gb: int, holds: bool
) -> None:
    assert holds_vendor_gb(reported_mib * MIB, label_gb) is holds
    assert holds_vendor_gb(vendor_gb(label_gb), label_gb)  # a simulated profile holds its label
