"""The live source: produces one Tick per interval from the host.

Tiers (cost matters on a wall display that runs for weeks, and each zpool process costs far
more than the parsing of its output):

- every tick: the streamed iostat report (rates, and each vdev's ALLOC/FREE, so capacity is
  live without `zpool list`) and /proc/diskstats;
- `zpool status`: every `structure_every` (5 s) while anything moves (a scrub or resilver
  running, a device not ONLINE) or when ZFS's event log cannot be followed; otherwise every
  `quiet_every` (30 s), and at once when ZFS posts an event (a state change, an I/O or checksum
  error, a slow I/O, a scrub starting or ending: what status would show) or the iostat rows
  change (a vdev added, a replace done);
- `zpool list -v` (size, fragmentation, leaf sizes): with status on an event or a tree change,
  else every `rare_every` (60 s) while the iostat stream runs (every `structure_every` without);
- rarely the dataset list (also after a `zfs` command's history event), the per-vdev ashift and
  the device facts (also whenever the set of leaves changes);
- `zpool version` at the start, and again every `structure_every` while it has not answered
  (a host down or a zpool hung at the start): the version chooses status's and ashift's argv.

Slow commands run as background tasks: a tick never waits for them, their output joins the
first tick after they finish, and the Runner never starts a second copy.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any

from zdash.aio import within
from zdash.cadence import QUIET_EVERY_S, RARE_EVERY_S
from zdash.model import Snapshot, Vdev
from zdash.parse import ParseError
from zdash.parse.reuse import Reuse
from zdash.parse.smartctl import parse_smartctl
from zdash.parse.zfs_list import zfs_list_argv
from zdash.parse.zpool_status import parse_status
from zdash.parse.zpool_version import parse_version
from zdash.raw import AshiftKey, EvidenceKey, RawSample, SampleKey, Tick, ashift_key
from zdash.sources.events_stream import EventsStream
from zdash.sources.evidence import EvidenceSchedule
from zdash.sources.iostat_stream import IostatStream, iostat_argv
from zdash.sources.procfs import DISKSTATS, describe_devices, read_diskstats
from zdash.sources.remote import describe_remote_devices
from zdash.sources.runner import Busy, Runner

CLOSE_WAIT_S = 5.0  # the most close() waits for its tasks and children, all together

# In `zpool status` output (JSON or text) while something moves: a scan running, a device not
# ONLINE. Only chooses the polling rate; the verdicts come from the parsed status.
MOVING = ("SCANNING", "in progress", "DEGRADED", "FAULTED", "OFFLINE", "UNAVAIL", "REMOVED", "resilvering")


class LiveSource:
    def __init__(
        self,
        interval: float = 1.0,
        pools: tuple[str, ...] = (),
        structure_every: float = 5.0,
        rare_every: float = RARE_EVERY_S,
        timeout: float = 10.0,
        quiet_every: float = QUIET_EVERY_S,
        runner: Runner | None = None,
    ) -> None:
        self.interval = interval
        self.pools = tuple(pools)
        self.structure_every = max(structure_every, interval)
        self.rare_every = max(rare_every, interval)
        self.quiet_every = max(quiet_every, self.structure_every)
        # Where the commands run: this host, or another over ssh (zdash.sources.remote), where
        # the device facts and /proc/diskstats are read by commands too.
        self.runner = runner or Runner(timeout)
        self.remote = self.runner.host is not None
        self.host = self.runner.host or socket.gethostname()
        self.version: tuple[int, int, int] | None = None
        self._pending: list[RawSample] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self._running: dict[str, asyncio.Task[None]] = {}  # the latest background run per key
        self._due: dict[str, float] = {}
        self._leaves: frozenset[str] = frozenset()
        self._status_reuse: Reuse[Vdev] = Reuse()  # a busy pool's status is new text each time
        self._pool_names: frozenset[str] | None = None
        self._stream: IostatStream | None = None
        self._stream_task: asyncio.Task[None] | None = None
        self._stream_retry_at = 0.0
        self._events: EventsStream | None = None
        self._events_task: asyncio.Task[None] | None = None
        self._events_retry_at = 0.0
        self._events_started = 0.0
        self._failures: dict[str, int] = {}  # consecutive failures of a background command
        self._failed_while_down: set[str] = set()  # ...of those, the ones while unreachable
        self._events_said_failed = False  # a failed "events" sample stands: say when it follows again
        self._moving = True  # until a status says otherwise: poll status at the busy rate
        self._rows: tuple[str, ...] = ()  # the last iostat report's row names
        self.evidence = EvidenceSchedule()  # SMART, histograms, the kernel log (issue 30)

    # -- command selection by version (reference §11) -------------------------------------
    def status_argv(self) -> tuple[str, ...]:
        if self.version and self.version >= (2, 3, 0):
            return ("zpool", "status", "-j", "--json-int", "-p", "-s", *self.pools)
        return ("zpool", "status", "-p", "-P", "-s", *self.pools)

    def ashift_argv(self, pool: str) -> tuple[str, ...]:
        if self.version and self.version >= (2, 2, 0):
            return ("zpool", "get", "-H", "-p", "-o", "name,value", "ashift", pool, "all-vdevs")
        return ("zdb", "-C", pool)

    # -- background commands ----------------------------------------------------------------
    def _spawn(self, key: SampleKey | AshiftKey | EvidenceKey, argv: tuple[str, ...]) -> None:
        self._spawn_call(key, lambda: self.runner.run(key, argv))

    def _spawn_call(
        self, key: SampleKey | AshiftKey | EvidenceKey, call: Callable[[], Awaitable[RawSample]]
    ) -> None:
        if self.runner.busy(key):
            return  # the previous run is still going: keep its last good data

        async def go() -> None:
            with contextlib.suppress(Busy):
                sample = await call()
                self._pending.append(sample)
                kind = key.split(":", 1)[0]
                if kind in ("smart", "hist", "kernlog", "blockdevs", "sysfs"):
                    self._after_evidence(sample)
                    return  # asked on its own schedule: a failure backs nothing else off
                self._note_result(kind, sample.ok)
                if key == "status":
                    self._after_status(sample)

        task = asyncio.get_running_loop().create_task(go())
        self._tasks.add(task)
        self._running[key] = task
        task.add_done_callback(self._tasks.discard)

    def _note_result(self, name: str, ok: bool) -> None:
        """When a background command is asked next, after it answered (`ok`) or failed.

        Failed: asked again soon, not a whole rare period later (a host back after a drop said
        "datasets: connection refused" for a minute), backing off from the busy rate (5 s) to
        the rare one while it keeps failing (a command this user may not run must not cost a
        process every few seconds). What failed while the host was unreachable is asked again
        as soon as any command answers: the host is back, and the backoff that grew while it
        was down (up to the rare period) says nothing about it now."""
        if ok:
            self._failures.pop(name, None)
            for other in self._failed_while_down:
                self._failures.pop(other, None)
                self._due[other] = 0.0
            self._failed_while_down.clear()
            return
        n = self._failures[name] = self._failures.get(name, 0) + 1
        retry = min(self.structure_every * 2 ** (n - 1), self.rare_every)
        self._due[name] = min(self._due.get(name, 0.0), time.time() + retry)
        if getattr(self.runner, "unreachable_since", None) is not None:
            self._failed_while_down.add(name)

    def _due_now(self, name: str, every: float, now: float) -> bool:
        if now >= self._due.get(name, 0.0):
            self._due[name] = now + every
            return True
        return False

    def _after_status(self, sample: RawSample) -> None:
        """Topology changes: new device facts now, ashift now, restart iostat if pools changed.
        And whether anything moves (only to choose how often to ask again: a substring test,
        not a verdict)."""
        self._moving = not sample.ok or any(word in sample.stdout for word in MOVING)
        if not sample.ok:
            return
        try:
            pools = self._status_reuse.run(
                lambda reuse: parse_status(list(sample.argv), sample.stdout, reuse)
            )
        except ParseError:
            return
        leaves = frozenset(v.path for p in pools for v in p.leaves() if v.path)
        names = frozenset(p.name for p in pools)
        if leaves != self._leaves:
            self._leaves = leaves
            self._describe_devices()
            self._due.pop("ashift", None)
        if self._pool_names is not None and names != self._pool_names and self._stream_task:
            self._stream_task.cancel()  # iostat before 2.4 never learns of new pools
        self._pool_names = names

    def want_evidence(self, snap: Snapshot, named: set[tuple[str, str]]) -> None:
        """The leaves the current findings name, (pool, leaf label): their SMART, histograms and
        kernel log are fetched while they stand (zdash.sources.evidence)."""
        self.evidence.want(snap, named)

    def _after_evidence(self, sample: RawSample) -> None:
        kind = None
        if sample.key.startswith("smart:") and sample.stdout.lstrip().startswith("{"):
            with contextlib.suppress(ParseError):
                kind = parse_smartctl(sample.stdout).unavailable_kind
        elif sample.key.startswith("smart:") and "UNRECOGNIZED OPTION" in sample.stdout:
            kind = "old-smartctl"
        self.evidence.note(sample, kind)

    def _following_events(self) -> bool:
        return self._events_task is not None and not self._events_task.done()

    def _streaming(self) -> bool:
        return self._stream_task is not None and not self._stream_task.done()

    def _refresh_structure_now(self) -> None:
        self._due.pop("status", None)
        self._due.pop("list", None)

    async def _ask_version(self) -> RawSample:
        v = await self.runner.run("version", ("zpool", "version"))
        with contextlib.suppress(ParseError):
            self.version = parse_version(v.stdout)[0] if v.ok else None
        if self.version is not None:
            # Learnt late: status and ashift asked again now, in the version's own argv (an
            # ashift from `zdb -C` chosen while the version was unknown fails on a host without
            # zdb on the PATH, as a fleet host down at the start showed).
            self._refresh_structure_now()
            self._due.pop("ashift", None)
        return v

    def _schedule(self, now: float) -> None:
        # While unknown: its failures bring it back soon, backing off (see _spawn_call).
        if self.version is None and self._due_now("version", self.rare_every, now):
            self._spawn_call("version", self._ask_version)
        quiet = not self._moving and self._following_events()
        if self._due_now("status", self.quiet_every if quiet else self.structure_every, now):
            self._spawn("status", self.status_argv())
        if self._due_now("list", self.rare_every if self._streaming() else self.structure_every, now):
            self._spawn("list", ("zpool", "list", "-v", "-H", "-p", "-P", *self.pools))
        if self._due_now("datasets", self.rare_every, now):
            self._spawn("datasets", zfs_list_argv(tuple(self.pools)))
        if self._pool_names and self._due_now("ashift", self.rare_every, now):
            for pool in sorted(self._pool_names):
                self._spawn(ashift_key(pool), self.ashift_argv(pool))
        if self._leaves and self._due_now("devices", self.rare_every, now):
            self._describe_devices()
        for key, argv in self.evidence.due(now, tuple(sorted(self._leaves))):
            self._spawn(EvidenceKey(key), argv)

    def _describe_devices(self) -> None:
        leaves = sorted(self._leaves)
        if self.remote:  # the far side's /dev and /sys, by commands (in the background)
            self._spawn_call("devices", lambda: describe_remote_devices(self.runner, leaves))
        else:
            self._pending.append(describe_devices(leaves))

    def _read_diskstats(self) -> None:
        """Every tick. Over ssh a command in the background, started before the tick waits for
        its iostat report, so it normally joins this tick (a slow answer joins the next)."""
        if self.remote:
            self._spawn("diskstats", ("cat", DISKSTATS))
        else:
            self._pending.append(read_diskstats())

    # -- the iostat stream ------------------------------------------------------------------
    def _ensure_events(self, now: float) -> None:
        """ZFS's event log, followed; restarted after a minute if it dies (a denied or old zpool
        must not cost a process per tick)."""
        if self._events_task and not self._events_task.done():
            if self._events_said_failed and self._events_followed_again(now):
                # A follower that prints nothing (no new event: the normal case) would leave
                # its predecessor's failure standing all session: an empty sample clears it.
                self._pending.append(
                    RawSample("events", self._events.argv if self._events else (), None, "", "", now, 0.0)
                )
                self._events_said_failed = False
            return
        if self._events and self._events.error:
            self._pending.append(
                RawSample("events", self._events.argv, None, "", "", now, 0.0, self._events.error)
            )
            # A follower lost with the host (ssh could not reach it): followed again as soon as
            # the host may be back (its other commands are asked every few seconds too), not a
            # minute later. Judged by how it died: the host may answer again before this tick.
            lost_with_host = self._events.unreachable
            self._events = None
            self._events_said_failed = True
            self._events_retry_at = now + (
                self.structure_every if lost_with_host else max(60.0, 5 * self.interval)
            )
        if self._events_task is not None and self._events_task.done():
            # Status was scheduled at the quiet rate while the log was followed: without it,
            # a change would go unseen until then, so back to the busy rate from now.
            self._due["status"] = min(self._due.get("status", now), now + self.structure_every)
        if now < self._events_retry_at:
            return
        self._events = EventsStream(runner=self.runner)
        self._events_task = asyncio.get_running_loop().create_task(self._events.run())
        self._events_started = now

    def _events_followed_again(self, now: float) -> bool:
        """The restarted follower is up: over ssh once the host answers commands again (its own
        ssh would have failed with them), here once it has run for a structure period."""
        if self.remote:
            return (
                bool(getattr(self.runner, "connected", False)) and now - self._events_started >= self.interval
            )
        return now - self._events_started >= self.structure_every

    def _ensure_stream(self, now: float) -> None:
        if self._stream_task and not self._stream_task.done():
            return
        if self._stream and self._stream.error:
            self._pending.append(
                RawSample("iostat", self._stream.argv, None, "", "", now, 0.0, self._stream.error)
            )
            self._stream = None
            self._stream_retry_at = now + 5 * self.interval
        if now < self._stream_retry_at:
            return
        self._stream = IostatStream(iostat_argv(self.interval, self.pools), self.runner)
        self._stream_task = asyncio.get_running_loop().create_task(self._stream.run())

    async def _next_report(self) -> RawSample | None:
        if self._stream is None:
            await asyncio.sleep(self.interval)
            return None
        try:
            return await within(self._stream.reports.get(), self.interval * 1.5)
        except asyncio.TimeoutError:
            return None

    # -- the tick loop ----------------------------------------------------------------------
    async def start(self) -> Tick:
        """First tick: the version decides which commands to run; wait for the structure."""
        self._pending.append(await self._ask_version())
        self._due["version"] = time.time() + self.structure_every
        if self.remote:
            self._read_diskstats()
        self._schedule(time.time())
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=self.runner.timeout)
        self._schedule(time.time())  # ashift and devices once the pools are known
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=self.runner.timeout)
        return self._tick(time.time())

    async def settle(
        self, keys: tuple[str, ...] = ("status", "list"), wait: float | None = None
    ) -> Tick | None:
        """The runs of `keys` still in flight, waited for (at most the runner's timeout, the one
        --timeout gives) and handed over as one more tick; None when none was running. One still
        out after that is said as a failed sample of its own ("still running when the check
        ended"). `zdash check` asks this at its end: a verdict while zpool status was still out
        (hung on a suspended pool, slow) judged the previous answer as now and said OK; now it
        judges the answer, or says UNKNOWN."""
        running = {k: t for k, t in self._running.items() if k in keys and not t.done()}
        if not running:
            return None
        started = time.monotonic()
        # At most the runner's timeout, and never past what the caller has left (`wait`): a run
        # cut by the caller's own limit instead would leave the previous answer standing as now.
        limit = self.runner.timeout if wait is None else max(0.0, min(wait, self.runner.timeout))
        await asyncio.wait(running.values(), timeout=limit)
        now = time.time()
        for key, task in running.items():
            if not task.done():
                task.cancel()
                waited = time.monotonic() - started
                self._pending.append(
                    RawSample(
                        key,
                        (),
                        None,
                        "",
                        "",
                        now,
                        waited,
                        f"zpool {key}: still running after {waited:.0f} s more",
                    )
                )
        return self._tick(now)

    def _note_report(self, report: RawSample) -> None:
        """A report whose rows differ from the last one's spans a tree change: ask status now."""
        rows = tuple(line.split("\t", 1)[0] for line in report.stdout.splitlines() if "\t" in line)
        if rows and rows != self._rows:
            if self._rows:
                self._refresh_structure_now()
            self._rows = rows

    def _tick(self, now: float) -> Tick:
        if self._events is not None and (events := self._events.take()) is not None:
            self._pending.append(events)
            # What ZFS posts (a state change, an error, a slow I/O, a scan starting or ending,
            # a vdev added) is what status and list would show: ask them on the next tick.
            self._refresh_structure_now()
            if "history_event" in events.stdout:  # a zfs create/destroy/snapshot/clone/promote
                self._due.pop("datasets", None)
        if not self.remote:
            self._read_diskstats()
        samples, self._pending = tuple(self._pending), []
        return Tick(now, samples)

    async def ticks(self) -> AsyncGenerator[Tick, None]:
        try:
            yield await self.start()
            while True:
                now = time.time()
                self._ensure_stream(now)
                self._ensure_events(now)
                self._schedule(now)
                if self.remote:
                    self._read_diskstats()
                report = await self._next_report()
                if report is not None:
                    self._pending.append(report)
                    self._note_report(report)
                yield self._tick(time.time())
        finally:
            await self.close()

    async def close(self) -> None:
        """Every wait bounded, and all of them at once: a child that will not die (D state) or a
        task that ignores its cancellation must not keep zdash from exiting. One after another,
        each with its own bound, `q` took over 30 s on a pool with a 40 ms disk (the lab)."""
        tasks = {t for t in (self._events_task, self._stream_task, *self._tasks) if t is not None}
        for t in tasks:
            t.cancel()
        # Python 3.11's wait_for can drop the cancel when a read completes with it; with zpool
        # killed the stream reads EOF and ends either way. Killed together, awaited together.
        stops = [s.stop() for s in (self._events, self._stream) if s is not None]
        waits: set[asyncio.Future[Any]] = {asyncio.gather(*stops, return_exceptions=True), *tasks}
        done, _ = await asyncio.wait(waits, timeout=CLOSE_WAIT_S)
        for t in done:  # how it ended is no news now (and never logged as unretrieved)
            if not t.cancelled():
                t.exception()
