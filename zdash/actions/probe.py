"""Host facts about a device a plan would write to, read without changing anything.

Why these sources: sysfs gives size and sector sizes without opening the device; /proc/self/mounts
and /proc/swaps say what the kernel is using; `blkid -p` (low-level probe, no cache) reads the
on-disk signatures, which is exactly what `zpool attach/replace` itself consults (libblkid in
cmd/zpool/zpool_vdev.c) before it refuses with "is part of active pool" or "contains a
filesystem". It also finds exported pools and pools of other hosts, which no `zpool status`
shows. `zdb -l` would too, but it is slower, prints pages, and its exit status has changed
between releases. The probe is a class so tests inject a fake one.
"""

from __future__ import annotations

import os
import stat
import subprocess
from dataclasses import dataclass
from typing import Literal, TypeAlias

from zdash.sources.runner import command_env

# Where zpool itself looks up a bare name (zpool_default_search_paths, Linux).
SEARCH = (
    "/dev",
    "/dev/disk/by-vdev",
    "/dev/disk/by-id",
    "/dev/disk/by-path",
    "/dev/mapper",
    "/dev/disk/by-uuid",
    "/dev/disk/by-partuuid",
    "/dev/disk/by-label",
    "/dev/disk/by-partlabel",
)


# What is at a path: a block device, a regular file, nothing, something else (a directory, a
# character device); unknown: not looked at, there is no host to probe (replay).
DeviceKind: TypeAlias = Literal["block", "file", "missing", "other", "unknown"]
# (kernel name, TYPE, LABEL) of one blkid signature: ("sdb1", "zfs_member", "tank").
Signature: TypeAlias = tuple[str, str, str]


@dataclass(frozen=True, slots=True)
class DeviceInfo:
    path: str  # absolute, as the argv will carry it
    exists: bool
    kind: DeviceKind = "missing"
    realpath: str | None = None
    kernel: str | None = None  # sdb1, loop3, dm-0
    size: int | None = None  # bytes; 0 for a detached loop device / no medium
    logical_sector: int | None = None
    physical_sector: int | None = None
    parent: str | None = None  # the whole disk of a partition
    partitions: tuple[str, ...] = ()
    holders: tuple[str, ...] = ()  # dm / md devices stacked on it or its partitions
    mounts: tuple[str, ...] = ()  # mountpoints (or "swap") of it or its partitions
    signatures: tuple[Signature, ...] = ()
    probe_error: str | None = None  # why signatures are unknown (no blkid...)
    stable_aliases: tuple[str, ...] = ()  # /dev/disk/by-id links to the same node


def resolve(name: str) -> str:
    """A bare name the way zpool resolves it; the plan's argv then carries the absolute path,
    so what runs is what was checked."""
    if name.startswith("/"):
        return name
    for d in SEARCH:
        p = os.path.join(d, name)
        if os.path.lexists(p):
            return p
    return os.path.join("/dev", name)


def _read(path: str) -> str | None:
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def _int(path: str) -> int | None:
    text = _read(path)
    return int(text) if text and text.isdigit() else None


class HostProbe:
    def __init__(
        self,
        sys_block: str = "/sys/class/block",
        mounts: str = "/proc/self/mounts",
        swaps: str = "/proc/swaps",
        blkid: str = "blkid",
        by_id: str = "/dev/disk/by-id",
    ) -> None:
        self.sys_block, self.mounts_file, self.swaps_file = sys_block, mounts, swaps
        self.blkid, self.by_id = blkid, by_id

    def info(self, name: str) -> DeviceInfo:
        path = resolve(name)
        try:
            st = os.stat(path)
        except OSError:
            return DeviceInfo(path, exists=False)
        real = os.path.realpath(path)
        if stat.S_ISREG(st.st_mode):
            return DeviceInfo(path, True, "file", real, size=st.st_size)
        if not stat.S_ISBLK(st.st_mode):
            return DeviceInfo(path, True, "other", real)
        kernel = self._kernel(st)
        base = f"{self.sys_block}/{kernel}"
        parent = None
        if os.path.exists(f"{base}/partition"):
            parent = os.path.basename(os.path.dirname(os.path.realpath(base)))
        queue = f"{self.sys_block}/{parent or kernel}/queue"
        parts = tuple(
            sorted(
                p
                for p in self._listdir(os.path.realpath(base))
                if p.startswith(kernel) and os.path.exists(f"{base}/{p}/partition")
            )
        )
        family = (kernel, *parts)
        holders = tuple(h for k in family for h in self._listdir(f"{self.sys_block}/{k}/holders"))
        sigs, err = self._signatures(family)
        size = _int(f"{base}/size")
        return DeviceInfo(
            path,
            True,
            "block",
            real,
            kernel,
            None if size is None else size * 512,
            _int(f"{queue}/logical_block_size"),
            _int(f"{queue}/physical_block_size"),
            parent,
            parts,
            holders,
            self._mounted(family),
            sigs,
            err,
            self._aliases(real),
        )

    def size(self, name: str) -> int | None:
        """Just the size (sysfs, no blkid): for the disk being mirrored or replaced."""
        path = resolve(name)
        try:
            st = os.stat(path)
        except OSError:
            return None
        if stat.S_ISREG(st.st_mode):
            return st.st_size
        if not stat.S_ISBLK(st.st_mode):
            return None
        sectors = _int(f"{self.sys_block}/{self._kernel(st)}/size")
        return None if not sectors else sectors * 512

    def _kernel(self, st: os.stat_result) -> str:
        """The sysfs name from the device number: right even for /dev/mapper names and
        renamed nodes, where the path's last component is not the kernel name."""
        link = f"/sys/dev/block/{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}"
        return os.path.basename(os.path.realpath(link))

    @staticmethod
    def _listdir(path: str) -> list[str]:
        try:
            return os.listdir(path)
        except OSError:
            return []

    def _mounted(self, family: tuple[str, ...]) -> tuple[str, ...]:
        out = []
        for line in (_read(self.mounts_file) or "").splitlines():
            cols = line.split()
            if len(cols) > 1 and cols[0].startswith("/dev/") and self._is(cols[0], family):
                out.append(cols[1].encode().decode("unicode_escape"))  # \040 for spaces
        for line in (_read(self.swaps_file) or "").splitlines()[1:]:
            cols = line.split()
            if cols and self._is(cols[0], family):
                out.append("swap")
        return tuple(out)

    @staticmethod
    def _is(dev_path: str, family: tuple[str, ...]) -> bool:
        return os.path.basename(os.path.realpath(dev_path)) in family

    def _signatures(self, family: tuple[str, ...]) -> tuple[tuple[Signature, ...], str | None]:
        """Each on-disk signature of the disk and its partitions, or () and why not known."""
        sigs: list[Signature] = []
        for k in family:
            if not os.access(f"/dev/{k}", os.R_OK):  # blkid says "nothing found" (2) then too
                return (), f"cannot read /dev/{k} (not root?): on-disk labels were not checked"
            try:
                p = subprocess.run(
                    [self.blkid, "-p", "-o", "export", f"/dev/{k}"],
                    capture_output=True,
                    text=True,
                    timeout=15,
                    env=command_env(),
                    stdin=subprocess.DEVNULL,
                )
            except FileNotFoundError:
                return (), "blkid is not installed: on-disk labels were not checked"
            except (OSError, subprocess.TimeoutExpired) as e:
                return (), f"blkid failed on /dev/{k}: {e}"
            if p.returncode == 2:  # nothing found: an empty device
                continue
            fields = dict(line.split("=", 1) for line in p.stdout.splitlines() if "=" in line)
            if p.returncode != 0 and not fields:
                return (), f"blkid -p /dev/{k} exited {p.returncode}: {p.stderr.strip()[:120]}"
            if fields.get("TYPE"):  # a bare partition table (PTTYPE) is no use: zpool relabels it
                sigs.append((k, fields["TYPE"], fields.get("LABEL", "")))
        return tuple(sigs), None

    def _aliases(self, real: str) -> tuple[str, ...]:
        names = [
            n for n in self._listdir(self.by_id) if os.path.realpath(os.path.join(self.by_id, n)) == real
        ]
        names.sort(key=lambda n: (not n.startswith("wwn-"), n))  # wwn- survives enclosures best
        return tuple(os.path.join(self.by_id, n) for n in names)


class ReplayProbe(HostProbe):
    """For replay and training: the recording holds no facts about spare disks on the recording
    host, and this host's disks are not that host's. Host checks say "not checked"."""

    def info(self, name: str) -> DeviceInfo:
        return DeviceInfo(resolve(name), exists=False, kind="unknown")

    def size(self, name: str) -> int | None:
        return None
