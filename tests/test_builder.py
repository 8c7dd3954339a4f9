"""The snapshot builder: real captured outputs in, the numbers an admin reads out."""

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.capture_ticks import CAPTURES, capture_tick
from zdash.builder import SnapshotBuilder
from zdash.cadence import QUIET_EVERY_S, RARE_EVERY_S
from zdash.parse import ParseError
from zdash.parse.devices import parse_devices
from zdash.raw import RawSample, Tick

DEVICES = (
    "/dev/loop0\tloop0\t512\t0\n/dev/loop1\tloop1\t512\t0\n/dev/loop2\tloop2\t512\t0\n"
    "/dev/mapper/slowdisk\tdm-0\t4096\t1\n"
)


def _diskstats(i, t):
    with open(f"{CAPTURES}/deranged-disk/proc-diskstats.{i}.txt") as f:
        return RawSample("diskstats", ("cat", "/proc/diskstats"), 0, f.read(), "", t)


def _with(tick, *samples, t=None):
    return Tick(t if t is not None else tick.time, tick.samples + samples)


def test_capture_becomes_the_numbers_zpool_printed():
    snap = SnapshotBuilder().feed(capture_tick("deranged-disk", "after-load"))
    pool = snap.pool("deranged")
    assert (pool.state, pool.cap_pct, pool.alloc) == ("ONLINE", 31, 316392448)
    m0, m1 = pool.top_level
    assert (m0.name, m0.alloc, m0.free, m0.cap_pct) == ("mirror-0", 233031168, 270285312, 46.0)
    assert m1.fill_pct < m0.fill_pct  # mirror-1 starved of writes
    slow = pool.find("/dev/mapper/slowdisk")
    assert slow.slow_ios == 1271 and slow.kind == "disk"
    assert all(s.ok for s in snap.sources)


def test_disk_rates_join_dm_device_to_its_leaf():
    """The dm-delay leaf appears in /proc/diskstats as dm-0; uptime deltas from the capture."""
    b = SnapshotBuilder()
    devices = RawSample("devices", ("zdash", "describe-devices"), 0, DEVICES, "", 653.44)
    b.feed(_with(capture_tick("deranged-disk", "after-load", t=653.44), devices, _diskstats(0, 653.44)))
    snap = b.feed(Tick(655.01, (_diskstats(1, 655.01),)))
    pool = snap.pool("deranged")
    util = {v.path: pool.disk_of(v).util_pct for v in pool.leaves()}
    assert pool.find("/dev/mapper/slowdisk").device == "dm-0"
    assert pool.find("/dev/mapper/slowdisk").native_sector == 4096
    assert max(util, key=util.get) == "/dev/mapper/slowdisk"
    assert util["/dev/mapper/slowdisk"] > 50 > util["/dev/loop0"]


def test_first_sample_has_no_rates_and_counters_going_back_give_none():
    b = SnapshotBuilder()
    devices = RawSample("devices", ("zdash", "describe-devices"), 0, DEVICES, "", 1.0)
    first = b.feed(_with(capture_tick("deranged-disk", "after-load", t=1.0), devices, _diskstats(1, 1.0)))
    assert all(first.pool("deranged").disk_of(v) is None for v in first.pool("deranged").leaves())
    back = b.feed(Tick(2.0, (_diskstats(0, 2.0),)))  # counters reset (reboot, replaced disk)
    pool = back.pool("deranged")
    assert pool.disk_of(pool.find("/dev/mapper/slowdisk")) is None  # not a negative rate


def test_a_pool_missing_from_zpool_list_keeps_its_tree_and_takes_space_from_iostat():
    """ALLOC/FREE come every tick from iostat (the counters `zpool list` prints), so a `zpool
    list` that misses the pool (exported between commands, or not run this tick) leaves the
    capacity known; without iostat either, it is unknown, not zero."""
    tick = capture_tick("deranged-disk", "after-load")
    listed = SnapshotBuilder().feed(tick).pool("deranged")
    empty_list = (RawSample("list", ("zpool", "list", "-v", "-H", "-p"), 0, "", "", tick.time),)
    no_list = Tick(tick.time, tuple(s for s in tick.samples if s.key != "list") + empty_list)
    pool = SnapshotBuilder().feed(no_list).pool("deranged")
    assert pool is not None and listed is not None
    assert (pool.alloc, pool.free) == (listed.alloc, listed.free)  # the same counters
    assert pool.fill_pct == listed.fill_pct and pool.top_level[0].alloc == listed.top_level[0].alloc
    blind = Tick(tick.time, tuple(s for s in tick.samples if s.key not in ("list", "iostat")) + empty_list)
    pool = SnapshotBuilder().feed(blind).pool("deranged")
    assert pool is not None and pool.alloc is None and pool.fill_pct is None


def test_failure_keeps_last_good_data_marked_stale_with_age():
    b = SnapshotBuilder(interval=1.0)
    good = b.feed(capture_tick("healthy", t=100.0))
    failed = RawSample(
        "status", ("zpool", "status", "-j"), None, "", "", 130.0, 10.0, "zpool status timed out after 10 s"
    )
    snap = b.feed(Tick(130.0, (failed,)))
    status = next(s for s in snap.sources if s.key == "status")
    assert not status.ok and status.message == "zpool status timed out after 10 s"
    assert status.age_s == 30.0
    assert [v.name for v in snap.pools[0].root.walk()] == [v.name for v in good.pools[0].root.walk()]


def test_garbage_output_is_a_message_not_a_crash():
    b = SnapshotBuilder()
    b.feed(capture_tick("healthy", t=1.0))
    junk = RawSample("status", ("zpool", "status", "-j", "--json-int"), 0, "{not json", "", 2.0)
    snap = b.feed(Tick(2.0, (junk, RawSample("mystery", ("x",), 0, "?", "", 2.0))))
    status = next(s for s in snap.sources if s.key == "status")
    assert "unreadable output" in status.message and snap.pools


def test_device_facts_parser_reports_bad_lines():
    assert parse_devices("/tmp/d1\t-\t-\t-\n")["/tmp/d1"].device is None
    for bad in ("/dev/sda\tsda\n", "/dev/sda\tsda\tx\t1\n", "\tsda\t512\t0\n"):
        try:
            parse_devices(bad)
        except ParseError as e:
            assert "devices line 1" in str(e)
        else:
            raise AssertionError(bad)


@settings(deadline=None)
@given(st.text(alphabet=st.sampled_from(list(DEVICES) + ["\t", "\n", "-", "x", "9"]), max_size=300))
def test_device_facts_parser_fuzz(text):
    try:
        assert isinstance(parse_devices(text), dict)
    except ParseError:
        pass


# --- sane rates: a tree change or an impossible figure is "no rate", never a number -----------

_ARGV = ("zpool", "iostat", "-v", "-H", "-p", "-l", "-y", "-P", "-T", "u", "1")
_LAT = "\t".join(["-"] * 11)


def _iostat(t: float, rows: list[tuple[str, float]]) -> RawSample:
    """One `-T u` report: rows of (name, write bytes/s); 100 write ops/s each."""
    body = "".join(f"{name}\t0\t0\t0\t100\t0\t{w:.0f}\t{_LAT}\n" for name, w in rows)
    return RawSample("iostat", _ARGV, None, f"{int(t)}\n{body}", "", t)


def _status(t: float, leaves: list[str]) -> RawSample:
    cfg = "".join(f"\t    {leaf}  ONLINE       0     0     0\n" for leaf in leaves)
    text = (
        "  pool: tank\n state: ONLINE\nconfig:\n\n\tNAME        STATE     READ WRITE CKSUM\n"
        "\ttank        ONLINE       0     0     0\n\t  mirror-0  ONLINE       0     0     0\n"
        f"{cfg}\nerrors: No known data errors\n"
    )
    return RawSample("status", ("zpool", "status", "-p", "-P", "-s"), 0, text, "", t)


def _pool_write(snap) -> float | None:
    pool = snap.pool("tank")
    io = pool.io_of(pool.root)
    return None if io is None else io.write_bytes


def test_an_interval_that_spans_a_tree_change_has_no_rate():
    b = SnapshotBuilder()
    two = ["/d/a", "/d/b"]
    b.feed(
        Tick(
            1.0,
            (
                _status(1.0, two),
                _iostat(1.0, [("tank", 2e6), ("mirror-0", 2e6), ("/d/a", 1e6), ("/d/b", 1e6)]),
            ),
        )
    )
    ok = b.feed(
        Tick(2.0, (_iostat(2.0, [("tank", 3e6), ("mirror-0", 3e6), ("/d/a", 1.5e6), ("/d/b", 1.5e6)]),))
    )
    assert _pool_write(ok) == 3e6
    # replacing-1 detached: the report after it has other rows and, here, wrapped counters
    three = two + ["/d/c"]
    glitch = b.feed(
        Tick(
            3.0,
            (
                _status(3.0, three),
                _iostat(
                    3.0, [("tank", 8e18), ("mirror-0", 8e18), ("/d/a", 1e6), ("/d/b", 1e6), ("/d/c", 8e18)]
                ),
            ),
        )
    )
    pool = glitch.pool("tank")
    assert _pool_write(glitch) is None and all(pool.io_of(v) is None for v in pool.leaves())
    after = b.feed(
        Tick(
            4.0,
            (_iostat(4.0, [("tank", 3e6), ("mirror-0", 3e6), ("/d/a", 1e6), ("/d/b", 1e6), ("/d/c", 1e6)]),),
        )
    )
    assert _pool_write(after) == 3e6  # the next interval is whole again


def test_a_rate_no_device_can_produce_is_no_rate():
    b = SnapshotBuilder()
    rows = [("tank", 2e6), ("mirror-0", 2e6), ("/d/a", 1e6), ("/d/b", 1e6)]
    b.feed(Tick(1.0, (_status(1.0, ["/d/a", "/d/b"]), _iostat(1.0, rows))))
    absurd = b.feed(
        Tick(2.0, (_iostat(2.0, [("tank", 2e6), ("mirror-0", 2e6), ("/d/a", 1e12), ("/d/b", 1e6)]),))
    )
    assert _pool_write(absurd) is None
    fast = b.feed(
        Tick(3.0, (_iostat(3.0, [("tank", 2e10), ("mirror-0", 2e10), ("/d/a", 1e10), ("/d/b", 1e10)]),))
    )
    assert _pool_write(fast) == 2e10  # 10 GB/s per disk: fast NVMe, not a glitch


def test_a_source_that_never_answered_is_reported_after_a_few_ticks():
    b = SnapshotBuilder()
    snaps = [
        b.feed(Tick(float(t), (_status(float(t), ["/d/a", "/d/b"]),) if t == 1 else ())) for t in range(1, 6)
    ]
    missing = {s.key: s for s in snaps[-1].sources if not s.ok}
    assert "iostat" in missing and "no data in 5 ticks" in (missing["iostat"].message or "")
    assert "iostat" not in {s.key for s in snaps[1].sources if not s.ok}  # not yet: it starts late


def test_status_and_list_as_old_as_the_quiet_schedule_are_fresh():
    """On a quiet pool the live source asks `zpool status` every 30 s and `zpool list` every 60 s
    (sources/live.py): data that old is the schedule working, not a source zdash cannot see.
    Older than half a period more, it is stale; a failure is an error at once, whatever the age."""
    b = SnapshotBuilder(interval=1.0)
    b.feed(capture_tick("healthy", t=100.0))

    def stale_at(t: float) -> set[str]:
        return {s.key for s in b.feed(Tick(t, ())).sources if not s.ok and s.key in ("status", "list")}

    assert stale_at(100.0 + QUIET_EVERY_S + 5) == set()  # 35 s: status due again, not stale
    assert stale_at(100.0 + RARE_EVERY_S + 5) == {"status"}  # 65 s: status overdue, list on time
    assert stale_at(100.0 + 1.5 * RARE_EVERY_S + 5) == {"status", "list"}
    failed = RawSample("status", ("zpool", "status", "-j"), None, "", "", 101.0, 10.0, "timed out after 10 s")
    b = SnapshotBuilder(interval=1.0)
    b.feed(capture_tick("healthy", t=100.0))
    assert "status" in {s.key for s in b.feed(Tick(101.0, (failed,))).sources if not s.ok}


def test_a_long_interval_still_allows_its_ticks():
    """At a 5 s interval 15 ticks (75 s) is the longer allowance for status."""
    b = SnapshotBuilder(interval=5.0)
    b.feed(capture_tick("healthy", t=100.0))
    snap = b.feed(Tick(170.0, ()))
    assert "status" not in {s.key for s in snap.sources if not s.ok}


@pytest.mark.parametrize("interval", [0.1, 0.2, 1.0, 5.0])
def test_no_source_is_stale_before_its_own_schedule_comes_round(interval):
    """Data as old as the live source's own period for it is the schedule working: a healthy
    host must not read "devices: no fresh data for 24 s" because --interval is short."""
    from zdash.cadence import stale_limit

    periods = {
        "status": QUIET_EVERY_S,
        "list": RARE_EVERY_S,
        "datasets": RARE_EVERY_S,
        "ashift:tank": RARE_EVERY_S,
        "devices": RARE_EVERY_S,
        "iostat": interval,
        "diskstats": interval,
    }
    for key, period in periods.items():
        assert stale_limit(key, interval) > period, key


def test_the_same_status_text_again_is_the_same_tree_and_structure():
    """A quiet pool's `zpool status` answers the same text every few seconds: its value is kept
    as it was (the same tree, the same structure_id: checks of structure reuse their work), its
    age is fresh; a changed text is parsed and numbered anew."""
    b = SnapshotBuilder(interval=1.0)
    first = b.feed(capture_tick("healthy", t=100.0))
    status = next(s for s in capture_tick("healthy", t=105.0).samples if s.key == "status")
    again = b.feed(Tick(105.0, (status,)))
    assert again.structure_id == first.structure_id
    assert next(s for s in again.sources if s.key == "status").age_s == 0.0
    changed = dataclasses.replace(status, stdout=status.stdout.replace("ONLINE", "DEGRADED", 1), time=110.0)
    later = b.feed(Tick(110.0, (changed,)))
    assert later.structure_id == first.structure_id + 1


def test_a_tick_keeps_the_tree_and_reads_each_vdevs_figures_from_its_own_row():
    """Between two `zpool status` answers the fold keeps the same tree (no new object per disk
    per tick) while every vdev's figures are this tick's, from its own iostat row and disk."""
    from tests.bench.synthetic import SyntheticHost
    from zdash.parse.diskstats import parse_diskstats
    from zdash.parse.zpool_iostat import parse_iostat, split_reports

    host = SyntheticHost(leaves=40, layout="raidz2", width=10, slow_every=7)
    b = SnapshotBuilder()
    ticks = [host.tick(n) for n in range(4)]
    snaps = [b.feed(t) for t in ticks]  # status at tick 0 only (every 5th)
    before, now = snaps[2].pools[0], snaps[3].pools[0]
    assert [id(v) for v in before.leaves()] == [id(v) for v in now.leaves()]
    tick = ticks[3]
    (text,) = [t for _, t in split_reports(tick.get("iostat").stdout) if t.strip()]
    rows = {r.name: r for r in parse_iostat(text)}
    assert now.io_of(now.root) == rows[now.name].io
    for v in now.root.walk():
        if v is not now.root:
            assert now.io_of(v) == rows[v.path or v.name].io, v.name
    # each disk's %util is this tick's: its kernel counters over the last second
    previous = parse_diskstats(ticks[2].get("diskstats").stdout)
    current = parse_diskstats(tick.get("diskstats").stdout)
    for v in now.leaves():
        busy = (current[v.device].io_ms - previous[v.device].io_ms) / 10.0  # ms in 1 s, as %
        assert now.disk_of(v).util_pct == pytest.approx(min(100.0, busy)), v.name
    assert any(now.disk_of(v) != before.disk_of(v) for v in now.leaves())
