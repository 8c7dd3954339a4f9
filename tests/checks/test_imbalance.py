"""imbalance: spread thresholds, and the cause named from what the snapshot shows."""

from __future__ import annotations

import pytest

from tests.checks.builders import T0, GiB, MiB, evidence, leaf, mirror, one, pool, snap, space
from zdash.checks import imbalance, stories
from zdash.checks.finding import Severity
from zdash.config import CheckConfig

CFG = CheckConfig()


def two(pct0, pct1, size0=GiB, size1=GiB):
    return pool(
        "tank",
        mirror(0, leaf("a"), leaf("b"), **space(size0, pct0)),
        mirror(1, leaf("c"), leaf("d"), **space(size1, pct1)),
    )


def check_now(p):
    return imbalance.check([snap(T0, p)], CFG)


@pytest.mark.parametrize(
    "spread, expected", [(9.9, None), (10.0, Severity.INFO), (24.9, Severity.INFO), (25.0, Severity.WARNING)]
)
def test_spread_thresholds(spread, expected):
    """Equal vdevs, the fuller one the *later* one (uneven frees), the fuller nearing 80 %."""
    findings = check_now(two(55.0, 55.0 + spread))
    if expected is None:
        assert findings == []
    else:
        f = one(findings, subject="tank")
        assert f.severity == expected and f"{spread:.1f} points" in f.title


def test_vdev_added_after_data_was_written():
    """imbalance-added-vdev capture: mirror-0 64.0 %, mirror-1 (added later) 9.38 %."""
    p = pool(
        "imbal",
        mirror(
            0,
            leaf("/i/d1", kind="file"),
            leaf("/i/d2", kind="file"),
            size=503316480,
            alloc=321912832,
            free=181403648,
        ),
        mirror(
            1,
            leaf("/i/d3", kind="file"),
            leaf("/i/d4", kind="file"),
            size=503316480,
            alloc=47290368,
            free=456026112,
        ),
    )
    f = one(check_now(p), subject="imbal")
    # Growing a pool by adding a vdev is how the seeds' expert does it: a note, not a warning.
    assert f.severity == Severity.INFO
    assert "mirror-1 probably added after data was written" in f.title
    assert "zpool history imbal" in f.why and "no in-place rebalance" in f.why
    assert "not yet seen enough writes" in f.why  # no measurement: no claim about the writes
    assert evidence(f)["mirror-0 fill"].startswith("63.9 %")  # 63.97 %, rounded down
    assert f.actions[0].argv == ("zpool", "history", "imbal")


def _added_later(i, new_share):
    """mirror-1 added to a 70 %-full mirror-0; writes split `new_share` to mirror-1."""
    import dataclasses

    from zdash.model import IoStats

    p = two(70.0, 10.0)
    m0, m1 = p.top_level
    total = 100 * MiB
    m0 = dataclasses.replace(m0, io=IoStats(write_ops=100, write_bytes=total * (1 - new_share)))
    m1 = dataclasses.replace(m1, io=IoStats(write_ops=100, write_bytes=total * new_share))
    return dataclasses.replace(p, root=dataclasses.replace(p.root, children=(m0, m1)))


def test_added_vdev_text_agrees_with_the_measured_write_share():
    from tests.checks.builders import history

    even = one(imbalance.check(history(lambda i: _added_later(i, 0.52), 12), CFG), subject="tank")
    assert even.severity == Severity.INFO
    assert "New writes are spread about evenly: mirror-1 took 52 %" in even.why
    assert evidence(even)["Write share (measured)"] == "mirror-0 48 %, mirror-1 52 %"
    # The new vdev measurably takes most of the writes (3/4 or more of them with two vdevs).
    skewed = one(imbalance.check(history(lambda i: _added_later(i, 0.80), 12), CFG), subject="tank")
    assert skewed.severity == Severity.WARNING
    assert "mirror-1 took 80 % of the writes while zdash watched" in skewed.why


def test_added_vdev_warns_when_the_old_one_nears_the_capacity_warning():
    near = two(76.0, 20.0)
    assert one(check_now(near), subject="tank").severity == Severity.WARNING
    assert one(check_now(two(74.0, 20.0)), subject="tank").severity == Severity.INFO


def test_different_sizes_use_allocatable_space_not_raw_leaf_size():
    """imbalance-size capture: single-file vdevs whose SIZE is the raw file, not ALLOC+FREE."""
    p = pool(
        "sizes",
        leaf("/s/big", kind="file", size=2147483648, alloc=435959296, free=1577306624),
        leaf("/s/small", kind="file", size=536870912, alloc=193741824, free=309574656),
    )
    f = one(check_now(p), subject="sizes")
    assert "different sizes" in f.title
    assert evidence(f)["/s/small fill"].startswith(
        "38.4 %"
    )  # 38.49 %: zpool list -v rounds to 38.5; every fill zdash shows is rounded down
    assert evidence(f)["/s/big fill"].startswith("21.6 %")  # 21.65 %: as zpool list -v prints it
    assert f.severity == Severity.INFO


def test_equal_vdevs_from_the_start_point_to_uneven_frees():
    f = one(check_now(two(20.0, 50.0)), subject="tank")  # the *first* vdev is the emptier
    assert "uneven frees" in f.title and f.actions == ()


def test_sizes_explain_a_smaller_vdev_running_fuller_by_no_more_than_their_ratio():
    """The lab's imbalance-size capture: 512 MiB beside 2 GiB from the start, 38.5 % vs 21.6 %:
    different sizes. A 60 / 4 % spread beside a 2x size difference (corpus 128) is not the
    sizes: the larger, emptier vdev came later. Within the size tolerance sizes never count."""
    lab = one(check_now(two(21.6, 38.5, size0=2 * GiB, size1=GiB // 2)), subject="tank")
    assert "different sizes" in lab.title, lab.title
    grown = one(check_now(two(60.0, 4.0, size0=GiB, size1=2 * GiB)), subject="tank")
    assert "added after data was written" in grown.title and grown.severity == Severity.INFO, grown.title
    assert "2.0x the size of" in grown.why
    within = one(check_now(two(60.0, 30.0, size0=int(GiB * 1.09), size1=GiB)), subject="tank")
    assert "different sizes" not in within.title


def test_only_normal_class_vdevs_are_compared():
    p = pool(
        "tank",
        mirror(0, leaf("a"), leaf("b"), **space(GiB, 30.0)),
        mirror(1, leaf("c"), leaf("d"), vclass="special", **space(64 * MiB, 90.0)),
    )
    assert check_now(p) == []


def test_single_vdev_pool_cannot_be_imbalanced():
    assert check_now(pool("tank", mirror(0, leaf("a"), leaf("b"), **space(GiB, 70.0)))) == []


def test_slow_vdev_gets_fewer_writes_from_slow_io_counts():
    """deranged-disk capture: equal mirrors from the start, 46.3 % vs 16.6 %, slowdisk SLOW 1271."""
    p = pool(
        "deranged",
        mirror(
            0,
            leaf("loop0", slow_ios=0),
            leaf("loop1", slow_ios=0),
            size=503316480,
            alloc=232783872,
            free=270532608,
        ),
        mirror(
            1,
            leaf("loop2", slow_ios=2),
            leaf("slowdisk", slow_ios=1271),
            size=503316480,
            alloc=83361792,
            free=419954688,
        ),
    )
    f = one(check_now(p), subject="deranged")
    assert "mirror-1 is slow and gets fewer writes" in f.title
    assert evidence(f)["mirror-1 slow I/Os"] == "1273"
    assert "allocation throttle" in f.why and "new writes lean on" not in f.why


def test_slow_vdev_from_latency_over_the_history():
    from tests.checks.builders import history

    def make(i):
        return pool(
            "tank",
            mirror(0, leaf("a", write_ms=2.0), leaf("b", write_ms=2.5), **space(GiB, 50.0)),
            mirror(1, leaf("c", write_ms=3.0), leaf("d", write_ms=90.0), **space(GiB, 20.0)),
        )

    f = one(imbalance.check(history(make, 10), CFG), subject="tank")
    assert "mirror-1 is slow" in f.title
    assert evidence(f)["mirror-1 disk wait"] == "46.5 ms"


# --- share of the data on equal vdevs of a nearly empty pool ------------------------------

TiB = 1 << 40


def disks(*allocs, size=TiB, names=("sda", "sdb", "sdc", "sdd")):
    """Single-disk vdevs of equal size holding `allocs` bytes each."""
    return pool(
        "tank", *(leaf(n, size=size, alloc=a, free=size - a) for n, a in zip(names, allocs, strict=False))
    )


def test_one_of_two_equal_disks_holding_almost_all_the_data_is_a_note():
    """9.8G vs 120M on two 1T disks: 0.96 % vs 0.01 % full, far under the spread threshold."""
    f = one(check_now(disks(120 * MiB, int(9.8 * GiB))), subject="tank")
    assert f.severity == Severity.INFO
    assert f.title == "tank: sdb holds 99 % of the data on equal vdevs (data deleted)"
    assert "not the allocator" in f.why and "new writes spread by free space" in f.why
    assert "Reads of the existing data all come from sdb" in f.why and "zfs send" in f.why
    assert evidence(f)["sdb holds"] == "9.8 GiB of 1.0 TiB (99 % of the data)"
    assert f.actions[0].argv == ("zpool", "history", "tank")


def test_the_emptier_vdev_coming_later_is_the_sign_of_a_late_add():
    f = one(check_now(disks(int(9.8 * GiB), 120 * MiB)), subject="tank")
    assert "sdb probably added after the data was written" in f.title
    assert "zpool history tank" in f.why


@pytest.mark.parametrize(
    "total, fires",
    [(1 * GiB - MiB, False), (1 * GiB, True)],
)
def test_noise_floor_of_one_gib(total, fires):
    """Under 1 GiB the pool's own metadata and a few small files decide the shares."""
    big = int(total * 0.9)
    assert bool(check_now(disks(total - big, big))) is fires


@pytest.mark.parametrize("share, fires", [(0.74, False), (0.75, True)])
def test_two_vdevs_need_three_quarters_of_the_data_on_one(share, fires):
    total = 10 * GiB
    assert bool(check_now(disks(round(total * (1 - share)), round(total * share)))) is fires


def test_with_four_vdevs_half_the_data_on_one_is_most():
    total = 12 * GiB
    assert check_now(disks(total // 2, total // 6, total // 6, total // 6))
    assert not check_now(disks(total * 2 // 5, total // 5, total // 5, total // 5))


def test_different_sizes_are_meant_to_hold_different_shares():
    p = pool(
        "tank",
        leaf("sda", size=TiB, alloc=10 * GiB, free=TiB - 10 * GiB),
        leaf("sdb", size=TiB // 2, alloc=GiB // 10, free=TiB // 2 - GiB // 10),
    )
    assert check_now(p) == []


def test_never_doubles_the_fill_spread_finding():
    """A spread over the threshold is the spread finding's alone, whatever the shares."""
    findings = check_now(disks(GiB, 400 * GiB))
    assert len(findings) == 1 and "fill differs" in findings[0].title


def test_a_zpool_add_seen_in_the_paste_is_direct_evidence_of_the_late_add():
    """The transcript's `zpool add tank /dev/sda` overrides the vdev order: sda, listed first,
    holds almost nothing because it was added after the data was written."""
    import dataclasses

    p = dataclasses.replace(disks(120 * MiB, int(9.8 * GiB)), added_devices=("/dev/sda",))
    f = one(check_now(p), subject="tank")
    assert "sda added after the data was written" in f.title and "probably" not in f.title
    assert evidence(f)["Added by `zpool add`"] == "sda"
    assert "(by a `zpool add` the paste shows)" in f.why


def test_a_zpool_add_of_the_fuller_vdev_means_the_older_data_was_deleted():
    import dataclasses

    p = dataclasses.replace(disks(int(9.8 * GiB), 120 * MiB), added_devices=("/dev/disk/by-id/x", "sda"))
    f = one(check_now(p), subject="tank")
    assert f.title == "tank: sda holds 99 % of the data on equal vdevs (data deleted)"
    assert "sda was added later (by a `zpool add` the paste shows)" in f.why


@pytest.mark.parametrize("grown_first", [False, True])
def test_a_vdev_grown_after_the_data_was_written_is_history_told_the_allocators_way(grown_first):
    """The imbalance-size fixture: two mirrors of 256 MiB disks filled to ~55 %, then one grown to
    1 GiB (bigger disks, autoexpand): 54.7 % beside 13.6 %, about the same bytes on each. Not
    "different sizes" at WARNING: the larger vdev holds no more than the smaller one did, so it
    grew after the data was written (whichever comes first in the vdev order). Writes spread by
    free space lean on it until the fills even out: they never drive fills apart."""
    small, big = (54.7, 256 * MiB), (13.6, GiB)
    (pct0, size0), (pct1, size1) = (big, small) if grown_first else (small, big)
    f = one(check_now(two(pct0, pct1, size0=size0, size1=size1)), subject="tank")
    grown = "mirror-0" if grown_first else "mirror-1"
    assert f.title.endswith(f"({grown} grown after the data was written)") and f.severity == Severity.INFO
    assert stories.GROWN_RULE in f.why and "drifts apart" not in f.why
    assert evidence(f)["Bytes held"].startswith(f"{grown} ")


def test_different_sizes_from_the_start_say_the_allocator_evens_the_fills_out():
    f = one(check_now(two(21.6, 38.5, size0=2 * GiB, size1=GiB // 2)), subject="tank")  # 2.2x the bytes
    assert "different sizes" in f.title and "even the fills out" in f.why and "drifts apart" not in f.why


def test_a_folded_ticks_vdev_figures_read_from_its_columns_are_each_vdevs_own():
    """The check reads a folded tick's write bytes and disk waits straight from its columns:
    what each vdev's own IoStats says, for the root, every vdev and every leaf (the first tick,
    a tick without an iostat report, a top-level vdev whose space moved)."""
    from tests.bench.synthetic import SyntheticHost
    from zdash.builder import SnapshotBuilder
    from zdash.raw import Tick

    host = SyntheticHost(leaves=24, layout="raidz2", width=6, slow_every=7)
    b = SnapshotBuilder()
    read = 0
    for n in range(8):
        tick = host.tick(n)
        if n == 4:
            tick = Tick(tick.time, tuple(s for s in tick.samples if s.key != "iostat"))
        for p in b.feed(tick).pools:
            figures = imbalance._figures_of(p)
            for v in (p.root, *p.top_level, *p.leaves()):
                assert figures(v) == imbalance._own(p.io_of(v)), (n, v.name)
                read += figures(v) is not None
    assert read


@pytest.mark.parametrize("idle_every", [0, 3])
def test_a_folded_pool_read_by_its_plan_keeps_what_reading_each_vdev_keeps(monkeypatch, idle_every):
    """A steady pool's top-level vdevs are read by rows kept while its tree stays the same (no
    lookup or tuple per vdev per tick): the memory the check keeps (bytes written, waits summed,
    busy samples) and its findings (kept while the tree alone decides them) are those of reading
    each vdev's figures and judging anew, tick by tick, across `zpool status` answers that remake
    the tree and ticks where some vdevs are idle."""
    import copy

    from tests.bench.synthetic import SyntheticHost
    from zdash.fold import snapshots

    host = SyntheticHost(leaves=24, layout="mirror", slow_every=7)
    ticks = [host.tick(i) for i in range(16)]
    if idle_every:  # every third top-level vdev idle now and then: its waits '-', from its leaves
        for t in ticks[::idle_every]:
            for s in t.samples:
                if s.key == "iostat":
                    lines = s.stdout.split("\n")
                    for i, line in enumerate(lines):
                        f = line.split("\t")
                        if f[0].startswith("mirror-") and int(f[0][7:]) % 3 == 0:
                            f[9:11] = ["-", "-"]
                            lines[i] = "\t".join(f)
                    object.__setattr__(s, "stdout", "\n".join(lines))
    planned, by_vdev = imbalance.Tracker(CFG), imbalance.Tracker(CFG)
    plans = 0
    for snapshot in snapshots(ticks):
        planned.observe(snapshot)
        plans += bool(planned._plans)
        with monkeypatch.context() as m:  # each vdev read, each finding made, every tick
            m.setattr(imbalance._Plan, "of", staticmethod(lambda pool, tops, st: None))
            m.setattr(imbalance, "_by_tree", lambda pool, tops, cfg: (False, None))
            by_vdev.observe(snapshot)
            made = by_vdev.findings(snapshot)
        assert planned.memory() == by_vdev.memory()
        assert planned.findings(snapshot) == made
    assert plans >= 12  # (read by its plan on most ticks)
    twin = copy.deepcopy(planned)  # a replay's kept copy: made again from the next snapshot
    twin.observe(snapshot)
    by_vdev.observe(snapshot)
    assert twin.memory() == by_vdev.memory()
