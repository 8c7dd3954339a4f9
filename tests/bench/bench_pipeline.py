#!/usr/bin/env python3
"""Where a tick's time goes, on the bundled lab recordings: prints figures, asserts nothing.

    .venv/bin/python -m tests.bench.bench_pipeline [SCENARIO...]

Per tick: reading the session file (YAML + gzip; the baseline, what any replay pays), the
parse + snapshot fold, and the checks over a full history window (what the dashboard runs on
every frame). Ratios are against the baseline measured in the same run, so the figures compare
across machines; a wall display at 1 tick/s has 1000 ms per tick to spend.
"""

from __future__ import annotations

import dataclasses
import statistics
import sys
import time

from zdash import scenarios
from zdash.builder import SnapshotBuilder
from zdash.checks.registry import run_checks
from zdash.feed.history import window
from zdash.sources.session import read_session


def _ms(fn, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best * 1000


def bench(name: str) -> tuple[int, float, float, float]:
    path = scenarios.path_of(name)

    def read():
        header, ticks = read_session(path)
        return header, list(ticks)

    header, ticks = read()
    read_ms = _ms(read)

    def fold():
        b = SnapshotBuilder(header.interval or 1.0, header.host)
        return [b.feed(t) for t in ticks]

    snaps = fold()
    fold_ms = _ms(fold)
    # checks as the dashboard runs them: each frame over the history up to it
    checks_ms = _ms(lambda: [run_checks(window(snaps, i)) for i in range(len(snaps))], repeat=1)
    n = len(ticks)
    return n, read_ms / n, fold_ms / n, checks_ms / n


def long_history_ms(name: str, seconds: int = 600) -> float:
    """One frame's checks over a full 10-minute window (a wall display after 10 minutes): the
    recording's snapshots repeated, one second apart."""
    snaps = [
        s
        for s in __import__("zdash.sources.replay", fromlist=["x"]).load_replay(scenarios.path_of(name))[1]
        if s.pools
    ]
    t0 = snaps[0].time
    history = tuple(dataclasses.replace(snaps[i % len(snaps)], time=t0 + i) for i in range(seconds))
    return _ms(lambda: run_checks(history))


def main(names: list[str]) -> int:
    rows = [(name, *bench(name)) for name in names or scenarios.names()]
    print(
        f"{'scenario':22} {'ticks':>5} {'read ms':>8} {'fold ms':>8} {'x read':>6} "
        f"{'checks ms':>9} {'x read':>6}"
    )
    for name, n, r, f, c in rows:
        print(f"{name:22} {n:5d} {r:8.2f} {f:8.2f} {f / r:6.1f} {c:9.2f} {c / r:6.1f}")
    med = [statistics.median(col) for col in zip(*(row[2:] for row in rows))]
    print(
        f"{'median per tick':28} {med[0]:8.2f} {med[1]:8.2f} {med[1] / med[0]:6.1f} "
        f"{med[2]:9.2f} {med[2] / med[0]:6.1f}"
    )
    name = "degraded-resilver" if "degraded-resilver" in (names or scenarios.names()) else rows[0][0]
    full = long_history_ms(name)
    print(
        f"\nchecks over a 600-snapshot window ({name}): {full:.1f} ms per frame "
        f"= {full / med[0]:.0f}x one tick's read, {full / 10:.1f} % of a 1 s tick"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
