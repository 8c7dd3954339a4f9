"""Join the per-command results onto the status tree. Pure: parsed records in, new Pools out.

The tree comes from `zpool status` (the only output that keeps depth); `zpool list -v -H` and
`zpool iostat -v -H` lose depth (reference §1.3, §2.3), so their rows are matched to tree nodes
by pool and by name (iostat runs with -P, so a leaf row carries its path).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence, Set

from zdash.media import medium
from zdash.model import MeasureLayout, Measures, Pool, Vdev, evolve
from zdash.parse.devices import DeviceFacts
from zdash.parse.diskstats import DiskRates
from zdash.parse.reuse import Reuse
from zdash.parse.zpool_history import History
from zdash.parse.zpool_iostat import IostatReport
from zdash.parse.zpool_list import ListPool

NodeChanges = Callable[[Vdev, int], "dict[str, object] | None"]


def map_tree(v: Vdev, fn: Callable[[Vdev, int], Vdev], depth: int = 0) -> Vdev:
    """Rebuild a vdev tree bottom-up, letting fn replace fields of each node."""
    kids = tuple(map_tree(c, fn, depth + 1) for c in v.children)
    node = evolve(v, children=kids) if any(a is not b for a, b in zip(kids, v.children)) else v
    return fn(node, depth)


def _changed_tree(
    v: Vdev, fns: Sequence[NodeChanges], depth: int = 0, reuse: Reuse[tuple[Vdev, Vdev]] | None = None
) -> Vdev:
    """Rebuild a vdev tree bottom-up with each fn's changes to each node (fields the fns share
    none of), one new node per node changed: unchanged subtrees are kept as they are. `reuse`:
    what the same fns made of each leaf last time, by the leaf's identity (the caller drops it
    when the fns' inputs change)."""
    if reuse is not None and not v.children:
        known = (id(v), depth)  # the leaf itself is kept in the value: its id stays its own
        hit = reuse.get(known)
        if hit is not None and hit[0] is v:
            return hit[1]
        node = _changed_tree(v, fns, depth)
        reuse.put(known, (v, node))
        return node
    kids = tuple(_changed_tree(c, fns, depth + 1, reuse) for c in v.children)
    changes: dict[str, object] = {}
    for fn in fns:
        found = fn(v, depth)  # the fns read only fields no fn changes (names, kind, children)
        if found:
            changes.update(found)
    if any(a is not b for a, b in zip(kids, v.children)):
        changes["children"] = kids
    return evolve(v, **changes) if changes else v


def _space(listed: ListPool) -> NodeChanges:
    """Top-level rows carry alloc/free/frag/cap; leaf rows only their physical size (2.1.6+)."""
    by_name = {r.name: r for r in listed.vdevs}

    def fn(v: Vdev, depth: int) -> dict[str, object] | None:
        r = by_name.get(v.name) or (by_name.get(v.path) if v.path else None)
        if depth == 0 or r is None:
            return None
        if depth == 1:  # a single-disk top-level row shows the raw disk size: use alloc+free
            return {
                "size": r.space if r.space is not None else r.size,
                "alloc": r.alloc,
                "free": r.free,
                "frag_pct": r.frag_pct,
                "cap_pct": r.cap_pct,
            }
        return {"size": r.size} if v.is_leaf and r.size else None

    return fn


def _pool_space(pool: Pool, listed: ListPool) -> Pool:
    return evolve(
        pool,
        size=listed.size,
        alloc=listed.alloc,
        free=listed.free,
        frag_pct=listed.frag_pct,
        cap_pct=listed.cap_pct,
        dedup_ratio=listed.dedup_ratio,
    )


def _ashift(ashift: Mapping[str, int]) -> NodeChanges:
    def fn(v: Vdev, depth: int) -> dict[str, object] | None:
        a = ashift.get(v.name) if depth == 1 else None
        if a is None and depth == 1 and v.path:  # get all-vdevs names a disk by its short name
            a = ashift.get(v.path, ashift.get(v.path.rsplit("/", 1)[-1]))
        return {"ashift": a} if a is not None else None

    return fn


def _facts(devices: Mapping[str, DeviceFacts]) -> NodeChanges:
    """Kernel device, sector size, rotational flag, medium and model per leaf (they change only
    with the tree)."""

    def fn(v: Vdev, depth: int) -> dict[str, object] | None:
        facts = devices.get(v.path) if v.is_leaf and v.path else None
        if facts is None:
            return None
        return {
            "device": facts.device,
            "native_sector": facts.native_sector,
            "rotational": facts.rotational,
            "medium": medium(facts.rotational, facts.transport),
            "model": facts.model,
        }

    return fn


def attach_space(pool: Pool, listed: ListPool | None) -> Pool:
    """Top-level rows carry alloc/free/frag/cap; leaf rows only their physical size (2.1.6+)."""
    if listed is None:
        return pool
    return _pool_space(evolve(pool, root=_changed_tree(pool.root, [_space(listed)])), listed)


def attach_ashift(pool: Pool, ashift: Mapping[str, int] | None) -> Pool:
    if not ashift:
        return pool
    return evolve(pool, root=_changed_tree(pool.root, [_ashift(ashift)]))


def attach_history(pool: Pool, history: History) -> Pool:
    """The devices `zpool history` (or a transcript) shows a `zpool add` or a `zpool attach` of
    this pool naming."""
    added, attached = history.added.get(pool.name), history.attached.get(pool.name)
    if not (added or attached):
        return pool
    return evolve(pool, added_devices=added or (), attached_devices=attached or ())


def attach_facts(pool: Pool, devices: Mapping[str, DeviceFacts]) -> Pool:
    """Kernel device, sector size and rotational flag per leaf (they change only with the tree)."""
    return evolve(pool, root=_changed_tree(pool.root, [_facts(devices)]))


def attach_structure(
    pool: Pool,
    listed: ListPool | None,
    ashift: Mapping[str, int] | None,
    devices: Mapping[str, DeviceFacts],
    reuse: Reuse[tuple[Vdev, Vdev]] | None = None,
) -> Pool:
    """attach_facts(attach_ashift(attach_space(pool, listed), ashift), devices) in one pass over
    the tree: each node rebuilt once, not three times (every few seconds, on a 1,000-disk tree).
    `reuse`: what this made last time with the same listed, ashift and devices (each leaf; the
    whole tree when the pool's tree is the one it had, or equal to it)."""
    fns = [
        *([_space(listed)] if listed is not None else []),
        *([_ashift(ashift)] if ashift else []),
        _facts(devices),
    ]
    if reuse is None:
        root = _changed_tree(pool.root, fns, 0)
    else:  # the same tree as last time (a new status that moved only its scan): the same result
        root = reuse.whole(
            ("attached", pool.name), pool.root, lambda: _changed_tree(pool.root, fns, 0, reuse)
        )
    pool = evolve(pool, root=root)
    return _pool_space(pool, listed) if listed is not None else pool


def iostat_blocks(names: Sequence[str], pool_names: Set[str]) -> dict[str, tuple[int, int]]:
    """Each pool's rows of one report, (start, end): a row named like a pool starts that pool's
    block (its own row first), which runs to the next pool's row."""
    out: dict[str, tuple[int, int]] = {}
    current: str | None = None
    for i, name in enumerate(names):
        if name in pool_names and name not in out:
            if current is not None:
                out[current] = (out[current][0], i)
            current = name
            out[name] = (i, len(names))
    return out


def measure_layout(
    pool: Pool, names: Sequence[str], block: tuple[int, int] | None, disk_index: Mapping[str, int]
) -> MeasureLayout:
    """Where each node of the pool's tree finds its figures: its row in the report `names` (the
    pool's root: its block's first row; any other node: the first row of the block named like it
    or its path), and its device's row in the disk rates (`disk_index`)."""
    by_key: dict[str, int] = {}
    if block is not None:
        for i in range(block[0] + 1, block[1]):
            by_key.setdefault(names[i], i)
    nodes = tuple(pool.root.walk())
    io_rows: list[int] = []
    disk_rows: list[int] = []
    get = by_key.get
    for v in nodes:
        if v is pool.root:
            row = block[0] if block is not None else None
        else:
            row = get(v.name)
            if row is None and v.path:
                row = get(v.path)
        io_rows.append(-1 if row is None else row)
        d = disk_index.get(v.device) if v.device is not None else None
        disk_rows.append(-1 if d is None else d)
    return MeasureLayout(nodes, io_rows, disk_rows)


def _spaced(
    root: Vdev, lay: MeasureLayout, report: IostatReport
) -> tuple[Vdev, tuple[tuple[Vdev, int], ...]]:
    """The root with each top-level vdev's space as iostat's row gives it, and the nodes made
    for that (with the slot each stands for): the tick before's when no figure moved (a steady
    pool's space moves only as it is written to), the tree's own when iostat says the same."""
    rows, slot = lay.io_rows, lay.slot
    alloc, free = report.alloc, report.free
    want: list[tuple[int, int | None] | None] = []
    for v in root.children:
        r = rows[slot[id(v)]]
        a = alloc[r] if r >= 0 else None
        # iostat lists no spares: a row of a spare's name is the disk standing in, inside
        # spare-N, whose 0 / 0 under -p is no space of the spare's own
        if a is None or v.vclass == "spare" or (a, free[r]) == (v.alloc, v.free):
            want.append(None)
        else:
            want.append((a, free[r]))
    if not any(want):
        return root, ()
    last = lay.spaced
    if last is not None and last[0] == want:
        return last[1], last[2]
    extra: list[tuple[Vdev, int]] = []
    kids: list[Vdev] = []
    for v, w in zip(root.children, want):
        if w is not None:
            spaced = evolve(v, alloc=w[0], free=w[1])
            extra.append((spaced, slot[id(v)]))
            v = spaced
        kids.append(v)
    new_root = evolve(root, children=tuple(kids))
    extra.append((new_root, slot[id(root)]))
    lay.spaced = (want, new_root, tuple(extra))
    return new_root, tuple(extra)


def attach_measures(
    pool: Pool, lay: MeasureLayout, report: IostatReport | None, disks: DiskRates | None
) -> Pool:
    """This tick's figures on the pool as columns (Pool.measures, over `lay`, which must be of
    this pool's tree): iostat's rates on every vdev, the kernel's diskstats on every leaf with a
    device, and iostat's ALLOC/FREE on the pool and its top-level vdevs. Those are the same
    counters `zpool list -v` prints (vs_alloc, vs_space - vs_alloc), exact under -p, so
    capacity is current every tick while `zpool list` (size, fragmentation, leaf sizes) runs
    only now and then. The tree is the same objects as the tick before (a top-level vdev whose
    space moved, and the root above it, made anew)."""
    if not report and not disks:
        return pool
    root, extra = _spaced(pool.root, lay, report) if report else (pool.root, ())
    top = lay.io_rows[lay.slot[id(pool.root)]] if report else -1
    measures = Measures(
        lay,
        report.io if report else None,
        disks.at if disks else None,
        extra,
        report.columns if report else None,
        disks.columns if disks else None,
    )
    if top >= 0 and report is not None and report.alloc[top] is not None and report.free[top] is not None:
        return evolve(pool, root=root, measures=measures, alloc=report.alloc[top], free=report.free[top])
    return evolve(pool, root=root, measures=measures)
