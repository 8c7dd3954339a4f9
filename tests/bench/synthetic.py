"""Synthetic hosts shaped like real ones, for benchmarks and scale tests: the raw samples one
zdash tick holds (`zpool status -j --json-int -p -s`, `zpool list -v -H -p -P`, one `zpool
iostat -v -H -p -l -y -P -T u` report, /proc/diskstats, the devices sample), in the exact
layouts of OpenZFS 2.3.2 as captured in tests/captures, for any number of disks.

    host = SyntheticHost(leaves=1000, layout="raidz2", width=10)
    ticks = [host.tick(i) for i in range(600)]

Deterministic (seeded); one disk per 97 can be made slow (`slow_every`) so the checks have
something to find. Status and list come every `structure_every` ticks like the live source.
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass, field

from zdash.parse.zfs_list import zfs_list_argv
from zdash.raw import RawSample, Tick

T0 = 1_795_318_800.0
STATUS_ARGV = ("zpool", "status", "-j", "--json-int", "-p", "-s")
LIST_ARGV = ("zpool", "list", "-v", "-H", "-p", "-P")
IOSTAT_ARGV = ("zpool", "iostat", "-v", "-H", "-p", "-l", "-y", "-P", "-T", "u", "1")
DISK = 8 << 40  # 8 TiB disks


@dataclass
class SyntheticHost:
    leaves: int = 100
    layout: str = "mirror"  # mirror | raidz2
    width: int = 2  # disks per top-level vdev
    pool: str = "tank"
    structure_every: int = 5
    slow_every: int = 0  # every Nth disk answers 10x slower (0: none)
    # ZFS's event log: this many history events an hour (a `zfs snapshot` from cron on each of
    # many datasets: what most of a real log is), the last hour's at the start as the event
    # follower's first read gives them, then one as each comes.
    history_events_per_hour: int = 0
    delay_events_every: int = 0  # each slow disk's delay ereport every N ticks (0: none)
    # `zfs list`: this many filesystems with this many auto-snapshots each, every filesystem's
    # first snapshot cloned once, some clones diverged (answered at the start and every minute)
    filesystems: int = 0
    snapshots_each: int = 0
    seed: int = 1
    _rng: random.Random = field(init=False)
    _io: dict[str, list[int]] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)
        self.width = 2 if self.layout == "mirror" else max(self.width, 4)
        self.tops = max(1, self.leaves // self.width)
        self.paths = [f"/dev/disk/by-id/wwn-0x5000c5{i:010x}-part1" for i in range(self.tops * self.width)]
        self.kernel = [_sd_name(i) + "1" for i in range(len(self.paths))]

    # --- the tree -----------------------------------------------------------------------
    def _top_name(self, t: int) -> str:
        return f"mirror-{t}" if self.layout == "mirror" else f"raidz2-{t}"

    def _members(self, t: int) -> range:
        return range(t * self.width, (t + 1) * self.width)

    def status(self, now: float) -> RawSample:
        alloc_top = DISK * self.width // 4
        tops = {}
        for t in range(self.tops):
            kids = {}
            for i in self._members(t):
                kids[self.paths[i]] = {
                    "name": self.paths[i],
                    "vdev_type": "disk",
                    "guid": 10**15 + i,
                    "path": self.paths[i],
                    "class": "normal",
                    "state": "ONLINE",
                    "rep_dev_size": DISK,
                    "phys_space": DISK,
                    "read_errors": 0,
                    "write_errors": 0,
                    "checksum_errors": 0,
                    "slow_ios": 0,
                }
            tops[self._top_name(t)] = {
                "name": self._top_name(t),
                "vdev_type": "mirror" if self.layout == "mirror" else "raidz",
                "guid": 10**12 + t,
                "class": "normal",
                "state": "ONLINE",
                "alloc_space": alloc_top,
                "total_space": DISK * self.width,
                "def_space": DISK * self.width,
                "read_errors": 0,
                "write_errors": 0,
                "checksum_errors": 0,
                "vdevs": kids,
            }
        root = {
            "name": self.pool,
            "vdev_type": "root",
            "guid": 42,
            "class": "normal",
            "state": "ONLINE",
            "alloc_space": alloc_top * self.tops,
            "total_space": DISK * self.width * self.tops,
            "def_space": DISK * self.width * self.tops,
            "read_errors": 0,
            "write_errors": 0,
            "checksum_errors": 0,
            "vdevs": tops,
        }
        doc = {
            "output_version": {"command": "zpool status", "vers_major": 0, "vers_minor": 1},
            "pools": {
                self.pool: {
                    "name": self.pool,
                    "state": "ONLINE",
                    "pool_guid": 42,
                    "txg": 4,
                    "spa_version": 5000,
                    "zpl_version": 5,
                    "vdevs": {self.pool: root},
                    "error_count": 0,
                    "scan_stats": {
                        "function": "SCRUB",
                        "state": "FINISHED",
                        "start_time": int(now) - 86400,
                        "end_time": int(now) - 80000,
                        "to_examine": 10**12,
                        "examined": 10**12,
                        "skipped": 0,
                        "processed": 0,
                        "errors": 0,
                        "bytes_per_scan": 0,
                        "pass_start": int(now) - 86400,
                        "scrub_pause": 0,
                        "scrub_spent_paused": 0,
                        "issued_bytes_per_scan": 10**12,
                        "issued": 10**12,
                    },
                }
            },
        }
        return RawSample("status", STATUS_ARGV, 0, json.dumps(doc), "", now, 0.05)

    def list_v(self, now: float) -> RawSample:
        size = DISK * self.width * self.tops
        alloc = size // 4
        lines = [f"{self.pool}\t{size}\t{alloc}\t{size - alloc}\t-\t-\t3\t25\t1.00\tONLINE\t-"]
        for t in range(self.tops):
            s = DISK * self.width
            lines.append(f"\t{self._top_name(t)}\t{s}\t{s // 4}\t{s - s // 4}\t-\t-\t3\t25\t-\tONLINE")
            lines += [f"\t{self.paths[i]}\t{DISK}\t-\t-\t-\t-\t-\t-\t-\tONLINE" for i in self._members(t)]
        return RawSample("list", LIST_ARGV, 0, "\n".join(lines) + "\n", "", now, 0.05)

    # --- per tick ----------------------------------------------------------------------
    def _slow(self, i: int) -> bool:
        return bool(self.slow_every) and i % self.slow_every == self.slow_every - 1

    def iostat(self, now: float) -> RawSample:
        rng = self._rng
        rows, top_rows = [], []
        pool_w = pool_r = 0
        for t in range(self.tops):
            leaf_rows, tw, tr = [], 0, 0
            for i in self._members(t):
                w_ops, r_ops = rng.randint(80, 120), rng.randint(20, 40)
                w_b, r_b = w_ops * 131072, r_ops * 131072
                lat = (40_000_000 if self._slow(i) else 2_000_000) + rng.randint(0, 500_000)
                tw, tr = tw + w_b, tr + r_b
                leaf_rows.append(
                    f"{self.paths[i]}\t0\t0\t{r_ops}\t{w_ops}\t{r_b}\t{w_b}\t{lat}\t{lat + 100000}"
                    f"\t{lat // 2}\t{lat // 2 + 1000}\t-\t-\t{lat // 4}\t{lat // 4}\t-\t-\t-"
                )
            top_rows.append((t, tw, tr, leaf_rows))
            pool_w, pool_r = pool_w + tw, pool_r + tr
        rows.append(
            f"{self.pool}\t{DISK * self.tops}\t{DISK * self.tops * 3}\t60\t200\t{pool_r}\t{pool_w}"
            "\t2000000\t2100000\t1000000\t1001000\t-\t-\t500000\t500000\t-\t-\t-"
        )
        for t, tw, tr, leaf_rows in top_rows:
            rows.append(
                f"{self._top_name(t)}\t{DISK}\t{DISK * 3}\t60\t200\t{tr}\t{tw}\t2000000\t2100000"
                "\t1000000\t1001000\t-\t-\t500000\t500000\t-\t-\t-"
            )
            rows += leaf_rows
        text = f"{int(now)}\n" + "\n".join(rows) + "\n"
        return RawSample("iostat", IOSTAT_ARGV, None, text, "", now, 0.0)

    def diskstats(self, now: float) -> RawSample:
        lines = []
        for i, name in enumerate(self.kernel):
            c = self._io.setdefault(name, [0] * 11)
            busy_ms = 950 if self._slow(i) else self._rng.randint(100, 300)
            c[0] += 30  # reads
            c[2] += 30 * 256  # sectors
            c[3] += 30 * (40 if self._slow(i) else 2)
            c[4] += 100
            c[6] += 100 * 256
            c[7] += 100 * (40 if self._slow(i) else 2)
            c[9] += busy_ms
            c[10] += busy_ms * 2
            lines.append(f"   8 {i:7d} {name} " + " ".join(str(x) for x in c) + " 0 0 0 0 0 0")
        return RawSample("diskstats", ("cat", "/proc/diskstats"), 0, "\n".join(lines) + "\n", "", now, 0.0)

    def devices(self, now: float) -> RawSample:
        text = "".join(f"{p}\t{k}\t4096\t1\n" for p, k in zip(self.paths, self.kernel))
        return RawSample("devices", ("zdash", "describe-devices"), 0, text, "", now, 0.0)

    def _event(self, when: float, cls: str, eid: int, **fields: str) -> str:
        """One event as `zpool events -v` prints it (header line, then TAB-indented fields)."""
        stamp = time.strftime("%b %d %Y %H:%M:%S", time.gmtime(when))
        body = "".join(f"        {k} = {v}\n" for k, v in fields.items())
        return (
            f'{stamp}.000000000 {cls}\n        class = "{cls}"\n        pool = "{self.pool}"\n{body}'
            f"        time = {hex(int(when))} 0x0\n        eid = {hex(eid)}\n\n"
        )

    def _history_event(self, when: float, eid: int) -> str:
        return self._event(
            when,
            "sysevent.fs.zfs.history_event",
            eid,
            history_internal_name='"snapshot"',
            history_dsname=f'"{self.pool}/fs{eid % 50}@auto-{eid}"',
        )

    def _delay_event(self, when: float, i: int, eid: int) -> str:
        return self._event(
            when,
            "ereport.fs.zfs.delay",
            eid,
            vdev_guid=hex(10**15 + i),
            vdev_path=f'"{self.paths[i]}"',
            zio_delay="0x7735940000",
        )

    def events(self, now: float, n: int) -> RawSample | None:
        text = ""
        if self.history_events_per_hour:
            gap = 3600.0 / self.history_events_per_hour
            if n == 0:
                whens = [now - 3600 + k * gap for k in range(self.history_events_per_hour)]
            else:
                whens = [now] if n % max(1, round(gap)) == 0 else []
            text += "".join(self._history_event(w, int((w - T0 + 7200) // gap) + 1) for w in whens)
        if self.delay_events_every and n % self.delay_events_every == 0:
            slow = [i for i in range(len(self.paths)) if self._slow(i)]
            text += "".join(self._delay_event(now, i, 10**6 + n * len(self.paths) + i) for i in slow)
        if not text:
            return None
        return RawSample("events", ("zpool", "events", "-v", "-f"), None, text, "", now, 0.0)

    def datasets(self, now: float) -> RawSample:
        row = "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\tlz4\t1.50\toff\ton\ton\tsa"
        lines = [row.format(self.pool, "filesystem", "-", "-", 10**12, 10**13, 10**5, 10**5, 0)]
        for f in range(self.filesystems):
            fs = f"{self.pool}/fs{f}"
            lines.append(row.format(fs, "filesystem", "-", "-", 10**10, 10**13, 10**9, 10**9, 10**8))
            for k in range(self.snapshots_each):
                clones = f"{self.pool}/clone{f}" if k == 0 else "-"
                lines.append(
                    f"{fs}@auto-{k}\tsnapshot\t-\t{clones}\t10\t-\t{10**9}\t-\t-\t-\t1.50\t-\t-\t-\t-"
                )
            own = 10**9 if f % 3 == 0 else 10**6  # every third clone rewrote all it had
            lines.append(
                row.format(
                    f"{self.pool}/clone{f}", "filesystem", f"{fs}@auto-0", "-", own, 10**13, 10**9, own, 0
                )
            )
        argv = zfs_list_argv((self.pool,))
        return RawSample("datasets", argv, 0, "\n".join(lines) + "\n", "", now, 0.5)

    def tick(self, n: int) -> Tick:
        now = T0 + n
        samples = [self.iostat(now), self.diskstats(now)]
        if self.filesystems and n % 60 == 0:
            samples.append(self.datasets(now))
        if (events := self.events(now, n)) is not None:
            samples.append(events)
        if n % self.structure_every == 0:
            samples = [self.status(now), self.list_v(now)] + samples
        if n == 0:
            samples.append(self.devices(now))
        return Tick(now, tuple(samples))


def _sd_name(i: int) -> str:
    """sda..sdz, sdaa..sdzz, sdaaa..: the kernel's naming."""
    letters = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        letters = chr(97 + r) + letters
    return "sd" + letters
