"""The snapshot builder: real captured outputs in, the numbers an admin reads out."""

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.capture_ticks import CAPTURES, capture_tick
from zdash.builder import SnapshotBuilder
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
    util = {v.path: v.disk.util_pct for v in pool.leaves()}
    assert pool.find("/dev/mapper/slowdisk").device == "dm-0"
    assert pool.find("/dev/mapper/slowdisk").native_sector == 4096
    assert max(util, key=util.get) == "/dev/mapper/slowdisk"
    assert util["/dev/mapper/slowdisk"] > 50 > util["/dev/loop0"]


def test_first_sample_has_no_rates_and_counters_going_back_give_none():
    b = SnapshotBuilder()
    devices = RawSample("devices", ("zdash", "describe-devices"), 0, DEVICES, "", 1.0)
    first = b.feed(_with(capture_tick("deranged-disk", "after-load", t=1.0), devices, _diskstats(1, 1.0)))
    assert all(v.disk is None for v in first.pool("deranged").leaves())
    back = b.feed(Tick(2.0, (_diskstats(0, 2.0),)))  # counters reset (reboot, replaced disk)
    assert back.pool("deranged").find("/dev/mapper/slowdisk").disk is None  # not a negative rate


def test_pool_exported_between_commands_keeps_its_tree_without_space():
    tick = capture_tick("deranged-disk", "after-load")
    no_list = Tick(
        tick.time,
        tuple(s for s in tick.samples if s.key != "list")
        + (RawSample("list", ("zpool", "list", "-v", "-H", "-p"), 0, "", "", tick.time),),
    )
    pool = SnapshotBuilder().feed(no_list).pool("deranged")
    assert pool is not None and pool.alloc is None and pool.top_level[0].alloc is None


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
