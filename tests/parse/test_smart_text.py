"""SMART as people paste it (zdash.parse.smart_text): smartd's log lines and smartctl's text,
from published posts (tests/captures/smart-text-published/SOURCES.md), graded by the same
verdict as smartctl's JSON (zdash.checks._evidence.smart_verdict)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from tests.mutate import FUZZED, mutated
from zdash.checks._evidence import smart_verdict
from zdash.checks.finding import Severity
from zdash.parse.smart_text import parse_smartctl_text, parse_smartd_line, smartctl_line, smartd_reports

PUBLISHED = Path(__file__).resolve().parents[1] / "captures" / "smart-text-published"
CORPUS_094 = (
    Path(__file__).resolve().parents[1] / "corpus" / "094-ubuntuforums-bold-markup-in-config-smartd.txt"
)


def _lines(name: str) -> list[str]:
    return (PUBLISHED / name).read_text().splitlines()


def test_the_forum_posts_smartd_line_gives_the_disk_and_its_offline_uncorrectable_count():
    (r,) = smartd_reports(CORPUS_094.read_text().splitlines())
    assert (r.device, r.offline_uncorrectable, r.pending, r.passed) == ("/dev/sde", 146, None, None)
    v = smart_verdict(r)
    assert v.severity == Severity.WARNING and v.problems == ("146 sectors uncorrectable",)


def test_pending_sectors_in_smartd_mail_syslog_and_journal_lines():
    cases = {
        "smartmontools-48-smartd-mail-pending.txt": ("/dev/sdb", 1),
        "ubuntudde-68-journal-pending.txt": ("/dev/sda", 1),
        "openfoodfacts-219-syslog-pending.txt": ("/dev/sdc", 8),
        "osm-operations-88-areca-pending.txt": ("/dev/sg3", 1),  # through an Areca controller
    }
    for name, (device, pending) in cases.items():
        (r,) = smartd_reports(_lines(name))  # five lines of one disk: one reading
        assert (r.device, r.pending) == (device, pending), name
        assert smart_verdict(r).severity == Severity.WARNING, name


def test_smartd_lines_that_say_nothing_is_wrong_raise_nothing():
    """Normalised values that move (temperature, a read error rate) and start-up lines: smartd
    says them all the time of healthy disks."""
    for name in ("arsfeld-nixos-3-temperature-changes.txt", "openzfs-4993-smartd-startup.txt"):
        assert smartd_reports(_lines(name)) == [], name
    line = "Oct 05 07:18:54 server smartd[1802]: Device: /dev/sde [SAT], 0 Currently unreadable (pending) sectors"
    (r,) = smartd_reports([line])
    assert r.pending == 0 and smart_verdict(r).severity is None


def test_the_drives_own_verdict_and_an_attribute_failing_now_in_smartd_lines():
    lines = [
        "Device: /dev/sdd [SAT], FAILED SMART self-check. BACK UP DATA NOW!",
        "Device: /dev/sdd [SAT], Failed SMART usage Attribute: 5 Reallocated_Sector_Ct.",
        "Device: /dev/sdb, SMART Failure: FAILURE PREDICTION THRESHOLD EXCEEDED",
    ]
    sdd, sdb = smartd_reports(lines)
    assert sdd.passed is False and sdd.failing_now == ("Reallocated_Sector_Ct",)
    assert sdb.device == "/dev/sdb" and sdb.passed is False  # SCSI: no [type]
    assert smart_verdict(sdd).severity == Severity.CRITICAL


def test_the_newest_count_of_a_disk_wins():
    lines = [
        "Device: /dev/sda [SAT], 8 Currently unreadable (pending) sectors",
        "Device: /dev/sda [SAT], 0 Currently unreadable (pending) sectors (changed -8)",
    ]
    (r,) = smartd_reports(lines)
    assert r.pending == 0


def test_smartctl_x_text_reads_the_attribute_table_and_the_disks_identity():
    r = parse_smartctl_text((PUBLISHED / "openzfs-5018-smartctl-x-reported-uncorrect.txt").read_text())
    assert r is not None
    assert (r.model, r.serial, r.protocol) == ("ST8000AS0002-1NA17Z", "Z8401PH7", "ATA")
    assert (r.reallocated, r.reported_uncorrect, r.power_on_hours) == (0, 56, 8140)
    assert r.device == ""  # smartctl's text does not name the device
    v = smart_verdict(r)
    assert v.severity == Severity.WARNING and "56 reads its ECC could not correct" in v.problems


def test_smartctl_a_tables_with_no_error_counts_raise_nothing():
    clean = parse_smartctl_text((PUBLISHED / "check-smart-attributes-128-table-clean.txt").read_text())
    assert clean is not None and (clean.pending, clean.crc_errors, clean.temperature_c) == (0, 0, 24)
    assert smart_verdict(clean).severity is None
    indented = parse_smartctl_text((PUBLISHED / "napsty-check-smart-3-table-clean.txt").read_text())
    assert indented is not None and (indented.reallocated, indented.reported_uncorrect) == (0, 0)
    assert indented.power_on_hours == 15165 and smart_verdict(indented).severity is None


def test_smartctl_text_with_its_command_a_failed_verdict_and_an_attribute_failing_now():
    text = (
        "# smartctl -a /dev/sdc\n"
        "SMART overall-health self-assessment test result: FAILED!\n"
        "  5 Reallocated_Sector_Ct   0x0033   001   001   005    Pre-fail  Always   FAILING_NOW 1975\n"
        "197 Current_Pending_Sector  0x0012   100   100   000    Old_age   Always       -       8\n"
    )
    r = parse_smartctl_text(text)
    assert r is not None and r.device == "/dev/sdc" and r.passed is False
    assert (r.reallocated, r.pending, r.failing_now) == (1975, 8, ("Reallocated_Sector_Ct",))
    assert smart_verdict(r).severity == Severity.CRITICAL


def test_text_without_smart_is_no_reading():
    assert parse_smartctl_text("NAME STATE READ WRITE CKSUM\ntank ONLINE 0 0 0\n") is None
    assert (
        parse_smartd_line("Oct 05 07:18:54 server kernel: ata3.00: failed command: READ FPDMA QUEUED") is None
    )
    assert not smartctl_line("  tank  ONLINE  0 0 0")


SEEDS = [CORPUS_094.read_text()] + [p.read_text() for p in sorted(PUBLISHED.glob("*.txt"))]


# what smartd and smartctl print, and what a forum or mail does to it
_SNIPPET = st.sampled_from(
    [
        "Device: /dev/sd",
        " [SAT], ",
        "sectors",
        "(changed +1)",
        "0x0033",
        "FAILING_NOW",
        "**",
        "> ",
        "\t",
        "\x1b[1m",
        "99999999999999999999999",
    ]
)


@FUZZED
@given(mutated(SEEDS, _SNIPPET))
def test_fuzzed_smart_text_never_raises_and_counts_stay_counts(text):
    reports = smartd_reports(text.splitlines())
    one = parse_smartctl_text(text)
    for r in [*reports, *([one] if one is not None else [])]:
        for n in (r.pending, r.offline_uncorrectable, r.reallocated, r.reported_uncorrect, r.crc_errors):
            assert n is None or 0 <= n < 2**63
        assert len(r.device) <= 120 and all(ch >= " " for ch in r.device)
        smart_verdict(r)  # gradable


@FUZZED
@given(st.text(max_size=400))
def test_arbitrary_text_never_raises(text):
    smartd_reports(text.splitlines())
    parse_smartctl_text(text)
