"""What happens in a recording, for the replay bar's markers and the next/previous-event keys:
when the incident begins (the header's `onset`, recorded with a training scenario), each
finding raised or cleared, each pool or vdev state change.

Findings raised later in a recording than the replay has played need the checks over the whole
recording. One pass of its own (a fresh fold, each tick folded once, exactly as the replay folds
it: the checks are incremental), handed out in parts as it goes, so a long recording's markers
fill in from the start while the viewer already watches. The dashboard runs it in a process of
its own (zdash.feed.scan_child): in a thread it held the interpreter lock the replay's fold and
drawing need, and a 64x replay drew a third of its frames while it ran. A tick that cannot be
folded ends the scan there: the timeline says so (`stopped`), and the markers are incomplete.
"""

from __future__ import annotations

import bisect
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

from zdash.checks.finding import Finding, Severity
from zdash.config import CheckConfig
from zdash.fold import Fold
from zdash.model import UNSEEN, Snapshot
from zdash.sources.recording import Recording

EventKind = Literal["onset", "state", "raised", "cleared"]
# Several events on one tick are listed in this order (the onset explains the rest).
_ORDER: dict[EventKind, int] = {"onset": 0, "state": 1, "raised": 2, "cleared": 3}
PUBLISH_S = 0.5  # a long recording's scan hands out what it has found this often
States = dict[tuple[str, str], tuple[str, str]]  # (pool, vdev key) -> (name shown, state)
Alarms = dict[tuple[str, str | None, str], Finding]  # findings above INFO, by identity


@dataclass(frozen=True, slots=True)
class Event:
    index: int  # the first tick that shows it
    time: float  # epoch s (the onset's own time; the tick's for the others)
    kind: EventKind
    text: str  # one line for the viewer, without the marker's glyph
    severity: Severity | None = None  # raised / cleared: the finding's


@dataclass(frozen=True, slots=True)
class Timeline:
    """The events found so far, in tick order; `scanned` of `count` ticks looked at."""

    events: tuple[Event, ...]
    scanned: int
    count: int
    stopped: str | None = None  # why the scan ended before the last tick (the markers stop there)

    @property
    def complete(self) -> bool:
        return self.scanned >= self.count

    def next_index(self, index: int) -> int | None:
        """The first tick after `index` with an event."""
        return next((e.index for e in self.events if e.index > index), None)

    def previous_index(self, index: int) -> int | None:
        """The last tick before `index` with an event."""
        return next((e.index for e in reversed(self.events) if e.index < index), None)

    def at(self, index: int) -> list[Event]:
        return [e for e in self.events if e.index == index]


def onset_event(onset: float | None, times: Sequence[float]) -> Event | None:
    """The onset falls between two ticks: the first tick at or after it is the first that can
    show the fault. None when the recording ends before it."""
    if onset is None or not times or onset > times[-1]:
        return None
    return Event(
        bisect.bisect_left(times, onset), onset, "onset", "the incident begins (recorded with the scenario)"
    )


def _states(snap: Snapshot) -> States:
    """Every pool's and vdev's state; the pool itself under the key (name, "")."""
    out: States = {}
    for pool in snap.pools:
        out[(pool.name, "")] = (pool.name, pool.state)
        for v in pool.root.walk():
            if v is not pool.root:
                out[(pool.name, v.key)] = (v.name, v.state)
    return out


def _alarming(findings: Sequence[Finding]) -> Alarms:
    """Findings above INFO: notes ("no scrub on record") come and go with the data
    and would bury the events that matter."""
    return {f.key: f for f in findings if f.severity > Severity.INFO}


def changes(
    index: int,
    snap: Snapshot,
    findings: Sequence[Finding],
    before: tuple[States, Alarms] | None,
) -> tuple[list[Event], tuple[States, Alarms]]:
    """The events of tick `index` against the tick before (None: the first tick, which only sets
    the baseline: what a recording starts with is its premise, not an event)."""
    now = (_states(snap), _alarming(findings))
    if before is None:
        return [], now
    events: list[Event] = []
    old_states, old_findings = before
    moved = [
        f"{name} {state}"
        for key, (name, state) in now[0].items()
        if key in old_states and old_states[key][1] != state and UNSEEN not in (state, old_states[key][1])
    ]
    if moved:
        events.append(Event(index, snap.time, "state", ", ".join(moved)))
    for key, f in now[1].items():
        was = old_findings.get(key)
        if was is None or f.severity > was.severity:
            events.append(Event(index, snap.time, "raised", f.title, f.severity))
    for key, f in old_findings.items():
        if key not in now[1]:
            events.append(Event(index, snap.time, "cleared", f.title, f.severity))
    return events, now


def scan(
    rec: Recording,
    cfg: CheckConfig | None,
    times: Sequence[float],
    publish: Callable[[Timeline], None],
    stop: threading.Event,
) -> None:
    """Fold the whole recording once and publish its timeline: in parts every PUBLISH_S, then
    whole. A tick that cannot be folded ends the scan with what was found, `stopped` saying
    where and why (the replay says what is wrong with that tick when it gets there)."""
    onset = onset_event(rec.header.onset, times)
    found: list[Event] = [onset] if onset is not None else []
    count = len(times)

    def timeline(scanned: int, stopped: str | None = None) -> Timeline:
        return Timeline(
            tuple(sorted(found, key=lambda e: (e.index, _ORDER[e.kind]))), scanned, count, stopped
        )

    folding = Fold.from_header(rec.header, cfg)
    before: tuple[States, Alarms] | None = None
    last = time.monotonic()
    i = 0
    try:
        for i in _indices(count, stop):
            folded = folding.step(rec.tick(i))
            events, before = changes(i, folded.snapshot, folded.findings, before)
            found.extend(events)
            if time.monotonic() - last > PUBLISH_S:
                publish(timeline(i + 1))
                last = time.monotonic()
    except Exception as e:  # noqa: BLE001 - markers are a help; the replay itself reports a bad tick
        if not stop.is_set():
            publish(timeline(i, f"tick {i + 1}: {type(e).__name__}: {e}"))
        return
    if not stop.is_set():
        publish(timeline(count))


def _indices(count: int, stop: threading.Event) -> Iterator[int]:
    for i in range(count):
        if stop.is_set():
            return
        yield i
