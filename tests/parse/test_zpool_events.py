"""zpool_events: ZFS's event log, `zpool events [-v] [-H]`, as ZED and an admin read it."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.mutate import apply_edits, edits
from zdash.parse import ParseError
from zdash.parse.zpool_events import parse_events

CAPTURES = Path(__file__).resolve().parents[1] / "captures"

# OpenZFS 2.1 on FreeBSD 13, https://github.com/openzfs/zfs/issues/12629 (2021-10-10): one io
# ereport as `zpool events -v` prints it, verbatim (the copy; spaces as published).
IO_EVENT_21 = """\
TIME                           CLASS
Oct 10 2021 10:39:51.709234009 ereport.fs.zfs.io
        class = "ereport.fs.zfs.io"
        ena = 0x150e03af8dd01001
        detector = (embedded nvlist)
                version = 0x0
                scheme = "zfs"
                pool = 0xe244c57cc81be54b
                vdev = 0x7e580703404ed3ff
        (end detector)
        pool = "zroot"
        pool_guid = 0xe244c57cc81be54b
        pool_state = 0x0
        pool_context = 0x0
        pool_failmode = "wait"
        vdev_guid = 0x7e580703404ed3ff
        vdev_type = "disk"
        vdev_path = "/dev/disk/by-id/ata-ST10000NM0568-2H5110_ZHZ54DBW-part1"
        vdev_ashift = 0x9
        vdev_complete_ts = 0x150e03b1fe3
        vdev_delta_ts = 0x3cdb
        vdev_read_errors = 0x0
        vdev_write_errors = 0x0
        vdev_cksum_errors = 0x0
        vdev_delays = 0x0
        parent_guid = 0x581f35675e2a34d0
        parent_type = "raidz"
        vdev_spare_paths = 
        vdev_spare_guids = 
        zio_err = 0x5
        zio_flags = 0xb08c1
        zio_stage = 0x1000000
        zio_pipeline = 0x1080000
        zio_delay = 0x60b2
        zio_timestamp = 0x150e03a5d84
        zio_delta = 0x74d2
        zio_priority = 0x0
        zio_offset = 0x42000
        zio_size = 0x2000
        time = 0x6162c2f7 0x2a460d59 
        eid = 0x10

"""


def test_a_verbose_io_event_names_its_pool_vdev_and_time():
    (e,) = parse_events(IO_EVENT_21)
    assert (e.cls, e.kind, e.pool) == ("ereport.fs.zfs.io", "io", "zroot")
    assert e.vdev_path == "/dev/disk/by-id/ata-ST10000NM0568-2H5110_ZHZ54DBW-part1"
    assert e.vdev_guid == str(0x7E580703404ED3FF) and e.eid == 16
    assert abs(e.time - (0x6162C2F7 + 0x2A460D59 / 1e9)) < 1e-6
    assert e.delay_ns is None  # only delay events carry their delay


def test_the_plain_listing_of_a_real_delay_storm():
    """Captured on OpenZFS 2.3.2 (tests/captures/errors): TIME CLASS lines only, and the
    'dropped N events' note of a full ring buffer."""
    events = parse_events((CAPTURES / "errors" / "zpool-events.txt").read_text())
    assert len(events) > 100 and {e.kind for e in events} >= {"delay"}
    assert all(e.pool is None and e.vdev_path is None for e in events)
    assert events[0].time == 1795319090.396  # Nov 22 2026 03:44:50.396 UTC
    assert [e.time for e in events] == sorted(e.time for e in events)


def test_a_stream_cut_mid_event_keeps_the_events_whose_header_arrived():
    cut = IO_EVENT_21[: IO_EVENT_21.index("vdev_type")]
    (e,) = parse_events(cut)
    assert e.pool == "zroot" and e.vdev_path is None  # the path had not arrived yet


def test_scripted_mode_separates_time_and_class_with_a_tab():
    (e,) = parse_events("Oct 10 2021 10:39:51.709234009\tereport.fs.zfs.delay\n")
    assert e.kind == "delay" and e.time == 1633862391.709234009


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits(st.sampled_from(["\n", "\t", " = ", "0x", "(end detector)", "Oct 10 2021 10:39:51 x"])))
def test_damaged_output_never_raises(mutations):
    text = apply_edits(IO_EVENT_21 * 3, mutations)
    events = parse_events(text)
    assert all(isinstance(e.time, float) and e.cls for e in events)


def test_not_text_is_a_parse_error():
    try:
        parse_events(b"x")  # type: ignore[arg-type]
    except ParseError as e:
        assert "expected text" in str(e)
    else:
        raise AssertionError("bytes were accepted")
