"""deranged_disk: one sick leaf among healthy peers, and everything that must NOT alarm."""

from __future__ import annotations

from tests.checks.builders import (
    GiB,
    MiB,
    evidence,
    healthy_two_mirrors,
    history,
    leaf,
    mirror,
    one,
    pool,
    scan,
    space,
)
from zdash.checks import deranged_disk, stories
from zdash.checks.finding import Severity
from zdash.config import CheckConfig
from zdash.model import Vdev

CFG = CheckConfig()
SLOW = "/dev/mapper/slowdisk"


def fast(name, **kw):
    kw.setdefault("util", 12.0)
    kw.setdefault("write_ms", 3.0)
    kw.setdefault("write_bps", 4 * MiB)
    return leaf(name, **kw)


def sick(**kw):
    kw.setdefault("util", 100.0)
    kw.setdefault("write_ms", 100.0)
    kw.setdefault("write_bps", 4 * MiB)  # a mirror writes the same bytes to both sides
    return leaf("slowdisk", path=SLOW, **kw)


def two_mirrors(slow_leaf, third=None):
    """Two mirrors; mirror-1 holds the slow leaf (and a third side when given)."""
    sides = (fast("loop2"), slow_leaf) + ((third,) if third is not None else ())
    return pool(
        "deranged",
        mirror(0, fast("loop0"), fast("loop1"), **space(GiB, 20)),
        mirror(1, *sides, **space(GiB, 20)),
    )


def idle(name, **kw):
    """A leaf that did nothing this second: the kernel shows it 0 % busy, zpool no latency."""
    return leaf(name, util=0.0, **kw)


def idle_two_mirrors():
    return pool(
        "deranged",
        mirror(0, idle("loop0"), idle("loop1"), **space(GiB, 20)),
        mirror(1, idle("loop2"), idle("slowdisk", path=SLOW), **space(GiB, 20)),
    )


def run(make, n, cfg=CFG):
    return deranged_disk.check(history(make, n), cfg)


def test_sustained_slow_disk_is_named_with_its_numbers_and_offline_then_replace():
    findings = run(lambda i: two_mirrors(sick()), 6)
    f = one(findings, subject=SLOW)
    assert f.severity == Severity.WARNING and f.subject_kind == "leaf" and f.pool == "deranged"
    assert "mirror-1" in f.title and SLOW in f.title
    ev = evidence(f)
    assert ev["%util"] == "100.0 % vs peers 12.0 %"
    assert ev["Disk wait write"] == "100 ms vs peers 3.00 ms"
    assert ev["Compared with"] == "/dev/loop2 (mirror-1)"
    assert ev["And with"].startswith(
        "/dev/loop0, /dev/loop1, /dev/loop2 (the pool's other leaves: %util 12.0 %"
    )
    assert ev["Cost"] == "mirror-1 waited for it: its disk wait was slow in 6 samples since the onset"
    assert ev["Slow samples"] == "6 of 6 busy samples (idle ones are no evidence)"
    assert ev["Since"] == ev["Last seen slow"] != ""
    assert "slowest disk" in f.why and "whole pool" in f.why
    # The story, in the order an expert works: look, then the two ways out with their costs.
    assert "\n\n".join(stories.slow_disk("mirror-1", 0)) in f.why
    look, relief, safe = f.actions
    assert look.argv == ("smartctl", "-a", SLOW) and look.action is None
    # Relief now: offline. A 2-way mirror has no redundancy without this side: a risk to accept.
    assert relief.argv == ("zpool", "offline", "deranged", SLOW) and relief.action == "offline"
    assert "pool speed returns" in relief.label and "a risk to accept" in relief.label
    # Safe: replace onto a new disk while it stays in (never in place: that means pulling it).
    assert safe.argv == ("zpool", "replace", "deranged", SLOW) and safe.action == "replace"
    assert safe.new_device == "required" and "stays slow until the resilver ends" in safe.label


def test_in_a_three_way_mirror_relief_is_an_ordinary_plan():
    f = one(run(lambda i: two_mirrors(sick(), third=fast("loop9")), 6), subject=SLOW)
    assert [a.action for a in f.actions] == [None, "offline", "replace"]
    assert stories.slow_relief_here("mirror-1", 1) in f.why
    assert "mirror-1 can still lose 1 more disk while it is out" in f.actions[1].label
    assert "risk" not in f.actions[1].label


def test_each_way_out_is_a_plan_with_its_pre_flight():
    """The offline plan of a 2-way mirror's side blocks until the risk is accepted; in a 3-way
    mirror it passes; the replace plan checks the new disk."""
    from zdash.actions import ReplayProbe, build_plan, request_from_suggestion

    for third, left in ((None, "no redundancy left"), (fast("loop9"), "can lose 1 more disk")):
        snap = history(lambda i, third=third: two_mirrors(sick(), third=third), 6)[-1]
        f = one(run(lambda i, third=third: two_mirrors(sick(), third=third), 6), subject=SLOW)
        relief = next(a for a in f.actions if a.action == "offline")
        plan = build_plan(snap, request_from_suggestion(relief), ReplayProbe())
        kept = next(c for c in plan.checks if c.name == "redundancy kept")
        assert left in plan.summary
        if third is None:
            assert kept.needs_acceptance and plan.needs_acceptance == plan.failures
        else:
            assert kept.ok
        safe = next(a for a in f.actions if a.action == "replace")
        plan = build_plan(snap, request_from_suggestion(safe, "/dev/disk/by-id/ata-NEW"), ReplayProbe())
        assert plan.argv == ("zpool", "replace", "deranged", SLOW, "/dev/disk/by-id/ata-NEW")
        assert {"target exists", "size", "stable path"} <= {c.name for c in plan.checks}
        assert "writes go to both until the resilver ends" in plan.summary


def test_smartctl_is_offered_only_for_a_device_path():
    """zpool resolves the short names it prints; smartctl needs the device node itself."""
    named = leaf("B0", path="B0", util=100.0, write_ms=100.0, write_bps=4 * MiB)  # as a paste names it
    f = one(run(lambda i: two_mirrors(named), 6), subject="B0")
    assert [a.argv[:2] for a in f.actions] == [("zpool", "offline"), ("zpool", "replace")]


def test_one_spike_is_not_a_finding():
    findings = run(lambda i: two_mirrors(sick() if i == 7 else fast("slowdisk", path=SLOW)), 10)
    assert findings == []


def test_sustain_boundary_four_slow_samples_are_not_enough_five_are():
    # samples 0..5 normal, then the last 4 (or 5) slow
    def make(n_slow):
        return lambda i: two_mirrors(sick() if i >= 10 - n_slow else fast("slowdisk", path=SLOW))

    assert run(make(4), 10) == []
    f = one(run(make(5), 10), subject=SLOW)
    assert evidence(f)["Slow samples"].startswith("5 of 5 busy samples")


def test_bursts_with_idle_gaps_between_them_still_add_up():
    """Bursty load (backups, VMs): 2 busy seconds, 3 idle ones. Idle seconds are no evidence
    either way, so the slow seconds of successive bursts accumulate."""
    bursty = lambda i: two_mirrors(sick()) if i % 5 < 2 else idle_two_mirrors()  # noqa: E731
    assert run(bursty, 6) == []  # 3 slow busy samples so far
    f = one(run(bursty, 13), subject=SLOW)  # bursts at 0-1, 5-6, 10-11: 6 slow busy samples
    assert evidence(f)["Slow samples"].startswith("6 of 6 busy")


def test_once_raised_it_holds_through_idle_gaps_and_clears_after_enough_normal_busy_samples():
    # 6 slow busy seconds raise it; then 30 idle seconds: nothing changes.
    raised_then_idle = lambda i: two_mirrors(sick()) if i < 6 else idle_two_mirrors()  # noqa: E731
    assert one(run(raised_then_idle, 36), subject=SLOW)

    # Then the disk works normally: it takes `clear` (10) normal busy samples to clear.
    def recovered(n_normal):
        return lambda i: (
            two_mirrors(sick())
            if i < 6
            else (idle_two_mirrors() if i < 20 else two_mirrors(fast("slowdisk", path=SLOW)))
        )

    assert one(run(recovered(9), 20 + 9), subject=SLOW)
    assert run(recovered(10), 20 + 10) == []


def test_a_normal_sample_among_slow_ones_does_not_hide_the_disk():
    findings = run(lambda i: two_mirrors(fast("slowdisk", path=SLOW) if i == 7 else sick()), 10)
    assert evidence(one(findings, subject=SLOW))["Slow samples"].startswith("9 of 10 busy")


def test_what_it_costs_the_pool_is_in_the_evidence():
    """Pool throughput and wait before the onset vs since, and where the wait is spent."""
    import dataclasses

    from zdash.model import IoStats

    def make(i):
        p = two_mirrors(sick() if i >= 10 else fast("slowdisk", path=SLOW))
        fast_io = IoStats(write_ops=200, write_bytes=40 * MiB, total_wait_write=3e6, disk_wait_write=2e6)
        slow_io = IoStats(write_ops=60, write_bytes=12 * MiB, total_wait_write=400e6, disk_wait_write=100e6)
        return dataclasses.replace(p, root=dataclasses.replace(p.root, io=slow_io if i >= 10 else fast_io))

    ev = evidence(one(run(make, 20), subject=SLOW))
    assert ev["Pool throughput"].startswith("12.0 MiB/s since the onset vs 40.0 MiB/s before")
    assert ev["Pool wait"].startswith("400 ms since vs 3.00 ms before")


def test_idle_pool_produces_nothing():
    idle = lambda name, **kw: leaf(name, util=0.0, **kw)  # noqa: E731 - latency None
    findings = run(
        lambda i: pool("tank", mirror(0, idle("sda"), idle("sdb")), mirror(1, idle("sdc"), idle("sdd"))), 12
    )
    assert findings == []


def test_no_latency_and_no_disk_data_means_no_verdict():
    blind = lambda name: leaf(name, kind="file", write_bps=MiB)  # noqa: E731
    findings = run(lambda i: pool("tank", mirror(0, blind("/f/a"), blind("/f/b"))), 12)
    assert findings == []


def test_file_vdevs_are_judged_on_latency_alone():
    def make(i):
        return pool(
            "files",
            mirror(
                0,
                leaf("/f/a", kind="file", write_ms=2.0, write_bps=MiB),
                leaf("/f/b", kind="file", write_ms=80.0, write_bps=MiB),
            ),
        )

    f = one(run(make, 6), subject="/f/b")
    assert "disk wait (write) 80.0 ms vs 2.00 ms" in f.title
    assert evidence(f)["%util"] == "unknown vs peers unknown"


def test_samples_where_peers_are_idle_neither_count_nor_break_the_run():
    # Every other second the peers did nothing (no latency, no util data): unknown, skipped.
    def make(i):
        if i % 2:
            return two_mirrors(sick(util=None))
        return pool(
            "deranged", mirror(0, leaf("loop0"), leaf("loop1")), mirror(1, leaf("loop2"), sick(util=None))
        )

    assert one(run(make, 10), subject=SLOW).severity == Severity.WARNING
    assert run(make, 9) == []  # 4 measured slow samples only


def test_a_disk_busier_because_it_does_more_work_is_not_deranged():
    findings = run(lambda i: two_mirrors(sick(write_bps=12 * MiB)), 8)  # 3x its peer's bytes
    assert findings == []


def test_below_the_latency_floor_a_big_ratio_is_not_an_alarm():
    findings = run(lambda i: two_mirrors(sick(util=20.0, write_ms=8.0)), 8)  # 8 ms vs 3 ms
    assert findings == []


def test_latency_floor_boundary():
    cfg = CheckConfig(deranged_latency_floor_ms=10.0)
    just_under = run(lambda i: two_mirrors(sick(util=None, write_ms=9.99)), 8, cfg)
    at_floor = run(lambda i: two_mirrors(sick(util=None, write_ms=12.0)), 8, cfg)
    assert just_under == [] and len(at_floor) == 1


def test_leaf_without_vdev_peers_is_compared_with_the_pool():
    def make(i):
        return pool("stripe", fast("sda"), fast("sdb"), sick())

    f = one(run(make, 6), subject=SLOW)
    assert "slowdisk is dragging slowdisk" in f.title.replace(SLOW, "slowdisk")
    assert (
        evidence(f)["Compared with"] == "/dev/sda, /dev/sdb (the pool's other disks: it is a vdev of its own)"
    )
    assert [a.action for a in f.actions] == [None, "replace"]  # offline would be refused


def test_single_leaf_pool_has_nothing_to_compare():
    assert run(lambda i: pool("solo", sick()), 10) == []


def test_ssd_is_not_the_yardstick_for_a_hard_disk():
    def make(i):
        return pool(
            "mixed",
            mirror(
                0,
                fast("nvme0", rotational=False, write_ms=0.2, util=5.0),
                leaf("sda", rotational=True, util=60.0, write_ms=15.0, write_bps=4 * MiB),
            ),
        )

    assert run(make, 8) == []


def test_growing_slow_io_counter_is_a_warning_a_static_one_is_history():
    growing = run(lambda i: two_mirrors(fast("slowdisk", path=SLOW, slow_ios=300 + i)), 5)
    f = one(growing, subject=SLOW)
    assert f.severity == Severity.WARNING and "4 new slow I/Os" in f.title
    assert evidence(f)["Slow I/Os (SLOW)"] == "304 (+4)"
    # deranged-disk capture: healthy loop2 shows SLOW 2 next to the sick disk; not a verdict
    assert run(lambda i: two_mirrors(fast("slowdisk", path=SLOW, slow_ios=2)), 5) == []
    with_latency = one(run(lambda i: two_mirrors(sick(slow_ios=1271)), 6), subject=SLOW)
    assert evidence(with_latency)["Slow I/Os (SLOW)"] == "1271"


def test_zed_degraded_leaf_is_flagged():
    f = one(
        run(lambda i: two_mirrors(fast("slowdisk", path=SLOW, state="DEGRADED", aux="too many errors")), 3),
        subject=SLOW,
    )
    assert f.severity == Severity.WARNING and "ZFS marked it DEGRADED (too many errors)" in f.title


def test_faulted_leaf_with_slow_ios_offers_only_replace_plain_faulted_is_left_to_health():
    def faulted(slow_ios):
        return two_mirrors(
            fast(
                "slowdisk",
                path=SLOW,
                state="FAULTED",
                aux="too many errors",
                util=None,
                write_ms=None,
                slow_ios=slow_ios,
            )
        )

    f = one(run(lambda i: faulted(40), 3), subject=SLOW)
    assert f.severity == Severity.WARNING and "FAULTED" in f.why
    assert [a.action for a in f.actions] == [None, "replace"]
    assert run(lambda i: faulted(None), 3) == []


def test_offline_is_a_risk_where_it_leaves_nothing_and_not_offered_where_it_loses_data():
    def make(i):
        return pool(
            "deg",
            mirror(0, fast("sda"), fast("sdb"), leaf("sdx", state="OFFLINE", io=False)),
            mirror(1, fast("sdc"), fast("sdd")),
            mirror(2, fast("sde"), sick()),
            state="DEGRADED",
        )

    f = one(run(make, 6), subject=SLOW)
    relief = next(a for a in f.actions if a.action == "offline")  # a 2-way mirror: a risk to accept
    assert "a risk to accept: mirror-2 is left with no redundancy" in relief.label
    assert "replace" in [a.action for a in f.actions]

    def make2(i):
        return pool(
            "deg",
            mirror(0, fast("sda"), fast("sdb")),
            mirror(1, sick(), leaf("sdx", state="OFFLINE", io=False)),
            state="DEGRADED",
        )

    f2 = one(run(make2, 6), subject=SLOW)
    assert [a.action for a in f2.actions] == [None, "replace"]  # without it mirror-1 loses data
    assert stories.slow_relief_here("mirror-1", -1) in f2.why


def test_healthy_mirrors_under_even_load_produce_nothing():
    assert run(lambda i: healthy_two_mirrors(i), 30) == []


def _replacing(scans):
    """mirror-1 rebuilding onto a new disk: the old one offline, the new one taking the writes."""
    old = fast("loop3", state="OFFLINE", util=None, write_ms=None, write_bps=0.0)
    new = sick(read_bps=0.0)
    rep = Vdev(name="replacing-1", kind="replacing", state="DEGRADED", children=(old, new), guid="guid-rep")
    return pool(
        "deranged",
        mirror(0, fast("loop0"), fast("loop1"), **space(GiB, 20)),
        mirror(1, fast("loop2"), rep, **space(GiB, 20)),
        state="DEGRADED",
        scans=scans,
    )


def test_a_resilver_target_is_busiest_by_design_not_deranged():
    resilvering = (scan("resilver", "scanning"),)
    assert run(lambda i: _replacing(resilvering), 8) == []
    # the same numbers once the resilver is over: now it is judged, and it is slow
    done = (scan("resilver", "finished"),)
    assert one(run(lambda i: _replacing(done), 8), subject=SLOW)


def test_the_median_of_the_other_leaves_is_the_plain_median_without_the_own_value():
    from statistics import median

    from hypothesis import given
    from hypothesis import strategies as st

    from zdash.checks._deranged_samples import _median_without

    @given(st.lists(st.integers(0, 50), min_size=1, max_size=30), st.data())
    def same(values, data):
        values = sorted(float(v) for v in values)
        own = data.draw(st.sampled_from(values))
        rest = list(values)
        rest.remove(own)
        assert _median_without(values, own) == (median(rest) if rest else None)
        assert _median_without(values, None) == median(values)

    same()


def test_zfs_own_delay_events_join_the_evidence_and_are_a_reason_of_their_own():
    """`zpool events -v`: ereport.fs.zfs.delay for the disk (an I/O slower than 30 s)."""
    import dataclasses

    from zdash.model import ZEvent

    def make(i):
        return two_mirrors(fast("slowdisk", path=SLOW))

    h = history(make, 3)
    delays = tuple(
        ZEvent(h[-1].time - 60 + k, "ereport.fs.zfs.delay", "deranged", "guid-slowdisk", SLOW, eid=k)
        for k in range(3)
    )
    old = ZEvent(h[-1].time - 3000, "ereport.fs.zfs.delay", "deranged", "guid-slowdisk", SLOW, eid=99)
    other = ZEvent(h[-1].time - 5, "ereport.fs.zfs.delay", "deranged", "guid-loop0", "/dev/loop0", eid=7)
    h[-1] = dataclasses.replace(h[-1], events=(old, *delays, other))
    f = one(deranged_disk.check(h, CFG), subject=SLOW)
    assert "ZFS logged 3 delay events for it in 10 minutes" in f.title
    assert evidence(f)["ZFS events (last 10 min)"].startswith("3 delay; last at ")


def test_a_disk_that_left_the_pool_comes_back_with_no_memory_of_being_slow():
    """The leaves' memory is pruned when the structure changes (not re-counted every tick): a
    slow disk detached and later attached again (a new `zpool status`, a new structure each
    time) is judged afresh, also by a tracker copied mid-way (a replay keyframe)."""
    import copy

    from tests.checks.builders import T0
    from tests.checks.builders import snap as plain_snap
    from zdash.model import evolve

    def snap(t, p, structure_id):
        return evolve(plain_snap(t, p), structure_id=structure_id)

    def without_it():
        return pool(
            "deranged",
            mirror(0, fast("loop0"), fast("loop1"), **space(GiB, 20)),
            mirror(1, fast("loop2"), fast("loop3"), **space(GiB, 20)),
        )

    for copied in (False, True):
        t = deranged_disk.Tracker(CFG)
        for i in range(6):  # the same structure, tick after tick
            t.observe(snap(T0 + i, two_mirrors(sick()), structure_id=1))
        assert one(t.findings(snap(T0 + 5, two_mirrors(sick()), structure_id=1)), subject=SLOW)
        if copied:
            t = copy.deepcopy(t)
        t.observe(snap(T0 + 6, without_it(), structure_id=2))  # detached
        back = snap(T0 + 7, two_mirrors(fast("slowdisk", path=SLOW)), structure_id=3)
        t.observe(back)
        assert [f for f in t.findings(back) if f.subject == SLOW] == [], copied


def test_a_vdev_printed_without_its_devices_is_not_a_disk():
    """Corpus 026: a paste cut after "mirror-0 DEGRADED": the vdev is no leaf to judge (it read
    "mirror-0 is dragging mirror-0", with `zpool offline rpool mirror-0`)."""
    cut = pool("rpool", Vdev(name="mirror-0", kind="mirror", state="DEGRADED"), state="DEGRADED")
    assert run(lambda i: cut, 3) == []
