"""Mirrors that pair a solid-state disk with a hard disk, of unequal sizes, under steady writes:
a layout a new user builds from what is at hand. The hard disk of each mirror is slower by
design; only a disk that is slower than its design is sick.

    mirror-0: s1 (SSD, 384M)  s2 (HDD, 384M)
    mirror-1: g1 (SSD, 2G)    g2 (HDD, 2G)

How the media are made in the VM, and why it is faithful to what zdash reads on a real host:

- every disk is a RAM-backed null_blk device (tests/zfs/lab.py: Lab.nullb) under a dm-delay
  device at 0 ms (the switch that makes one sick);
- an SSD serves 32 requests at a time in SSD_US each: flash, rotational 0 (null_blk's own flag);
- an HDD serves one request at a time in HDD_US: one actuator with a 7,200 rpm disk's random
  access time (seek plus half a turn), so about 125 IOPS, and requests queue behind each other
  (a busier hard disk waits longer, as a real one does: the skew unequal vdevs create);
  rotational 1 in sysfs, the flag a SATA/SAS driver sets for a spinning disk;
- zdash reads the flag where it reads it on any host: /sys/block/dm-N/queue/rotational, which
  device-mapper takes from the disk beneath at every table load;
- a sick disk: its dm-delay switched live to SICK_MS per I/O (a disk retrying reads,
  remapping sectors), ONSET_S into the recording; until then the run is the healthy one.

Unequal sizes matter: ZFS writes more to the emptier, larger vdev, so mirror-1 does several times
the work of mirror-0, and g2 queues more than s2: a disk compared with the other vdev's looks
slow when it is only loaded (what zdash said before it compared a disk with its own vdev).

Scenarios: `mixed-healthy` (no fault: no slow-disk verdict at any tick; the media-mix finding on
each mirror instead), `mixed-sick-hdd` (g2 gets SICK_MS on top of its medium: named, told apart from
its medium by the other HDD, s2), `mixed-sick-ssd` (g1 gets SICK_MS: an SSD slower
than the HDD beside it is never by design). Used by tests/zfs/test_mixed_media_live.py (each
once) and tests/zfs/bursty_hits.py (each N times, as hit rates). Runs inside the lab only.
"""

from __future__ import annotations

import time

from tests.zfs.bursty import Run, record_run
from tests.zfs.lab import Lab, sh

POOL = "mixed"
HDD_US = 8000
SSD_US = 100
SICK_MS = 400  # ~10x what the emulator's HDDs wait under this load: a disk retrying, not seeking
ONSET_S = 30.0  # a healthy half minute first: the mix judged, no disk called slow
RECORD_S = 75.0  # a sick scenario's lasts until bursty.AFTER_ONSET_S past its switch if that is later
SCENARIOS = ("mixed-healthy", "mixed-sick-hdd", "mixed-sick-ssd")
# name: (MiB, rotational)
DISKS = {"s1": (384, False), "s2": (384, True), "g1": (2048, False), "g2": (2048, True)}
SICK = {"mixed-sick-hdd": "g2", "mixed-sick-ssd": "g1"}
SICK_VDEV = "mirror-1"  # g1 and g2: the second mirror `build` creates
# steady streaming writes (a copy, a backup landing): every tick busy, the larger mirror given
# the larger share; fio's Lab.load arguments
LOAD: dict[str, object] = {"size": "256M", "rate": None, "rw": "write", "bs": "1m", "fsync": 0}
MEDIA_CHECK = "media_mix"
# What the scenario brings by design, at any severity (not false alarms): the media mix, and
# "filling" (steady writes into a 2.4 GiB pool: full within the hour at the rate measured, true)
EXPECTED = frozenset({MEDIA_CHECK, "capacity"})


def dm_name(disk: str) -> str:
    return f"{POOL}_{disk}"


def build(lab: Lab) -> dict[str, str]:
    """The pool; returns each disk's path (/dev/mapper/mixed_g2) by its short name."""
    paths = {}
    for d, (mib, rotational) in DISKS.items():
        if rotational:
            disk = lab.nullb(dm_name(d) + "_raw", mib, HDD_US, depth=1, rotational=True)
        else:
            disk = lab.nullb(dm_name(d) + "_raw", mib, SSD_US, depth=32, rotational=False)
        paths[d] = lab.delayed(dm_name(d), disk, 0)
    # no compression: fio's data does not compress, and trying costs the emulated CPU
    lab.pool(
        POOL,
        "mirror",
        paths["s1"],
        paths["s2"],
        "mirror",
        paths["g1"],
        paths["g2"],
        opts=("-O", "compression=off"),
    )
    lab.fill(f"/{POOL}/old", 16)
    sh("zpool", "scrub", "-w", POOL)  # a never-scrubbed pool is worth a note, not this test's point
    return paths


def media(run: Run, at: int = -1) -> dict[str, str]:
    """The media-mix findings at a tick: severity by vdev."""
    return {s: sev for c, sev, s, _ in run.ticks[at].findings if c == MEDIA_CHECK}


def run(lab: Lab, scenario: str, path: str, seconds: float = RECORD_S) -> Run:
    """One scenario, start to end: build, steady writes, record (the sick disk's onset ONSET_S
    in), stop the load, replay."""
    t0 = time.monotonic()
    paths = build(lab)
    sick = SICK.get(scenario)
    result = Run(scenario, paths[sick] if sick else None, None, expected=EXPECTED)
    # fio's own bound, generous: a slow switch lengthens the recording, and the load is stopped
    # when it ends anyway
    load = lab.load(f"/{POOL}", int(seconds) + 300, **LOAD)  # type: ignore[arg-type]
    dm = dm_name(sick) if sick else None
    onset = (dm, SICK_MS, ONSET_S) if dm else None
    return record_run(result, path, POOL, seconds, load, onset, dm, t0)
