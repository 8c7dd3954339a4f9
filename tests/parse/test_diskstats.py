"""diskstats: /proc/diskstats of the deranged-disk scenario (dm-0 = slowdisk, dm-delay 100 ms
over loop3; loop0..loop2 are the healthy members)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zdash.model import DiskIo
from zdash.parse import ParseError
from zdash.parse.diskstats import DiskCounters, disk_rates, parse_diskstats, rates_between

DERANGED = Path(__file__).resolve().parents[1] / "captures" / "deranged-disk"
SNAPSHOTS = sorted(DERANGED.glob("proc-diskstats.[0-9].txt"))


def _series() -> list[tuple[float, dict[str, DiskCounters]]]:
    """proc-diskstats-series.txt: blocks of `--- uptime_s=<s>` then the file's content."""
    blocks = (DERANGED / "proc-diskstats-series.txt").read_text().split("--- uptime_s=")[1:]
    return [(float(b.split("\n", 1)[0]), parse_diskstats(b.split("\n", 1)[1])) for b in blocks]


def _snapshot(i: int) -> dict[str, DiskCounters]:
    return parse_diskstats((DERANGED / f"proc-diskstats.{i}.txt").read_text())


@pytest.mark.parametrize("path", SNAPSHOTS, ids=lambda p: p.name)
def test_every_snapshot_parses(path):
    disks = parse_diskstats(path.read_text())
    assert set(disks) == {f"loop{i}" for i in range(8)} | {"dm-0"}


def test_loop0_by_hand():
    assert _snapshot(0)["loop0"] == DiskCounters(
        "loop0",
        reads=3300,
        read_sectors=623403,
        read_ms=3094,
        writes=6910,
        write_sectors=1239124,
        write_ms=18670,
        in_flight=0,
        io_ms=8364,
        weighted_ms=22041,
    )


def test_slow_disk_has_the_highest_util_and_the_dm_delay_await():
    """.0 -> .1 were read right after series blocks 0 and 1, so their uptime delta is the
    wall time between them (1.57 s under TCG, not the nominal 1 s)."""
    (t0, _), (t1, _) = _series()[:2]
    dt = t1 - t0
    assert dt == pytest.approx(1.57)
    before, after = _snapshot(0), _snapshot(1)
    rates = {d: disk_rates(before[d], after[d], dt) for d in ("loop0", "loop1", "loop2", "loop3", "dm-0")}
    assert max(rates, key=lambda d: rates[d].util_pct) == "dm-0"
    dm = rates["dm-0"]
    assert dm.util_pct == pytest.approx(1248 / 1570 * 100)  # Δio_ms 23372-22124
    assert dm.write_await_ms == pytest.approx(2492 / 24)  # ~100 ms: the dm-delay
    assert dm.write_bytes_per_s == pytest.approx((44318 - 38174) * 512 / dt)
    assert dm.read_await_ms is None and dm.reads_per_s == 0  # no reads: unknown await
    assert rates["loop3"].write_await_ms == pytest.approx(62 / 24)  # the disk under dm-0


def test_queue_depth_is_iostats_aqu_sz_and_the_slow_disk_queues():
    """The weighted-time counter over the wall time (iostat -x aqu-sz): dm-0, 100 ms per I/O,
    holds about two requests in flight (iostat -x, run beside these reads, printed 1.85 and
    2.08); its healthy peers well under one."""
    (t0, _), (t1, _) = _series()[:2]
    before, after = _snapshot(0), _snapshot(1)
    dm = disk_rates(before["dm-0"], after["dm-0"], t1 - t0)
    assert dm.queue_depth == pytest.approx((54028 - 51536) / 1570)  # Δweighted_ms / Δms
    assert 1.5 < dm.queue_depth < 2.5
    for loop in ("loop0", "loop1", "loop2"):
        assert disk_rates(before[loop], after[loop], t1 - t0).queue_depth < 0.5
    idle = disk_rates(before["loop7"], after["loop7"], t1 - t0)
    assert idle.queue_depth == 0.0  # nothing in flight: an empty queue


def test_queue_depth_is_unknown_where_the_counter_is_not_kept():
    """psutil's fallback (no /proc/diskstats) writes 0 for the weighted time and the requests in
    flight: a busy device with nothing counted has no known queue, not an empty one. A device
    busy that completed nothing (requests stuck in it) has the kernel's count of them."""
    a = _snapshot(0)["loop0"]
    b = a._replace(io_ms=a.io_ms + 500, weighted_ms=a.weighted_ms, in_flight=0)
    assert disk_rates(a, b, 1.0).queue_depth is None
    assert disk_rates(a, b._replace(in_flight=32), 1.0).queue_depth == 32.0


def test_series_rates_stay_sane():
    series = _series()
    for (t0, a), (t1, b) in itertools.pairwise(series):
        for dev in a:
            r = disk_rates(a[dev], b[dev], t1 - t0)
            assert r is not None and 0 <= r.util_pct <= 100
            assert r.queue_depth is not None and r.queue_depth >= 0
            assert r.writes_per_s >= 0 and r.write_bytes_per_s >= 0


def test_older_kernels_field_counts():
    """14 fields before 4.18, 18 before 5.5 (reference §7.2): same counters."""
    line = (DERANGED / "proc-diskstats.0.txt").read_text().splitlines()[0]
    for n in (14, 18):
        short = " ".join(line.split()[:n])
        assert parse_diskstats(short)["loop0"] == _snapshot(0)["loop0"]


def test_malformed_lines_are_skipped():
    text = "   7 0 loop0 1 2 3\nnot a line\n" + (DERANGED / "proc-diskstats.0.txt").read_text()
    assert parse_diskstats(text) == _snapshot(0)
    with pytest.raises(ParseError):
        parse_diskstats("garbage\n1 2 3\n")
    assert parse_diskstats("") == {}


def test_util_is_capped():
    """iostat -x showed dm-0 at 103.37 %util; a percentage of wall time stays <= 100 here."""
    a = _snapshot(0)["dm-0"]
    b = a._replace(io_ms=a.io_ms + 1100)
    assert disk_rates(a, b, 1.0).util_pct == 100.0


@pytest.mark.parametrize(
    "change",
    [
        {"reads": 0},  # counter back: reboot, wrap, device replaced
        {"io_ms": 0},
        {"device": "loop1"},  # another device
    ],
)
def test_going_backwards_is_unknown_not_negative(change):
    a = _snapshot(1)["loop0"]
    assert disk_rates(a, a._replace(**change), 1.0) is None


@pytest.mark.parametrize("dt", [0, -1, float("nan"), float("inf")])
def test_bad_interval(dt):
    a = _snapshot(0)["loop0"]
    assert disk_rates(a, a, dt) is None


_COUNTER = st.integers(0, 2**40)


@st.composite
def _sample_pairs(draw):
    """Two /proc/diskstats samples of the same disks: most counters grow, some may go back, a
    disk may be renamed, dropped or added, the order may change."""
    n = draw(st.integers(1, 8))
    before = {}
    for i in range(n):
        before[f"sd{chr(97 + i)}"] = DiskCounters(f"sd{chr(97 + i)}", *(draw(_COUNTER) for _ in range(9)))
    after = {}
    for dev, c in before.items():
        if draw(st.integers(0, 9)) == 0:
            continue  # gone
        grow = [draw(st.integers(-3 if draw(st.integers(0, 9)) == 0 else 0, 10**6)) for _ in range(9)]
        after[dev] = DiskCounters(dev, *(max(0, v + g) for v, g in zip(c[1:], grow)))
    if draw(st.booleans()) and after:
        items = list(after.items())
        draw(st.randoms()).shuffle(items)
        after = dict(items)
    if draw(st.integers(0, 9)) == 0:
        after["sdz"] = DiskCounters("sdz", *(draw(_COUNTER) for _ in range(9)))
    return before, after


@given(_sample_pairs(), st.floats(0.05, 30.0))
def test_rates_of_every_disk_at_once_are_each_disks_own(pair, dt):
    """rates_between (which reads whole columns at once when it can) gives each disk exactly
    what disk_rates gives it alone, and leaves out the ones it says None for."""
    before, after = pair
    expected = {dev: r for dev in after if dev in before and (r := disk_rates(before[dev], after[dev], dt))}
    assert rates_between(before, after, dt) == expected


def _file(disks: dict[str, DiskCounters]) -> str:
    """The samples as /proc/diskstats lists them (14 fields; merges 0)."""
    return "".join(
        f"   8 {i} {c.device} {c.reads} 0 {c.read_sectors} {c.read_ms} {c.writes} 0 "
        f"{c.write_sectors} {c.write_ms} {c.in_flight} {c.io_ms} {c.weighted_ms}\n"
        for i, c in enumerate(disks.values())
    )


@given(_sample_pairs(), st.floats(0.05, 30.0))
def test_rates_read_a_column_at_a_time_are_each_disks_own(pair, dt):
    """Two files as the kernel prints them, parsed: the same rates whether the devices line up
    (a column at a time) or not (device by device), and the same counters either way."""
    before, after = pair
    expected = {dev: r for dev in after if dev in before and (r := disk_rates(before[dev], after[dev], dt))}
    parsed_before, parsed_after = parse_diskstats(_file(before)), parse_diskstats(_file(after))
    assert dict(parsed_after) == after
    rates = rates_between(parsed_before, parsed_after, dt)
    assert rates == expected
    # each figure's column read whole (the awaits, rates and bytes are made when first read)
    for k, field in enumerate(DiskIo.__dataclass_fields__):
        if field != "device" and set(rates.names) <= set(expected):
            assert list(rates.columns[k - 1]) == [getattr(expected[d], field) for d in rates.names]
    assert rates_between(parsed_before, parse_diskstats(_file(before)), dt) == {
        dev: disk_rates(c, c, dt) for dev, c in before.items()
    }


def test_asking_whether_a_table_is_empty_builds_no_per_device_tuple():
    """The fold asks every tick whether /proc/diskstats gave anything; at 5,000 disks building
    5,000 tuples (and the collector's walk over them) only to count them was most of that."""
    from zdash.parse.diskstats import parse_diskstats

    text = "".join(f"   8 {i:7d} sd{chr(97 + i)} {' '.join(['1'] * 11)} 0 0 0 0 0 0\n" for i in range(3))
    table = parse_diskstats(text)
    assert len(table) == 3 and bool(table)
    assert table._by_name is None  # nothing built yet
    assert sorted(table) == ["sda", "sdb", "sdc"] and table["sdb"].reads == 1


# What the readers must refuse in a field: a word, a sign, a digit outside ASCII, 21 digits,
# 2**64 and above; and what they must keep: leading zeros, 20 digits below 2**64.
_ODD_FIELD = st.one_of(
    st.sampled_from(["x", "-1", "+1", "1.5", "\u0663", "00", "007", "1" * 20, "0" * 21 + "1"]),
    st.integers(2**63, 2**66).map(str),
    st.just("\u0661\u0663"),  # Arabic-Indic digits: str.isdigit, and int() reads them
)


@st.composite
def _kernel_files(draw):
    """Files shaped like the kernel's, each line of one of its widths (mostly all alike, as the
    kernel prints them); now and then an odd field, a blank or short line, a device twice, a CR
    or a NUL."""
    widths = draw(st.sampled_from([(14,), (18,), (20,), (14,), (18,), (20,), (14, 18, 20)]))
    lines = []
    for i in range(draw(st.integers(0, 6))):
        width = draw(st.sampled_from(widths))
        names = ["sda", "sdb", "loop0", "dm-0", "nvme0n1", "sd\u00e9", "sdc"]
        name = names[i] if draw(st.integers(0, 7)) else draw(st.sampled_from(names))
        fields = [str(8), str(i), name, *(str(draw(st.integers(0, 10**6))) for _ in range(width - 3))]
        if draw(st.integers(0, 7)) == 0:
            fields[draw(st.integers(3, width - 1))] = draw(_ODD_FIELD)
        if draw(st.integers(0, 9)) == 0:
            fields = fields[: draw(st.integers(0, 19))]
        lines.append(" ".join(fields))
    end = draw(st.sampled_from(["\n"] * 12 + ["\r\n", "\n\n", " \x00\n", "\x85"]))
    return end.join(lines) + draw(st.sampled_from(["", "\n"]))


_WANTED = st.one_of(
    st.none(), st.frozensets(st.sampled_from(["sda", "sdb", "loop0", "dm-0", "nvme0n1", "zz"]))
)


@settings(max_examples=300)
@given(_kernel_files(), _WANTED)
def test_a_file_read_by_columns_reads_as_line_by_line(text, wanted):
    """The kernel's file read in one split, its fields by column (what a tick costs): the same
    devices, in the same order, with the same counters as reading it line by line, and the same
    error where that refuses the file."""
    from zdash.parse.diskstats import _by_line

    try:
        expected = list(_by_line(text, wanted).items())
    except ParseError as e:
        with pytest.raises(ParseError, match=f"^{e}$"):
            parse_diskstats(text, wanted)
        return
    table = parse_diskstats(text, wanted)
    assert list(table.items()) == expected and len(table) == len(expected)


def test_the_kernel_s_own_files_are_read_by_columns():
    from zdash.parse.diskstats import _by_column

    for path in SNAPSHOTS:
        text = path.read_text()
        table = _by_column(text, None)
        assert table is not None and list(table.items()) == list(parse_diskstats(text).items())
        assert _by_column(text, {"loop0", "dm-0"}).names == ("loop0", "dm-0")  # type: ignore[union-attr]


def test_a_counter_of_thousands_of_digits_is_skipped_as_line_by_line():
    """A file from another host (zdash --host) with a counter far longer than 2**64's 20 digits:
    that line is skipped, as the line reader skips it, and the others read."""
    good = "   8       0 sda 1 2 3 4 5 6 7 8 9 10 11"
    bad = "   8      16 sdb " + " ".join(["1"] * 5 + ["9" * 100_000] + ["1"] * 5)
    table = parse_diskstats(good + "\n" + bad + "\n")
    assert table.names == ("sda",)
