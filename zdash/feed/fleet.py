"""The fleet feed: several hosts over ssh in one dashboard or wall.

Each host has its own live source (a RemoteRunner: one ssh master per host) and fold
(zdash.fold), in a task of its own, so a host that stops answering holds up nobody: the
others keep folding, and the frames keep coming every interval. A frame is the hosts' latest
snapshots merged, every pool named `HOST:POOL` (datasets, events and findings with it), so the
tiles, tabs and findings say whose pool it is.

A host is unreachable from ssh's first exit code 255 (refused, timed out, authentication, the
connection dropped) until a command gets through again: its pools stay on screen with their
last data and an UNKNOWN finding "nas1 unreachable since 12:03:10: <ssh's reason>", so the wall
sorts them first; a host never reached has no pools and says so in the banner.

A guided action for a pool runs on that pool's host, over the host's own connection
(runner_for): the plan is checked against that host's fresh state and disks, and names the host.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field

from zdash import fmt
from zdash.aio import within
from zdash.checks.finding import Finding, Severity
from zdash.config import CheckConfig
from zdash.feed.frame import Feed, Frame
from zdash.feed.live import want_evidence
from zdash.fold import Fold
from zdash.fold import frame as fold
from zdash.fold.frame import ScanRates
from zdash.fold.series import Series
from zdash.model import (
    NO_EVIDENCE,
    Dataset,
    Evidence,
    LatencyHistogram,
    Pool,
    Snapshot,
    SourceState,
    ZEvent,
    evolve,
)
from zdash.sources.live import LiveSource
from zdash.sources.remote import RemoteRunner, SshHost

RESTART_S = 5.0  # a host's source that failed (a bug, not the host) starts again after this


def qualified(host: str, name: str) -> str:
    return f"{host}:{name}"


@dataclass
class Member:
    """One host: its source's runner, its fold, and what it showed last."""

    host: SshHost
    runner: RemoteRunner
    snapshot: Snapshot | None = None
    findings: tuple[Finding, ...] = ()
    scan_rates: ScanRates = field(default_factory=dict)
    outliers: fold.Outliers = field(default_factory=dict)
    error: str | None = None  # the source itself failed (not the host): said in the banner
    # When the host last answered: its ticks go on while it is down (each command failing), so
    # the snapshot's own time is not when its data was last new.
    heard_at: float | None = None

    @property
    def label(self) -> str:
        return self.host.label


class FleetFeed(Feed):
    mode = "live"

    def __init__(
        self,
        cfg: CheckConfig,
        hosts: Sequence[SshHost],
        interval: float = 1.0,
        pools: tuple[str, ...] = (),
        timeout: float = 10.0,
        source_factory: Callable[[SshHost, RemoteRunner], LiveSource] | None = None,
    ) -> None:
        self.cfg = cfg
        self.interval, self.pools = interval, pools
        self.members = [Member(h, RemoteRunner(h, timeout)) for h in hosts]
        self.hosts = tuple(m.label for m in self.members)
        self._factory = source_factory or (lambda _h, runner: LiveSource(interval, pools, runner=runner))
        self._series = Series()
        self._changed = asyncio.Event()

    def runner_for(self, host: str) -> RemoteRunner | None:
        return next((m.runner for m in self.members if m.label == host), None)

    @property
    def source_name(self) -> str:
        return f"{len(self.hosts)} hosts: {', '.join(self.hosts)}" if len(self.hosts) > 1 else self.hosts[0]

    async def frames(self) -> AsyncIterator[Frame]:
        tasks = [asyncio.get_running_loop().create_task(self._follow(m)) for m in self.members]
        try:
            while True:
                # A frame when any host ticked, and at least every interval (the unreachable
                # host's "since" and the others' ages move on even when nothing arrives).
                with contextlib.suppress(asyncio.TimeoutError):
                    await within(self._changed.wait(), self.interval)
                self._changed.clear()
                if any(m.snapshot is not None or m.runner.unreachable_since for m in self.members):
                    yield await asyncio.to_thread(self._frame, time.time())
        finally:
            for t in tasks:
                t.cancel()
            await asyncio.wait(tasks, timeout=10.0)

    async def _follow(self, m: Member) -> None:
        while True:
            source = self._factory(m.host, m.runner)
            folding = Fold(self.cfg, self.interval, m.label)
            gen = source.ticks()
            try:
                async for tick in gen:
                    f = await asyncio.to_thread(folding.step, tick)
                    m.snapshot, m.findings, m.scan_rates, m.outliers = (
                        f.snapshot,
                        f.findings,
                        f.scan_rates,
                        f.outliers,
                    )
                    m.error = None
                    want_evidence(source, f.snapshot, f.findings)
                    if m.runner.unreachable_since is None:
                        m.heard_at = f.snapshot.time
                    self._changed.set()
            except asyncio.CancelledError:
                raise
            except Exception as e:  # noqa: BLE001 - one host's bug must not end the others
                m.error = f"{m.label}: {type(e).__name__}: {e}"
            finally:
                await gen.aclose()
            await asyncio.sleep(RESTART_S)

    def _frame(self, now: float) -> Frame:
        merged = merge(self.members, now, self.interval, self._series)
        self._series.add(merged.snapshot)
        return Frame.of(merged, "live", self.source_name)


def _pool(p: Pool, host: str) -> Pool:
    name = qualified(host, p.name)
    root = evolve(p.root, name=name) if p.root.name == p.name else p.root
    return evolve(p, name=name, root=root)


def _dataset(d: Dataset, host: str) -> Dataset:
    return evolve(
        d,
        name=qualified(host, d.name),
        origin=qualified(host, d.origin) if d.origin else None,
        clones=tuple(qualified(host, c) for c in d.clones),
    )


def _finding(f: Finding, host: str) -> Finding:
    if f.pool is None:
        return dataclasses.replace(f, title=f"{host}: {f.title}")
    pool = qualified(host, f.pool)
    subject = qualified(host, f.subject) if f.subject_kind in ("pool", "dataset") else f.subject
    title = pool + f.title[len(f.pool) :] if f.title.startswith(f.pool) else f"{pool}: {f.title}"
    return dataclasses.replace(f, pool=pool, subject=subject, title=title)


def unreachable_line(m: Member) -> str | None:
    since = m.runner.unreachable_since
    if since is None:
        return None
    return f"{m.label} unreachable since {fmt.clock(since)}: {m.runner.unreachable_why}"


def merge(members: Sequence[Member], now: float, interval: float, series: Series) -> fold.Frame:
    """The hosts' latest frames as one, every pool qualified by its host (`series`: the
    fleet's own, of the merged snapshots)."""
    pools: list[Pool] = []
    datasets: list[Dataset] = []
    events: list[ZEvent] = []
    findings: list[Finding] = []
    down: list[SourceState] = []
    sources: list[SourceState] = []
    rates: ScanRates = {}
    outliers: dict[str, frozenset[str]] = {}
    histograms: list[LatencyHistogram] = []
    ids = []
    for m in members:
        host, snap = m.label, m.snapshot
        line = unreachable_line(m)
        if line is not None:
            since = m.runner.unreachable_since or now
            down.append(SourceState(f"{host} ssh", False, now - since, line))
        elif m.error:
            down.append(SourceState(f"{host} source", False, None, m.error))
        if snap is None:
            continue
        ids.append((host, snap.structure_id))
        pools += [_pool(p, host) for p in snap.pools]
        datasets += [_dataset(d, host) for d in snap.datasets]
        events += [evolve(e, pool=qualified(host, e.pool) if e.pool else None) for e in snap.events]
        # The pictures' data, under the pools' fleet names (the words are in the host's findings:
        # its SMART and kernel log name its own devices, which another host may name alike).
        histograms += [evolve(h, pool=qualified(host, h.pool)) for h in snap.evidence.histograms]
        mine = [_finding(f, host) for f in m.findings]
        if line is not None:  # the last data stays, said to be old: first on the wall
            last = m.heard_at or snap.time
            # The host's own "cannot see POOL: ssh: connect…" says the same again: one line.
            mine = [f for f in mine if f.check != "visibility"]
            mine = [
                Finding(
                    "visibility",
                    Severity.UNKNOWN,
                    qualified(host, p.name),
                    qualified(host, p.name),
                    "pool",
                    line,
                    f"zdash reads {host} over ssh, and ssh cannot reach it: what is shown of its "
                    "pools is as it was then. Check the host, its network and its sshd.",
                    (("last data", fmt.clock(last)),),
                )
                for p in snap.pools
            ] + mine
        else:  # a host that answers has its own stale inputs, said with its name
            sources += [
                dataclasses.replace(
                    s,
                    key=f"{host} {s.key}",
                    message=s.message if (s.message or "").startswith(host) else f"{host}: {s.message}",
                )
                for s in snap.sources
            ]
        findings += mine
        rates.update({(qualified(host, k[0]), k[1], k[2]): v for k, v in m.scan_rates.items()})
        outliers.update({qualified(host, p): leaves for p, leaves in m.outliers.items()})
    structure = (hash(tuple(ids)) & 0x7FFFFFFF) or 1 if ids and all(i for _, i in ids) else 0
    snapshot = Snapshot(
        now,
        tuple(pools),
        tuple(datasets),
        tuple(down + sources),
        tuple(sorted(events, key=lambda e: e.time)),
        host=", ".join(m.label for m in members),
        interval=interval,
        structure_id=structure,
        evidence=Evidence(histograms=tuple(histograms)) if histograms else NO_EVIDENCE,
    )
    findings.sort(key=lambda f: -f.severity)  # worst first, as one engine orders them
    return fold.Frame(snapshot, tuple(findings), series, rates, outliers)
