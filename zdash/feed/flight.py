"""The flight recorder: the live dashboard, the wall and `zdash serve` keep the raw samples of
the last few minutes, and when a finding at WARNING or above is raised, they write an incident
recording: those minutes before, then on until the finding clears (and a minute more) or a
cap, in the `.zdash` format, its description filled from the finding and its onset marked (the
replay bar's ◆). No ZFS tool keeps the minutes before an incident; a wall that watched a disk go
bad at 03:12 now has them.

How, and why so:
- The ring holds raw ticks (what a recording holds: a parser fix applies to them too), each
  compressed (zlib, fast level), bounded by age (`minutes`) and by bytes (`ring_mb`): memory
  stays flat on a wall that runs for weeks. The last good sample of every slow command that
  fell off its head is kept beside it, so an incident's first tick has pools and datasets.
- The fold thread only hands each tick to a queue (`observe`: no disk, no compression there);
  a thread of its own compresses, decides and writes. An incident file is written as it goes,
  one SQLite transaction per tick (a killed zdash leaves a readable file up to its last tick),
  with keyframes from a fold of its own (the file seeks like any recording).
- Raised means what the replay bar marks: a finding above INFO that is new or got worse.
  What is wrong when zdash starts (its first `settle_s`, 60 s: the slow inputs' first round,
  datasets and ashift) is the premise, not an incident.
- Never filling the disk: no incident starts with less than `min_free_mb` free, one stops when
  the free space falls below it or a write fails (a full disk), and the oldest files go when
  there are more than `keep` or they take more than `max_mb`. The dashboard keeps running and
  says so (the status line, a notice).
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from zdash import fmt
from zdash.checks.finding import Finding, Severity
from zdash.config import CheckConfig, FlightSettings
from zdash.fold import Fold
from zdash.raw import RawSample, Tick
from zdash.sources import incidents
from zdash.sources.store import WAL_LIMIT, StoreWriter, pack_tick, unpack_tick

QUEUE_MAX = 600  # ticks waiting for the recorder's thread; beyond, a tick is dropped (counted)
# What a tick or a keyframe may add to the incidents between two prunes: kept free under the
# cap, so the directory is under it at every moment, not only right after a prune.
ROOM_SLACK = 256 << 10
_MIB = 1 << 20


@dataclass(frozen=True, slots=True)
class Alarm:
    """A finding at WARNING or above, as the recorder's thread needs it (findings stay in the
    fold thread)."""

    key: tuple[str, str | None, str]
    severity: Severity
    check: str
    pool: str | None
    title: str
    why: str

    @classmethod
    def of(cls, f: Finding) -> Alarm:
        return cls(f.key, f.severity, f.check, f.pool, f.title, f.why)


RING_LEVEL = 1  # zlib's fastest: the ring is written every tick, read only for an incident


class Ring:
    """The last `seconds` of raw ticks, compressed, at most `max_bytes` of them."""

    def __init__(self, seconds: float, max_bytes: int) -> None:
        self.seconds, self.max_bytes = seconds, max_bytes
        self._ticks: deque[tuple[float, bytes]] = deque()
        self._bytes = 0
        # The last good sample of each command that fell off the head: a slow command (status
        # every 30 s, datasets every minute) is then still known at the ring's first tick.
        self._base: dict[str, RawSample] = {}

    def add(self, tick: Tick) -> None:
        blob = pack_tick(tick, RING_LEVEL)
        self._ticks.append((tick.time, blob))
        self._bytes += len(blob)
        while len(self._ticks) > 1 and (
            tick.time - self._ticks[0][0] > self.seconds or self._bytes > self.max_bytes
        ):
            t, old = self._ticks.popleft()
            self._bytes -= len(old)
            for s in unpack_tick(t, old).samples:
                if s.ok:
                    self._base[s.key] = s

    @property
    def size(self) -> int:
        """Bytes the ring holds (compressed)."""
        return self._bytes

    @property
    def span(self) -> float:
        return self._ticks[-1][0] - self._ticks[0][0] if self._ticks else 0.0

    def packed(self) -> list[tuple[float, bytes]]:
        """Oldest first, as stored (store.pack_tick); the first with the slow commands' last
        good samples before it."""
        out = list(self._ticks)
        if out and self._base:
            t, blob = out[0]
            tick = unpack_tick(t, blob)
            fresh = {s.key for s in tick.samples}
            older = tuple(s for k, s in sorted(self._base.items()) if k not in fresh)
            out[0] = (t, pack_tick(Tick(t, older + tick.samples), RING_LEVEL))
        return out

    def ticks(self) -> Iterator[Tick]:
        """Oldest first, unpacked (as `packed`)."""
        for t, blob in self.packed():
            yield unpack_tick(t, blob)


class _Incident:
    """One incident being written: its file, its own fold (for keyframes), what ends it."""

    def __init__(
        self, writer: StoreWriter, about: dict[str, Any], onset: float, cfg: CheckConfig | None
    ) -> None:
        self.writer, self.about, self.onset, self.cfg = writer, about, onset, cfg
        self._fold: Fold | None = None
        self.keys: set[tuple[str, str | None, str]] = set()
        self.cleared_at: float | None = None
        self.ticks = 0

    @property
    def path(self) -> str:
        return self.writer.path

    def fold(self, host: str | None, interval: float) -> Fold:
        if self._fold is None:
            self._fold = Fold(self.cfg, interval, host)
        return self._fold

    def write(self, tick: Tick, host: str | None, interval: float) -> None:
        self.fold(host, interval).write(self.writer, tick)
        self.ticks += 1

    def catch_up(
        self,
        first: int,
        ticks: list[tuple[float, bytes]],
        host: str | None,
        interval: float,
        make_room: Callable[[], object],
    ) -> None:
        """The minutes before, written as they were (write_packed), folded now for their
        keyframes, so the file seeks like any recording; room made for each keyframe as it
        comes (the older incidents pruned), not once all are in."""
        fold = self.fold(host, interval)
        for n, (t, blob) in enumerate(ticks):
            fold.write_placed(self.writer, first + n, unpack_tick(t, blob))
            make_room()


class FlightRecorder:
    """Owned by a live feed: `observe` each folded tick (fold thread), `status` and
    `take_notice` for the screen, `close` when the feed ends."""

    def __init__(
        self,
        settings: FlightSettings,
        cfg: CheckConfig | None,
        interval: float = 1.0,
    ) -> None:
        self.settings = settings
        self.dir = settings.dir or incidents.default_dir()
        self.cfg, self.interval, self._settle = cfg, interval, settings.settle_s
        self._ring = Ring(settings.minutes * 60, int(settings.ring_mb * _MIB))
        self._queue: queue.Queue[tuple[Tick, tuple[Alarm, ...], str | None] | None] = queue.Queue(QUEUE_MAX)
        self._seen: dict[tuple[str, str | None, str], Severity] = {}
        self._started: float | None = None
        self._incident: _Incident | None = None
        self._status: str | None = None
        self._notices: deque[str] = deque(maxlen=5)
        self._lock = threading.Lock()
        self.dropped = 0
        self.written: list[str] = []  # incident files written by this recorder (tests, notices)
        self._thread: threading.Thread | None = None

    # -- the fold thread ---------------------------------------------------------------------
    def observe(self, tick: Tick, findings: Sequence[Finding], host: str | None) -> None:
        if self._thread is None or not self._thread.is_alive():  # first, or a live feed restarted
            self._thread = threading.Thread(target=self._run, name="zdash-flight", daemon=True)
            self._thread.start()
        alarms = tuple(Alarm.of(f) for f in findings if f.severity >= Severity.WARNING)
        try:
            self._queue.put_nowait((tick, alarms, host))
        except queue.Full:
            self.dropped += 1

    def close(self, timeout: float = 5.0) -> None:
        """End the recorder's thread: an incident being written is closed (its file says zdash
        stopped). Bounded: a stuck disk does not hold zdash's exit."""
        if self._thread is None or not self._thread.is_alive():
            return
        end = time.monotonic() + timeout
        with contextlib.suppress(queue.Full):
            self._queue.put(None, timeout=timeout)
        self._thread.join(max(0.0, end - time.monotonic()))

    # -- the screen --------------------------------------------------------------------------
    @property
    def status(self) -> str | None:
        """One line while an incident is recorded or after the recorder had to stop one."""
        with self._lock:
            return self._status

    def take_notice(self) -> str | None:
        with self._lock:
            return self._notices.popleft() if self._notices else None

    def _say(self, notice: str, status: str | None) -> None:
        with self._lock:
            self._notices.append(notice)
            self._status = status

    # -- the recorder's thread ---------------------------------------------------------------
    def _run(self) -> None:
        while True:
            item = self._queue.get()
            try:
                if item is None:
                    break
                tick, alarms, host = item
                self._step(tick, alarms, host)
            except Exception as e:  # noqa: BLE001 - the recorder must never end the dashboard
                self._stop(f"flight recorder: {type(e).__name__}: {e}", "failed")
            finally:
                self._queue.task_done()
        if self._incident is not None:
            self._finish("zdash stopped")

    def flush(self, timeout: float = 30.0) -> bool:
        """Wait until every tick handed over so far is handled (tests, and a tidy exit)."""
        deadline = time.monotonic() + timeout
        while self._queue.unfinished_tasks and time.monotonic() < deadline:
            time.sleep(0.01)
        return not self._queue.unfinished_tasks

    def _step(self, tick: Tick, alarms: tuple[Alarm, ...], host: str | None) -> None:
        if self._started is None:
            self._started = tick.time
        self._ring.add(tick)
        raised = [a for a in alarms if a.severity > self._seen.get(a.key, Severity.INFO)]
        self._seen = {a.key: a.severity for a in alarms}
        if tick.time - self._started < self._settle:
            return  # what zdash started with: the premise
        inc = self._incident
        if inc is None:
            if raised:
                self._open(max(raised, key=lambda a: a.severity), raised, tick.time, host)
            return
        try:
            inc.write(tick, host, self.interval)
        except OSError as e:
            self._stop(
                f"flight recorder: {e.strerror or e}; {inc.path} keeps {inc.ticks} ticks", "write failed"
            )
            return
        inc.keys.update(a.key for a in raised)
        if any(a.key in inc.keys for a in alarms):
            inc.cleared_at = None
        elif inc.cleared_at is None:
            inc.cleared_at = tick.time
        if inc.cleared_at is not None and tick.time - inc.cleared_at >= self.settings.after_clear_s:
            self._finish("cleared")
        elif tick.time - inc.onset >= self.settings.max_minutes * 60:
            self._finish(f"still raised after {fmt.duration(self.settings.max_minutes * 60)} (the cap)")
        else:
            self._check_room(inc)

    def _open(self, worst: Alarm, raised: list[Alarm], onset: float, host: str | None) -> None:
        s = self.settings
        try:
            incidents.make_dir(self.dir)
            # room for this one: the ring's bytes (compressed faster than the file, so more)
            incidents.prune(self.dir, s.keep - 1, int(s.max_mb * _MIB) - self._ring.size - WAL_LIMIT)
            free = incidents.free_bytes(self.dir)
        except OSError as e:
            self._say(f"flight recorder: cannot use {self.dir}: {e.strerror or e}", "cannot record")
            return
        if free < s.min_free_mb * _MIB:
            self._say(
                f"flight recorder: {worst.title} not recorded: {fmt.fmt_bytes(free)} free in {self.dir} "
                f"(it keeps {s.min_free_mb:g} MiB free)",
                "disk too full to record",
            )
            return
        about = {
            "severity": worst.severity.name,
            "pool": worst.pool,
            "check": worst.check,
            "title": worst.title,
            "ended": None,
        }
        name = incidents.incident_name(onset, host, worst.pool, worst.check)
        try:
            writer = incidents.open_incident(
                self.dir, name, host, self.interval, self._description(worst, onset, host), onset, about
            )
        except Exception as e:  # noqa: BLE001 - StoreError, an OSError: said, never raised
            self._say(
                f"flight recorder: cannot write {name}: {getattr(e, 'strerror', None) or e}", "cannot record"
            )
            return
        inc = self._incident = _Incident(writer, about, onset, self.cfg)
        inc.keys.update(a.key for a in raised)
        before = self._ring.packed()
        try:
            first = writer.write_packed(iter(before))  # the minutes before, in one commit
            inc.ticks = len(before)
            incidents.publish(writer, name)  # whole before anyone can find it
        except OSError as e:
            self._stop(f"flight recorder: {worst.title} not recorded: {e.strerror or e}", "write failed")
            incidents.remove(inc.path)  # never published: not left to fill a full disk
            return
        self.written.append(inc.path)
        self._say(
            f"incident: {worst.title}; recording it to {inc.path} (with the {fmt.duration(self._ring.span)} before)",
            f"recording incident {os.path.basename(inc.path)}",
        )
        try:
            self._make_room(inc)
            # the live ticks wait in the queue
            inc.catch_up(first, before, host, self.interval, lambda: self._make_room(inc))
        except OSError as e:
            self._stop(
                f"flight recorder: {e.strerror or e}; {inc.path} keeps {inc.ticks} ticks", "write failed"
            )

    def _description(self, worst: Alarm, onset: float, host: str | None) -> str:
        s = self.settings
        where = f" on {host}" if host else ""
        pool = f" in pool {worst.pool}" if worst.pool else ""
        return (
            f"Recorded by zdash's flight recorder{where}: {worst.severity.name}{pool}, {worst.title}. "
            f"Raised at {fmt.stamp(onset)}, the onset marker. The recording holds the "
            f"{s.minutes:g} minutes before it and goes on until the finding clears (then "
            f"{s.after_clear_s:g} s more) or for {s.max_minutes:g} minutes at most. "
            f"What zdash said: {worst.why}"
        )

    def _make_room(self, inc: _Incident) -> None:
        """The oldest other incidents removed while this one and they take more than the cap
        less ROOM_SLACK (this one is never removed: past the cap alone, it ends)."""
        s = self.settings
        incidents.prune(self.dir, s.keep, int(s.max_mb * _MIB) - ROOM_SLACK, writing=inc.path)

    def _check_room(self, inc: _Incident) -> None:
        s = self.settings
        self._make_room(inc)
        if incidents.file_bytes(inc.path) > s.max_mb * _MIB:
            self._finish(f"reached the size cap ({s.max_mb:g} MiB)")
        elif incidents.free_bytes(self.dir) < s.min_free_mb * _MIB / 2:
            self._finish("the disk filled up")
            self._say(
                f"flight recorder: stopped {inc.path}: under {s.min_free_mb / 2:g} MiB free in {self.dir}",
                "stopped: disk too full",
            )

    def _finish(self, why: str) -> None:
        inc, self._incident = self._incident, None
        if inc is None:
            return
        with contextlib.suppress(OSError):
            incidents.describe_ended(inc.writer, inc.about, why)
        with contextlib.suppress(OSError):
            inc.writer.close()
        with self._lock:
            self._notices.append(
                f"incident recorded: {inc.path} ({why}); replay it with: zdash replay {inc.path}"
            )
            if self._status and self._status.startswith("recording incident"):
                self._status = None

    def _stop(self, notice: str, status: str) -> None:
        """A failed write (a full disk): the file keeps what it has, the recorder watches on."""
        inc, self._incident = self._incident, None
        if inc is not None:
            with contextlib.suppress(OSError):
                incidents.describe_ended(inc.writer, inc.about, status)
            with contextlib.suppress(OSError):
                inc.writer.close()
        self._say(notice, f"flight recorder: {status}")
