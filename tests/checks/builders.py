"""Small builders for hand-made snapshots: a test states only what matters to it.

Latencies are given in ms here (converted to the model's ns), sizes in bytes, times in seconds.
"""

from __future__ import annotations

from collections.abc import Callable

from zdash.checks.finding import Finding, Severity
from zdash.media import medium
from zdash.model import Dataset, DiskIo, IoStats, Pool, Scan, Snapshot, Vdev

MiB = 1 << 20
GiB = 1 << 30
T0 = 1_700_000_000.0
DAY = 86400.0


def leaf(
    name: str,
    *,
    util: float | None = None,
    read_ms: float | None = None,
    write_ms: float | None = None,
    read_bps: float = 0.0,
    write_bps: float = 0.0,
    io: bool = True,
    state: str = "ONLINE",
    kind: str = "disk",
    errors=(0, 0, 0),
    slow_ios: int | None = None,
    native_sector: int | None = None,
    physical_ashift: int | None = None,
    rotational: bool | None = None,
    transport: str | None = None,
    model: str | None = None,
    aux: str | None = None,
    path: str | None = None,
    vclass: str = "normal",
    **space,
) -> Vdev:
    return Vdev(
        name=name,
        kind=kind,
        state=state,
        vclass=vclass,
        path=path if path is not None else (name if name.startswith("/") else f"/dev/{name}"),
        guid=f"guid-{name}",
        read_errors=errors[0],
        write_errors=errors[1],
        checksum_errors=errors[2],
        slow_ios=slow_ios,
        aux=aux,
        native_sector=native_sector,
        physical_ashift=physical_ashift,
        rotational=rotational,
        medium=medium(rotational, transport),
        model=model,
        device=None if kind == "file" else name,
        io=IoStats(
            read_ops=read_bps / 65536,
            write_ops=write_bps / 65536,
            read_bytes=read_bps,
            write_bytes=write_bps,
            disk_wait_read=None if read_ms is None else read_ms * 1e6,
            disk_wait_write=None if write_ms is None else write_ms * 1e6,
        )
        if io
        else None,
        disk=DiskIo(device=name, util_pct=util) if util is not None else None,
        **space,
    )


def on_medium(name: str, rotational: bool, util: float, write_ms: float, /, **kw):
    """A leaf busy on a medium (solid-state or rotational) with a typical %util and write wait,
    at 4 MiB/s of writes unless told: the media-mix and slow-peer tests' disks."""
    kw.setdefault("util", util)
    kw.setdefault("write_ms", write_ms)
    kw.setdefault("write_bps", 4 * MiB)
    return leaf(name, rotational=rotational, **kw)


def space(size: int, fill_pct: float) -> dict:
    """size/alloc/free kwargs for a top-level vdev filled to fill_pct."""
    alloc = round(size * fill_pct / 100)
    return {"size": size, "alloc": alloc, "free": size - alloc}


def mirror(
    index: int,
    *leaves: Vdev,
    state: str = "ONLINE",
    ashift: int | None = 12,
    vclass: str = "normal",
    **space_kw,
) -> Vdev:
    return Vdev(
        name=f"mirror-{index}",
        kind="mirror",
        state=state,
        vclass=vclass,
        children=tuple(leaves),
        guid=f"guid-mirror-{index}",
        ashift=ashift,
        **space_kw,
    )


def raidz(
    index: int, *leaves: Vdev, parity: int = 1, state: str = "ONLINE", ashift: int | None = 12, **space_kw
) -> Vdev:
    return Vdev(
        name=f"raidz{parity}-{index}",
        kind=f"raidz{parity}",
        state=state,
        children=tuple(leaves),
        guid=f"guid-raidz-{index}",
        ashift=ashift,
        **space_kw,
    )


def pool(name: str, *tops: Vdev, state: str = "ONLINE", **kw) -> Pool:
    if "size" not in kw:
        sizes = [t.size for t in tops if t.size is not None and t.vclass == "normal"]
        allocs = [t.alloc for t in tops if t.alloc is not None and t.vclass == "normal"]
        if sizes and len(allocs) == len(sizes):
            kw.update(size=sum(sizes), alloc=sum(allocs), free=sum(sizes) - sum(allocs))
    root = Vdev(name=name, kind="root", state=state, children=tuple(tops), guid=f"guid-{name}")
    return Pool(name=name, state=state, root=root, guid=f"guid-{name}", **kw)


def snap(
    t: float,
    *pools: Pool,
    datasets: tuple[Dataset, ...] = (),
    zfs_version: str | None = "zfs-2.3.2-2~bpo12+2",
) -> Snapshot:
    return Snapshot(time=t, pools=tuple(pools), datasets=datasets, zfs_version=zfs_version, interval=1.0)


def history(
    make_pool: Callable[[int], Pool | tuple[Pool, ...]],
    n: int,
    *,
    interval: float = 1.0,
    start: float = T0,
    **snap_kw,
) -> list[Snapshot]:
    """n snapshots, oldest first; make_pool(i) builds the pool(s) of sample i."""
    out = []
    for i in range(n):
        made = make_pool(i)
        pools = made if isinstance(made, tuple) else (made,)
        out.append(snap(start + i * interval, *pools, **snap_kw))
    return out


def scan(function: str = "scrub", state: str = "finished", **kw) -> Scan:
    return Scan(function=function, state=state, **kw)


def fs(name: str, **kw) -> Dataset:
    kw.setdefault("kind", "filesystem")
    kw.setdefault("compression", "on")
    kw.setdefault("atime", "off")
    kw.setdefault("xattr", "sa")
    kw.setdefault("dedup", "off")
    return Dataset(name=name, **kw)


def healthy_two_mirrors(i: int = 0, *, fill: float = 15.0, load: bool = True) -> Pool:
    """Two 2-way mirrors of equal 1 GiB disks under even load (the `healthy` capture)."""

    def disk(name: str, util: float) -> Vdev:
        if not load:
            return leaf(name, util=0.0)
        return leaf(
            name,
            util=util,
            read_ms=4.0 + (i % 3) * 0.5,
            write_ms=6.0 + (i % 2),
            read_bps=20 * MiB,
            write_bps=10 * MiB,
        )

    return pool(
        "tank",
        mirror(0, disk("sda", 40.0), disk("sdb", 44.0), **space(GiB, fill)),
        mirror(1, disk("sdc", 42.0), disk("sdd", 38.0), **space(GiB, fill + 0.1)),
        scans=(scan(end_time=T0 - 3 * DAY, start_time=T0 - 3 * DAY - 600, processed=0, errors=0),),
    )


def by_check(findings: list[Finding], check: str) -> list[Finding]:
    return [f for f in findings if f.check == check]


def one(findings: list[Finding], **match) -> Finding:
    hits = [f for f in findings if all(getattr(f, k) == v for k, v in match.items())]
    assert len(hits) == 1, f"expected one finding matching {match}, got {[f.title for f in findings]}"
    return hits[0]


def evidence(f: Finding) -> dict[str, str]:
    return dict(f.evidence)


def worst(findings: list[Finding]) -> Severity | None:
    return max((f.severity for f in findings), default=None)
