"""The chart's history rings are filled by the fold's worker thread while the UI thread draws
from them: a read must never meet a ring mid-update (an exception there ends the dashboard)."""

import dataclasses
import threading

from tests.actions.helpers import snap, two_way
from zdash.feed.history import Series


def test_reading_while_another_thread_adds_never_fails():
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
    t.join()
    assert not errors, f"after {reads} reads: {errors[0]}"
    assert len(series) == series.limit
