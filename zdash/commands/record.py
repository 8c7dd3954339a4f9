"""`zdash record -o FILE`: the live pools into a recording, headless (no Textual). Every raw tick
of the live source is written; a progress line per tick goes to stderr (each pool's state and
worst finding, from the same fold the dashboard uses, with the user's thresholds: the keyframes
of a `.zdash` file hold the checks' memory, and a replay continues from them).

FILE ending in `.zdash` is format 2 (SQLite: random access, keyframes every 60 ticks, for long
sessions); `.yaml` / `.yaml.gz` is format 1 (text, reviewable in git: the bundled scenarios).
An existing FILE is never overwritten unless --force.
"""

from __future__ import annotations

import asyncio
import sys
import time
from argparse import Namespace

from zdash.cadence import QUIET_EVERY_S
from zdash.commands.summary import line
from zdash.config import CheckConfig
from zdash.fold import Fold
from zdash.model import Snapshot
from zdash.sources.live import LiveSource
from zdash.sources.remote import HostError, RemoteRunner, SshHost
from zdash.sources.session import SessionWriter
from zdash.sources.store import SUFFIX, StoreError, StoreWriter


def open_writer(
    path: str,
    host: str | None,
    interval: float | None,
    description: str | None,
    force: bool = False,
    created: str | None = None,
) -> SessionWriter | StoreWriter:
    """The writer the file name asks for; refuses to overwrite unless `force` (raises
    StoreError / OSError with one line for the admin)."""
    if path.endswith(SUFFIX):
        return StoreWriter(path, host, interval, description, force=force, created=created)
    return SessionWriter(path, host, interval, description, created=created, force=force)


async def record(
    path: str,
    interval: float,
    duration: float | None,
    pools: tuple[str, ...],
    description: str | None = None,
    quiet: bool = False,
    snapshots: list[Snapshot] | None = None,
    structure_every: float = 5.0,
    force: bool = False,
    quiet_every: float = QUIET_EVERY_S,
    stop: asyncio.Event | None = None,
    host: SshHost | None = None,
    cfg: CheckConfig | None = None,
) -> int:
    """Returns the number of ticks written. `cfg`: the user's thresholds (the fold's, as
    every other command's). `snapshots`, when given, receives what live showed
    (the tests compare it with the replay). Ends at the next tick once `stop` is set; cancelled
    with `stop` set, it still returns the count (zdash.commands.stopping)."""
    runner = RemoteRunner(host) if host is not None else None
    source = LiveSource(
        interval, pools, structure_every=structure_every, quiet_every=quiet_every, runner=runner
    )
    fold = Fold.from_source(source, cfg, interval)
    n = 0
    end = None
    writer = open_writer(path, source.host, interval, description, force)
    try:
        gen = source.ticks()
        try:
            async for tick in gen:
                frame = fold.write(writer, tick)
                if snapshots is not None:
                    snapshots.append(frame.snapshot)
                n += 1
                if not quiet:
                    print(line(n, frame.snapshot, frame.findings), file=sys.stderr, flush=True)
                end = end or (time.time() + duration if duration else None)
                if (end and time.time() >= end) or (stop is not None and stop.is_set()):
                    break
        except asyncio.CancelledError:
            if stop is None or not stop.is_set():
                raise
        finally:
            await gen.aclose()
    finally:
        writer.close()
    return n


def run(args: Namespace) -> int:
    """Exit 0 when recording ended (--duration, Ctrl-C, SIGTERM, SIGHUP: every complete tick
    kept), 2 when it could not start or a write failed (one line: what and why)."""
    from zdash.commands.stopping import run_stoppable
    from zdash.config import ConfigError, read_config

    path = args.output
    try:
        cfg = read_config(getattr(args, "config", None)).checks
    except ConfigError as e:
        print(f"zdash: {e}", file=sys.stderr)
        return 2
    host = None
    if getattr(args, "host", None):
        try:
            host = SshHost.parse(args.host)
        except HostError as e:
            print(f"zdash record: {e}", file=sys.stderr)
            return 2
    try:
        n, signalled = run_stoppable(
            lambda stop: record(
                path,
                args.interval,
                args.duration,
                tuple(args.pools),
                args.description,
                force=getattr(args, "force", False),
                stop=stop,
                host=host,
                cfg=cfg,
            )
        )
    except StoreError as e:
        print(f"zdash: {e}", file=sys.stderr)
        return 2
    except FileExistsError as e:
        print(f"zdash: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        # A message of zdash's own (the .zdash writer's) already names the file.
        print(f"zdash: cannot write {path}: {e.strerror}" if e.strerror else f"zdash: {e}", file=sys.stderr)
        return 2
    if signalled:
        print(f"recording stopped ({signalled}); {path} holds every complete tick", file=sys.stderr)
    else:
        print(f"wrote {n} ticks to {path}", file=sys.stderr)
    return 0
