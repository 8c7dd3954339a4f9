"""The pure parts of the UI: units, seek expressions, the clone graph, outlier marking, the
vdev rows and the chart series. No app needed."""

from __future__ import annotations

import math

import pytest

from tests.checks.builders import leaf, mirror, space
from zdash import fmt
from zdash.checks import deranged_disk
from zdash.checks.finding import Finding, Severity
from zdash.config import CheckConfig
from zdash.fold.series import Series
from zdash.model import Dataset, Pool, Snapshot, Vdev
from zdash.ui.clonegraph import CloneGraph
from zdash.ui.seek import SeekError, parse_seek
from zdash.ui.vdev_rows import build_rows, pool_key

GiB = 1 << 30


def test_units():
    assert fmt.ms(None) == "-" and fmt.ms(420_000) == "0.42" and fmt.ms(4_200_000) == "4.2"
    assert fmt.ms(101_000_000) == "101" and fmt.ms(2_500_000_000) == "2.5s"
    assert fmt.mbps(None) == "-" and fmt.mbps(0) == "0" and fmt.mbps(1.5 * (1 << 20)) == "1.50"
    assert fmt.size(512) == "512B" and fmt.size(1536) == "1.50K" and fmt.size(300 * (1 << 20)) == "300M"
    assert fmt.size(2 * GiB) == "2.00G" and fmt.size(3 * (1 << 40)) == "3.00T"
    assert fmt.duration(45) == "45s" and fmt.duration(192) == "3m12s" and fmt.duration(3720) == "1h02m"
    assert (
        fmt.middle("/dev/disk/by-id/ata-WDC_WD40EFRX-68N32N0_WD-WCC7K0123456", 20) == "/dev/disk…C7K0123456"
    )
    assert fmt.bar_cells(0.5, 8) == ("████", "░░░░") and fmt.bar_cells(2, 4) == ("████", "")
    assert fmt.clock(0) == "00:00:00" and fmt.stamp(0) == "1970-01-01 00:00:00 UTC"


@pytest.mark.parametrize(
    "text,expected",
    [
        ("+30s", ("time", 1030.0)),
        ("-2m", ("time", 880.0)),
        ("+1h", ("time", 4600.0)),
        ("+5", ("time", 1005.0)),
        ("50%", ("time", 1500.0)),
        ("150%", ("time", 2000.0)),
        ("#1", ("index", 0.0)),
        ("#99", ("index", 9.0)),
        ("00:16:40", ("time", 1000.0)),
        ("0:20", ("time", 1200.0)),
    ],
)
def test_seek_expressions(text, expected):
    assert parse_seek(text, now=1000.0, start=1000.0, end=2000.0, count=10) == expected


@pytest.mark.parametrize("text", ["soon", "25:00", "#x", "x%", ""])
def test_seek_rejects_with_a_hint(text):
    with pytest.raises(SeekError, match=r"try|not"):
        parse_seek(text, 0.0, 0.0, 10.0, 3)


def _ds(name, kind="filesystem", origin=None, clones=(), used=1 << 20):
    return Dataset(name, kind, origin=origin, clones=tuple(clones), used=used)


CHAIN = [
    _ds("tank"),
    _ds("tank/base"),
    _ds("tank/base@s1", "snapshot", clones=["tank/c1"]),
    _ds("tank/base@s0", "snapshot"),
    _ds("tank/c1", origin="tank/base@s1"),
    _ds("tank/c1@s2", "snapshot", clones=["tank/c2"]),
    _ds("tank/c2", origin="tank/c1@s2"),
    _ds("tank/c1/child"),
    _ds("tank/other"),
]


def test_clone_graph_puts_clones_under_their_origin():
    g = CloneGraph(CHAIN)
    (root,) = g.roots()
    assert root.dataset.name == "tank"
    names = [c.dataset.name for c in root.children]
    assert names == ["tank/base", "tank/other"]  # c1, c2 are not namespace children here
    base = root.children[0]
    assert base.snapshots == 1  # @s0 has no clones: counted, not listed
    (s1,) = base.children
    assert s1.dataset.name == "tank/base@s1" and [c.dataset.name for c in s1.children] == ["tank/c1"]
    c1 = s1.children[0]
    assert [c.dataset.name for c in c1.children] == ["tank/c1/child", "tank/c1@s2"]
    assert g.is_clone("tank/c2") and not g.is_clone("tank/base")


def test_destroy_R_takes_clones_recursively():
    g = CloneGraph(CHAIN)
    assert g.destroyed_by("tank/base@s1") == ["tank/c1", "tank/c1/child", "tank/c1@s2", "tank/c2"]
    assert g.destroyed_by("tank/base") == [
        "tank/base@s0",
        "tank/base@s1",
        "tank/c1",
        "tank/c1/child",
        "tank/c1@s2",
        "tank/c2",
    ]
    assert g.destroyed_by("tank/c2") == [] and g.destroyed_by("tank/other") == []


def _pool(*tops: Vdev, **kw) -> Pool:
    root = Vdev("tank", "root", "ONLINE", children=tops)
    return Pool("tank", kw.pop("state", "ONLINE"), root, size=4 * GiB, alloc=GiB, free=3 * GiB, **kw)


def outlier_leaves(pool: Pool, findings: list[Finding], cfg: CheckConfig) -> frozenset[str]:
    """The leaves the vdev table marks in one sample of `pool`: what the deranged_disk check
    names, and what it judged slow in that sample (the fold hands both over: Frame.outliers)."""
    tracker = deranged_disk.Tracker(cfg)
    tracker.observe(Snapshot(1.0, (pool,)))
    return tracker.outliers(findings).get(pool.name, frozenset())


def test_outliers_by_peer_rule_and_by_finding():
    cfg = CheckConfig()
    pool = _pool(
        mirror(0, leaf("sda", util=20), leaf("sdb", util=22)),
        mirror(1, leaf("sdc", util=20, write_ms=2), leaf("sdd", util=95, write_ms=60)),
    )
    assert outlier_leaves(pool, [], cfg) == {"/dev/sdd"}
    f = Finding("deranged_disk", Severity.WARNING, "tank", "/dev/sda", "leaf", "t", "w")
    assert outlier_leaves(pool, [f], cfg) == {"/dev/sda", "/dev/sdd"}
    calm = _pool(mirror(0, leaf("sda", util=3), leaf("sdb", util=9)))  # 3x but under the floor
    assert outlier_leaves(calm, [], cfg) == frozenset()


def _plain(cell) -> str:
    return "".join(t for t, _ in cell)


def test_vdev_rows_fill_beside_the_mean_and_the_marked_leaf():
    pool = _pool(
        mirror(0, leaf("sda", util=20), leaf("sdb", util=22), **space(2 * GiB, 60)),
        mirror(1, leaf("sdc", util=20), leaf("sdd", util=95), **space(2 * GiB, 20)),
    )
    rows = build_rows(pool, {"/dev/sdd"}, 20, wide=True)
    assert [r.key for r in rows] == [
        pool_key(pool),
        "guid-mirror-0",
        "guid-sda",
        "guid-sdb",
        "guid-mirror-1",
        "guid-sdc",
        "guid-sdd",
    ]
    assert [r.kind for r in rows] == ["pool", "top", "leaf", "leaf", "top", "leaf", "leaf"]
    top0 = _plain(rows[1].cell("fill"))
    assert "60%" in top0 and "+35" in top0 and "│" in top0  # pool mean 25 %: tick and gap
    sdd = rows[6]
    assert _plain(sdd.cell("name")).endswith("! sdd") and ("crit-bold" in {r for _, r in sdd.cell("name")})
    assert "95%" in _plain(sdd.cell("util")) and _plain(sdd.cell("fill")) == ""  # a disk: no FILL
    assert _plain(rows[1].cell("util")) == ""  # a mirror: no %UTIL of its own
    assert "!" not in _plain(rows[5].cell("name"))
    narrow = build_rows(pool, (), 12, wide=False)
    assert _plain(narrow[1].cell("fill")) == " 60%"  # no room for the bar and gap at 80 cols


def test_vdev_rows_grey_the_figures_of_a_stale_input_and_only_those():
    pool = _pool(
        mirror(0, leaf("sda", util=20, write_bps=1 << 20), leaf("sdb", util=95), **space(2 * GiB, 60))
    )

    def roles(stale, col):
        return {
            r.label: {role for _, role in r.cell(col)}
            for r in build_rows(pool, {"/dev/sdb"}, 20, stale=stale)
        }

    fresh = frozenset()
    assert roles(fresh, "mbs")["sda"] == {"text"} and roles(fresh, "state")["sda"] == {"ok"}
    # iostat stalled: rates, waits and fill are old, the state (zpool status) is not.
    for col in ("mbs", "total_w", "disk_w"):
        assert roles(frozenset({"iostat"}), col)["sda"] == {"muted"}
    assert roles(frozenset({"iostat"}), "fill")["mirror-0"] == {"muted"}
    assert roles(frozenset({"iostat"}), "state")["sda"] == {"ok"}
    assert roles(frozenset({"iostat"}), "util")["sdb"] != {"muted"}  # %UTIL is diskstats'
    # status failing: state, error and SLOW counts are old.
    assert roles(frozenset({"status"}), "state")["sda"] == {"muted"}
    assert roles(frozenset({"status"}), "mbs")["sda"] == {"text"}
    assert roles(frozenset({"diskstats"}), "util")["sdb"] == {"muted"}
    assert roles(frozenset({"ashift:tank"}), "ashift")["mirror-0"] == {"muted"}  # asked per pool
    assert roles(frozenset({"ashift:other"}), "ashift")["mirror-0"] == {"text"}


def test_vdev_rows_mark_the_resilver_target():
    from zdash.model import Scan

    old, new = leaf("d2", state="OFFLINE"), leaf("new2")
    replacing = Vdev("replacing-1", "replacing", "DEGRADED", children=(old, new))
    pool = _pool(
        mirror(0, leaf("d1"), replacing, state="DEGRADED"),
        state="DEGRADED",
        scans=(Scan("resilver", "scanning"),),
    )
    states = {r.label: _plain(r.cell("state")) for r in build_rows(pool, (), 20)}
    assert states["new2"] == "ONLINE ↻" and states["d2"] == "OFFLINE"


def test_a_pool_seen_without_its_vdevs_shows_no_error_counts():
    """A status cut before its config (a paste, a JSON excerpt): the counters are unknown, not 0."""
    (row,) = build_rows(_pool(state="DEGRADED"), (), 20)
    assert _plain(row.cell("errors")) == "-"
    rows = build_rows(_pool(mirror(0, leaf("sda"), leaf("sdb"))), (), 20)
    assert _plain(rows[0].cell("errors")) == "0/0/0"


def test_series_points_mark_what_was_not_measured_as_nan():
    pools = [_pool(mirror(0, leaf("sda", write_bps=t * (1 << 20), write_ms=t or None))) for t in range(4)]
    series = Series()
    for t, p in enumerate(pools):
        series.add(Snapshot(time=100.0 + t, pools=(p,)))
    s = series.points("tank", "guid-sda")
    assert s["x"] == [-3.0, -2.0, -1.0, 0.0] and s["wmb"] == [0.0, 1.0, 2.0, 3.0]
    assert math.isnan(s["wms"][0]) and s["wms"][1:] == [1.0, 2.0, 3.0]
    assert all(v != v for v in series.points("tank", "pool:tank")["wmb"])  # the root had no io: gaps


def test_a_resilver_target_is_not_marked_while_it_is_rebuilt():
    from zdash.model import Scan

    cfg = CheckConfig()
    rep = Vdev(
        "replacing-1",
        "replacing",
        "DEGRADED",
        children=(leaf("sdc", state="OFFLINE"), leaf("sdd", util=95, write_ms=60)),
    )
    tops = (
        mirror(0, leaf("sda", util=20), leaf("sdb", util=22)),
        mirror(1, leaf("sde", util=20, write_ms=2), rep),
    )
    rebuilding = _pool(*tops, scans=(Scan("resilver", "scanning"),))
    assert outlier_leaves(rebuilding, [], cfg) == frozenset()
    assert outlier_leaves(_pool(*tops, scans=(Scan("resilver", "finished"),)), [], cfg) == {"/dev/sdd"}


def test_pool_header_eta_is_the_scan_checks():
    """The header shows the scan check's own figures (checks.scan.rolling_rate and eta), not a
    second estimate: 10 MiB/s over the last minute, 8 GiB left."""
    from tests.checks.builders import MiB, history, pool, scan
    from tests.checks.builders import leaf as bleaf
    from tests.checks.builders import mirror as bmirror
    from zdash.checks import scan as scan_check
    from zdash.ui.widgets.pool_header import scan_line

    def tank(i: int) -> Pool:
        running = scan(
            "scrub", "scanning", issued=2 * GiB - (60 - i) * 10 * MiB, to_examine=10 * GiB, skipped=0
        )
        return pool("tank", bmirror(0, bleaf("sda"), bleaf("sdb")), scans=(running,))

    from zdash.checks.registry import CheckEngine

    h = history(tank, 61)
    (finding,) = [f for f in scan_check.check(h, CheckConfig()) if f.topic == "scrub"]
    assert dict(finding.evidence)["ETA (zdash)"] == "13 min 39 s"
    engine = CheckEngine()
    for s in h:
        engine.update(s)
    line = scan_line(h[-1].pools[0], engine.scan_rates(), 120)  # what the feed hands the frame
    assert f"ETA {fmt.duration(819.2)}" in line.plain and "20.0%" in line.plain
    assert _style_of(line, fmt.duration(819.2)) == "bold"


def test_the_plan_screen_colours_every_preflight_mark():
    """A mark the actions add (ACCEPTED: a risk taken explicitly) must not be a KeyError on the
    plan screen."""
    from typing import get_args

    from zdash.actions import Mark
    from zdash.ui.plan_markup import MARK_VAR

    assert set(MARK_VAR) == set(get_args(Mark))


def test_replay_bar_markers_glyphs_come_from_the_theme_and_the_most_telling_wins():
    from zdash.feed.frame import Position
    from zdash.feed.timeline import Event, Timeline
    from zdash.ui.widgets.replay_bar import bar_content

    pos = Position(0, 101, 0.0, 100.0, 0.0, False, 1.0)
    events = (
        Event(10, 10.0, "onset", "begins"),
        Event(10, 10.0, "state", "tank DEGRADED"),  # same column as the onset: the onset shown
        Event(50, 50.0, "raised", "x", Severity.CRITICAL),
        Event(80, 80.0, "cleared", "x", Severity.CRITICAL),
        Event(90, 90.0, "state", "tank ONLINE"),
    )
    timeline = Timeline(events, 101, 101)
    plain = bar_content(pos, 140, timeline, {}).plain
    assert [c for c in plain if c in "◆▲✓●"] == ["◆", "▲", "✓", "●"]
    themed = {"zd-mark-onset": '"O"', "zd-mark-raised": '"R"', "zd-mark-cleared": "C", "zd-mark-state": '"S"'}
    plain = bar_content(pos, 140, timeline, themed).plain
    assert [c for c in plain if c in "ORCS"] == ["O", "R", "C", "S"] and "◆" not in plain
    bar = bar_content(pos, 140, timeline, {})
    assert _style_of(bar, "▲") == "bold $zd-crit" and _style_of(bar, "✓") == "$zd-ok"  # by kind and severity


def _style_of(content, text: str) -> str:
    """The style of the span that covers `text`'s first occurrence in `content`."""
    at = content.plain.index(text)
    return next(span.style for span in content.spans if span.start <= at < span.end)


def test_peer_overlay_the_sick_disk_against_its_peers_median():
    from zdash.ui.series import peer_overlay

    def pts(util, wait, mbs):
        n = len(util)
        return {
            "x": [float(i - n + 1) for i in range(n)],
            "rmb": [math.nan] * n,
            "wmb": mbs,
            "rms": [math.nan] * n,
            "wms": wait,
            "util": util,
        }

    sick = pts([90.0, 95.0], [50.0, 55.0], [2.0, 3.0])
    peers = [pts([5.0, 4.0], [1.0, 2.0], [2.0, 3.0]), pts([7.0, 100.0], [3.0, 4.0], [2.0, 3.0])]
    peers.append({k: v[1:] for k, v in pts([6.0, 6.0], [2.0, 2.0], [2.0, 3.0]).items()})  # only the last
    out = peer_overlay(sick, peers)
    assert out["util"] == [90.0, 95.0] and out["util-peers"] == [6.0, 6.0]  # the median, not the mean
    assert out["wait"] == [50.0, 55.0] and out["wait-peers"] == [2.0, 2.0]
    assert out["mbs"] == out["mbs-peers"] == [2.0, 3.0]  # the same MiB/s


def test_a_name_with_brackets_is_text_at_every_width():
    """`/dev/disk[slot=3]/d2` in a finding's title, cut to the header's width: as markup, a cut
    inside the bracket raised MarkupError and ended the dashboard. Content is never parsed."""
    from textual.content import Content
    from textual.style import Style

    from zdash.ui.widgets.pool_header import verdict_line

    pool = _pool(mirror(0, leaf("/dev/disk[slot=3]/d2"), leaf("[b]sdb[/b]")))
    title = "/dev/disk[slot=3]/d2 in mirror-0: 70 read errors [/] [@click=app.quit]x[/]"
    finding = Finding("health", Severity.WARNING, "tank", "/dev/disk[slot=3]/d2", "leaf", title, "why")
    for width in range(10, 120):
        line = verdict_line(pool, [finding], width)
        shown = line.plain.split("  ", 1)[1].removesuffix("…")  # after the badge: the title, cut
        assert isinstance(line, Content) and title.startswith(shown) and shown.startswith("/dev")
        list(line.render_segments(Style()))  # every span renders: no markup was ever parsed
    assert verdict_line(pool, [finding], 200).plain.endswith("[@click=app.quit]x[/]")


@pytest.mark.parametrize(
    "name", ["deranged-mirror", "degraded-resilver", "log-special", "two-pools", "healthy"]
)
def test_vdev_rows_read_from_the_ticks_columns_are_those_of_io_of_and_disk_of(name, monkeypatch):
    """The table's rows read each vdev's figures straight from the tick's columns, no IoStats or
    DiskIo per row: every row, tick after tick of a recording (disks without a kernel row, '-'
    waits, log and special vdevs, a resilver, two pools), reads as the rows made from the
    objects Pool.io_of and Pool.disk_of build."""
    from tests.sessions import fixture
    from zdash.fold import Fold
    from zdash.sources.recording import open_recording
    from zdash.ui import vdev_rows

    rec = open_recording(fixture(name))
    fold = Fold.from_header(rec.header, None)
    by_columns, by_objects = [], []
    read = vdev_rows._column_reader
    for tick in rec.ticks():
        snap = fold.step(tick).snapshot
        for pool in snap.pools:
            for wide in (True, False):
                by_columns.append(list(build_rows(pool, (), 20, wide)))
                monkeypatch.setattr(vdev_rows, "_column_reader", lambda p: ((lambda v: None), (lambda v: -1)))
                by_objects.append(list(build_rows(pool, (), 20, wide)))
                monkeypatch.setattr(vdev_rows, "_column_reader", read)
    rec.close()
    assert len(by_columns) > 10 and by_columns == by_objects
    assert {c for rows in by_columns for r in rows for c in r.cells} > {vdev_rows._UNKNOWN}  # figures shown
