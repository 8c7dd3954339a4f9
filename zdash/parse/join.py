"""Join the per-command results onto the status tree. Pure: parsed records in, new Pools out.

The tree comes from `zpool status` (the only output that keeps depth); `zpool list -v -H` and
`zpool iostat -v -H` lose depth (reference §1.3, §2.3), so their rows are matched to tree nodes
by pool and by name (iostat runs with -P, so a leaf row carries its path).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence, Set

from zdash.model import DiskIo, Pool, Vdev, evolve
from zdash.parse.devices import DeviceFacts
from zdash.parse.zpool_iostat import IostatRow
from zdash.parse.zpool_list import ListPool


def map_tree(v: Vdev, fn: Callable[[Vdev, int], Vdev], depth: int = 0) -> Vdev:
    """Rebuild a vdev tree bottom-up, letting fn replace fields of each node."""
    kids = tuple(map_tree(c, fn, depth + 1) for c in v.children)
    node = evolve(v, children=kids) if any(a is not b for a, b in zip(kids, v.children)) else v
    return fn(node, depth)


def attach_space(pool: Pool, listed: ListPool | None) -> Pool:
    """Top-level rows carry alloc/free/frag/cap; leaf rows only their physical size (2.1.6+)."""
    if listed is None:
        return pool
    by_name = {r.name: r for r in listed.vdevs}

    def fn(v: Vdev, depth: int) -> Vdev:
        r = by_name.get(v.name) or (by_name.get(v.path) if v.path else None)
        if depth == 0 or r is None:
            return v
        if depth == 1:  # a single-disk top-level row shows the raw disk size: use alloc+free
            return evolve(
                v,
                size=r.space if r.space is not None else r.size,
                alloc=r.alloc,
                free=r.free,
                frag_pct=r.frag_pct,
                cap_pct=r.cap_pct,
            )
        return evolve(v, size=r.size) if v.is_leaf and r.size else v

    root = map_tree(pool.root, fn)
    return evolve(
        pool,
        root=root,
        size=listed.size,
        alloc=listed.alloc,
        free=listed.free,
        frag_pct=listed.frag_pct,
        cap_pct=listed.cap_pct,
        dedup_ratio=listed.dedup_ratio,
    )


def attach_ashift(pool: Pool, ashift: Mapping[str, int] | None) -> Pool:
    if not ashift:
        return pool

    def fn(v: Vdev, depth: int) -> Vdev:
        a = ashift.get(v.name) if depth == 1 else None
        if a is None and depth == 1 and v.path:  # get all-vdevs names a disk by its short name
            a = ashift.get(v.path, ashift.get(v.path.rsplit("/", 1)[-1]))
        return evolve(v, ashift=a) if a is not None else v

    return evolve(pool, root=map_tree(pool.root, fn))


def attach_history(pool: Pool, added: Mapping[str, tuple[str, ...]]) -> Pool:
    """The devices `zpool history` (or a transcript) shows a `zpool add` of this pool naming."""
    devices = added.get(pool.name)
    return evolve(pool, added_devices=devices) if devices else pool


def attach_facts(pool: Pool, devices: Mapping[str, DeviceFacts]) -> Pool:
    """Kernel device, sector size and rotational flag per leaf (they change only with the tree)."""

    def fn(v: Vdev, depth: int) -> Vdev:
        facts = devices.get(v.path) if v.is_leaf and v.path else None
        if facts is None:
            return v
        return evolve(v, device=facts.device, native_sector=facts.native_sector, rotational=facts.rotational)

    return evolve(pool, root=map_tree(pool.root, fn))


def split_iostat_by_pool(rows: Iterable[IostatRow], pool_names: Set[str]) -> dict[str, list[IostatRow]]:
    """Rows of one report in order; a row named like a pool starts that pool's block."""
    out: dict[str, list[IostatRow]] = {}
    current: str | None = None
    for r in rows:
        if r.name in pool_names and r.name not in out:
            current = r.name
            out[current] = []
        if current is not None:
            out[current].append(r)
    return out


def attach_measurements(pool: Pool, rows: Sequence[IostatRow] | None, disks: Mapping[str, DiskIo]) -> Pool:
    """This tick's figures in one pass: iostat's rates (rows: this pool's, the first being the
    pool itself) on every vdev, the kernel's diskstats on every leaf with a device, and iostat's
    ALLOC/FREE on the pool and its top-level vdevs. Those are the same counters `zpool list -v`
    prints (vs_alloc, vs_space - vs_alloc), exact under -p, so capacity is current every tick
    while `zpool list` (size, fragmentation, leaf sizes) runs only now and then."""
    if not rows and not disks:
        return pool
    by_key: dict[str, IostatRow] = {}
    top = None
    if rows:
        top = rows[0]
        for r in rows[1:]:
            by_key.setdefault(r.name, r)

    # Every leaf changes every tick, so every node does: rebuilt directly, no change test.
    def measured(v: Vdev, top_level: bool = False) -> Vdev:
        kids = tuple(map(measured, v.children)) if v.children else v.children
        row = by_key.get(v.name) or (by_key.get(v.path) if v.path else None)
        disk = disks.get(v.device) if v.device is not None else None
        space = {"alloc": row.alloc, "free": row.free} if top_level and row and row.alloc is not None else {}
        return evolve(
            v,
            children=kids,
            io=row.io if row is not None else v.io,
            disk=disk if disk is not None else v.disk,
            **space,
        )

    root = pool.root
    kids = tuple(measured(c, True) for c in root.children)
    if top is None:
        return evolve(pool, root=evolve(root, children=kids))
    space = {"alloc": top.alloc, "free": top.free} if top.alloc is not None and top.free is not None else {}
    return evolve(pool, root=evolve(root, children=kids, io=top.io), **space)
