"""Imbalance: spread of fill % across the pool's normal-class top-level vdevs, its cause, and
what it costs, measured rather than assumed.

Causes, told apart by what the snapshots show, in this order (the allocator's direction: writes
spread by free space lean on the emptier vdev, so they even fills out; they never drive them
apart):
- the emptier vdev is slow (disk_wait far above the fuller one's, or slow I/Os counted): the
  allocation throttle hands new blocks to vdevs that complete writes faster;
- the emptier vdev is the larger one and holds about the same bytes as the fuller one: it grew
  after the data was written (bigger disks with autoexpand, a raidz expansion), for data written
  while the vdevs were of one size is spread evenly, and data written since would have leaned on
  the larger. History, not a fault: INFO unless a vdev nears the capacity warning or the grown
  vdev measurably takes most of the writes;
- sizes differ by more than the tolerance and the larger vdev holds more bytes: different sizes
  from the start; writes spread by free space even the fills out, but only roughly (the
  allocation throttle also follows speed), so the smaller vdev runs somewhat fuller;
- the emptiest vdev comes after the fullest in vdev order (ids grow as vdevs are added): almost
  certainly added after data was written (`zpool history` shows the add). This is how the
  seeds' expert grows a pool, so it is INFO unless a vdev nears the capacity warning or the
  new vdev measurably carries most of the writes;
- otherwise (the fuller vdev is the later one, so it cannot be fuller for having come first):
  uneven frees, e.g. data written before the later vdev was added and deleted since (the
  seeds' expert's third cause). History, not a fault: INFO unless a vdev nears the capacity
  warning.

Below the spread threshold, equal vdevs are also compared by their share of the data: in a
nearly empty pool 9.8G vs 120M on two 1T disks is 1 % vs 0.01 % full, yet 99 % of the data on
one vdev. Once the pool holds `imbalance_share_min_gib` (under it, pool metadata and a few small
files decide the shares) and one vdev holds most of the data (twice its fair share, 3/4 with two
vdevs), that is a note with the same causes told apart by vdev order.

The write share of each vdev is measured over everything zdash has seen (iostat write bytes),
so the text says what the table beside it shows.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from zdash.checks import tracker
from zdash.checks._common import act, median_or_none, normal_vdevs
from zdash.checks.finding import Finding, Severity, SuggestedAction
from zdash.checks.stories import ADDED_LATER_RULE, GROWN_RULE, REBALANCE_ADVICE
from zdash.config import CheckConfig
from zdash.fmt import fmt_bytes, fmt_fill, fmt_ms
from zdash.model import IoStats, Pool, Snapshot, Vdev

ID = "imbalance"

ALLOCATOR = (
    "How ZFS spreads new writes: since OpenZFS 0.7 the allocation throttle hands blocks to the "
    "vdevs that complete writes fastest, and the free-space bias (metaslab_bias_enabled) tilts "
    "that towards the emptier vdev; before 0.7 free space alone decided, so the emptier vdev took "
    "most new writes. "
)
REBALANCE = (
    "To rewrite data: zfs send | zfs recv into a new dataset and rename it over the old one, or "
    "copy files and rename the copies over the originals (snapshots keep the old blocks allocated "
    "until they are destroyed). ZFS has no in-place rebalance, and nothing but rewriting moves "
    "data it has written."
)
MIN_WRITE_SAMPLES = 10  # busy samples before a write share is a measurement
# A larger vdev holding within this factor of the fuller one's bytes held them when the two were
# of one size (data written with the sizes as they are now leans on the larger: in the lab 2 GiB
# beside 512 MiB from the start held 2.2x the bytes).
GROWN_BYTES_RATIO = (0.5, 1.5)


@dataclass
class _Vdev:
    written: float = 0.0  # sum of write bytes/s over samples (x interval: bytes)
    wait_sum: float = 0.0
    wait_n: int = 0


@dataclass
class _Pool:
    vdevs: dict[str, _Vdev] = field(default_factory=dict)
    write_samples: int = 0


# A vdev's figures this sample that the check reads: (write bytes/s, disk wait read, disk wait
# write), None when it has none (what pool.io_of(v) holds: write_bytes, disk_wait_*).
_Figures = tuple[float, float | None, float | None]


def _figures_of(pool: Pool) -> Callable[[Vdev], _Figures | None]:
    """v -> its _Figures as pool.io_of(v) gives them, read from the tick's columns where the
    fold put them (Pool.measures): no IoStats made per vdev per sample."""
    m = pool.measures
    if m is not None and m.io_columns is not None and m.io_at is not None:
        rows, slot_of = m.layout.io_rows, m.slot_of
        written, wait_read, wait_write = m.io_columns[3], m.io_columns[6], m.io_columns[7]

        def of(v: Vdev) -> _Figures | None:
            k = slot_of(v)
            r = -1 if k is None else rows[k]
            if r < 0:
                return _own(v.io)
            return written[r], wait_read[r], wait_write[r]  # type: ignore[return-value]

        return of
    return lambda v: _own(pool.io_of(v))


def _own(io: IoStats | None) -> _Figures | None:
    return None if io is None else (io.write_bytes, io.disk_wait_read, io.disk_wait_write)


def _wait_ns(figures: Callable[[Vdev], _Figures | None], v: Vdev) -> float | None:
    """The vdev's disk_wait this sample (worse of read/write); its leaves' median if no row."""
    f = figures(v)
    own = max((w for w in f[1:] if w), default=None) if f else None
    return own if own is not None else median_or_none(_wait_ns(figures, c) for c in v.children)


def _same_vdevs(these: tuple[Vdev, ...], those: tuple[Vdev, ...]) -> bool:
    """The same top-level vdevs, object for object: the fold keeps a vdev's object while it
    reads the same, so what was worked out from them still holds."""
    return len(these) == len(those) and all(map(operator.is_, these, those))


class _Plan:
    """Where a pool's top-level vdevs read their figures in the tick's columns (their rows) and
    their memory (_Vdev), made when the tops or the layout of the columns change and kept while
    they stay the same (a steady pool: every tick), so a tick reads each vdev's three figures
    by its row, with no lookup by key and no tuple made per vdev. Only for a pool whose tops
    all have a row (else each is read as before)."""

    __slots__ = ("layout", "rows", "st", "tops", "vdevs")

    def __init__(self, pool: Pool, tops: tuple[Vdev, ...], st: _Pool) -> None:
        m = pool.measures
        assert m is not None
        self.layout, self.tops, self.st = m.layout, tops, st
        self.rows = [-1 if (k := m.slot_of(v)) is None else m.layout.io_rows[k] for v in tops]
        self.vdevs = [st.vdevs[v.key] for v in tops]

    @staticmethod
    def of(pool: Pool, tops: tuple[Vdev, ...], st: _Pool) -> _Plan | None:
        m = pool.measures
        if not tops or m is None or m.io_columns is None or m.io_at is None:
            return None
        plan = _Plan(pool, tops, st)
        return plan if min(plan.rows) >= 0 and len(set(map(id, plan.vdevs))) == len(tops) else None

    def fits(self, pool: Pool, tops: tuple[Vdev, ...], st: _Pool) -> bool:
        m = pool.measures
        return (
            m is not None
            and m.layout is self.layout
            and m.io_columns is not None
            and m.io_at is not None
            and st is self.st
            and _same_vdevs(tops, self.tops)
        )

    def observe(self, pool: Pool, dt: float) -> None:
        """Tracker.observe's work for this pool, from the rows (the same sums, in the same order)."""
        m = pool.measures
        assert m is not None and m.io_columns is not None
        written, wait_read, wait_write = m.io_columns[3], m.io_columns[6], m.io_columns[7]
        rows = self.rows
        if any(written[r] > 0 for r in rows):  # type: ignore[operator]
            self.st.write_samples += 1
        figures: Callable[[Vdev], _Figures | None] | None = None
        for vs, r, v in zip(self.vdevs, rows, self.tops):
            vs.written += written[r] * dt  # type: ignore[operator]
            a, b = wait_read[r], wait_write[r]
            # _wait_ns: the worse of the two (the first of equal ones), else the leaves' median
            if a:
                w: float | None = b if b and b > a else a
            elif b:
                w = b
            else:
                if figures is None:
                    figures = _figures_of(pool)
                w = median_or_none(_wait_ns(figures, c) for c in v.children)
            if w is not None:
                vs.wait_sum += w
                vs.wait_n += 1


class Tracker(tracker.Tracker):
    TRANSIENT = ("_plans", "_kept")  # (work saved: made again from the next snapshot)

    def __init__(self, cfg: CheckConfig) -> None:
        super().__init__(cfg)
        self._pools: dict[str, _Pool] = {}
        self._plans: dict[str, _Plan] | None = {}
        # per pool: (its tops, its `zpool add`s, the finding their tree alone gave)
        self._kept: dict[str, tuple[tuple[Vdev, ...], tuple[str, ...], Finding | None]] | None = {}

    def observe(self, snap: Snapshot) -> None:
        dt = snap.interval or 1.0
        plans, self._plans = self._plans or {}, {}
        for pool in snap.pools:
            st = self._pools.setdefault(pool.name, _Pool())
            tops = normal_vdevs(pool)
            plan = plans.get(pool.name)
            if plan is not None and pool.name not in self._plans and plan.fits(pool, tops, st):
                self._plans[pool.name] = plan
                plan.observe(pool, dt)
                continue
            figures = _figures_of(pool)
            ios = [figures(v) for v in tops]
            if any(io is not None and io[0] > 0 for io in ios):
                st.write_samples += 1
            for v, io in zip(tops, ios):
                vs = st.vdevs.setdefault(v.key, _Vdev())
                if io is not None:
                    vs.written += io[0] * dt
                if (w := _wait_ns(figures, v)) is not None:
                    vs.wait_sum += w
                    vs.wait_n += 1
            for gone in set(st.vdevs) - {v.key for v in tops}:
                del st.vdevs[gone]
            made = _Plan.of(pool, tops, st)
            if made is not None and pool.name not in self._plans:
                self._plans[pool.name] = made
        for gone in set(self._pools) - {p.name for p in snap.pools}:
            del self._pools[gone]

    def findings(self, snap: Snapshot) -> list[Finding]:
        # A pool whose fill spread is below the threshold is judged by its tree alone
        # (_share_imbalance): with the same top-level vdevs (the same objects) and the same
        # `zpool add`s, the same finding, kept until they change.
        kept, self._kept = self._kept or {}, {}
        out: list[Finding] = []
        for pool in snap.pools:
            tops = normal_vdevs(pool)
            last = kept.get(pool.name)
            if last is not None and last[1] == pool.added_devices and _same_vdevs(tops, last[0]):
                f = last[2]
                self._kept[pool.name] = last
            else:
                by_tree, f = _by_tree(pool, tops, self.cfg)
                if by_tree:
                    self._kept[pool.name] = (tops, pool.added_devices, f)
                else:
                    f = _pool_imbalance(pool, self._pools.get(pool.name, _Pool()), self.cfg)
            if f:
                out.append(f)
        return out


def check(history: Sequence[Snapshot], cfg: CheckConfig) -> list[Finding]:
    return tracker.fold(Tracker, history, cfg)


def _mean_wait(st: _Pool, v: Vdev) -> float | None:
    vs = st.vdevs.get(v.key)
    return vs.wait_sum / vs.wait_n if vs and vs.wait_n else None


def _write_shares(st: _Pool, vdevs: Sequence[Vdev]) -> dict[str, float] | None:
    """Each vdev's share of the bytes written while zdash watched; None until measured."""
    written = {v.key: st.vdevs[v.key].written for v in vdevs if v.key in st.vdevs}
    total = sum(written.values())
    if st.write_samples < MIN_WRITE_SAMPLES or total <= 0 or len(written) < len(vdevs):
        # A paste (or a short look) has one report: take it for what it is, said so in the text.
        if st.write_samples >= 1 and total > 0 and len(written) == len(vdevs):
            return {k: w / total for k, w in written.items()}
        return None
    return {k: w / total for k, w in written.items()}


def _is_slow(empty: Vdev, full: Vdev, st: _Pool, cfg: CheckConfig) -> tuple[bool, list[tuple[str, str]]]:
    slow_ios = sum(leaf.slow_ios or 0 for leaf in empty.leaves())
    full_slow_ios = sum(leaf.slow_ios or 0 for leaf in full.leaves())
    empty_wait, full_wait = _mean_wait(st, empty), _mean_wait(st, full)
    evidence = [
        (f"{empty.name} disk wait", fmt_ms(empty_wait)),
        (f"{full.name} disk wait", fmt_ms(full_wait)),
    ]
    slower = (
        empty_wait is not None
        and full_wait is not None
        and empty_wait >= cfg.deranged_latency_ratio * full_wait
        and empty_wait >= cfg.deranged_latency_floor_ms * 1e6
    )
    if slow_ios:
        evidence.append((f"{empty.name} slow I/Os", str(slow_ios)))
    return slower or (slow_ios > 0 and full_slow_ios == 0), evidence


def _most_writes(share: float, n: int) -> bool:
    """Does one of n vdevs carry "most" of the writes (or of the data): at least twice its fair
    share (3/4 of them with two vdevs)?"""
    return share >= min(2.0 / n, 0.75)


def _added_later(pool: Pool, v: Vdev) -> bool:
    """Direct evidence: a `zpool add` (zpool history, or the pasted transcript's command line)
    named one of v's devices, so v came after the pool was created."""
    names = {d.rsplit("/", 1)[-1] for d in pool.added_devices}
    return any(leaf.name in names or (leaf.path or "").rsplit("/", 1)[-1] in names for leaf in v.leaves())


def _add_evidence(pool: Pool, vdevs: Sequence[Vdev]) -> list[tuple[str, str]]:
    late = [v.name for v in vdevs if _added_later(pool, v)]
    return [("Added by `zpool add`", ", ".join(late))] if late else []


def _by_tree(pool: Pool, tops: tuple[Vdev, ...], cfg: CheckConfig) -> tuple[bool, Finding | None]:
    """(True, what _pool_imbalance says) where that depends on the tree alone (fewer than two
    vdevs with a fill, or a spread below the threshold: _share_imbalance); else (False, None)."""
    pcts = [pct for v in tops if (pct := v.fill_pct) is not None]
    if len(pcts) < 2:
        return True, None
    spread = max(pcts) - min(pcts)
    if spread < cfg.imbalance_info_spread_pct:
        return True, _share_imbalance(pool, [v for v in tops if v.fill_pct is not None], spread, cfg)
    return False, None


def _pool_imbalance(pool: Pool, st: _Pool, cfg: CheckConfig) -> Finding | None:
    vdevs = [(i, v, pct) for i, v in enumerate(normal_vdevs(pool)) if (pct := v.fill_pct) is not None]
    if len(vdevs) < 2:
        return None
    full_i, full, full_pct = max(vdevs, key=lambda x: x[2])
    empty_i, empty, empty_pct = min(vdevs, key=lambda x: x[2])
    spread = full_pct - empty_pct
    if spread < cfg.imbalance_info_spread_pct:
        return _share_imbalance(pool, [v for _, v, _ in vdevs], spread, cfg)
    severity = Severity.WARNING if spread >= cfg.imbalance_warn_spread_pct else Severity.INFO
    sizes = [v.space for _, v, _ in vdevs]
    size_ratio = max(s for s in sizes if s) / min(s for s in sizes if s) if all(sizes) else 1.0
    shares = _write_shares(st, [v for _, v, _ in vdevs])
    evidence = [(f"{v.name} fill", f"{fmt_fill(pct)} of {fmt_bytes(v.space)}") for _, v, pct in vdevs]
    evidence.append(("Spread", f"{spread:.1f} points"))
    evidence += _add_evidence(pool, [v for _, v, _ in vdevs])
    if shares is not None:
        evidence.append(
            (
                "Write share (measured)",
                ", ".join(f"{v.name} {100 * shares.get(v.key, 0.0):.0f} %" for _, v, _ in vdevs),
            )
        )
    empty_share = shares.get(empty.key) if shares else None
    skewed = empty_share is not None and _most_writes(empty_share, len(vdevs))
    slow, slow_evidence = _is_slow(empty, full, st, cfg)
    actions: tuple[SuggestedAction, ...] = ()
    sizes_differ = size_ratio > 1 + cfg.imbalance_size_tolerance_pct / 100
    late = _added_later(pool, empty) or (empty_i > full_i and not _added_later(pool, full))
    # What sizes can explain: each vdev gets about the same bytes per allocation round, nudged
    # towards the emptier ones, so a smaller vdev runs fuller, by at most the size ratio (512
    # MiB beside 2 GiB from the start, 4x: 38.5 % vs 21.6 %, 1.8x, in the lab). A spread beyond
    # that has another cause (corpus 128: mirrors 60 / 60 / 4 %, the 2x larger one just added).
    size_explains = (
        sizes_differ
        and (empty.space or 0) > (full.space or 0) > 0
        and full_pct <= empty_pct * (empty.space or 0) / (full.space or 1) * 1.25
    )
    bytes_ratio = (empty.alloc or 0) / full.alloc if empty.alloc is not None and full.alloc else None
    grown = (
        sizes_differ
        and (empty.space or 0) > (full.space or 0) > 0
        and bytes_ratio is not None
        and GROWN_BYTES_RATIO[0] <= bytes_ratio <= GROWN_BYTES_RATIO[1]
    )
    if slow:
        cause = f"{empty.name} is slow and gets fewer writes"
        evidence += slow_evidence
        why = (
            f"{empty.name} is much slower than {full.name}. The allocation throttle (OpenZFS 0.7+) "
            "hands new blocks to the vdevs that complete writes fastest, so the slow vdev receives "
            "fewer and stays emptier: the imbalance is a symptom. Find the slow disk (see the "
            "deranged-disk findings) and fix it first; rebalancing now would not last. "
        )
    elif grown:
        cause = f"{empty.name} grown after the data was written"
        near_full = full_pct >= cfg.capacity_vdev_warn_pct - 5
        severity = (
            Severity.WARNING
            if (near_full or skewed) and spread >= cfg.imbalance_warn_spread_pct
            else Severity.INFO
        )
        why = (
            f"{empty.name} is {size_ratio:.1f}x the size of {full.name} yet holds about the same data "
            f"({fmt_bytes(empty.alloc)} vs {fmt_bytes(full.alloc)}): the data was written while they "
            f"were of one size, and {empty.name} grew since. " + GROWN_RULE + " " + REBALANCE_ADVICE + " "
        )
        if near_full:
            why += _near_full(full, full_pct)
        evidence.append(
            ("Bytes held", f"{empty.name} {fmt_bytes(empty.alloc)}, {full.name} {fmt_bytes(full.alloc)}")
        )
        actions = (
            act("Show when the vdev grew (replace, online -e, attach)", None, "zpool", "history", pool.name),
        )
    elif size_explains:
        cause = "vdevs of different sizes"
        why = (
            f"The top-level vdevs differ in size (largest {size_ratio:.1f}x the smallest) and held data "
            "from the start. Writes spread by free space lean on the emptier vdev and so even the "
            "fills out, but only roughly (the allocation throttle also follows speed): the smaller "
            "vdev runs somewhat fuller. Nothing is wrong. "
        )
    elif late:
        known = _added_later(pool, empty)
        cause = f"{empty.name} {'' if known else 'probably '}added after data was written"
        near_full = full_pct >= cfg.capacity_vdev_warn_pct - 5
        severity = (
            Severity.WARNING
            if (near_full or skewed) and spread >= cfg.imbalance_warn_spread_pct
            else Severity.INFO
        )
        same = (
            "The vdevs are the same size, but"
            if not sizes_differ
            else f"{empty.name} is {size_ratio:.1f}x the size of {full.name}, which alone would not leave "
            "it emptier (writes follow free space), yet"
        )
        why = (
            f"{same} {empty.name} was added by a `zpool add` the paste "
            "shows and is much emptier: it was added once the pool already held data. "
            if known
            else f"{same} {empty.name} comes after {full.name} and is much "
            f"emptier: it was most likely added once the pool already held data (`zpool history "
            f"{pool.name}` shows the `zpool add`). "
        )
        why += ADDED_LATER_RULE + " " + REBALANCE_ADVICE + " "
        if near_full:
            why += _near_full(full, full_pct)
        actions = (act("Show when vdevs were added", None, "zpool", "history", pool.name),)
    else:
        cause = "uneven frees on equal vdevs"
        # Like a late add, this is history rather than a fault: a note unless the fuller vdev
        # nears the capacity warning.
        near_full = full_pct >= cfg.capacity_vdev_warn_pct - 5
        if not near_full:
            severity = Severity.INFO
        order = (
            f"was added by a `zpool add` the paste shows, after {empty.name}"
            if _added_later(pool, full)
            else f"comes after {empty.name} in the vdev order"
        )
        same = (
            "The vdevs are the same size"
            if not sizes_differ
            else f"Their sizes ({size_ratio:.1f}x) do not explain a spread this wide"
        )
        why = (
            f"{same} and the fuller one, {full.name}, {order}, so it does not "
            "hold more for having been there first: the spread comes from frees, deleted files or expired snapshots whose blocks "
            f"sat mostly on {empty.name} (for example data written before {full.name} was added, "
            "deleted since). That is how the data was deleted, not the allocator at fault. "
        )
    why += ALLOCATOR + _cost(pool, empty, full, empty_share, skewed, len(vdevs), cfg.one_look) + REBALANCE
    return Finding(
        ID,
        severity,
        pool.name,
        pool.name,
        "pool",
        title=f"{pool.name}: fill differs by {spread:.1f} points across vdevs ({cause})",
        why=why,
        evidence=tuple(evidence),
        actions=actions,
    )


def _near_full(full: Vdev, full_pct: float) -> str:
    return (
        f"{full.name} is {fmt_fill(full_pct)} full, near the point where its allocations slow down "
        "(metaslabs run short of free space): new writes should land elsewhere. "
    )


def _cost(
    pool: Pool, empty: Vdev, full: Vdev, share: float | None, skewed: bool, n: int, one_look: bool
) -> str:
    """What the imbalance costs, as measured: the text agrees with the write shares shown."""
    if share is None:
        seen = "This output shows no writes" if one_look else "zdash has not yet seen enough writes"
        return (
            f"{seen} to say how new writes are spread across the vdevs; reads of older data go "
            f"mostly to {full.name}. "
        )
    measured = "in this output" if one_look else "while zdash watched"
    if skewed:
        return (
            f"{empty.name} took {100 * share:.0f} % of the writes {measured}: its disks carry the "
            f"write load while the others idle, and reads of the older data hit {full.name}, so the "
            "pool performs like one vdev rather than the sum of them. "
        )
    return (
        f"New writes are spread about evenly: {empty.name} took {100 * share:.0f} % of the writes "
        f"{measured} (an even share is {100 / n:.0f} %). The cost is on reads of older data, which "
        f"all come from {full.name}. "
    )


def _share_imbalance(pool: Pool, vdevs: Sequence[Vdev], spread: float, cfg: CheckConfig) -> Finding | None:
    """Equal vdevs whose fill % hardly differs (a nearly empty pool) while one of them holds most
    of the data: 9.8G vs 120M on two 1T disks is 1 % vs 0.01 % full, but 99 % of the data on one
    vdev. Called only below the spread threshold, so it never doubles the spread finding."""
    allocs = [(i, v, v.alloc) for i, v in enumerate(vdevs) if v.alloc is not None]
    sizes = [v.space for v in vdevs]
    total = sum(a for _, _, a in allocs)
    if len(allocs) < len(vdevs) or not all(sizes) or total < cfg.imbalance_share_min_gib * 2**30:
        return None
    known = [s for s in sizes if s]
    if max(known) / min(known) > 1 + cfg.imbalance_size_tolerance_pct / 100:
        return None  # different sizes: their shares are meant to differ (the spread judges them)
    full_i, full, full_alloc = max(allocs, key=lambda x: x[2])
    empty_i, empty, _ = min(allocs, key=lambda x: x[2])
    share = full_alloc / total
    if not _most_writes(share, len(vdevs)):
        return None
    evidence = [
        (f"{v.name} holds", f"{fmt_bytes(a)} of {fmt_bytes(v.space)} ({100 * a / total:.0f} % of the data)")
        for _, v, a in allocs
    ]
    evidence += [("Pool allocated", fmt_bytes(total)), ("Fill spread", f"{spread:.1f} points")]
    evidence += _add_evidence(pool, vdevs)
    full_late, empty_late = _added_later(pool, full), _added_later(pool, empty)
    if full_late or (full_i > empty_i and not empty_late):
        cause = "data deleted"
        order = "a `zpool add` the paste shows" if full_late else f"its place after {empty.name}"
        story = (
            f"{full.name} was added later (by {order}), yet it holds the data: what was written before it was added has since been deleted, and "
            f"what remains was written while {empty.name} was fuller and the allocator favoured "
            f"the new vdev's free space. That is how the data was deleted, not the allocator "
            "at fault. "
        )
    else:
        cause = f"{empty.name} {'' if empty_late else 'probably '}added after the data was written"
        when = (
            "was added (by a `zpool add` the paste shows) after this data was written"
            if empty_late
            else f"was most likely added after this data was written (`zpool history {pool.name}` "
            "shows the `zpool add`)"
        )
        story = (
            f"{empty.name} holds almost nothing: it {when}, and whatever was written since has "
            "mostly been deleted again. The allocator did not cause it. "
        )
    why = (
        f"The vdevs are the same size and the pool is nearly empty, so their fill % differ by "
        f"only {spread:.1f} points, but {full.name} holds {100 * share:.0f} % of the "
        f"{fmt_bytes(total)} allocated. ZFS weighs each new allocation by the vdevs' free space "
        "(and, since 0.7, by how fast they complete writes), so equal healthy vdevs take new "
        "writes about evenly: an uneven share records the pool's history. "
        + story
        + "It costs no capacity: new writes spread by free space and the vdevs fill at about "
        f"the same time. Reads of the existing data all come from {full.name}, at one vdev's "
        "speed. Rewrite that data only if its read performance matters. " + REBALANCE
    )
    return Finding(
        ID,
        Severity.INFO,
        pool.name,
        pool.name,
        "pool",
        title=f"{pool.name}: {full.name} holds {100 * share:.0f} % of the data on equal vdevs ({cause})",
        why=why,
        evidence=tuple(evidence),
        actions=(act("Show when vdevs were added and data destroyed", None, "zpool", "history", pool.name),),
    )
