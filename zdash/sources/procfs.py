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


def describe_devices(paths: list[str]) -> RawSample:
    """One line per leaf path: path, kernel device, physical sector bytes, rotational (1/0),
    tab-separated, '-' where unknown. Cheap (sysfs reads), run when the tree changes."""
    now = time.time()
    lines = []
    for p in sorted(set(paths)):
        dev = kernel_device(p)
        phys = rot = None
        if dev:
            base = _sys_block_dir(dev)
            if base:
                phys = _read_int(os.path.join(base, "queue", "physical_block_size"))
                rot = _read_int(os.path.join(base, "queue", "rotational"))
        lines.append("\t".join(str(x) if x is not None else "-" for x in (p, dev, phys, rot)))
    return RawSample(
        "devices", ("zdash", "describe-devices"), 0, "\n".join(lines) + "\n", "", now, time.time() - now
    )
