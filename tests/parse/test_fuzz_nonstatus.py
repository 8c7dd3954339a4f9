"""Hypothesis: mutated and truncated real outputs never make a parser (other than zpool
status, fuzzed elsewhere) raise anything but ParseError, nor return the wrong type."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.mutate import apply_edits, edits
from zdash.model import Dataset, DiskIo
from zdash.parse import ParseError
from zdash.parse.diskstats import DiskCounters, disk_rates, parse_diskstats
from zdash.parse.reuse import Reuse
from zdash.parse.vdev_ashift import TopVdevAshift, ashift_by_vdev_name, parse_get_ashift, parse_zdb_config
from zdash.parse.zfs_list import parse_zfs_list
from zdash.parse.zpool_iostat import IostatReport, IostatRow, StreamSplitter, parse_iostat, split_reports
from zdash.parse.zpool_list import ListPool, ListVdev, parse_list
from zdash.parse.zpool_version import parse_version

CAPTURES = Path(__file__).resolve().parents[1] / "captures"
FUZZ = settings(
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _seeds(*globs: str, extra: tuple[str, ...] = ()) -> list[str]:
    texts = [p.read_text()[:3000] for g in globs for p in sorted(CAPTURES.glob(g))[:6]]
    return texts + list(extra)


# Characters the formats care about, plus anything at all now and then.
_TOKENS = st.sampled_from(list("\t\n -0123456789.%xKMG:'[]{}\",@/") + ["children[0]:", "root-0", "\n\n"])
_SNIPPET = st.one_of(_TOKENS, st.text(max_size=4))


_EDITS = edits(_SNIPPET, ops=("cut", "drop", "insert", "dupline", "tabs"), max_length=40, max_size=4)


def mutated(seeds: list[str]):
    """A real output, cut, spliced, with lines duplicated or tabs and spaces swapped."""
    return st.builds(apply_edits, st.sampled_from(seeds), _EDITS)


LIST_SEEDS = _seeds("*/zpool-list-v-H-p*.txt", "*/zpool-list-v.txt")
IOSTAT_SEEDS = _seeds("*/zpool-iostat-v-l-H-p-1-2*.txt", "deranged-disk/zpool-iostat-v-q-H-p-1-2.txt")
ZFS_SEEDS = _seeds("*/zfs-list-H-p*.txt")
ZDB_SEEDS = _seeds("ashift-mismatch/zdb-*.txt")
GET_SEEDS = ["root-0\t0\nmirror-0\t9\n/tmp/d1\t9\n", "mirror-0\tashift\t12\t-\nsda\tashift\t9\t-\n"]
DISK_SEEDS = _seeds("deranged-disk/proc-diskstats.*.txt")
VERSION_SEEDS = _seeds("healthy/zpool-version*.txt", extra=("zfs-0.8.6-1\nzfs-kmod-0.8.6-1\n",))


@FUZZ
@given(mutated(LIST_SEEDS), st.sampled_from(LIST_SEEDS))
def test_zpool_list(text, before):
    try:
        pools = parse_list(text)
    except ParseError as e:
        error: str | None = str(e)
    else:
        error = None
        assert all(
            isinstance(p, ListPool) and all(isinstance(v, ListVdev) for v in p.vdevs) for p in pools.values()
        )
    # After another answer, the rows that read as that one's are reused: the same result, or
    # the same error
    reuse: Reuse[ListVdev] = Reuse()
    try:
        reuse.run(lambda r: parse_list(before, r))
    except ParseError:
        pass  # (a seed cut mid-line: the next pass reuses nothing of it)
    try:
        again = reuse.run(lambda r: parse_list(text, r))
    except ParseError as e:
        assert str(e) == error
    else:
        assert error is None and again == pools


@FUZZ
@given(mutated(IOSTAT_SEEDS), st.integers(1, 50))
def test_zpool_iostat(text, chunk):
    stream = "1763782000\n" + text.replace("\nhealthy\t", "\n1763782001\nhealthy\t")
    assert all(isinstance(ts, (int, type(None))) and isinstance(r, str) for ts, r in split_reports(stream))
    try:
        splitter = StreamSplitter()
        for i in range(0, len(stream), chunk):
            assert all(isinstance(ts, int) for ts, _ in splitter.feed(stream[i : i + chunk]))
        splitter.flush()
    except ParseError:
        pass
    try:
        rows = parse_iostat(text)
    except ParseError:
        return
    assert isinstance(rows, IostatReport) and all(isinstance(r, IostatRow) for r in rows)


@FUZZ
@given(mutated(IOSTAT_SEEDS))
def test_the_bulk_iostat_reader_agrees_with_the_line_reader(text):
    """parse_iostat's column-at-a-time reader and the line-by-line one give the same rows, or
    the same error, for any mangled report (the bulk one only ever hands a report it does not
    fully understand to the other)."""
    from zdash.parse.zpool_iostat import _report_by_line

    def outcome(fn):
        try:
            return fn(text)
        except ParseError as e:
            return str(e)

    assert outcome(parse_iostat) == outcome(_report_by_line)


@FUZZ
@given(mutated(ZFS_SEEDS))
def test_zfs_list(text):
    try:
        datasets = parse_zfs_list(text, ("name", "type", "used", "avail", "refer", "mountpoint", "origin"))
    except ParseError:
        return
    assert isinstance(datasets, tuple) and all(isinstance(d, Dataset) for d in datasets)


@FUZZ
@given(mutated(ZDB_SEEDS), mutated(GET_SEEDS))
def test_vdev_ashift(zdb_text, get_text):
    try:
        pools = parse_zdb_config(zdb_text)
        for tops in pools.values():
            assert all(isinstance(t, TopVdevAshift) for t in tops)
            assert all(isinstance(a, int) for a in ashift_by_vdev_name(tops).values())
    except ParseError:
        pass
    try:
        assert all(isinstance(v, int) for v in parse_get_ashift(get_text).values())
    except ParseError:
        pass


REAL_DISKS = parse_diskstats((CAPTURES / "deranged-disk/proc-diskstats.1.txt").read_text())


@FUZZ
@given(mutated(DISK_SEEDS), st.floats(allow_nan=True, allow_infinity=True))
def test_diskstats(text, dt):
    try:
        disks = parse_diskstats(text)
    except ParseError:
        return
    assert all(isinstance(c, DiskCounters) for c in disks.values())
    for dev in disks.keys() & REAL_DISKS.keys():  # mutated counters on either side
        for prev, cur in ((disks[dev], REAL_DISKS[dev]), (REAL_DISKS[dev], disks[dev])):
            r = disk_rates(prev, cur, dt)
            assert r is None or (
                isinstance(r, DiskIo)
                and 0 <= r.util_pct <= 100
                and min(r.reads_per_s, r.writes_per_s, r.read_bytes_per_s) >= 0
            )


@FUZZ
@given(mutated(VERSION_SEEDS))
def test_zpool_version(text):
    try:
        userland, kmod = parse_version(text)
    except ParseError:
        return
    assert userland is not None or kmod is not None
    assert all(isinstance(n, int) for v in (userland, kmod) if v for n in v)
