"""Work the checks keep from one `zpool status` to the next must not change a verdict.

Checks of structure alone keep their findings while the structure number stays; a new status
whose leaves are the very objects of the last one (a scrub's progress moved, nothing in the
tree) keeps the health check's counters unread and the slow-disk check's per-leaf lookups; a
new status of equal findings keeps the findings made before. A snapshot with no structure
number (structure_id 0, as built by hand) makes every check do all of its work every time: the
two folds of the same ticks must find the same, tick by tick.
"""

from __future__ import annotations

import dataclasses
import json

import pytest

from tests.bench.synthetic import SyntheticHost
from zdash.checks.registry import CheckEngine
from zdash.fold.fold import snapshots
from zdash.raw import Tick


def _with(tick: Tick, path: str, **fields: int | str) -> Tick:
    """The tick with `path`'s fields in its status answer set to `fields`."""
    samples = []
    for s in tick.samples:
        if s.key == "status":
            doc = json.loads(s.stdout)

            def mark(node: dict) -> None:
                for child in node.get("vdevs", {}).values():
                    if child.get("path") == path:
                        child.update(fields)
                    mark(child)

            for pool in doc["pools"].values():
                for root in pool["vdevs"].values():
                    mark(root)
            s = dataclasses.replace(s, stdout=json.dumps(doc))
        samples.append(s)
    return Tick(tick.time, tuple(samples))


@pytest.mark.parametrize("delay_events_every", [0, 4])
def test_work_kept_between_status_answers_finds_what_doing_it_all_again_finds(delay_events_every):
    # Slow disks (findings raised, kept, their evidence cited), with or without their delay
    # ereports (leaves named by ZFS's log), status every 5th tick with only the scan's times
    # moving, a leaf whose checksum errors grow at tick 30 and again at 45 during a scrub
    # (the counters' story), another with slow I/Os counted by ZFS from tick 20.
    host = SyntheticHost(
        leaves=60, layout="raidz2", width=10, slow_every=13, delay_events_every=delay_events_every
    )
    # A disk of another vdev is offline from tick 50 to 59 (its vdev's margin is worked out
    # anew, then kept while the vdev is the same object, then worked out anew again).
    grown, counted, offline = host.paths[7], host.paths[33], host.paths[44]
    ticks = []
    for n in range(70):
        tick = host.tick(n)
        if n >= 20:
            tick = _with(tick, counted, slow_ios=40 + n)
        if n >= 30:
            tick = _with(tick, grown, checksum_errors=2 if n < 45 else 5)
        if 50 <= n < 60:
            tick = _with(tick, offline, state="OFFLINE")
        ticks.append(tick)
    reduced = []
    kept, fresh = CheckEngine(), CheckEngine()
    seen: set[str] = set()
    for n, snap in enumerate(snapshots(ticks)):
        assert snap.structure_id  # the fold numbers its structures
        want = fresh.update(dataclasses.replace(snap, structure_id=0))
        got = kept.update(snap)
        assert got == want, f"tick {n}"
        # the memory the findings are made from, too (the counters' growth)
        assert kept._trackers["health"].memory()["_pools"] == fresh._trackers["health"].memory()["_pools"]
        seen.update(f.subject for f in got)
        if any(f.check == "health" and f.subject == "raidz2-4" and f.subject_kind == "vdev" for f in got):
            reduced.append(n)
    assert {grown, counted} <= seen
    assert reduced == list(range(50, 60))  # the tick status said so, until it said otherwise
    # the growth was read (a leaf of new counts is a new object: never skipped as unchanged)
    (leaf,) = [v for v in snap.pools[0].leaves() if v.path == grown]
    memory = kept._trackers["health"].memory()["_pools"]["tank"].leaves[leaf.key]
    assert (memory.last, memory.outside_scrub) == ((0, 0, 5), 5)
    assert any(host.paths[i] in seen for i in range(12, 60, 13))  # the slow disks


def test_a_status_that_moved_only_its_scan_keeps_the_structure_checks_findings():
    """The same findings judged again are the objects made before (none for the collector)."""
    host = SyntheticHost(leaves=40, layout="raidz2", width=10)
    engine = CheckEngine()
    frames = [engine.update(snap) for snap in snapshots(host.tick(n) for n in range(11))]
    before, after = frames[4], frames[10]  # ticks 5 and 10 brought new status answers
    topology = [f for f in after if f.check == "topology"]
    assert topology and all(any(f is g for g in before) for f in topology)
