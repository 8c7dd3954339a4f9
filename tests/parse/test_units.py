"""units: zpool's human numbers, durations and dates (reference §0, §3.3)."""

from __future__ import annotations

import pytest

from zdash.parse import ParseError
from zdash.parse.units import parse_count, parse_ctime, parse_dhms, parse_duration_ns, parse_size, size_step

KIB, MIB, GIB, TIB, PIB = (1024**n for n in range(1, 6))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0", 0),
        ("512", 512),
        ("512B", 512),
        ("0B", 0),  # zfs_nicebytes below 1 KiB
        ("1.50K", 1536),
        ("3K", 3 * KIB),  # errors capture: "repaired 3K"
        ("12.3M", round(12.3 * MIB)),
        ("403M", 403 * MIB),  # zpool-scrub.8 example
        ("2.31T", round(2.31 * TIB)),
        ("1.38P", round(1.38 * PIB)),  # issues #16 (FreeNAS-Report), #16979
        (" 165M ", 165 * MIB),
    ],
)
def test_parse_size_reads_nicenum_base_1024(text, expected):
    assert parse_size(text) == expected


def test_dash_is_unknown_not_zero():
    assert parse_size("-") is None
    assert parse_count("-") is None
    assert parse_duration_ns("-") is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0", 0),
        ("70", 70),
        ("2562", 2562),
        ("1.68K", 1720),  # write errors in https://github.com/openzfs/zfs/issues/16979
        ("2.50K", 2560),  # errors/zpool-status.permanent.txt; the -p capture says 2562
    ],
)
def test_parse_count_reads_exact_and_nicenum_counters(text, expected):
    assert parse_count(text) == expected


@pytest.mark.parametrize("bad", ["", "abc", "1.2.3", "12X", "K", "1,5K", "٣", "9" * 40, "-1"])
def test_bad_numbers_raise_parse_error(bad):
    with pytest.raises(ParseError):
        parse_size(bad)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("250us", 250_000),
        ("12ms", 12_000_000),
        ("1.20s", 1_200_000_000),
        ("800ns", 800),
    ],
)
def test_parse_duration_ns_uses_base_1000_time_units(text, expected):
    assert parse_duration_ns(text) == expected


def test_duration_without_unit_is_an_error():
    with pytest.raises(ParseError):
        parse_duration_ns("250")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("00:00:17", 17),
        ("00:13:01", 13 * 60 + 1),
        ("0 days 21:27:01", 21 * 3600 + 27 * 60 + 1),  # 0.8 always prints days (issue #840)
        ("1 days 02:55:32", 86400 + 2 * 3600 + 55 * 60 + 32),
        ("2h54m", 2 * 3600 + 54 * 60),  # pre-0.8 (issue #2973)
    ],
)
def test_parse_dhms(text, expected):
    assert parse_dhms(text) == expected


def test_parse_ctime_matches_the_json_epoch_of_the_same_scan():
    # degraded/zpool-status.resilvering.txt prints "since Sun Nov 22 03:40:05 2026"; the
    # --json-int capture of the same resilver says start_time 1795318805.
    assert parse_ctime("Sun Nov 22 03:40:05 2026") == 1795318805
    # Plain -j prints the same moment with the zone name (§4.2).
    assert parse_ctime("Sun Nov 22 03:40:05 UTC 2026") == 1795318805


def test_parse_ctime_accepts_the_space_padded_day():
    # ctime() pads single-digit days: "Thu Apr  8 19:53:32 2021" (issue #11863)
    assert parse_ctime("Thu Apr  8 19:53:32 2021") == 1617911612


def test_parse_ctime_refuses_to_guess_other_zones_and_impossible_dates():
    assert parse_ctime("Sun Nov 22 03:40:05 CEST 2026") is None
    assert parse_ctime("Mon Feb 30 10:00:00 2026") is None
    with pytest.raises(ParseError):
        parse_ctime("2026-11-22T03:40:05Z")


def test_size_step_is_what_the_last_printed_digit_is_worth():
    """A pasted 922G is 921.5-922.5 GiB; 1.00T is known to a hundredth of a TiB; bytes are exact."""
    assert size_step("922G") == 1 << 30
    assert size_step("1.00T") == round((1 << 40) / 100)
    assert size_step("1.50K") == 10
    assert size_step("989989961728") == 1 and size_step("512B") == 1
