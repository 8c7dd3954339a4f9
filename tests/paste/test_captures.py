"""Every human-readable capture (OpenZFS 2.3.2, tests/captures) imports, and its numbers come
out as the exact outputs (-j, -H -p) of the same moment say, within human rounding."""

from __future__ import annotations

import pytest

from tests.capture_ticks import capture_tick
from tests.paste.helpers import (
    CAPTURES,
    T0,
    capture,
    human_files,
    human_paste,
    near,
    nonblank,
    phases,
    snapshot,
)
from zdash.fold import look
from zdash.parse.zfs_list import parse_zfs_list
from zdash.parse.zpool_iostat import parse_iostat
from zdash.parse.zpool_status.text import parse_status_text
from zdash.paste.samples import import_paste

CAPTURE_FIELDS = ("name", "type", "used", "avail", "refer", "mountpoint", "origin")
NOT_IMPORTABLE = {
    "healthy/zpool-status-c-noenv.txt": "zpool refused the -c scripts",
    "deranged-disk/zpool-iostat-v-w.txt": "histogram: not imported",
}


def _rel(p) -> str:
    return f"{p.parent.name}/{p.name}"


@pytest.mark.parametrize("path", human_files(), ids=_rel)
def test_every_human_capture_imports_every_line(path):
    text = path.read_text()
    imported = import_paste(text)
    reported = {u.line for u in imported.unread}
    assert imported.used | reported == nonblank(text) and not imported.used & reported
    if _rel(path) in NOT_IMPORTABLE:
        assert not imported.ok and reported == nonblank(text)
        assert all(NOT_IMPORTABLE[_rel(path)] in u.why for u in imported.unread)
        return
    assert imported.ok and imported.unread == [], [str(u) for u in imported.unread]


@pytest.mark.parametrize("path", [p for p in human_files() if p.name.startswith("zpool-status")], ids=_rel)
def test_status_is_rebuilt_without_loss(path):
    """The rebuilt status text parses to exactly what the capture itself parses to."""
    text = path.read_text()
    if _rel(path) in NOT_IMPORTABLE:
        return
    (sample,) = [s for s in import_paste(text).samples if s.key == "status"]
    assert sample.argv == ("zpool", "status")
    assert parse_status_text(sample.stdout) == parse_status_text(text)


@pytest.mark.parametrize("scenario,phase", phases(), ids=lambda v: str(v))
def test_pasted_session_matches_the_exact_outputs(scenario, phase):
    """status + list -v + iostat -v + zfs list of one moment, pasted after prompts, against
    the builder's snapshot of the JSON status and -H -p list of the same moment."""
    snap, imported = snapshot(human_paste(scenario, phase))
    assert imported.unread == [], [str(u) for u in imported.unread]
    exact = look(capture_tick(scenario, phase, T0))
    if not exact.pools:
        pytest.skip("no JSON status captured for this phase (only the human one)")
    assert [p.name for p in snap.pools] == [p.name for p in exact.pools]
    for mine, ref in zip(snap.pools, exact.pools):
        assert mine.state == ref.state
        assert [(v.name, v.kind, v.state, v.vclass) for v in mine.root.walk()] == [
            (v.name, v.kind, v.state, v.vclass) for v in ref.root.walk()
        ]
        assert [(v.read_errors, v.write_errors) for v in mine.root.walk()] == [
            (v.read_errors, v.write_errors) for v in ref.root.walk()
        ]
        for v, r in zip(mine.root.walk(), ref.root.walk()):
            assert near(v.checksum_errors, r.checksum_errors, floor=5)  # 2.50K vs 2560
        assert near(mine.size, ref.size) and near(mine.alloc, ref.alloc) and near(mine.free, ref.free)
        assert mine.cap_pct == ref.cap_pct and mine.frag_pct == ref.frag_pct
        for v, r in zip(mine.top_level, ref.top_level):
            assert near(v.alloc, r.alloc) and near(v.free, r.free), v.name
            if r.cap_pct is None:  # a spare row has no space
                assert (v.cap_pct, v.fill_pct) == (None, r.fill_pct), v.name
                continue
            assert abs(v.cap_pct - r.cap_pct) <= 1.0 and abs(v.fill_pct - r.fill_pct) < 0.5
            assert v.frag_pct == r.frag_pct
        assert (mine.error_count or 0) > 0 or (ref.error_count or 0) == 0
        assert mine.io_of(mine.root) is not None and all(mine.io_of(v) is not None for v in mine.root.walk())


@pytest.mark.parametrize("scenario,phase", phases(), ids=lambda v: str(v))
def test_datasets_match_zfs_list_H_p(scenario, phase):
    text = capture(scenario, "zfs-list", phase)
    exact_text = capture(scenario, "zfs-list-H-p", phase)
    if text is None or exact_text is None:
        pytest.skip("no zfs list capture for this phase")
    snap, _ = snapshot(text)
    exact = parse_zfs_list(exact_text, CAPTURE_FIELDS)
    # Plain `zfs list` has no TYPE column: the type is read from the name and mountpoint.
    assert [(d.name, d.kind) for d in snap.datasets] == [(d.name, d.kind) for d in exact]
    for d, e in zip(snap.datasets, exact):
        assert near(d.used, e.used) and near(d.avail, e.avail) and near(d.refer, e.refer), d.name
        assert d.origin is None  # not in the default columns: unknown, not "no origin"


def test_clone_origins_and_snapshot_clones_from_zfs_list_o():
    """clones/zfs-list-all-origin-clones.txt (-o name,type,origin,clones,used,refer,avail,
    mountpoint) against its -H -p twin."""
    snap, imported = snapshot((CAPTURES / "clones/zfs-list-all-origin-clones.txt").read_text())
    assert imported.unread == []
    fields = ("name", "type", "origin", "clones", "used", "refer", "avail", "mountpoint")
    exact = parse_zfs_list((CAPTURES / "clones/zfs-list-all-H-p-origin-clones.txt").read_text(), fields)
    assert [(d.name, d.kind, d.origin, d.clones) for d in snap.datasets] == [
        (d.name, d.kind, d.origin, d.clones) for d in exact
    ]
    assert snap.datasets[2].clones == ("clones/clone1", "clones/clone2")
    for d, e in zip(snap.datasets, exact):
        assert near(d.used, e.used) and near(d.refer, e.refer) and near(d.avail, e.avail)


def test_space_columns_merge_into_the_same_datasets():
    """`zfs list` then `zfs list -o space` of the same datasets: one record each, both views."""
    text = (
        (CAPTURES / "clones/zfs-list.txt").read_text()
        + "\n"
        + (CAPTURES / "clones/zfs-list-o-space.txt").read_text()
    )
    snap, imported = snapshot(text)
    assert imported.unread == [] and len(snap.datasets) == 6
    base = next(d for d in snap.datasets if d.name == "clones/base")
    assert (base.used, base.refer, base.used_by_snapshots, base.used_by_dataset) == (
        120 * 2**20,
        120 * 2**20,
        14 * 1024,
        120 * 2**20,
    )
    assert base.kind == "filesystem" and snap.datasets[2].kind == "snapshot"


def test_iostat_rows_keep_the_human_numbers():
    """healthy/zpool-iostat-v.txt: pool row 300M 1.58G 0 494 7.64K 48.4M; leaves have no alloc."""
    snap, imported = snapshot(
        (CAPTURES / "healthy/zpool-status.txt").read_text()
        + (CAPTURES / "healthy/zpool-iostat-v.txt").read_text()
    )
    (pool,) = snap.pools
    io = pool.io_of(pool.root)
    assert (io.read_ops, io.write_ops, io.read_bytes, io.write_bytes) == (
        0,
        494,
        round(7.64 * 1024),
        round(48.4 * 2**20),
    )
    d1 = pool.find("/tmp/zl/healthy/d1")
    assert (pool.io_of(d1).write_ops, pool.io_of(d1).write_bytes) == (118, round(12.1 * 2**20))
    rows = parse_iostat(next(s for s in imported.samples if s.key == "iostat").stdout)
    assert [(r.name, r.alloc) for r in rows[:3]] == [
        ("healthy", 300 * 2**20),
        ("mirror-0", 151 * 2**20),
        ("/tmp/zl/healthy/d1", None),
    ]


def test_iostat_latency_columns_become_nanoseconds():
    """deranged-disk/zpool-iostat-v-l-1-3.txt: three reports, the last is kept; 1s, 100ms, '-'."""
    text = (CAPTURES / "deranged-disk/zpool-status-s-P.txt").read_text() + (
        CAPTURES / "deranged-disk/zpool-iostat-v-l-1-3.txt"
    ).read_text()
    snap, imported = snapshot(text)
    (sample,) = [s for s in imported.samples if s.key == "iostat"]
    assert sample.argv[-1] == "-l" and len(sample.stdout.splitlines()[0].split("\t")) == 18  # 6 + 11 (2.2+)
    slow = snap.pools[0].find("/dev/mapper/slowdisk")  # iostat said "slowdisk": -P name joined
    assert (
        snap.pools[0].io_of(slow).total_wait_write,
        snap.pools[0].io_of(slow).disk_wait_write,
        snap.pools[0].io_of(slow).total_wait_read,
    ) == (1e9, 100e6, None)
    assert slow.slow_ios == 333
    assert any("3 zpool iostat reports pasted" in n for n in imported.notes)
