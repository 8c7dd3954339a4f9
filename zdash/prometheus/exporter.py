"""The exporter's moving parts: one long-lived collector loop folds ticks (the live host's, or any
other async source of Ticks, such as a recording in a test) through the same fold (zdash.fold)
the dashboard and `zdash check` use, and keeps only the latest (snapshot, findings).
A scrape renders that latest pair and never waits for a zpool command; how old it is shows in
`zdash_source_up` / `zdash_source_age_seconds`, aged to the scrape's clock.

The textfile (node_exporter's textfile collector) is the same exposition, written to a new file
of a random name beside FILE and renamed over it (zdash.safe_files.write_atomic), so
node_exporter never reads half a file, and nothing another user planted in its directory (which
usually belongs to node_exporter's user) is ever written through.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import time
from collections.abc import AsyncIterable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from prometheus_client import CollectorRegistry, ProcessCollector, generate_latest
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector

from zdash.checks.finding import Finding
from zdash.config import CheckConfig
from zdash.fold import Fold
from zdash.model import Snapshot
from zdash.prometheus.http import serve_metrics
from zdash.prometheus.metrics import Totals, families
from zdash.prometheus.totals import IoTotals, new_report
from zdash.raw import Tick
from zdash.safe_files import write_atomic

# Not 9134: that is zfs_exporter's in Prometheus's list of exporter ports, and many ZFS hosts run
# it (docs/prometheus.md says how this one was chosen).
DEFAULT_PORT = 10134


@dataclass(frozen=True, slots=True)
class Latest:
    snapshot: Snapshot
    findings: tuple[Finding, ...]
    totals: Totals | None = None  # the I/O counters as of this snapshot (zdash.prometheus.totals)


class State:
    """The latest fold, swapped whole (one attribute store): the scrape thread reads it without a
    lock and never sees a snapshot paired with another tick's findings."""

    def __init__(self) -> None:
        self.latest: Latest | None = None
        self.folded = 0  # ticks folded so far (tests wait on it)
        self.changed = threading.Condition()

    def publish(self, latest: Latest) -> None:
        with self.changed:
            self.latest = latest
            self.folded += 1
            self.changed.notify_all()

    def wait_folded(self, count: int, timeout: float) -> bool:
        """True once `count` ticks have been folded; False if that takes longer than `timeout`."""
        with self.changed:
            return self.changed.wait_for(lambda: self.folded >= count, timeout)


class ZdashCollector(Collector):
    """prometheus_client's custom-collector API: called on every scrape, renders the latest fold."""

    def __init__(self, state: State, clock: Callable[[], float] = time.time) -> None:
        self.state = state
        self.clock = clock

    def collect(self) -> Iterable[Metric]:
        latest = self.state.latest
        if latest is None:
            return families(None, ())
        return families(latest.snapshot, latest.findings, now=self.clock(), totals=latest.totals)


class _Fixed(Collector):
    """One moment, as it stood (the textfile: no scrape clock to age it by)."""

    def __init__(self, snap: Snapshot | None, findings: Sequence[Finding]) -> None:
        self.snap, self.findings = snap, findings

    def collect(self) -> Iterable[Metric]:
        return families(self.snap, self.findings)


def serve(host: str, port: int, state: State) -> Any:
    """Serve /metrics on host:port from a thread of its own (a scrape never touches the event
    loop), bounded under a crowd (zdash.prometheus.http). Returns the server (`server_address`,
    `shutdown()`); raises OSError when the address cannot be bound (in use, not this host's, a
    privileged port)."""
    registry = CollectorRegistry()
    registry.register(ZdashCollector(state))
    ProcessCollector(registry=registry)  # the exporter's own memory and CPU, for a weeks-long daemon
    return serve_metrics(host, port, registry)


def exposition(snap: Snapshot | None, findings: Sequence[Finding]) -> bytes:
    """The text exposition format (0.0.4) of one moment."""
    registry = CollectorRegistry()
    registry.register(_Fixed(snap, findings))
    return generate_latest(registry)


def textfile_problem(path: str) -> str | None:
    """Why `path` cannot take the textfile, checked before any work is done; None if it can."""
    directory = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        return f"{path} is a directory"
    if os.path.islink(path):
        return f"{path} is a symbolic link: zdash never writes through one (name the file itself)"
    if not os.path.isdir(directory):
        return f"no directory {directory}"
    if not os.access(directory, os.W_OK | os.X_OK):
        return f"cannot write in {directory} (permission denied)"
    return None


def write_textfile(path: str, snap: Snapshot | None, findings: Sequence[Finding]) -> None:
    """The exposition as FILE: written beside it under a random name (node_exporter reads only
    *.prom), flushed, made 0644 (node_exporter runs as another user) and renamed over FILE
    (atomic within one filesystem). A FILE that is a link is refused. Raises OSError."""
    write_atomic(path, exposition(snap, findings), mode=0o644)


class Folder:
    """Ticks → (snapshot, findings, I/O totals), published: one fold and the counters, both
    from the start."""

    def __init__(self, state: State, cfg: CheckConfig, interval: float, host: str | None) -> None:
        self.state = state
        self.interval = interval
        self._fold = Fold(cfg, interval, host)
        self.totals = IoTotals()

    def fold(self, tick: Tick) -> None:
        frame = self._fold.step(tick)
        if new_report(tick):  # the stream's reports come one interval apart
            self.totals.add(frame.snapshot, self.interval)
        self.state.publish(Latest(frame.snapshot, frame.findings, self.totals.view()))


async def collect(ticks: AsyncIterable[Tick], folder: Folder) -> None:
    """Fold every tick of `ticks` until it ends. The fold runs in a worker thread so a large
    pool's checks never delay the source reading its iostat stream."""
    async for tick in ticks:
        await asyncio.to_thread(folder.fold, tick)


async def collect_live(
    state: State,
    cfg: CheckConfig,
    interval: float,
    pools: tuple[str, ...],
    source_factory: Callable[[], Any] | None = None,
    retry_after: float = 5.0,
) -> None:
    """The exporter's loop, for as long as the process lives: a source that fails unexpectedly is
    said in one line and started anew (its snapshot goes stale meanwhile, and says so)."""
    if source_factory is None:
        from zdash.sources.live import LiveSource

        def source_factory() -> Any:
            return LiveSource(interval, pools)

    folder: Folder | None = None
    while True:
        source = source_factory()
        if folder is None:
            folder = Folder(state, cfg, interval, getattr(source, "host", None))
        gen = source.ticks()
        try:
            await collect(gen, folder)
        except Exception as e:  # noqa: BLE001 - one broken source must not end the exporter
            print(f"zdash exporter: collector failed ({type(e).__name__}: {e}); restarting", file=sys.stderr)
        finally:
            await gen.aclose()
        await asyncio.sleep(retry_after)
