"""`zdash record`: headless (no Textual), writes every raw tick of the live source."""
from __future__ import annotations

import asyncio
import sys
import time

from ..builder import SnapshotBuilder
from ..model import Snapshot
from .live import LiveSource
from .session import SessionWriter


def summary(n: int, snap: Snapshot) -> str:
    pools = ", ".join(f"{p.name} {p.state}" for p in snap.pools) or "no pools"
    bad = "; ".join(s.message or s.key for s in snap.problems)
    return f"tick {n}: {pools}" + (f"  [{bad}]" if bad else "")


async def record(path: str, interval: float, duration: float | None, pools: tuple[str, ...],
                 description: str | None = None, quiet: bool = False,
                 snapshots: list[Snapshot] | None = None, structure_every: float = 5.0) -> int:
    """Returns the number of ticks written. `snapshots`, when given, receives what live showed
    (the tests compare it with the replay)."""
    source = LiveSource(interval, pools, structure_every=structure_every)
    builder = SnapshotBuilder(interval, source.host)
    n = 0
    end = None
    with SessionWriter(path, source.host, interval, description) as writer:
        gen = source.ticks()
        try:
            async for tick in gen:
                writer.write(tick)
                snap = builder.feed(tick)
                if snapshots is not None:
                    snapshots.append(snap)
                n += 1
                if not quiet:
                    print(summary(n, snap), file=sys.stderr, flush=True)
                end = end or (time.time() + duration if duration else None)
                if end and time.time() >= end:
                    break
        finally:
            await gen.aclose()
    return n


def run_record(path: str, interval: float, duration: float | None, pools: tuple[str, ...],
               description: str | None = None) -> int:
    try:
        n = asyncio.run(record(path, interval, duration, pools, description))
    except KeyboardInterrupt:
        print(f"recording stopped; {path} holds every complete tick", file=sys.stderr)
        return 0
    print(f"wrote {n} ticks to {path}", file=sys.stderr)
    return 0
