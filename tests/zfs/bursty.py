"""A slow disk under bursty load, end to end: build the pool, run the load, record it with
`zdash record`, replay the recording tick by tick through the check engine, and say what an
admin watching the dashboard would have seen at every tick.

Bursty is what backups, nightly jobs and VMs do, unlike steady fio: a burst of writes made
durable (`dd conv=fsync`, `sync`), a read of older data that is not cached
(`primarycache=metadata`), then an idle gap of 3-6 s in which the pool does nothing. Idle
samples are no evidence about a disk's speed; the verdict must neither wait for a steady load
nor flicker off in the gaps.

Used by tests/zfs/test_bursty_live.py (each scenario once) and tests/zfs/bursty_hits.py (each
scenario N times, as hit rates). Runs inside ../shared/zfslab only.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import time
from dataclasses import dataclass, field

from tests.zfs.lab import Lab, Load, set_delay, sh
from zdash.commands.record import record
from zdash.fold import Fold
from zdash.sources.replay import replay_ticks

POOL = "bursty"
SICK = "bursty_sick"  # the dm-delay device: /dev/mapper/bursty_sick
DELAY_MS = 40
ONSET_S = 15.0  # into the recording, for the slow scenarios: a healthy baseline first
RECORD_S = 75.0  # the recording's length; a slow scenario's lasts at least AFTER_ONSET_S past its switch
# What a slow scenario records once its delay switch is done: the switch (dmsetup suspend, reload,
# resume) took 36-49 s of a 75 s recording at host load 47-55 and left 0-3 ticks after it
AFTER_ONSET_S = 45.0
INTERVAL = 1.0
# The healthy stretch before the switch is ONSET_S and at least this share of the ticks it should
# hold (waiting at most ONSET_WAIT x ONSET_S in all): at host load ~28 a mixed run's 30 s gave 4
# ticks, no sample in which the sick-to-be HDD's wait was judged against the other HDD, and so no
# yardstick of its own before it turned sick (a disk never seen normal beside an SSD is not
# named: that run tested nothing)
ONSET_TICKS_SHARE = 2 / 3
ONSET_WAIT = 3.0
# `dmsetup suspend` holds every I/O to the disk until `resume`: a zpool command that reaches it
# hangs, times out, and zdash says it cannot see the pool, which is true. Such a finding is told
# apart from a false alarm only this near the switch: zdash's first budget for a zpool command
# (zdash.sources.runner.Runner's timeout), the longest one started before the suspend can hang
# in it, and about as long as the first answer after the resume takes to come in.
SWITCH_GRACE_S = 10.0
SCENARIOS = ("mirror-slow", "raidz-slow", "mirror-healthy", "raidz-healthy")

# One cycle: an 8 MiB write made durable, sync, an 8 MiB read of uncached data, 3-6 s idle.
BURSTS = r"""
set -u
pool=$1; seed=$2
i=0
while :; do
    dd if="$seed" of="/$pool/burst.$((i % 4))" bs=64k count=128 conv=fsync status=none
    sync
    dd if="/$pool/old" of=/dev/null bs=128k count=64 skip=$(( (i * 64) % 256 )) status=none
    sleep $(( 3 + RANDOM % 4 ))
    i=$((i + 1))
done
"""


@dataclass
class TickView:
    """What the dashboard showed at one tick: (check, severity, subject, title) per finding,
    and whether the pool did any I/O in that tick (zpool iostat: an idle gap or a burst)."""

    time: float
    findings: list[tuple[str, str, str, str]]
    busy: bool


@dataclass
class Run:
    scenario: str
    slow: str | None  # the slow disk's path, None in the healthy scenarios
    onset: float | None  # wall time the switch to the slow delay began
    switch_s: float = 0.0  # how long the switch (dmsetup suspend, reload, resume) took
    ticks: list[TickView] = field(default_factory=list)
    seconds: float = 0.0  # wall time of the whole run (build, record, replay, teardown)
    # checks whose findings the scenario brings by design, at any severity (not false alarms)
    expected: frozenset[str] = frozenset()
    pool: str | None = None  # the pool recorded (set by record_run and by a replay of a kept run)

    def named(self, view: TickView) -> bool:
        return any(c == "deranged_disk" and s == self.slow for c, _, s, _ in view.findings)

    @property
    def first_raise(self) -> int | None:
        """Index of the first tick at which the slow disk is named."""
        return next((i for i, v in enumerate(self.ticks) if self.slow and self.named(v)), None)

    @property
    def raised_at(self) -> float | None:
        i = self.first_raise
        return None if i is None else self.ticks[i].time

    @property
    def to_raise_s(self) -> float | None:
        """From the onset to the first tick that names the slow disk."""
        if self.raised_at is None or self.onset is None:
            return None
        return self.raised_at - self.onset

    @property
    def flicker(self) -> int:
        """Ticks after the first raise at which the slow disk was not named."""
        i = self.first_raise
        return 0 if i is None else sum(1 for v in self.ticks[i:] if not self.named(v))

    def in_switch(self, view: TickView, finding: tuple[str, str, str, str]) -> bool:
        """Is `finding` zdash saying, truly, that it cannot see the pool while the delay switch
        suspended its disk? Only a `visibility` finding about this pool or the switched disk, and
        only at a tick within SWITCH_GRACE_S of the switch (before it began, after it ended)."""
        check, _, subject, _ = finding
        if self.onset is None or check != "visibility" or subject not in (self.pool, self.slow):
            return False
        return self.onset - SWITCH_GRACE_S <= view.time <= self.onset + self.switch_s + SWITCH_GRACE_S

    def switch_findings(self) -> list[tuple[int, tuple[str, str, str, str]]]:
        """The findings above INFO the delay switch itself explains (in_switch): true, and no
        false alarm; the hit-rate table counts them apart."""
        return [
            (i, f)
            for i, v in enumerate(self.ticks)
            for f in v.findings
            if f[1] != "info" and self.in_switch(v, f)
        ]

    def false_alarms(self) -> list[tuple[int, tuple[str, str, str, str]]]:
        """Everything above INFO that is not the slow disk named after its onset: any finding
        on a healthy pool, a wrong disk blamed, or the slow disk blamed before it was slow. Not
        zdash saying it cannot see the pool while the switch suspended its disk (in_switch)."""
        out = []
        for i, v in enumerate(self.ticks):
            for f in v.findings:
                check, severity, subject, _ = f
                if severity == "info" or check in self.expected or self.in_switch(v, f):
                    continue
                right = (
                    self.slow is not None
                    and check == "deranged_disk"
                    and subject == self.slow
                    and self.onset is not None
                    and v.time >= self.onset
                )
                if not right:
                    out.append((i, f))
        return out

    def blamed(self) -> dict[str, str]:
        """Every disk a deranged_disk finding named in the run, with the first title it had."""
        out: dict[str, str] = {}
        for v in self.ticks:
            for check, _, subject, title in v.findings:
                if check == "deranged_disk":
                    out.setdefault(subject, title)
        return out

    def idle_gaps(self, start: int = 0) -> int:
        """Runs of 2+ ticks without pool I/O from tick `start` on: the gaps a verdict must hold
        through (fewer than a handful and the load was not bursty)."""
        gaps = run = 0
        for v in self.ticks[start:]:
            run = 0 if v.busy else run + 1
            gaps += run == 2
        return gaps

    def timeline(self) -> str:
        """One character per tick: the slow disk named ('R' in a busy tick, 'r' in an idle one),
        nothing above INFO ('.' busy, '_' idle), a false alarm ('!'), zdash unable to see the
        pool while the switch held its disk ('s'); '|' marks the onset. For assertion messages and
        the hit-rate table's notes."""
        bad = {i for i, _ in self.false_alarms()}
        held = {i for i, _ in self.switch_findings()}
        out = []
        for i, v in enumerate(self.ticks):
            before = self.ticks[i - 1].time if i else float("-inf")
            if self.onset is not None and before < self.onset <= v.time:
                out.append("|")
            if i in bad:
                out.append("!")
            elif self.slow and self.named(v):
                out.append("R" if v.busy else "r")
            elif i in held:
                out.append("s")
            else:
                out.append("." if v.busy else "_")
        return "".join(out)

    def summary(self) -> str:
        alarms = self.false_alarms()
        return (
            f"{self.scenario}: {len(self.ticks)} ticks, timeline {self.timeline()}; "
            f"first raise {self.to_raise_s if self.to_raise_s is None else round(self.to_raise_s, 1)} s "
            f"after onset (switch took {self.switch_s:.1f} s), flicker {self.flicker}, "
            f"false alarms {alarms[:3]}"
        )


def build(lab: Lab, layout: str) -> str:
    """The pool, its slow-to-be disk (dm-delay at 0 ms) and 32 MiB of old data to read back.
    Returns the dm-delay disk's path."""
    sick = lab.slow(SICK, 0)
    if layout == "mirror":
        lab.pool(POOL, "mirror", lab.loop("a"), lab.loop("b"), "mirror", lab.loop("c"), sick)
    else:
        lab.pool(POOL, "raidz1", lab.loop("a"), lab.loop("b"), sick)
    prepare(lab, POOL)
    sh("zpool", "scrub", "-w", POOL)  # a never-scrubbed pool is worth a note, not this test's point
    return sick


def prepare(lab: Lab, pool: str) -> None:
    """What the bursts need on `pool`: 32 MiB of old data to read back uncached, and the four
    files they rewrite (the load moves data, it does not grow the pool)."""
    sh("zfs", "set", "primarycache=metadata", pool)  # reads reach the disks
    lab.fill(f"/{pool}/old", 32)
    for i in range(4):
        lab.fill(f"/{pool}/burst.{i}", 8)


def start_bursts(lab: Lab, pool: str = POOL) -> Load:
    seed = os.path.join(lab.root, "seed")
    with open("/dev/urandom", "rb") as src, open(seed, "wb") as dst:
        dst.write(src.read(8 << 20))
    load = Load(
        ["bash", "-c", BURSTS, "bursts", pool, seed],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    lab.loads.append(load)
    return load


def replay(path: str, pool_name: str = POOL) -> list[TickView]:
    """The recording read back and folded tick by tick, as the dashboard's replay does."""
    header, ticks = replay_ticks(path)
    out = []
    for frame in Fold(None, header.interval or INTERVAL, header.host).frames(ticks):
        snap, found = frame.snapshot, frame.findings
        pool = snap.pool(pool_name)
        busy = pool is not None and any(
            (io := pool.io_of(leaf)) is not None and io.read_ops + io.write_ops >= 1 for leaf in pool.leaves()
        )
        out.append(
            TickView(snap.time, [(f.check, f.severity.name.lower(), f.subject, f.title) for f in found], busy)
        )
    return out


def run(lab: Lab, scenario: str, path: str, seconds: float = RECORD_S) -> Run:
    """One scenario, start to end: build, bursts, record (with the onset ONSET_S in for a slow
    scenario), stop the load, replay."""
    t0 = time.monotonic()
    layout, kind = scenario.split("-")
    sick = build(lab, layout)
    result = Run(scenario, sick if kind == "slow" else None, None)
    load = start_bursts(lab)
    onset = (SICK, DELAY_MS, ONSET_S) if kind == "slow" else None
    return record_run(result, path, POOL, seconds, load, onset, SICK, t0)


def record_run(
    result: Run,
    path: str,
    pool: str,
    seconds: float,
    load: Load,
    onset: tuple[str, int, float] | None,
    cure: str | None,
    t0: float,
) -> Run:
    """Record `seconds` of `pool` under `load` (already running) into `path`; `onset` (a dm-delay
    device, its new delay, seconds after the first tick) makes a disk sick mid-recording, and the
    recording then lasts until AFTER_ONSET_S past the end of the switch if that is later. Then
    the load is stopped, `cure` set back to no delay, and the recording replayed into `result`."""

    result.pool = pool

    async def go() -> None:
        snaps: list = []
        stop = asyncio.Event()

        async def switch(dm: str, ms: int, after_s: float) -> None:
            """The disk turns slow `after_s` after the recording's first tick."""
            try:
                while not snaps:
                    await asyncio.sleep(0.05)
                first = time.time()
                await asyncio.sleep(after_s)
                ticks, latest = int(after_s / INTERVAL * ONSET_TICKS_SHARE), first + ONSET_WAIT * after_s
                while len(snaps) < ticks and time.time() < latest:
                    await asyncio.sleep(0.2)
                # The onset is when the switch began: dmsetup suspend/reload/resume can take
                # seconds in the emulator, and the new delay is in force somewhere within them.
                began = time.time()
                await asyncio.to_thread(set_delay, dm, ms)
                result.onset, result.switch_s = began, time.time() - began
                await asyncio.sleep(max(first + seconds, time.time() + AFTER_ONSET_S) - time.time())
            finally:
                stop.set()  # a switch that failed ends the recording too (its error is raised below)

        task = asyncio.create_task(switch(*onset)) if onset is not None else None
        try:
            duration = None if task is not None else seconds
            await record(path, INTERVAL, duration, (pool,), quiet=True, snapshots=snaps, stop=stop)
        finally:
            if task is not None:
                task.cancel()
        if task is not None and not task.cancelled():
            await task

    try:
        asyncio.run(go())
    finally:
        load.kill()
        if cure is not None:
            set_delay(cure, 0)
    result.ticks = replay(path, pool)
    result.seconds = time.monotonic() - t0
    return result
