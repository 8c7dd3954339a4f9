"""Media mix: a vdev whose members are of different media (an HDD beside an SSD, a SATA SSD
beside an NVMe one) runs at its slower member's pace.

A mirror write completes only when every side has it and a raidz stripe only when every column
is written: the vdev writes at the speed of its slowest medium (a mirror prefers its faster
members for reads, a raidz cannot). That is the layout, not a failing disk, so it is one finding
about the vdev, with design advice, not the slow-disk check's SMART-and-replace (which names a
disk slower than its own medium: zdash.checks.deranged_disk, zdash.media).

Its severity is its measured cost, by the rule that names a slow disk
(zdash.checks._deranged_samples): INFO while the slower members keep up (an idle pool, a light
load, reads the faster members serve); WARNING once, in at least `sustain` of its last
`lookback` busy samples, a slower member's %util or disk wait was beyond ratio x its faster
members' (over the floors): the vdev runs at its pace. Held while that stays so whenever busy,
back to INFO after `clear` busy samples in a row that were not.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

from zdash.checks import tracker
from zdash.checks._common import median_or_none
from zdash.checks._deranged_samples import MEASURABLE_STATES, busy, metrics_of, slow_specs
from zdash.checks.finding import Finding, Severity
from zdash.config import CheckConfig
from zdash.fmt import fmt_list
from zdash.media import Mix, mix
from zdash.model import Pool, Snapshot, Vdev

ID = "media_mix"

WHY = (
    "A write completes only when every member of a vdev has it (each side of a mirror, each "
    "column of a raidz stripe), so {top} writes at its {slow}'s pace; a mirror sends reads to "
    "its faster members, a raidz cannot: the {fast} beside it waits for it on every write. "
)
ADVICE = (
    "This is the layout, not a failing disk: SMART will look healthy and replacing the {slow} "
    "with another {slow} changes nothing. Build vdevs of one medium: `zpool replace` the {slow} "
    "with a disk like the others, or, for SSDs to speed up a pool of hard disks, give them a "
    "role of their own (a special vdev for metadata and small blocks, a log device for "
    "synchronous writes) instead of mirroring them with hard disks."
)


@dataclass
class _Vdev:
    verdicts: deque[tuple[float, bool]] = field(default_factory=deque)  # (time, paced), busy samples
    raised: bool = False
    normal_run: int = 0
    last_why: str = ""  # the last busy sample in which a slower member set the pace
    last_time: float | None = None


def _pace(pool: Pool, m: Mix, cfg: CheckConfig) -> tuple[bool | None, str]:
    """One sample: did a slower member set the vdev's pace (a metric beyond ratio x the faster
    members' median and its floor)? None: no slower member was busy, or nothing to compare."""
    faster = [leaf for leaf in m.faster if leaf.state in MEASURABLE_STATES]
    fast = [metrics_of(pool.io_of(leaf), pool.disk_of(leaf)) for leaf in faster]
    refs = [median_or_none(mine[index] for mine in fast) for index, *_ in slow_specs(cfg)]
    verdict: bool | None = None
    for leaf in m.slower:
        io, disk = pool.io_of(leaf), pool.disk_of(leaf)
        if leaf.state not in MEASURABLE_STATES or not busy(io, disk):
            continue
        mine = metrics_of(io, disk)
        for ref, (index, ratio, floor, name, fmt) in zip(refs, slow_specs(cfg)):
            value = mine[index]
            if value is None or ref is None:
                continue
            if value >= floor and value >= ratio * ref:
                return True, f"{leaf.label}'s {name} {fmt(value)} vs {fmt(ref)} on its faster members"
            verdict = False
    return verdict, ""


class Tracker(tracker.Tracker):
    # the structure whose mixed vdevs were last found (work saved, not memory)
    TRANSIENT = ("_mixed_for", "_mixed")

    def __init__(self, cfg: CheckConfig) -> None:
        super().__init__(cfg)
        self._vdevs: dict[tuple[str, str], _Vdev] = {}
        self._mixed_for: int | None = None
        self._mixed: dict[str, tuple[str, ...]] | None = None

    def _mixed_vdevs(self, snap: Snapshot) -> list[tuple[Pool, Vdev, Mix]]:
        """Every vdev that mixes media. Which they are changes only with the structure: the
        leaves are walked once per structure, not once per tick (a pool of 1,000 like disks
        costs a dict lookup a tick)."""
        if not snap.structure_id or snap.structure_id != self._mixed_for or self._mixed is None:
            self._mixed = {
                pool.name: tuple(top.name for top in pool.top_level if mix(top.leaves()) is not None)
                for pool in snap.pools
            }
            self._mixed_for = snap.structure_id
        out: list[tuple[Pool, Vdev, Mix]] = []
        for pool in snap.pools:
            names = self._mixed.get(pool.name)
            if names:
                tops = [top for top in pool.top_level if top.name in names]
                out.extend((pool, top, m) for top in tops if (m := mix(top.leaves())) is not None)
        return out

    def observe(self, snap: Snapshot) -> None:
        cfg = self.cfg
        seen = set()
        for pool, top, m in self._mixed_vdevs(snap):
            key = (pool.name, top.name)
            seen.add(key)
            st = self._vdevs.setdefault(key, _Vdev())
            paced, why = _pace(pool, m, cfg)
            if paced is None:
                continue  # idle: no evidence either way
            st.verdicts.append((snap.time, paced))
            while len(st.verdicts) > cfg.deranged_lookback_samples:
                st.verdicts.popleft()
            if paced:
                st.last_why, st.last_time, st.normal_run = why, snap.time, 0
                if sum(1 for _, p in st.verdicts if p) >= cfg.deranged_sustain_samples:
                    st.raised = True
            else:
                st.normal_run += 1
                if st.normal_run >= cfg.deranged_clear_samples:
                    st.raised = False
        for gone in set(self._vdevs) - seen:
            del self._vdevs[gone]

    def findings(self, snap: Snapshot) -> list[Finding]:
        return [self._finding(pool, top, m) for pool, top, m in self._mixed_vdevs(snap)]

    def _finding(self, pool: Pool, top: Vdev, m: Mix) -> Finding:
        st = self._vdevs.get((pool.name, top.name)) or _Vdev()
        paced = sum(1 for _, p in st.verdicts if p)
        busy_n = len(st.verdicts)
        slow, fast = m.slower_medium, " and ".join(m.faster_media)
        if st.raised:
            measured = (
                f"in {paced} of its last {busy_n} busy samples a slower member set its pace "
                f"(last: {st.last_why})"
            )
            said = f"Measured: {measured}. "
        elif busy_n:
            measured = f"its {slow} kept up in {busy_n - paced} of its last {busy_n} busy samples"
            said = f"No cost measured: {measured}. "
        else:
            measured = "no busy sample yet"
            said = "No cost measured yet: the vdev has not been busy. "
        return Finding(
            ID,
            Severity.WARNING if st.raised else Severity.INFO,
            pool.name,
            top.name,
            "vdev",
            title=f"{top.name} runs at its slower member's pace: {m.describe()}",
            why=WHY.format(top=top.name, slow=slow, fast=fast) + said + ADVICE.format(slow=slow),
            evidence=(
                ("Slower by design", fmt_list([_described(leaf) for leaf in m.slower])),
                ("Faster", fmt_list([_described(leaf) for leaf in m.faster])),
                ("Cost", measured),
            ),
        )


def _described(leaf: Vdev) -> str:
    """'/dev/sda (HDD, WDC WD40EFRX-68N)'."""
    return f"{leaf.label} ({', '.join(x for x in (leaf.medium, leaf.model) if x)})"


def check(history: Sequence[Snapshot], cfg: CheckConfig) -> list[Finding]:
    return tracker.fold(Tracker, history, cfg)
