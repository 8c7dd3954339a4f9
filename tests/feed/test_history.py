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
