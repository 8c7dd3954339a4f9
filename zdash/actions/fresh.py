"""One fresh look at the host, right before a plan is shown or run: the same commands the live
source runs every few seconds, through the same Runner (argv, timeout, LC_ALL=C, no shell) and
the same fold (zdash.fold.look), so a plan is checked against exactly what the dashboard would show.

Not LiveSource.start(): that also lists every dataset and snapshot of the host and waits for
it, which can take many seconds on a big host and is needed only for promote.
"""

from __future__ import annotations

import asyncio
import contextlib
import time

from zdash.fold import look
from zdash.model import Pool, Snapshot
from zdash.parse import ParseError
from zdash.parse.zfs_list import ZFS_LIST_FIELDS
from zdash.parse.zpool_status import parse_status
from zdash.parse.zpool_version import parse_version
from zdash.raw import Tick, ashift_key
from zdash.sources.live import LiveSource
from zdash.sources.procfs import describe_devices
from zdash.sources.remote import describe_remote_devices
from zdash.sources.runner import Runner


async def fresh_snapshot(
    pool: str | None = None, *, datasets: bool = False, timeout: float = 15.0, runner: Runner | None = None
) -> Snapshot:
    """Status and space of every imported pool (a new disk must not be in *any* of them), the
    device facts of their leaves, the ashift of `pool`, and its datasets when asked. `runner`:
    where (a RemoteRunner reads another host over ssh, device facts included)."""
    # Used for its Runner and its version-aware argv choice.
    src = LiveSource(timeout=timeout, runner=runner)
    run = src.runner.run
    version = await run("version", ("zpool", "version"))
    with contextlib.suppress(ParseError):
        src.version = parse_version(version.stdout)[0] if version.ok else None
    jobs = [run("status", src.status_argv()), run("list", ("zpool", "list", "-v", "-H", "-p", "-P"))]
    if datasets and pool:
        jobs.append(
            run(
                "datasets",
                (
                    "zfs",
                    "list",
                    "-H",
                    "-p",
                    "-r",
                    "-t",
                    "filesystem,volume,snapshot",
                    "-o",
                    ",".join(ZFS_LIST_FIELDS),
                    pool,
                ),
            )
        )
    samples = [version, *await asyncio.gather(*jobs)]
    if src.remote and not samples[1].ok:  # no state of that host: nothing to check a plan against
        raise RuntimeError(samples[1].error or f"{src.host}: zpool status failed")
    pools: tuple[Pool, ...] = ()
    if samples[1].ok:
        with contextlib.suppress(ParseError):
            pools = parse_status(list(samples[1].argv), samples[1].stdout)
    paths = [v.path for p in pools for v in p.leaves() if v.path]
    samples.append(
        await describe_remote_devices(src.runner, paths) if src.remote else describe_devices(paths)
    )
    if pool and any(p.name == pool for p in pools):
        samples.append(await run(ashift_key(pool), src.ashift_argv(pool)))
    return look(Tick(time.time(), tuple(samples)), src.host)
