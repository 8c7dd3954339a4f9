"""Health: what the pool can still survive, and what its error counters say. One check (its
memory and the order of its findings here), one module per diagnosis beside it.

One fault, one finding:
- a pool that cannot serve its data (FAULTED, UNAVAIL, SUSPENDED) or has permanent data errors;
- per top-level vdev whose redundancy is reduced (zdash.redundancy): CRITICAL when it has
  nothing left to lose (a 2-way mirror on one side, a raidz1 missing a member) naming the disks
  it now runs on, WARNING when reduced but not gone ("raidz2-0 can lose 1 more disk"), with
  the devices that are missing or rebuilding;
- a hot spare standing in (once the vdev is whole again on it), a hot spare that is unusable;
- error counters on devices that are in service. Counts that grew while a scrub ran belong to
  the scrub: one finding for the pool ("the scrub finished at T and repaired X on DEV"),
  WARNING unless data was lost. Counts that grow outside a scrub mean a device failing now:
  CRITICAL until `zpool clear` resets them. Growth is judged on counter deltas since zdash
  started watching, whatever the charts' window.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import is_

from zdash.checks import tracker
from zdash.checks.finding import Finding
from zdash.checks.health.common import ID, counts
from zdash.checks.health.counters import leaf_errors, vdev_errors
from zdash.checks.health.memory import Leaf, PoolMemory
from zdash.checks.health.pool_state import data_errors, pool_state
from zdash.checks.health.redundancy import unshown_vdev, vdev_redundancy
from zdash.checks.health.spares import cache_devices, spares, stuck_replaces
from zdash.config import CheckConfig
from zdash.model import Pool, Snapshot, Vdev
from zdash.redundancy import MarginMemo, margins, rebuilding, resilver_running, unshown_losses

__all__ = ["ID", "Tracker", "check"]


def _scrub_between(pool: Pool, since: float | None, until: float) -> bool:
    """Did a scrub run at any time between two readings of the counters? A small pool's scrub
    can start and finish between two `zpool status` runs; its start and end times say so."""
    lo = since if since is not None else until
    for s in pool.scans:
        if s.function not in ("scrub", "errorscrub") or s.start_time is None:
            continue
        if s.state == "scanning":
            return True
        end = s.end_time if s.end_time is not None else (s.pause_time or until)
        if s.start_time <= until + 1 and end >= lo - 1:
            return True
    return False


def _status_time(snap: Snapshot) -> float:
    """When the `zpool status` behind this snapshot was read (it runs every few ticks)."""
    age = next((s.age_s for s in snap.sources if s.key == "status" and s.age_s is not None), 0.0)
    return snap.time - age


class Tracker(tracker.StructuralTracker):
    """Its memory (error counters) changes only when `zpool status` answers, so its findings are
    reused until the structure changes."""

    # the leaves each pool's counters were last read from, the margins worked out for the
    # last judged tree's vdevs (work saved, not memory)
    TRANSIENT = ("_read_from", "_known_margins")

    def __init__(self, cfg: CheckConfig) -> None:
        super().__init__(cfg)
        self._pools: dict[str, PoolMemory] = {}
        self._observed = 0
        self._read_from: dict[str, tuple[Vdev, ...]] | None = None
        self._known_margins: MarginMemo | None = None

    def observe(self, snap: Snapshot) -> None:
        if snap.structure_id and snap.structure_id == self._observed:
            return  # the same status as last time: no counter can have moved
        self._observed = snap.structure_id
        seen = set()
        read_at = _status_time(snap)
        read_before, self._read_from = self._read_from or {}, {}
        for pool in snap.pools:
            seen.add(pool.name)
            state = self._pools.setdefault(pool.name, PoolMemory())
            leaves = self._read_from[pool.name] = tuple(pool.leaves())
            before = read_before.get(pool.name)
            if before is not None and len(before) == len(leaves) and all(map(is_, before, leaves)):
                # The very leaves read last time (a status that moved only its scan): no counter
                # moved and none came or went (each key once: two leaves under one key compare
                # their counts with each other, read below).
                keys = {leaf.key for leaf in leaves}
                if len(keys) == len(leaves):
                    self._after_leaves(pool, leaves, state, keys, read_at)
                    continue
            # A count that rose between two readings rose during a scrub if one ran in between.
            scrubbing = _scrub_between(pool, state.seen_at, read_at)
            keys = set()
            for leaf in leaves:
                keys.add(leaf.key)
                now = counts(leaf)
                known = state.leaves.get(leaf.key)
                if known is None:
                    state.leaves[leaf.key] = Leaf(last=now)
                    if state.seen_at is not None:  # not the first look: it came while we watched
                        state.joined[leaf.key] = snap.time
                    continue
                if any(n < was for n, was in zip(now, known.last)):
                    state.leaves[leaf.key] = Leaf(last=now)  # `zpool clear`: a fresh start
                    continue
                grown = sum(now) - sum(known.last)
                if grown > 0:
                    if scrubbing:
                        known.during_scrub += grown
                    else:
                        known.outside_scrub += grown
                    known.last_growth = snap.time
                known.last = now
            for gone in set(state.leaves) - keys:
                del state.leaves[gone]
            self._after_leaves(pool, leaves, state, keys, read_at)
        for gone in set(self._pools) - seen:
            del self._pools[gone]

    @staticmethod
    def _after_leaves(
        pool: Pool, leaves: tuple[Vdev, ...], state: PoolMemory, keys: set[str], read_at: float
    ) -> None:
        """The leaves that joined while zdash watched, until their resilver is done; the time
        of this reading."""
        running = resilver_running(pool)
        building = {leaf.key for leaf in leaves if rebuilding(leaf)}
        for key in [k for k in state.joined if k not in keys or not (running or k in building)]:
            del state.joined[key]  # resilvered (or gone): a side like any other from now on
        state.seen_at = read_at

    def judge(self, snap: Snapshot) -> list[Finding]:
        out: list[Finding] = []
        # A status that moved only its scan (or one leaf) hands most top-level vdevs over as
        # the same objects: their margins are the ones worked out last time.
        known = self._known_margins = self._known_margins or MarginMemo()
        for pool in snap.pools:
            out.extend(self._pool(pool, self._pools.get(pool.name, PoolMemory()), known))
        known.next_pass()
        return out

    def _pool(self, pool: Pool, state: PoolMemory, known: MarginMemo) -> list[Finding]:
        out: list[Finding] = []
        pool_margins = margins(pool, joining=_attached(pool, state), known=known)
        vdev_findings = [f for m in pool_margins if (f := vdev_redundancy(pool, m)) is not None]
        covered = {leaf.key for m in pool_margins if m.reduced for leaf in m.lost + m.degraded}
        for top, lost in unshown_losses(pool):
            vdev_findings.append(unshown_vdev(pool, top, lost))
            covered |= {leaf.key for leaf in lost}
        spare_findings = spares(pool, pool_margins) + stuck_replaces(pool, pool_margins)
        if (f := pool_state(pool, explained=bool(vdev_findings or spare_findings))) is not None:
            out.append(f)
        if (f := data_errors(pool)) is not None:
            out.append(f)
        out += vdev_findings
        out += spare_findings
        out += cache_devices(pool)
        out += leaf_errors(pool, state, covered, self.cfg.one_look)
        out += vdev_errors(pool)
        return out


def check(history: Sequence[Snapshot], cfg: CheckConfig) -> list[Finding]:
    return tracker.fold(Tracker, history, cfg)


def _attached(pool: Pool, state: PoolMemory) -> frozenset[str]:
    """Keys of the leaves known to have been attached: seen arriving, or named by a transcript's
    `zpool attach` line (by their name or the last part of their path)."""
    named = {d.rsplit("/", 1)[-1] for d in pool.attached_devices}
    if not named:  # (no transcript names one: no walk of the leaves)
        return frozenset(state.joined)
    by_name = {
        leaf.key
        for leaf in pool.leaves()
        if leaf.name in named or (leaf.path or "").rsplit("/", 1)[-1] in named
    }
    return frozenset(state.joined) | by_name
