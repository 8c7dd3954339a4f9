"""How many more device failures each top-level vdev can absorb *now*: the one redundancy model
that every check, finding text and repair plan uses.

A top-level vdev is a set of *columns*: a mirror's sides, a raidz/draid vdev's members, or the
one disk of a single-disk vdev. An interior `replacing-N` or `spare-N` vdev is one column: it is
whole when any of its children is. A leaf column is whole when ZFS serves from it and it holds a
complete copy:

- ONLINE and not being resilvered ("(resilvering)" / the new side of a running replace): a disk
  that is still being written is not yet a copy;
- not DEGRADED: ZED degrades a disk after too many checksum or slow-I/O errors; ZFS still reads
  from it, but a vdev that rests on it rests on a failing disk, so it does not count as a
  reliable copy here (the health finding says it is still in service);
- OFFLINE, FAULTED, UNAVAIL, REMOVED and missing devices serve nothing.

Then: a mirror of n sides survives (whole sides - 1) more failures; raidzN and draidN survive
N - (missing columns), a draid rebuilt onto a distributed spare counting that spare as its
column; a single disk survives none. `left` < 0 means the vdev has already lost data it needs:
the pool cannot serve it.

ZFS's own word on a vdev counts where the tree shown does not say more (a paste cut short, an
import listing): a top-level vdev ZFS calls DEGRADED while every device shown under it is whole
is missing at least one member not shown; one it calls FAULTED or UNAVAIL is lost; a
`replacing-N`/`spare-N` it calls UNAVAIL (or FAULTED, OFFLINE, REMOVED) is not whole whatever
its children say; a mirror/raidz/draid printed without its children is judged by its state
alone.

Pure, on the model only.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from zdash.model import AUX_CLASSES, CANNOT_SERVE, UNSEEN, Pool, Vdev, VdevClass, evolve

_PARITY = re.compile(r"^(?:raidz|draid)([1-3])")
INTERIOR_KINDS = frozenset({"mirror", "raidz1", "raidz2", "raidz3", "draid"})
NOT_SERVING = frozenset({"UNAVAIL", "FAULTED", "OFFLINE", "REMOVED"})


@dataclass(frozen=True, slots=True)
class Margin:
    """The redundancy of one top-level vdev as it stands."""

    top: Vdev
    design: int  # failures it absorbs when every column is whole (mirror n-1, raidzN N, single 0)
    left: int  # failures it absorbs now; < 0: the vdev cannot serve all its data
    whole: tuple[Vdev, ...]  # the leaves that hold the data now (one per whole column)
    lost: tuple[Vdev, ...]  # leaves of columns that are not whole (offline, failed, missing)
    rebuilding: tuple[Vdev, ...]  # leaves being resilvered: copies once the resilver ends
    degraded: tuple[Vdev, ...]  # leaves ZFS still reads from but marked DEGRADED
    spares: tuple[Vdev, ...]  # hot spares (or draid distributed spares) standing in

    @property
    def reduced(self) -> bool:
        return self.left < self.design

    @property
    def exhausted(self) -> bool:
        """No failure left to absorb although the vdev was built with some: one more loses data."""
        return self.design > 0 and self.left == 0

    @property
    def lost_vdev(self) -> bool:
        return self.left < 0

    def describe(self) -> str:
        """'mirror-1 can lose 1 more disk' / 'mirror-1 has no redundancy left' / '... is lost'."""
        if self.left < 0:
            return f"{self.top.name} has lost more devices than it can survive"
        if self.left == 0:
            return (
                f"{self.top.name} has no redundancy left"
                if self.design
                else f"{self.top.name} has no redundancy"
            )
        return f"{self.top.name} can lose {self.left} more disk{'s' if self.left > 1 else ''}"


def _childless(top: Vdev) -> bool:
    """A mirror/raidz/draid printed without its children (an excerpt cut after its row)."""
    return not top.children and top.kind in INTERIOR_KINDS


def parity(top: Vdev) -> int:
    """Failures the vdev is built to survive (a mirror shown without its sides: at least 1)."""
    if _childless(top):
        m = _PARITY.match(top.name) or _PARITY.match(top.kind)
        return int(m.group(1)) if m is not None else 1
    if top.is_leaf:
        return 0
    m = _PARITY.match(top.name) or _PARITY.match(top.kind)
    if m is not None:
        return int(m.group(1))
    if top.kind in ("raidz", "draid"):
        return 1
    if top.kind == "mirror":
        return max(len(top.children) - 1, 0)
    return 0


def rebuilding(leaf: Vdev) -> bool:
    """Marked as being written by a resilver/rebuild: not yet a complete copy. ("(repairing)" is
    a scrub fixing blocks on a disk that is otherwise complete: still a copy.)"""
    return "resilvering" in (leaf.aux or "") or "awaiting resilver" in (leaf.aux or "")


def resilver_running(pool: Pool) -> bool:
    return any(
        s.function in ("resilver", "rebuild") and s.state in ("scanning", "paused") for s in pool.scans
    )


def _whole_leaf(leaf: Vdev, without: Vdev | None, spread: bool = False) -> bool:
    # UNSEEN: the source had no state (an iostat paste); unknown is not counted as a loss.
    # spread: a member of a dRAID, whose "(resilvering)" says it receives a slice of the
    # distributed spare being rebuilt, while it still holds all of its own columns.
    return leaf is not without and leaf.state in ("ONLINE", UNSEEN) and (spread or not rebuilding(leaf))


def _spread(top: Vdev) -> bool:
    """A dRAID rebuilds onto its distributed spare, whose blocks live on every member: zpool
    marks every member "(resilvering)" while it runs (openzfs/zfs#12877, rouben/zfswatcher#24),
    though each member still holds its own data. Counted as missing, every one of them made a
    serving draid3 "lost". (Inside a spare-N or replacing-N column the mark keeps its meaning.)"""
    return top.kind == "draid"


def _running(col: Vdev, resilvering: bool | None) -> bool:
    """A resilver writes into this replacing/spare column now. `resilvering` None: no scan line
    was seen (a paste without it). A replacing-N exists only until its resilver ends (ZFS then
    detaches the old side), so one whose old side no longer serves is read as still being
    rebuilt; a spare-N stays after its resilver, so it is not (FreeNAS 8, corpus 120)."""
    if col.kind == "spare":
        return bool(resilvering)
    if col.kind != "replacing":
        return False
    if resilvering is None:
        return bool(col.children) and col.children[0].state in NOT_SERVING
    return resilvering


def _column_whole(col: Vdev, without: Vdev | None, resilvering: bool | None, spread: bool = False) -> bool:
    if col.is_leaf:
        return _whole_leaf(col, without, spread)
    if col.state in NOT_SERVING:
        return False  # ZFS's own word on the replacing/spare vdev: neither side serves
    # replacing-N / spare-N: one column, whole when either side holds the data. The side being
    # brought in (every child after the first) holds it only once no resilver is running: zpool
    # marks it "(resilvering)" only after the resilver has written to it, not from its start.
    running = _running(col, resilvering)
    return any(
        _column_whole(c, without, resilvering) for i, c in enumerate(col.children) if not (i > 0 and running)
    )


def _incoming(col: Vdev, resilvering: bool | None) -> list[Vdev]:
    """The devices a running resilver is writing into a replacing/spare column."""
    if col.is_leaf or not _running(col, resilvering):
        return []
    return [leaf for c in col.children[1:] for leaf in _leaves(c) if leaf.state == "ONLINE"]


def _leaves(v: Vdev) -> Iterator[Vdev]:
    return v.leaves() if not v.is_leaf else iter((v,))


def margin(top: Vdev, without: Vdev | None = None, resilvering: bool | None = False) -> Margin:
    """The margin of a top-level vdev, optionally as it would be if `without` stopped serving
    (what `zpool offline`/`detach` of that leaf would leave). `resilvering`: a resilver or
    rebuild is running in the pool (see resilver_running); None: unknown, no scan line seen."""
    design = parity(top)
    if _childless(top):
        return _by_state(top, design)
    columns = (top,) if top.is_leaf else top.children
    spread = _spread(top)
    whole_cols = [c for c in columns if _column_whole(c, without, resilvering, spread)]
    missing = len(columns) - len(whole_cols)
    leaves = [leaf for c in columns for leaf in _leaves(c)]
    if (
        not top.is_leaf
        and missing == 0
        and top.state == "DEGRADED"
        and all(leaf.state == "ONLINE" and (spread or not rebuilding(leaf)) for leaf in leaves)
    ):
        missing = 1  # ZFS says DEGRADED and nothing shown explains it: a member is not shown
        if top.kind == "mirror":
            design += 1  # its missing side was built into it too
    if top.kind == "mirror" or top.is_leaf:
        left = len(whole_cols) - 1  # a side inferred missing above was never a shown column
    else:
        left = design - missing
    if not top.is_leaf and top.state in CANNOT_SERVE:
        left = min(left, -1)  # ZFS's word: the vdev cannot serve its data
    incoming = [leaf for c in columns for leaf in _incoming(c, resilvering)]
    building = [leaf for leaf in leaves if (rebuilding(leaf) or leaf in incoming) and leaf is not without]
    whole = tuple(leaf for leaf in leaves if _whole_leaf(leaf, without) and leaf not in building)
    return Margin(
        top=top,
        design=design,
        left=left,
        whole=whole,
        lost=tuple(
            leaf
            for c in columns
            if not _column_whole(c, without, resilvering, spread)
            for leaf in _leaves(c)
            if not _whole_leaf(leaf, without) and leaf not in building
        ),
        rebuilding=tuple(building),
        degraded=tuple(leaf for leaf in leaves if leaf.state == "DEGRADED" and leaf is not without),
        spares=tuple(
            leaf
            for c in columns
            if c.kind == "spare"
            for leaf in c.children[1:]  # spare-N: the original first, then the spare(s)
        ),
    )


def _by_state(top: Vdev, design: int) -> Margin:
    """A mirror/raidz/draid shown without its devices: what its own state says."""
    if top.state in ("ONLINE", UNSEEN):
        left = design
    elif top.state == "DEGRADED":
        left = design - 1
    else:
        left = -1
    return Margin(top, design, left, (), (), (), (), ())


def margins(
    pool: Pool,
    classes: tuple[VdevClass, ...] = ("normal", "special", "dedup", "log"),
    joining: frozenset[str] = frozenset(),
    known: MarginMemo | None = None,
) -> list[Margin]:
    """Every top-level vdev of the given classes (cache and spares hold no pool data).

    `joining`: keys of leaves known to have been *attached* (zdash saw them arrive, or a
    transcript's `zpool attach` names them). A mirror side still being resilvered after its
    attach is redundancy being added: the vdev is judged as it was before (a single disk made a
    mirror is not a mirror that lost a side). Without that knowledge a side being resilvered is
    one that is not a copy yet, whatever brought it.

    `known`: the margins worked out last time (see MarginMemo); a vdev that is the same object
    as then, with a resilver running or not as then, has the same margin."""
    # No scan line at all (a paste cut above the table): whether a resilver runs is unknown.
    resilvering = resilver_running(pool) or (None if not pool.scans else False)
    tops = [
        _before_attach(top, joining, resilvering)
        for top in pool.top_level
        if top.vclass in classes and top.kind not in ("hole", "indirect") and not _unshown(top)
    ]
    if known is None:
        return [margin(top, resilvering=resilvering) for top in tops]
    return [known.margin(top, resilvering) for top in tops]


class MarginMemo:
    """Margins by the vdev they were worked out for, kept while it is the same object: a tree is
    immutable, and the fold hands the same objects again while `zpool status` reads the same
    (zdash.parse.reuse). Two generations: what the last pass used is what the next may reuse,
    so it holds one pool's worth of vdevs and never grows. Keyed by whether a resilver runs,
    then by the vdev's id: ints, not a tuple per vdev per pass for the collector to walk."""

    __slots__ = ("_last", "_now")

    def __init__(self) -> None:
        self._last: dict[bool | None, dict[int, Margin]] = {}
        self._now: dict[bool | None, dict[int, Margin]] = {}

    def margin(self, top: Vdev, resilvering: bool | None) -> Margin:
        key = id(top)
        now = self._now.get(resilvering)
        if now is None:
            now = self._now[resilvering] = {}
        hit = now.get(key)
        if hit is None:
            last = self._last.get(resilvering)
            hit = last.get(key) if last is not None else None
        if hit is None or hit.top is not top:  # (an id is unique only while its object lives)
            hit = margin(top, resilvering=resilvering)
        now[key] = hit
        return hit

    def next_pass(self) -> None:
        self._last, self._now = self._now, {}


def unshown_losses(pool: Pool) -> list[tuple[Vdev, tuple[Vdev, ...]]]:
    """Each vdev the source did not show, with the devices under it that serve nothing: its
    layout, and so what it can still survive, is unknown (a paste of bare device rows)."""
    out = []
    for top in pool.top_level:
        if top.vclass in AUX_CLASSES or not _unshown(top):
            continue
        lost = tuple(leaf for leaf in top.leaves() if leaf.state in NOT_SERVING)
        if lost:
            out.append((top, lost))
    return out


def _before_attach(top: Vdev, joining: frozenset[str], resilvering: bool | None) -> Vdev:
    """A mirror without the sides being attached to it (still resilvering); itself otherwise."""
    if not joining or top.kind != "mirror":
        return top
    kept = tuple(
        c
        for c in top.children
        if not (c.is_leaf and c.key in joining and (rebuilding(c) or resilvering is not False))
    )
    return evolve(top, children=kept) if kept and len(kept) < len(top.children) else top


def _unshown(top: Vdev) -> bool:
    """A vdev the source did not show (a paste of one device row): its layout, and so its
    redundancy, is unknown."""
    return top.state == UNSEEN and top.children != () and top.kind not in INTERIOR_KINDS


def top_of(pool: Pool, leaf: Vdev) -> Vdev | None:
    """The top-level vdev holding a leaf (the leaf itself for a single-disk vdev)."""
    return next((top for top in pool.top_level if any(x is leaf for x in _leaves(top))), None)
