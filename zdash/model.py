"""The immutable snapshot model: everything downstream of the parsers sees only these types.

Units are fixed so no consumer has to guess: sizes and throughput in bytes (per second for
rates), latencies in nanoseconds (as `zpool iostat -p` prints them), times as epoch seconds.
`None` always means "not known / not applicable", never zero: a leaf with no I/O in the
interval has latency None, a file vdev has no kernel disk, a first sample has no rates.
"""

from __future__ import annotations

import dataclasses
import operator
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

# The allocation class of a top-level vdev (and of every vdev under it), as zdash names it: zpool's
# headings for them (logs, spares, l2cache...) are read in zdash.parse.classes, and only there.
VdevClass = Literal["normal", "special", "dedup", "log", "cache", "spare"]
# Vdev classes whose top-level vdevs hold pool data (log, cache and spare hold none).
DATA_CLASSES: tuple[VdevClass, ...] = ("normal", "special", "dedup")
# ZFS's "aux" vdevs (L2ARC and hot spares): in no redundancy, space or error-count sum.
AUX_CLASSES: tuple[VdevClass, ...] = ("cache", "spare")

# A pool's or vdev's state as zpool's *text* output names it (the JSON raw enum is mapped onto
# these). Vdev.state and Pool.state stay str: zpool's word is kept and shown as printed, one
# zdash does not know included (a newer release's); what zdash concludes from a state goes
# through these sets, each typed so a misspelt word fails mypy.
KnownState = Literal[
    "ONLINE", "DEGRADED", "FAULTED", "OFFLINE", "UNAVAIL", "REMOVED", "AVAIL", "INUSE", "SUSPENDED", "SPLIT"
]
BAD_STATES: frozenset[KnownState] = frozenset(
    {"DEGRADED", "FAULTED", "UNAVAIL", "REMOVED", "OFFLINE", "SUSPENDED", "SPLIT"}
)
# A device in one of these serves no I/O (DEGRADED: still read, but not counted on as a copy).
OUT_OF_SERVICE: frozenset[KnownState] = frozenset({"OFFLINE", "FAULTED", "UNAVAIL", "REMOVED", "DEGRADED"})
# A pool (or top-level vdev) in one of these cannot serve its data: ZFS needs every top-level
# vdev, and a SUSPENDED pool blocks all I/O until `zpool clear`.
CANNOT_SERVE: frozenset[KnownState] = frozenset({"FAULTED", "UNAVAIL", "SUSPENDED"})
# The state of a pool or vdev whose source did not show one: a paste of `zpool iostat -v` or an
# old `zpool list -v` has no health column. Unknown, never a problem: no check judges it.
UNSEEN = "UNSEEN"


@dataclass(frozen=True, slots=True)
class IoStats:
    """One `zpool iostat -l -p` row: per-second rates over the last interval."""

    read_ops: float = 0.0
    write_ops: float = 0.0
    read_bytes: float = 0.0
    write_bytes: float = 0.0
    # Latencies in ns; None where zpool printed '-' (no I/O of that kind), never 0.
    total_wait_read: float | None = None
    total_wait_write: float | None = None
    disk_wait_read: float | None = None
    disk_wait_write: float | None = None


@dataclass(frozen=True, slots=True)
class DiskIo:
    """Kernel block-device view of a leaf, from /proc/diskstats counter deltas."""

    device: str  # kernel name: sda1, nvme0n1p1, dm-0, loop2
    util_pct: float | None = None  # io_ticks delta / wall time, capped at 100
    read_await_ms: float | None = None
    write_await_ms: float | None = None
    reads_per_s: float | None = None
    writes_per_s: float | None = None
    read_bytes_per_s: float | None = None
    write_bytes_per_s: float | None = None
    # Requests in flight on average over the interval (iostat -x aqu-sz): the weighted-time
    # counter's delta / wall time. None where the source does not count it (psutil).
    queue_depth: float | None = None


@dataclass(frozen=True, slots=True)
class Vdev:
    """A node of the vdev tree: the pool's root, a top-level vdev, an interior
    (replacing-N, spare-N) vdev or a leaf. Top-level vdevs are root.children."""

    name: str  # as zpool prints it: mirror-0, sda, /tmp/d1, a GUID when missing
    kind: str  # root, mirror, raidz1/2/3, draid, disk, file, replacing, spare, hole, missing
    state: str  # ONLINE, DEGRADED, FAULTED, UNAVAIL, OFFLINE, REMOVED, AVAIL, INUSE, ...
    vclass: VdevClass = "normal"
    children: tuple[Vdev, ...] = ()
    path: str | None = None  # /dev/disk/by-id/...-part1, /tmp/d1
    guid: str | None = None
    read_errors: int = 0
    write_errors: int = 0
    checksum_errors: int = 0
    slow_ios: int | None = None  # leaves only (zpool status -s / JSON slow_ios)
    aux: str | None = None  # annotation: "cannot open", "too many errors", "(resilvering)"...
    was: str | None = None  # missing device: the path it "was"
    # Space, top-level vdevs only (zpool list -v -p).
    size: int | None = None
    alloc: int | None = None
    free: int | None = None
    frag_pct: int | None = None
    cap_pct: float | None = None  # vdev CAP is permyriad-precise in zpool (11.9%)
    ashift: int | None = None  # top-level: the configured ashift
    physical_ashift: int | None = None  # leaf: only when zpool warns "configured < native"
    configured_ashift: int | None = None  # leaf: the configured side of that same note
    # Host facts about a leaf's block device (None for file vdevs / unknown).
    device: str | None = None  # kernel name it resolves to (sdb1, dm-0, loop0)
    native_sector: int | None = None  # physical_block_size in bytes
    rotational: bool | None = None
    medium: str | None = None  # HDD, SSD, NVMe SSD, USB HDD... (zdash.media.medium)
    model: str | None = None  # the disk's model, as sysfs / lsblk give it
    # Per-tick measurements of a vdev built by hand (a test, a fixture). The fold keeps them in
    # columns beside the tree instead (Pool.measures): read them through Pool.io_of / disk_of.
    io: IoStats | None = None
    disk: DiskIo | None = None

    @property
    def is_leaf(self) -> bool:
        return not self.children and self.kind not in ("root",)

    def walk(self) -> Iterator[Vdev]:
        """This node and every node below it, depth first (parents before children)."""
        out = [self]
        _gather(self, out, leaves_only=False)
        return iter(out)

    def leaves(self) -> Iterator[Vdev]:
        """The leaves below (or this node, if it is one), in walk() order."""
        if not self.children:
            return iter(() if self.kind == "root" else (self,))
        out: list[Vdev] = []
        _gather(self, out, leaves_only=True)
        return iter(out)

    @property
    def key(self) -> str:
        """Identity across snapshots: the GUID when known (a replace renames the device)."""
        return self.guid or self.path or self.name

    @property
    def space(self) -> int | None:
        """Allocatable bytes of a top-level vdev. For a single-disk top-level vdev `zpool list -v`
        prints the *leaf's* raw size in SIZE (vs_pspace), larger than ALLOC+FREE: prefer the sum."""
        if self.alloc is not None and self.free is not None and self.alloc + self.free > 0:
            return self.alloc + self.free
        return self.size

    @property
    def fill_pct(self) -> float | None:
        """alloc / allocatable space, zpool's own CAP definition, unrounded."""
        space = self.space
        if space and self.alloc is not None:
            return 100.0 * self.alloc / space
        return self.cap_pct

    @property
    def label(self) -> str:
        """The name an admin types: path for leaves when known, name otherwise."""
        return self.path or self.name

    @property
    def known_as(self) -> str:
        """The name an admin recognises in a sentence. For a device missing since import zpool
        prints only its GUID (`label`, what `zpool replace` takes) with the path it `was` beside
        it, and that path is the one in their notes and on the disk's slot: say both, as zpool
        does. Commands keep using `label`."""
        return f"{self.name} (was {self.was})" if self.was and not self.path else self.label


def _gather(v: Vdev, out: list[Vdev], leaves_only: bool) -> None:
    """Append the nodes below v in walk order (leaves only: is_leaf ones): a list built by one
    call per interior node, not a generator per node (a 1,000-disk tree is walked every tick)."""
    for c in v.children:
        if c.children:
            if not leaves_only:
                out.append(c)
            _gather(c, out, leaves_only)
        elif not leaves_only or c.kind != "root":
            out.append(c)


class MeasureLayout:
    """Where each vdev of one pool's tree finds its figures in a tick's columns: a slot per
    node (walk order), and per slot the row of zpool iostat's report and of the kernel's disk
    rates that measure it (-1: none). Made by the fold once per tree, report layout and disk
    list (zdash.parse.join.measure_layout) and kept while the three stay the same; it holds the
    nodes, so the ids it maps cannot be reused by other objects while it lives."""

    __slots__ = ("disk_rows", "io_rows", "nodes", "slot", "spaced")

    def __init__(self, nodes: tuple[Vdev, ...], io_rows: list[int], disk_rows: list[int]) -> None:
        self.nodes, self.io_rows, self.disk_rows = nodes, io_rows, disk_rows
        self.slot = {id(v): k for k, v in enumerate(nodes)}
        # The fold's memo (zdash.parse.join.attach_measures): the root and top-level vdevs it
        # last made with iostat's space, kept while that space does not move.
        self.spaced: tuple[list[Any], Vdev, tuple[tuple[Vdev, int], ...]] | None = None


class Measures:
    """One tick's figures of a pool's vdevs, kept as the columns the fold read them into (zpool
    iostat's report, the kernel's disk rates) over the pool's tree, which the fold keeps from
    tick to tick while `zpool status` lists the same leaves: no object per vdev per tick.
    `Pool.io_of(v)` and `Pool.disk_of(v)` read them, building a vdev's IoStats or DiskIo only
    when asked (the checks read the columns straight: zdash.checks._deranged_columns).

    `io_at(row)` / `disk_at(row)`: the report's and the rates' row readers; `io_columns` and
    `disk_columns` the columns themselves, one per IoStats field and per DiskIo field after the
    device, in the classes' order (for a reader of every leaf at once); `extra`: nodes made this
    tick (a top-level vdev whose space iostat updated, the root above it), by id, with the slot
    of the node they stand for."""

    __slots__ = ("_extra", "_extra_nodes", "disk_at", "disk_columns", "io_at", "io_columns", "layout")

    def __init__(
        self,
        layout: MeasureLayout,
        io_at: Callable[[int], IoStats] | None,
        disk_at: Callable[[int], DiskIo] | None,
        extra: tuple[tuple[Vdev, int], ...] = (),
        io_columns: tuple[Sequence[float | None], ...] | None = None,
        disk_columns: tuple[Sequence[float | None], ...] | None = None,
    ) -> None:
        self.layout, self.io_at, self.disk_at = layout, io_at, disk_at
        self.io_columns, self.disk_columns = io_columns, disk_columns
        self._extra_nodes = extra  # held: their ids stay theirs while this lives
        self._extra = {id(v): k for v, k in extra}

    def slot_of(self, v: Vdev) -> int | None:
        k = self.layout.slot.get(id(v))
        if k is None and self._extra:
            k = self._extra.get(id(v))
        return k

    def io(self, v: Vdev) -> IoStats | None:
        k = self.slot_of(v)
        row = -1 if k is None or self.io_at is None else self.layout.io_rows[k]
        return v.io if row < 0 else self.io_at(row)  # type: ignore[misc]

    def disk(self, v: Vdev) -> DiskIo | None:
        k = self.slot_of(v)
        row = -1 if k is None or self.disk_at is None else self.layout.disk_rows[k]
        return v.disk if row < 0 else self.disk_at(row)  # type: ignore[misc]

    def values(self) -> tuple[tuple[IoStats | None, DiskIo | None], ...]:
        """Every node's figures, in walk order (what two folds of the same ticks agree on)."""
        return tuple((self.io(v), self.disk(v)) for v in self.layout.nodes)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Measures):
            return NotImplemented
        return self is other or self.values() == other.values()

    def __hash__(self) -> int:
        return hash(self.values())

    def __repr__(self) -> str:
        return f"Measures({len(self.layout.nodes)} vdevs)"


@dataclass(frozen=True, slots=True)
class Scan:
    """The scrub / resilver / rebuild state of a pool (the last or current one)."""

    function: str  # scrub, resilver, rebuild, errorscrub
    state: str  # scanning, paused, finished, canceled
    start_time: float | None = None
    end_time: float | None = None
    pause_time: float | None = None
    to_examine: int | None = None  # bytes
    examined: int | None = None
    issued: int | None = None
    skipped: int | None = None
    processed: int | None = None  # repaired (scrub) / resilvered bytes
    errors: int | None = None
    pct_done: float | None = None  # issued / (to_examine - skipped), as zpool computes it
    zpool_eta_s: float | None = None  # what zpool itself claims (often wrong; checks compute their own)
    vdev: str | None = None  # sequential rebuild: the top-level vdev it runs on


@dataclass(frozen=True, slots=True)
class Pool:
    name: str
    state: str  # ONLINE, DEGRADED, FAULTED, SUSPENDED, UNAVAIL...
    root: Vdev  # kind "root"; children are top-level + class vdevs
    guid: str | None = None
    status: str | None = None  # zpool's own "status:" text (only when unhealthy)
    action: str | None = None
    msgid: str | None = None  # ZFS-8000-xx
    scans: tuple[Scan, ...] = ()  # scrub block and/or resilver block
    # False: the status read does not say whether the pool was ever scanned (a scan: line in a
    # wording zdash cannot read; a pasted config table alone, or a report cut before its scan:).
    scans_known: bool = True
    error_count: int | None = None  # data errors (errors: line / error_count)
    error_files: tuple[str, ...] = ()
    size: int | None = None
    alloc: int | None = None
    free: int | None = None
    frag_pct: int | None = None
    cap_pct: int | None = None
    dedup_ratio: float | None = None
    # Devices a `zpool add` of this pool named (`zpool history`, or a pasted transcript's command
    # lines): the top-level vdevs holding them came after the pool was created.
    added_devices: tuple[str, ...] = ()
    # Devices a `zpool attach` of this pool brought in (the same sources): one still being
    # resilvered is redundancy being added, not a side that was lost.
    attached_devices: tuple[str, ...] = ()
    properties: tuple[tuple[str, str], ...] = ()  # selected pool properties (name, value)
    # This tick's figures as columns over the tree (the fold's snapshots); None: each vdev's own
    # io and disk fields hold them (a snapshot built by hand, a tree with nothing measured).
    measures: Measures | None = None

    def io_of(self, v: Vdev) -> IoStats | None:
        """The vdev's zpool iostat figures this tick (v one of this pool's vdevs; None: none)."""
        m = self.measures
        return v.io if m is None else m.io(v)

    def disk_of(self, v: Vdev) -> DiskIo | None:
        """The leaf's kernel disk figures this tick (None: no disk, or not measured)."""
        m = self.measures
        return v.disk if m is None else m.disk(v)

    @property
    def top_level(self) -> tuple[Vdev, ...]:
        return self.root.children

    @property
    def fill_pct(self) -> float | None:
        """alloc / size, unrounded (zpool's CAP column rounds it); CAP itself when that is all.
        Without `zpool list`'s SIZE, alloc + free (iostat's counters) is the same figure."""
        size = self.size or (
            self.alloc + self.free if self.alloc is not None and self.free is not None else None
        )
        if size and self.alloc is not None:
            return 100.0 * self.alloc / size
        return None if self.cap_pct is None else float(self.cap_pct)

    def data_vdevs(self) -> tuple[Vdev, ...]:
        """Top-level vdevs that hold pool data (normal/special/dedup, not log/cache/spare)."""
        return tuple(v for v in self.root.children if v.vclass in DATA_CLASSES)

    def leaves(self) -> Iterator[Vdev]:
        return self.root.leaves()

    def find(self, name: str) -> Vdev | None:
        for v in self.root.walk():
            if v.name == name or v.path == name:
                return v
        return None

    def prop(self, key: str) -> str | None:
        return dict(self.properties).get(key)

    @property
    def scan(self) -> Scan | None:
        """The scan an admin cares about now: a running one first, else the newest."""
        running = [s for s in self.scans if s.state in ("scanning", "paused")]
        if running:
            return running[0]
        return max(self.scans, key=lambda s: s.end_time or s.start_time or 0, default=None)


@dataclass(frozen=True, slots=True)
class Dataset:
    name: str
    kind: str  # filesystem, volume, snapshot
    origin: str | None = None  # clones: the origin snapshot
    clones: tuple[str, ...] = ()  # snapshots: dependent clones
    used: int | None = None
    avail: int | None = None
    refer: int | None = None
    used_by_dataset: int | None = None
    used_by_snapshots: int | None = None
    compression: str | None = None
    compressratio: float | None = None
    dedup: str | None = None
    atime: str | None = None
    relatime: str | None = None  # Linux: with relatime=on, atime=on costs one update a day
    xattr: str | None = None

    @property
    def pool(self) -> str:
        return self.name.split("/", 1)[0].split("@", 1)[0]


@dataclass(frozen=True, slots=True)
class ZEvent:
    """One entry of ZFS's event log (`zpool events -v`): the ereports ZED acts on."""

    time: float  # epoch s (the nvlist's `time` when -v, else the header line's date, UTC)
    cls: str  # ereport.fs.zfs.delay, ereport.fs.zfs.checksum, ereport.fs.zfs.io, ...
    pool: str | None = None
    vdev_guid: str | None = None  # decimal, as zpool status -j prints GUIDs
    vdev_path: str | None = None
    eid: int | None = None
    delay_ns: int | None = None  # zio_delay of a delay event (ns since 0.8)

    @property
    def kind(self) -> str:
        """The last word of the class: delay, checksum, io, statechange, scrub_finish..."""
        return self.cls.rsplit(".", 1)[-1]


@dataclass(frozen=True, slots=True)
class SourceState:
    """How fresh one input is: shown as 'stale' in the UI when not ok or old."""

    key: str  # status, list, iostat, diskstats, ashift, datasets, devices
    ok: bool
    age_s: float | None = None  # seconds since the last good sample (None: never had one)
    message: str | None = None  # one line for the admin when not ok
    # Not ok only because its last good data is old (no error from the command): a stream that
    # stalls, a poll that has not come back yet. The UI says STALE at once; the visibility
    # verdict waits a little longer (a busy pool's zpool can lag a few seconds and recover).
    stalled: bool = False


@dataclass(frozen=True, slots=True)
class SelfTest:
    """The newest entry of a disk's SMART self-test log."""

    kind: str  # "Short offline", "Extended", "Background short"
    passed: bool | None  # None: still running, or a result smartctl does not grade
    status: str  # the drive's words: "Completed without error", "Completed: read failure"
    hours: int | None = None  # power-on hours when it ran


@dataclass(frozen=True, slots=True)
class SmartReport:
    """One disk's `smartctl -j -a` (smartmontools >= 7): the figures an admin reads, None where
    the device type has no such figure or smartctl did not print it."""

    device: str  # what smartctl was asked about: /dev/sdb, /dev/nvme0n1
    time: float = 0.0  # epoch s the reading completed
    protocol: str | None = None  # ATA, SCSI, NVMe
    model: str | None = None
    serial: str | None = None
    firmware: str | None = None
    passed: bool | None = None  # the drive's own overall verdict (ATA health, NVMe critical warning)
    exit_status: int | None = None  # smartctl's exit status bits (see smartctl(8) RETURN VALUES)
    # Why there is no SMART data (then most figures are None): smartctl's own line, and a word
    # for it: usb-bridge, permission, unsupported, standby, gone, old-smartctl, failed.
    unavailable: str | None = None
    unavailable_kind: str | None = None
    temperature_c: int | None = None
    power_on_hours: int | None = None
    reallocated: int | None = None  # ATA 5: sectors moved to spares
    pending: int | None = None  # ATA 197: sectors the drive could not read, waiting to be rewritten
    offline_uncorrectable: int | None = None  # ATA 198
    reported_uncorrect: int | None = None  # ATA 187: reads the drive's ECC could not correct
    crc_errors: int | None = None  # ATA 199: interface (cable, backplane) transfer errors
    failing_now: tuple[str, ...] = ()  # ATA attributes at or below their threshold now
    grown_defects: int | None = None  # SCSI: the grown defect list
    uncorrected_errors: int | None = None  # SCSI error counter log, read + write + verify
    media_errors: int | None = None  # NVMe: media and data integrity errors
    critical_warning: int | None = (
        None  # NVMe: bit field (spare, temperature, reliability, read-only, backup)
    )
    percentage_used: int | None = None  # NVMe (and SCSI SSD) endurance used, may exceed 100
    available_spare: int | None = None  # NVMe, %
    available_spare_threshold: int | None = None
    self_test: SelfTest | None = None


@dataclass(frozen=True, slots=True)
class LatencyHistogram:
    """One vdev's `zpool iostat -w` histograms: counts per power-of-two latency bucket.

    `bounds[i]` is bucket i's upper bound in ns (2^(i+1)-1, as zpool prints under -p). Counts are
    what happened between `since` and `time` when a baseline exists (the builder subtracts an
    earlier reading), else since the pool was imported (`since` None)."""

    pool: str
    vdev: str  # the row's name: a GUID under -g, else the name zpool prints
    bounds: tuple[int, ...]
    # column -> counts per bucket: total_read, total_write, disk_read, disk_write, syncq_read,
    # syncq_write, asyncq_read, asyncq_write, scrub, trim, rebuild (2.2+)
    columns: tuple[tuple[str, tuple[int, ...]], ...]
    time: float = 0.0
    since: float | None = None

    def column(self, name: str) -> tuple[int, ...] | None:
        return next((c for n, c in self.columns if n == name), None)

    def count(self, *names: str) -> int:
        """I/Os counted in these columns (disk_read, disk_write: every disk I/O)."""
        return sum(sum(c) for n, c in self.columns if n in names)

    def quantile(self, q: float, *names: str) -> int | None:
        """The upper bound (ns) of the bucket holding the q-th fraction of the I/Os in these
        columns summed (q 0.99: p99). Buckets are powers of two: "p99 <= 268 ms", no finer.
        None without a single I/O."""
        cols = [c for n, c in self.columns if n in names]
        if not cols:
            return None
        per_bucket = [sum(c[i] for c in cols if i < len(c)) for i in range(len(self.bounds))]
        total = sum(per_bucket)
        if total <= 0:
            return None
        want, seen = q * total, 0
        for bound, n in zip(self.bounds, per_bucket):
            seen += n
            if seen >= want:
                return bound
        return self.bounds[-1]


def histogram_names(v: Vdev) -> tuple[str | None, ...]:
    """The names a vdev's histogram may be under: its GUID (the live source reads by -g), its
    name, and the short name zpool prints without -P (`loop0` for /dev/loop0, `ata-X` for
    /dev/disk/by-id/ata-X-part1): a pasted `zpool iostat -w` beside a `zpool status -P`."""
    short = v.name.rsplit("/", 1)[-1] if v.name.startswith("/dev/") else None
    whole = re.sub(r"(-part\d+|(?<=\d)p\d+)$", "", short) if short else None
    return (v.guid, v.name, short, whole)


def pooled(hists: list[LatencyHistogram], name: str = "peers") -> LatencyHistogram:
    """Several vdevs' histograms summed bucket by bucket: their I/Os as one population (a disk's
    peers). The first one's bounds, times and pool; `hists` must not be empty."""
    first = hists[0]
    columns = []
    for col, _ in first.columns:
        cols = [h.column(col) or () for h in hists]
        columns.append((col, tuple(sum(c[i] for c in cols if i < len(c)) for i in range(len(first.bounds)))))
    return LatencyHistogram(first.pool, name, first.bounds, tuple(columns), first.time, first.since)


@dataclass(frozen=True, slots=True)
class KernelLine:
    """One kernel log line (journalctl -k or dmesg)."""

    time: float | None  # epoch s; None where the line carried no absolute time
    text: str


@dataclass(frozen=True, slots=True)
class LeafDisks:
    """What a leaf's path is made of, for SMART and the kernel log: the whole disks under it
    (a partition's disk, a dm or multipath device's paths), or why there are none."""

    path: str  # the leaf's path as zpool prints it
    device: str | None  # its kernel name (sdb1, dm-0)
    disks: tuple[str, ...] = ()  # kernel names of the whole disks: sdb, nvme0n1
    names: tuple[str, ...] = ()  # every name the kernel log may use for it (sdb, ata3, nvme0, ...)
    why_not: str | None = None  # "a file vdev: no disk under it", "dm-3 is a loop device over a file"
    multipath: bool = False  # disks are paths to one disk (one SMART reading serves)
    transport: str | None = None  # lsblk TRAN: sata, sas, nvme, usb


@dataclass(frozen=True, slots=True)
class Evidence:
    """What zdash fetched to stand beside a verdict: SMART readings, latency histograms, the
    kernel log, and how leaves map to disks. Empty until something asked for it."""

    smart: tuple[SmartReport, ...] = ()  # the newest reading per disk
    histograms: tuple[LatencyHistogram, ...] = ()
    kernel_log: tuple[KernelLine, ...] = ()  # the newest reading, oldest line first
    disks: tuple[LeafDisks, ...] = ()
    # Said once, for the host: smartctl missing, too old, not permitted. None when it answers.
    smart_unavailable: str | None = None
    kernel_log_unavailable: str | None = None  # dmesg not permitted (dmesg_restrict), no journalctl

    def smart_of(self, disk: str) -> SmartReport | None:
        """The reading of a disk by kernel name (sdb) or path (/dev/sdb)."""
        dev = disk if disk.startswith("/dev/") else f"/dev/{disk}"
        return next((r for r in self.smart if r.device == dev), None)

    def disks_of(self, path: str | None) -> LeafDisks | None:
        return next((d for d in self.disks if d.path == path), None) if path else None

    def histogram(self, pool: str, *names: str | None) -> LatencyHistogram | None:
        """A vdev's histogram by the first of `names` that has one: its GUID (what the live
        source reads by), then its name (what a pasted `zpool iostat -w` prints)."""
        for name in names:
            if name is not None:
                found = next((h for h in self.histograms if h.pool == pool and h.vdev == name), None)
                if found is not None:
                    return found
        return None


NO_EVIDENCE = Evidence()


@dataclass(frozen=True, slots=True)
class Snapshot:
    time: float  # epoch seconds of the tick
    pools: tuple[Pool, ...] = ()
    datasets: tuple[Dataset, ...] = ()
    sources: tuple[SourceState, ...] = ()
    events: tuple[ZEvent, ...] = ()  # recent ZFS events (zpool events), oldest first
    host: str | None = None
    zfs_version: str | None = None  # userland, e.g. zfs-2.3.2-2~bpo12+2
    interval: float | None = None
    # Changes whenever the tree, space, device facts or datasets change (status, list, ashift,
    # devices or zfs list answered with other text than last time): what depends on those alone
    # can be reused until it does.
    # 0 means unknown (a snapshot built by hand): never reuse.
    structure_id: int = 0
    evidence: Evidence = NO_EVIDENCE  # SMART, histograms, the kernel log (see Evidence)

    def pool(self, name: str) -> Pool | None:
        return next((p for p in self.pools if p.name == name), None)

    @property
    def problems(self) -> tuple[SourceState, ...]:
        return tuple(s for s in self.sources if not s.ok)


_T = TypeVar("_T")
_FIELDS: dict[type, tuple[operator.attrgetter[tuple[object, ...]], dict[str, int]]] = {}


def builder_of(cls: type[_T]) -> Callable[..., _T]:
    """A positional constructor for one of the model's frozen slotted classes, about four times
    as fast as calling the class (a 29-field Vdev: 0.4 µs against 3 µs): for the objects a
    reader asks of a tick's columns (a vdev's IoStats, a disk's DiskIo, a report's row), built
    from values that are complete already. All fields, in declaration order, no defaults.

    How: a frozen dataclass's __init__ sets each field through `object.__setattr__`, looked up
    by name. The builder instead fills an instance of a plain *twin* class, one with the same
    slots in the same order, by ordinary attribute stores (the interpreter's fastest), then
    makes it an instance of `cls` by assigning `__class__`. CPython allows that only between
    classes of identical memory layout (it compares the slots' names and order, sizes and GC
    flags, and raises TypeError otherwise), so the object is exactly the one `cls(*values)`
    gives (the model has no __post_init__). Checked once here; a class it cannot twin gets
    the slower builder, setting each slot through its descriptor."""
    names = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
    args = [f"a{i}" for i in range(len(names))]
    build: Callable[..., _T] = _generated(cls, "build", args, dict(zip(names, args)))
    build.__doc__ = f"{cls.__name__}(*fields), without the frozen __init__'s per-field lookups."
    return build


def _generated(cls: type[_T], name: str, params: list[str], values: dict[str, str]) -> Callable[..., _T]:
    """A function `name(*params)` returning a `cls` whose field n is the expression values[n]
    (a parameter or an attribute of one): through the twin when CPython allows it (see
    builder_of), else each slot set through its descriptor. Checked once, on a probe."""
    names = list(values)
    head = f"def {name}({', '.join(params)}):\n"
    twin = type(f"_{cls.__name__}Fill", (), {"__slots__": tuple(names)})
    body = "".join(f"    o.{n} = {values[n]}\n" for n in names)
    src = f"{head}    o = _new(_twin)\n{body}    o.__class__ = _cls\n    return o\n"
    scope: dict[str, Any] = {"_new": object.__new__, "_twin": twin, "_cls": cls}
    exec(src, scope)  # generated from the dataclass's own field names, nothing else
    fn: Callable[..., _T] = scope[name]
    try:
        _probe(cls, fn, params, values)
    except TypeError:  # not layout-compatible (a __dict__, a weakref slot, another base)
        setters = {f"_s{i}": getattr(cls, n).__set__ for i, n in enumerate(names)}
        body = "".join(f"    _s{i}(o, {values[n]})\n" for i, n in enumerate(names))
        src = f"{head}    o = _new(_cls)\n{body}    return o\n"
        scope = {"_new": object.__new__, "_cls": cls, **setters}
        exec(src, scope)  # as above
        fn = scope[name]
    return fn


def _probe(cls: type, fn: Callable[..., object], params: list[str], values: dict[str, str]) -> None:
    """TypeError unless fn builds a `cls` with each field as values says (distinct probe values:
    an int per parameter; `obj` a plain object whose attributes are ints too)."""
    names = list(values)
    obj = type("_Probe", (), {})()
    for i, n in enumerate(names):
        setattr(obj, n, 1000 + i)
    args = [obj if p == "obj" else i for i, p in enumerate(params)]
    made = fn(*args)
    by_param = dict(zip(params, args))
    want = [by_param[v] if v in by_param else getattr(obj, v.split(".", 1)[1]) for v in values.values()]
    if type(made) is not cls or [getattr(made, n) for n in names] != want:
        raise TypeError(f"{cls.__name__}: the twin built something else")


def evolve(obj: _T, **changes: object) -> _T:
    """`dataclasses.replace` for the model's frozen classes, about three times as fast (every
    field read by one C-level attrgetter, the class built positionally): it matters for a
    1,000-disk tree rebuilt every tick. The model's classes have no __post_init__ to skip."""
    cls = type(obj)
    known = _FIELDS.get(cls)
    if known is None:
        names = tuple(f.name for f in dataclasses.fields(cls))  # type: ignore[arg-type]
        known = _FIELDS[cls] = (operator.attrgetter(*names), {n: i for i, n in enumerate(names)})
    getter, index = known
    values = list(getter(obj))
    for name, value in changes.items():
        values[index[name]] = value
    return cls(*values)
