"""What the live source fetches to stand beside a verdict, and when (issue 30).

- The disks under the leaves: `lsblk` and the disks' sysfs paths, when the leaves change and
  every rare period (the same commands here and over ssh).
- SMART (`smartctl -j -a -n standby DISK`): a leaf a finding names, at once and every
  WANTED_SMART_EVERY while the finding stands; every other disk slowly, one at a time, at most
  one per SWEEP_EVERY and none more often than REREAD_EVERY (a host of 60 disks reads each one
  hourly). `-n standby` leaves a sleeping disk asleep. Where smartctl cannot read SMART at all
  (not installed, older than 7, not permitted) it is asked again only after RETRY_UNAVAILABLE.
- Latency histograms (`zpool iostat -w` by GUID) of a named leaf and its top-level vdev's other
  leaves, every HIST_EVERY while the finding stands: the builder turns successive readings into
  counts since the first one.
- The kernel log (journalctl -k, or dmesg where there is no journal), every KERNEL_LOG_EVERY
  while a finding names a leaf, from KERNEL_LOG_BEFORE before the first such finding.

Everything is a raw sample like any other command (keys smart:DISK, hist:POOL, kernlog,
blockdevs, sysfs), so a recording replays it. Which leaves are named comes from the feed
(want), from the newest snapshot and its findings' (pool, leaf) pairs.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from zdash.model import Snapshot
from zdash.parse.blockdev import lsblk_argv, sysfs_argv
from zdash.parse.kernel_log import kernel_log_argv
from zdash.parse.smartctl import HOST_WIDE_KINDS
from zdash.parse.zpool_iostat_hist import histogram_argv
from zdash.raw import RawSample

SWEEP_EVERY = 60.0  # at most one disk's SMART a minute in the background sweep
REREAD_EVERY = 3600.0  # no disk's SMART read by the sweep more often than hourly
WANTED_SMART_EVERY = 300.0  # a disk a finding names: at once, then every 5 minutes
HIST_EVERY = 10.0
KERNEL_LOG_EVERY = 60.0
KERNEL_LOG_BEFORE = 600.0  # the log from 10 minutes before the first finding: the onset is earlier
DISKS_EVERY = 600.0
RETRY_UNAVAILABLE = 3600.0


def smart_argv(disk: str) -> tuple[str, ...]:
    return ("smartctl", "-j", "-a", "-n", "standby", f"/dev/{disk}")


@dataclass(frozen=True, slots=True)
class Wanted:
    """A leaf a finding names: its pool, path, GUID, its top-level vdev's other leaves' GUIDs
    and the disks under it (from the snapshot's evidence)."""

    pool: str
    path: str
    guid: str | None
    peers: tuple[str, ...]
    disks: tuple[str, ...]


def wanted_from(snap: Snapshot, named: set[tuple[str, str]]) -> tuple[Wanted, ...]:
    """The leaves among `named` (pool, leaf label) with what fetching their evidence needs."""
    out = []
    for pool in snap.pools:
        for top in pool.root.children:
            leaves = list(top.leaves())
            for leaf in leaves:
                if (pool.name, leaf.label) not in named:
                    continue
                peers = tuple(v.guid for v in leaves if v is not leaf and v.guid)
                found = snap.evidence.disks_of(leaf.path)
                out.append(Wanted(pool.name, leaf.label, leaf.guid, peers, found.disks if found else ()))
    return tuple(out)


class EvidenceSchedule:
    """Decides, each tick, which evidence commands are due; the live source runs them."""

    def __init__(self) -> None:
        self.wanted: tuple[Wanted, ...] = ()
        self.all_disks: tuple[str, ...] = ()
        self._disks_from: object = None
        self._wanted_since: float | None = None  # when the first current finding named a leaf
        self._smart_read: dict[str, float] = {}  # disk -> when last asked
        self._smart_off_until = 0.0  # smartctl cannot read SMART on this host until then
        self._next_sweep = 0.0
        self._hist_due: dict[str, float] = {}
        self._kernlog_due = 0.0
        self._disks_due = 0.0
        self._leaves: tuple[str, ...] = ()
        self.kernel_reader = "journalctl"  # dmesg once journalctl shows it has no journal
        self._kernlog_read = False

    def want(self, snap: Snapshot, named: set[tuple[str, str]]) -> None:
        self.wanted = wanted_from(snap, named) if named else ()
        if self.wanted and self._wanted_since is None:
            self._wanted_since = snap.time
        elif not self.wanted:
            self._wanted_since = None
        if snap.evidence.disks is not self._disks_from:  # the same tuple most ticks: nothing to redo
            self._disks_from = snap.evidence.disks
            self.all_disks = tuple(sorted({d for leaf in snap.evidence.disks for d in leaf.disks}))

    def leaves_changed(self, leaves: tuple[str, ...]) -> None:
        if leaves != self._leaves:
            self._leaves = leaves
            self._disks_due = 0.0

    def note(self, sample: RawSample, smart_kind: str | None) -> None:
        """What a finished command says about the next ones: smartctl unusable on this host, or
        a journalctl that has no journal (empty output on its first read: use dmesg)."""
        now = sample.time or time.time()
        if sample.key.startswith("smart:") and (
            smart_kind in HOST_WIDE_KINDS or (not sample.stdout.strip() and sample.error is not None)
        ):
            self._smart_off_until = now + RETRY_UNAVAILABLE
        journal = sample.key == "kernlog" and sample.argv[:1] == ("journalctl",)
        if journal and (not sample.ok or (not sample.stdout.strip() and "--since" not in sample.argv)):
            self.kernel_reader = "dmesg"
            self._kernlog_due = 0.0  # read it the dmesg way at once, not a minute later

    def due(self, now: float, leaves: tuple[str, ...]) -> list[tuple[str, tuple[str, ...]]]:
        """(key, argv) of every evidence command due now."""
        out: list[tuple[str, tuple[str, ...]]] = []
        if any(leaf.startswith("/dev/") for leaf in leaves) and now >= self._disks_due:
            self._disks_due = now + DISKS_EVERY
            out.append(("blockdevs", lsblk_argv()))
            if self.all_disks:
                out.append(("sysfs", sysfs_argv(list(self.all_disks))))
        out += self._smart_due(now)
        for pool, guids in self._histograms().items():
            if now >= self._hist_due.get(pool, 0.0):
                self._hist_due[pool] = now + HIST_EVERY
                out.append((f"hist:{pool}", histogram_argv(pool, guids)))
        for pool in [p for p in self._hist_due if p not in self._histograms()]:
            del self._hist_due[pool]  # its finding is gone: the next one starts at once
        if self.wanted and now >= self._kernlog_due:
            self._kernlog_due = now + KERNEL_LOG_EVERY
            # The first read has no --since: the boot's last 2,000 kernel lines are never empty
            # where there is a journal, so an empty answer means there is none (then dmesg).
            since = None if not self._kernlog_read else (self._wanted_since or now) - KERNEL_LOG_BEFORE
            self._kernlog_read = True
            out.append(("kernlog", kernel_log_argv(since, self.kernel_reader)))
        elif not self.wanted:
            self._kernlog_due = 0.0
        return out

    def _smart_due(self, now: float) -> list[tuple[str, tuple[str, ...]]]:
        if now < self._smart_off_until:
            return []
        out = []
        named = sorted({d for w in self.wanted for d in w.disks})
        for disk in named:
            if now - self._smart_read.get(disk, -1e18) >= WANTED_SMART_EVERY:
                self._smart_read[disk] = now
                out.append((f"smart:{disk}", smart_argv(disk)))
        if now >= self._next_sweep and self.all_disks:
            oldest = min(self.all_disks, key=lambda d: self._smart_read.get(d, -1e18))
            if now - self._smart_read.get(oldest, -1e18) >= REREAD_EVERY:
                self._smart_read[oldest] = now
                self._next_sweep = now + SWEEP_EVERY
                out.append((f"smart:{oldest}", smart_argv(oldest)))
        return out

    def _histograms(self) -> dict[str, tuple[str, ...]]:
        """pool -> the GUIDs to read: every named leaf and its peers (sorted: a stable argv)."""
        by_pool: dict[str, set[str]] = {}
        for w in self.wanted:
            if w.guid:
                by_pool.setdefault(w.pool, set()).update((w.guid, *w.peers))
        return {pool: tuple(sorted(guids)) for pool, guids in by_pool.items()}
