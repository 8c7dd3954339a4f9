"""The chart's history rings are filled by the fold's worker thread while the UI thread draws
from them: a read must never meet a ring mid-update (an exception there ends the dashboard)."""

import dataclasses
import sys
import threading
import time

import pytest

from tests.actions.helpers import snap, two_way
from zdash.fold.series import Series


def test_reading_while_another_thread_adds_never_fails():
    # Threads switch every 10 µs instead of 5 ms, so reads and adds interleave mid-call (a read
    # without the lock meets a ring mid-update within a few hundred adds); the reader yields
    # after each read, as the UI thread does between frames, or a tight loop of reads could
    # keep the lock from the writer for minutes (a starved writer, not a failed read).
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        _read_while_adding()
    finally:
        sys.setswitchinterval(old)


def _read_while_adding():
    series, base = Series(), snap(two_way())
    pool = base.pools[0].name
    key = base.pools[0].root.children[0].key
    errors: list[BaseException] = []
    done = threading.Event()

    def fold():
        try:
            for i in range(20000):
                series.add(dataclasses.replace(base, time=float(i)))
        finally:
            done.set()

    t = threading.Thread(target=fold)
    t.start()
    reads = 0
    while not done.is_set():
        try:
            points = series.points(pool, key)
        except RuntimeError as e:  # "deque mutated during iteration"
            errors.append(e)
            break
        reads += 1
        assert len(points["x"]) == len(points["util"])
        time.sleep(0)
    t.join()
    assert not errors, f"after {reads} reads: {errors[0]}"
    assert len(series) == series.limit


@pytest.mark.parametrize("regrown", [False, True])
def test_the_chart_draws_the_figures_the_fold_read_for_every_vdev(monkeypatch, regrown):
    """The rings are filled from the tick's columns (no IoStats or DiskIo made per vdev), by a
    plan per pool kept while its tree stays the same: every vdev's points, the pool's own and a
    slow disk's among them, are those of its io_of/disk_of, tick after tick (read and write
    bytes, disk waits with their gaps, %UTIL); also across a tree that changes (regrown: the
    pool shrunk by a vdev halfway, the old ones' slots gaps from then on)."""
    import zdash.fold.series as series_module
    from tests.bench.synthetic import SyntheticHost
    from zdash.fold import Fold
    from zdash.fold.series import pool_key

    fold = Fold(history=True)
    by_objects = Series()
    hosts = [SyntheticHost(leaves=24, layout="raidz2", width=6, slow_every=7)]
    if regrown:
        hosts.append(SyntheticHost(leaves=18, layout="raidz2", width=6, slow_every=5))
    pools = []
    for i in range(12):
        snapshot = fold.observe(hosts[(i * len(hosts)) // 12].tick(i))
        pools.append(snapshot.pools[0])
        with monkeypatch.context() as m:  # the reader of each vdev's IoStats and DiskIo
            m.setattr(series_module, "_columns", lambda pool: lambda v: None)
            m.setattr(by_objects, "_plan", lambda pool: None)
            by_objects.add(snapshot)
    assert pools[0].measures is not None and pools[-1].measures is not None

    def figures(points: dict[str, list[float]]) -> dict[str, list[float | None]]:
        return {k: [None if x != x else x for x in xs] for k, xs in points.items()}  # NaN: a gap

    keys = {pool_key(p): p for p in pools} | {
        v.key: p for p in pools for v in p.root.walk() if v is not p.root
    }
    for key, pool in keys.items():
        drawn = figures(fold.series.points(pool.name, key))
        assert drawn == figures(by_objects.points(pool.name, key)), key
        assert len(drawn["x"]) == 12 or regrown, key
    if regrown:  # the first tree's disks are gone from the second: gaps, not their old figures
        gone = {v.key for v in pools[0].root.leaves()} - {v.key for v in pools[-1].root.leaves()}
        assert gone and all(len(fold.series.points("tank", k)["x"]) < 12 for k in gone)
