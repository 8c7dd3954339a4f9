"""Host facts that no zpool command gives: per-disk I/O counters and what a leaf path really is.

Both are recorded as raw text samples, like command output, so a replay joins leaves to disks
exactly as the live run did (the replaying laptop has no /dev/mapper/slowdisk).
"""

from __future__ import annotations

import os
import time

from zdash.raw import RawSample

DISKSTATS = "/proc/diskstats"


def read_diskstats(path: str = DISKSTATS) -> RawSample:
    """The kernel's counters, verbatim. Where the file is missing (not Linux) psutil's
    counters are written in the same column layout, so one parser serves both."""
    now = time.time()
    try:
        with open(path, encoding="ascii", errors="replace") as f:
            return RawSample("diskstats", ("cat", path), 0, f.read(), "", now, 0.0)
    except OSError as e:
        text = _psutil_as_diskstats()
        if text is None:
            return RawSample(
                "diskstats",
                ("cat", path),
                None,
                "",
                "",
                now,
                0.0,
                f"no per-disk counters: {path}: {e.strerror}; psutil has none either",
            )
        return RawSample("diskstats", ("psutil", "disk_io_counters"), 0, text, "", now, 0.0)


def _psutil_as_diskstats() -> str | None:
    try:
        import psutil

        counters = psutil.disk_io_counters(perdisk=True)
    except Exception:  # noqa: BLE001 - psutil raises a variety of platform errors; any of them means "none"
        return None
    if not counters:
        return None
    lines = []
    for name, c in sorted(counters.items()):
        busy = getattr(c, "busy_time", 0)  # the %UTIL field; absent on some platforms
        lines.append(
            f"0 0 {name} {c.read_count} 0 {c.read_bytes // 512} {c.read_time} "
            f"{c.write_count} 0 {c.write_bytes // 512} {c.write_time} 0 {busy} 0"
        )
    return "\n".join(lines) + "\n"


def kernel_device(path: str) -> str | None:
    """/dev/disk/by-id/wwn-…-part1 → sdb1, /dev/mapper/slow → dm-0, /dev/loop0 → loop0.
    None for file vdevs and paths that no longer exist."""
    if not path.startswith("/dev/"):
        return None
    real = os.path.realpath(path)
    if not real.startswith("/dev/") or not os.path.exists(real):
        return None
    return real[len("/dev/") :].replace("/", "!")  # cciss/c0d0 appears as cciss!c0d0 in sysfs


def _sys_block_dir(dev: str) -> str | None:
    """The /sys/block/<disk> of a device; a partition's queue/ lives on its parent disk."""
    cls = f"/sys/class/block/{dev}"
    if not os.path.exists(cls):
        return None
    real = os.path.realpath(cls)
    if os.path.exists(os.path.join(real, "partition")):
        real = os.path.dirname(real)
    return real


def _read_int(path: str) -> int | None:
    try:
        with open(path) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None


# Where a disk hangs in /sys/devices says how it is attached (what lsblk's TRAN column says):
# the first of these path parts found, nearest the disk first.
TRANSPORT_PARTS = (
    ("/usb", "usb"),  # a USB bridge, whatever the disk behind it speaks
    ("/nvme", "nvme"),
    ("/end_device-", "sas"),
    ("/rport-", "fc"),
    ("/session", "iscsi"),
    ("/ata", "sata"),
    ("/virtio", "virtio"),
    ("/mmc_host", "mmc"),
)
SLAVES_FOLLOWED = 4  # dm over dm over a partition: the medium is the disk at the bottom


def transport_of(sys_path: str) -> str | None:
    """How a disk is attached, from its /sys/devices path (the realpath of /sys/block/<disk>):
    .../0000:00:09.0/nvme/nvme0/nvme0n1 is "nvme", .../usb2/2-1/.../block/sdc is "usb"."""
    for part, name in TRANSPORT_PARTS:
        if part in sys_path:
            return name
    return None


def clean_model(raw: str) -> str | None:
    """A disk's model as the device reports it, printable and short (a USB bridge or a remote
    host can claim anything; it is shown on a terminal and in a tab-separated sample)."""
    text = " ".join("".join(c if c.isprintable() else " " for c in raw[:200]).split())[:40]
    return text or None


def _model(block_dir: str) -> str | None:
    """The disk's model (SCSI, SATA, NVMe: device/model in sysfs)."""
    try:
        with open(os.path.join(block_dir, "device", "model"), errors="replace") as f:
            return clean_model(f.read(200))
    except OSError:
        return None


def _underlying(block_dir: str) -> str:
    """The disk beneath a dm or md device with exactly one (a crypt, a delay, one linear
    slice): its medium is the device's. A device over several disks keeps its own."""
    for _ in range(SLAVES_FOLLOWED):
        try:
            slaves = os.listdir(os.path.join(block_dir, "slaves"))
        except OSError:
            return block_dir
        if len(slaves) != 1:
            return block_dir
        below = _sys_block_dir(slaves[0])
        if below is None:
            return block_dir
        block_dir = below
    return block_dir


def _field(value: object) -> str:
    return "-" if value is None else str(value).replace("\t", " ")


def describe_devices(paths: list[str]) -> RawSample:
    """One line per leaf path: path, kernel device, physical sector bytes, rotational (1/0),
    transport (nvme, sata, usb...), model; tab-separated, '-' where unknown. Cheap (sysfs
    reads), run when the tree changes."""
    now = time.time()
    lines = []
    for p in sorted(set(paths)):
        dev = kernel_device(p)
        phys = rot = transport = model = None
        if dev:
            base = _sys_block_dir(dev)
            if base:
                phys = _read_int(os.path.join(base, "queue", "physical_block_size"))
                rot = _read_int(os.path.join(base, "queue", "rotational"))
                disk = _underlying(base)
                transport = transport_of(disk)
                model = _model(disk)
        lines.append("\t".join(_field(x) for x in (p, dev, phys, rot, transport, model)))
    return RawSample(
        "devices", ("zdash", "describe-devices"), 0, "\n".join(lines) + "\n", "", now, time.time() - now
    )
