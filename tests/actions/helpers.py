"""Snapshots and host facts for the action tests: model objects built directly, and a probe
that answers from a dict instead of sysfs/blkid."""

from __future__ import annotations

from tests.checks.builders import leaf, mirror, pool, raidz, scan
from zdash.actions.probe import DeviceInfo, HostProbe
from zdash.model import Dataset, Pool, Scan, Snapshot, SourceState, Vdev

MiB = 1 << 20
GiB = 1 << 30
T0 = 1_700_000_000.0


class FakeProbe(HostProbe):
    def __init__(self, devices: dict[str, DeviceInfo] | None = None, sizes: dict[str, int] | None = None):
        super().__init__()
        self.devices = dict(devices or {})
        self.sizes = dict(sizes or {})
        self.asked: list[str] = []

    def info(self, name: str) -> DeviceInfo:
        path = name if name.startswith("/") else f"/dev/{name}"
        self.asked.append(path)
        return self.devices.get(path, DeviceInfo(path, exists=False))

    def size(self, name: str) -> int | None:
        return self.sizes.get(name)


def disk(
    path: str, size: int = GiB, *, kernel: str | None = None, phys: int = 4096, logical: int = 512, **kw
) -> DeviceInfo:
    """A free, healthy block device."""
    kernel = kernel or path.rsplit("/", 1)[-1]
    return DeviceInfo(
        path, True, "block", kw.pop("realpath", f"/dev/{kernel}"), kernel, size, logical, phys, **kw
    )


def sdisk(name: str, size: int = GiB, **kw) -> Vdev:
    """A pool leaf with a known physical size (zpool list -v 2.1.6+)."""
    return leaf(name, size=size, **kw)


def snap(*pools: Pool, datasets: tuple[Dataset, ...] = (), status_ok: bool = True) -> Snapshot:
    src = (SourceState("status", status_ok, 0.0, None if status_ok else "zpool status: timed out"),)
    return Snapshot(
        T0, tuple(pools), datasets, src, host="host", zfs_version="zfs-2.3.2-2~bpo12+2", interval=1.0
    )


def single_disk_pool(name: str = "tank", size: int = GiB, ashift: int = 12) -> Pool:
    top = Vdev(
        name="sdb",
        kind="disk",
        state="ONLINE",
        path="/dev/sdb",
        guid="guid-sdb",
        device="sdb",
        size=size - 16 * MiB,
        alloc=300 * MiB,
        free=size - 316 * MiB,
        ashift=ashift,
        native_sector=4096,
    )
    return pool(name, top)


def two_way(
    name: str = "tank",
    states=("ONLINE", "ONLINE"),
    aux=(None, None),
    ashift: int = 12,
    scans: tuple[Scan, ...] = (),
) -> Pool:
    a = sdisk("sda", state=states[0], aux=aux[0])
    b = sdisk("sdb", state=states[1], aux=aux[1])
    return pool(
        name, mirror(0, a, b, ashift=ashift, size=GiB, alloc=400 * MiB, free=GiB - 400 * MiB), scans=scans
    )


__all__ = [
    "T0",
    "Dataset",
    "DeviceInfo",
    "FakeProbe",
    "GiB",
    "MiB",
    "Vdev",
    "disk",
    "leaf",
    "mirror",
    "pool",
    "raidz",
    "scan",
    "sdisk",
    "single_disk_pool",
    "snap",
    "two_way",
]
