"""Which disks stand under a leaf's path, and what the kernel log calls them.

Inputs are raw command outputs, the same on this host and over ssh:
- the `devices` sample (path -> kernel name, zdash.parse.devices);
- `lsblk -P -n -o KNAME,PKNAME,TYPE,NAME,TRAN,HCTL` (lsblk_argv): one line per device and
  parent, so a dm or multipath device appears once per device under it;
- `readlink -f -- /sys/class/block/DISK …` (sysfs_argv): each disk's sysfs path, where the ATA
  port (`…/ata3/host2/…`) and the NVMe controller (`…/nvme/nvme0/nvme0n1`) show, names the
  kernel log uses for the disk (`ata3: hard resetting link`, `nvme nvme0: I/O 12 QID 3 timeout`).

A partition resolves to its disk, a dm device (crypt, LVM, dm-delay) to the disks under it, a
multipath device to its paths (one disk: one SMART reading serves). A file vdev, a loop device
(a file under it) and a path the host cannot resolve have no disk, and say why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from zdash.model import LeafDisks
from zdash.parse import ParseError
from zdash.parse.devices import DeviceFacts

LSBLK_COLUMNS = "KNAME,PKNAME,TYPE,NAME,TRAN,HCTL"
_PAIR = re.compile(r'([A-Z:-]+)="((?:[^"\\]|\\.)*)"')
_HEX = re.compile(r"\\x([0-9a-fA-F]{2})")
_DISK_TYPES = frozenset({"disk", "rom"})
_NVME_NS = re.compile(r"(nvme\d+)n\d+(?:p\d+)?\Z")
_PART_SUFFIX = re.compile(r"(?:-part\d+|(?<=\d)p\d+|(?<=[a-z])\d+)\Z")
_SYS_NAMES = (re.compile(r"/(ata\d+)/"), re.compile(r"/nvme/(nvme\d+)/"), re.compile(r"/(host\d+)/"))
MAX_DEPTH = 8  # dm over dm over a partition…: deeper than this is a loop in garbage


@dataclass(frozen=True, slots=True)
class BlockDev:
    kname: str
    parents: tuple[str, ...]  # the devices it sits on (lsblk PKNAME), none for a disk
    kind: str  # lsblk TYPE: disk, part, dm, mpath, crypt, lvm, loop, raid1, ...
    name: str  # lsblk NAME: the mapper name for dm devices
    transport: str | None
    hctl: str | None


def lsblk_argv() -> tuple[str, ...]:
    return ("lsblk", "-P", "-n", "-o", LSBLK_COLUMNS)


def sysfs_argv(disks: list[str]) -> tuple[str, ...]:
    return ("readlink", "-f", "--", *(f"/sys/class/block/{d}" for d in disks))


def parse_lsblk(text: str) -> dict[str, BlockDev]:
    if not isinstance(text, str):
        raise ParseError(f"lsblk: expected text, got {type(text).__name__}")
    devs: dict[str, BlockDev] = {}
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        pairs = {k: _HEX.sub(lambda m: chr(int(m.group(1), 16)), v) for k, v in _PAIR.findall(line)}
        kname = pairs.get("KNAME")
        if not kname or "/" in kname:
            raise ParseError(f"lsblk line {n}: no KNAME: {line.strip()[:60]!r}")
        parent = pairs.get("PKNAME") or ""
        old = devs.get(kname)
        parents = (old.parents if old else ()) + (
            (parent,) if parent and parent not in (old.parents if old else ()) else ()
        )
        devs[kname] = BlockDev(
            kname,
            parents,
            pairs.get("TYPE") or (old.kind if old else "?"),
            pairs.get("NAME") or kname,
            pairs.get("TRAN") or None,
            pairs.get("HCTL") or None,
        )
    return devs


def parse_sysfs(text: str) -> dict[str, str]:
    """kernel name -> its sysfs device path (the last component is the name)."""
    if not isinstance(text, str):
        raise ParseError(f"readlink: expected text, got {type(text).__name__}")
    return {
        line.rstrip("/").rsplit("/", 1)[-1]: line for line in text.splitlines() if line.startswith("/sys/")
    }


def resolve(
    facts: dict[str, DeviceFacts], devs: dict[str, BlockDev] | None, sysfs: dict[str, str] | None = None
) -> tuple[LeafDisks, ...]:
    """Each leaf path's disks, names and reasons (devs None: lsblk could not be read)."""
    return tuple(_leaf(path, fact.device, devs, sysfs or {}) for path, fact in sorted(facts.items()))


def _leaf(path: str, kname: str | None, devs: dict[str, BlockDev] | None, sysfs: dict[str, str]) -> LeafDisks:
    alias = _aliases(path)
    if not kname:
        why = (
            "its path does not resolve to a block device on this host"
            if path.startswith("/dev/")
            else "a file vdev: there is no disk under it"
        )
        return LeafDisks(path, None, why_not=why)
    if devs is None or kname not in devs:
        guess = (
            _PART_SUFFIX.sub("", kname)
            if re.fullmatch(r"(sd[a-z]+|vd[a-z]+|nvme\d+n\d+)(p?\d+)?", kname)
            else None
        )
        if guess:  # no lsblk (not Linux, or not installed): the usual naming tells the disk
            names = _names({kname, guess}, alias, {}, devs or {}, sysfs)
            return LeafDisks(path, kname, (guess,), names)
        return LeafDisks(path, kname, why_not=f"lsblk does not list {kname}: its disks are unknown")
    seen: set[str] = set()
    disks: list[str] = []
    kinds: set[str] = set()
    stack = [(kname, 0)]
    while stack:
        name, depth = stack.pop()
        if name in seen or depth > MAX_DEPTH:
            continue
        seen.add(name)
        dev = devs.get(name)
        if dev is None:
            continue
        kinds.add(dev.kind)
        if dev.kind in _DISK_TYPES or (not dev.parents and dev.kind != "loop"):
            disks.append(name)
        stack.extend((p, depth + 1) for p in dev.parents)
    transport = next((devs[d].transport for d in disks if devs[d].transport), None)
    names = _names(seen, alias, {d: devs[d] for d in seen if d in devs}, devs, sysfs)
    if "loop" in kinds and not disks:
        return LeafDisks(
            path, kname, (), names, f"{kname} is a loop device over a file: no SMART", "mpath" in kinds
        )
    if not disks:
        return LeafDisks(path, kname, (), names, f"no disk found under {kname}")
    return LeafDisks(path, kname, tuple(sorted(disks)), names, None, "mpath" in kinds, transport)


def _names(
    knames: set[str],
    alias: set[str],
    chain: dict[str, BlockDev],
    devs: dict[str, BlockDev],
    sysfs: dict[str, str],
) -> tuple[str, ...]:
    names = set(knames) | alias
    for dev in chain.values():
        names.add(dev.name)  # the mapper name of a dm device: "slowdisk"
        if dev.hctl:
            names.add(dev.hctl)  # "sd 2:0:0:0: [sdb] …"
    for kname in knames:
        m = _NVME_NS.match(kname)
        if m:
            names.add(m.group(1))  # nvme0n1 -> the controller, nvme0
        path = sysfs.get(kname)
        if path:
            for pattern in _SYS_NAMES[:2]:  # ata3, nvme0 (hostN is too general to search for)
                found = pattern.search(path)
                if found:
                    names.add(found.group(1))
    # the partitions of the disks (a disk's log lines may name them: "sdb1: …")
    for dev in devs.values():
        if dev.kind == "part" and any(p in knames for p in dev.parents):
            names.add(dev.kname)
    return tuple(sorted(n for n in names if n))


def _aliases(path: str) -> set[str]:
    """The leaf's own path's last component and, for a by-id/by-path partition link, the whole
    disk's (what ZFS's own kernel messages and udev print)."""
    if not path.startswith("/dev/"):
        return set()
    base = path.rsplit("/", 1)[-1]
    out = {base}
    if "/by-" in path:
        out.add(re.sub(r"-part\d+\Z", "", base))
    return out
