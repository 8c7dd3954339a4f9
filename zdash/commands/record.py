"""`zdash record -o FILE`: the live pools into a session file, headless (no Textual). Every raw
tick of the live source is written; a progress line per tick goes to stderr."""

from __future__ import annotations

import asyncio
import sys
import time
from argparse import Namespace

from zdash.builder import SnapshotBuilder
from zdash.commands.summary import line
from zdash.model import Snapshot
from zdash.sources.live import LiveSource
from zdash.sources.session import SessionWriter


async def record(
    path: str,
    interval: float,
    duration: float | None,
    pools: tuple[str, ...],
    description: str | None = None,
    quiet: bool = False,
    snapshots: list[Snapshot] | None = None,
    structure_every: float = 5.0,
) -> int:
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
                    print(line(n, snap), file=sys.stderr, flush=True)
                end = end or (time.time() + duration if duration else None)
                if end and time.time() >= end:
                    break
        finally:
            await gen.aclose()
    return n


def run(args: Namespace) -> int:
    path = args.output
    try:
        n = asyncio.run(record(path, args.interval, args.duration, tuple(args.pools), args.description))
    except KeyboardInterrupt:
        print(f"recording stopped; {path} holds every complete tick", file=sys.stderr)
        return 0
    print(f"wrote {n} ticks to {path}", file=sys.stderr)
    return 0
