"""The chart's history rings are filled by the fold's worker thread while the UI thread draws
from them: a read must never meet a ring mid-update (an exception there ends the dashboard)."""

import dataclasses
import sys
import threading
import time

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


def test_the_chart_draws_the_figures_the_fold_read_for_every_vdev(monkeypatch):
    """The rings are filled from the tick's columns (no IoStats or DiskIo made per vdev): every
    vdev's points, the pool's own and a slow disk's among them, are those of its io_of/disk_of,
    tick after tick (read and write bytes, disk waits with their gaps, %UTIL)."""
    import zdash.fold.series as series_module
    from tests.bench.synthetic import SyntheticHost
    from zdash.fold import Fold
    from zdash.fold.series import pool_key

    fold = Fold(history=True)
    by_objects = Series()
    host = SyntheticHost(leaves=24, layout="raidz2", width=6, slow_every=7)
    for i in range(12):
        snapshot = fold.observe(host.tick(i))
        with monkeypatch.context() as m:  # the reader of each vdev's IoStats and DiskIo
            m.setattr(series_module, "_columns", lambda pool: lambda v: None)
            by_objects.add(snapshot)
    pool = snapshot.pools[0]
    assert pool.measures is not None

    def figures(points: dict[str, list[float]]) -> dict[str, list[float | None]]:
        return {k: [None if x != x else x for x in xs] for k, xs in points.items()}  # NaN: a gap

    keys = [pool_key(pool)] + [v.key for v in pool.root.walk() if v is not pool.root]
    for key in keys:
        drawn = figures(fold.series.points(pool.name, key))
        assert drawn == figures(by_objects.points(pool.name, key)), key
        assert len(drawn["x"]) == 12
