"""Fold raw ticks into Snapshots. Live and replay both go through here, so a replay yields
exactly the Snapshots the live run showed.

Deterministic by construction: the only inputs are the ticks (their samples and times), never
the wall clock or the host. State kept between ticks: the last good parse of each command
(slow commands run every few seconds; their result stays until the next one), the previous
/proc/diskstats counters (rates are deltas) and the rows of the previous iostat report.

Sane rates: an iostat interval whose report has other rows than the one before it spans a
vdev-tree change (a replacing vdev detached, a disk added): zpool's deltas across it can come
from wrapped counters (8x10^12 MB/s). Such a report, and one whose rates no device could
produce, gives "no rate" for that tick: never shown, charted or used by a check.

Outside text is made visible here, where it enters the model (zdash.visible): every raw
sample's outputs, error and argv, live, recorded or pasted, have their control characters shown
as escapes before any parser reads them, so no name, error text or output in a snapshot can
drive a terminal (an OSC 52 in a device name wrote the clipboard through the dashboard).

Sources that never answered count too: after a few ticks without a single `zpool status`,
`zpool list` or iostat report, the source is reported as missing, not silently absent.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from operator import add
from typing import Any

from zdash.cadence import EXPECTED, STALE_AFTER, stale_limit
from zdash.model import (
    NO_EVIDENCE,
    Dataset,
    DiskIo,
    Evidence,
    LatencyHistogram,
    LeafDisks,
    MeasureLayout,
    Pool,
    Snapshot,
    SourceState,
    Vdev,
    ZEvent,
)
from zdash.parse import ParseError, join
from zdash.parse.blockdev import parse_lsblk, parse_sysfs, resolve
from zdash.parse.devices import parse_devices
from zdash.parse.diskstats import NO_RATES, DiskRates, parse_diskstats, rates_between
from zdash.parse.evidence import Baseline, latency_histograms
from zdash.parse.kernel_log import parse_kernel_log
from zdash.parse.reuse import Reuse
from zdash.parse.smart_text import parse_smartctl_text, smartd_reports
from zdash.parse.smartctl import HOST_WIDE_KINDS, parse_smartctl
from zdash.parse.vdev_ashift import ashift_by_vdev_name, parse_get_ashift, parse_zdb_config
from zdash.parse.zfs_list import ZFS_LIST_FIELDS, parse_zfs_list
from zdash.parse.zpool_events import parse_events
from zdash.parse.zpool_history import NO_HISTORY, parse_history
from zdash.parse.zpool_iostat import EMPTY_REPORT, IostatReport, parse_iostat, split_reports
from zdash.parse.zpool_iostat_hist import parse_histograms
from zdash.parse.zpool_list import ListVdev, parse_list
from zdash.parse.zpool_status import parse_status
from zdash.parse.zpool_version import parse_version
from zdash.raw import RawSample, Tick
from zdash.visible import visible, visible_text

# Faster than any single device can move data or complete operations: a leaf row beyond these
# is a counter artefact, not a measurement (PCIe 5 NVMe peaks near 14 GB/s, 2-3 M IOPS).
MAX_LEAF_BYTES_PER_S = 64 * 2**30
MAX_LEAF_OPS_PER_S = 10_000_000
# ZFS events kept for the checks: the recent past is what a verdict cites (ZED's own window for
# degrading a disk is 10 minutes), bounded in count like the kernel's own ring buffer.
EVENTS_KEEP_S = 3600.0
EVENTS_KEEP = 2000
_NONE: dict[str, Any] = {}  # one empty mapping: "no list/devices yet" keeps one identity
# Outputs whose value depends on their own text alone (and argv): the same text as the last good
# one is the same value, kept as it is (a quiet pool's `zpool status` every few seconds rebuilds
# nothing, and checks of structure alone reuse their findings). Streams and rates are not.
SAME_TEXT_SAME_VALUE = frozenset(
    {"status", "list", "devices", "datasets", "version", "ashift", "history", "blockdevs", "sysfs"}
)
# The evidence beside a verdict (zdash.sources.evidence): fetched only while something asks for
# it, so never a source that is "missing" or "stale"; a failure is said once, in the evidence.
EVIDENCE_KINDS = frozenset({"smart", "smartd", "smarttext", "hist", "kernlog", "blockdevs", "sysfs"})
HIST_FRESH_S = 120.0  # a histogram read longer ago than this is no longer shown
IO_KEEP_TICKS = 2.5  # iostat rows arriving slightly off-phase must not flicker to "no data"


def _parse_iostat(s: RawSample) -> IostatReport:
    """A stream sample is one `-T u` report: its epoch line, then the rows."""
    reports = [text for _, text in split_reports(s.stdout) if text.strip()]
    return parse_iostat(reports[-1]) if reports else EMPTY_REPORT


def _impossible(report: IostatReport, leaves: frozenset[str]) -> bool:
    """Rates no device can produce, in any row. Leaf rows (named by path under -P, or by the
    name status gives them) are bounded by one device's limits; other rows sum many leaves, so
    only a negative or astronomically large figure (the wrapped-counter signature) marks them.
    A column at a time: only a report with a figure beyond one device's limits is read by row."""
    if not report.names:
        return False
    read_ops, write_ops, read_bytes, write_bytes = report.columns[:4]
    if min(min(read_ops), min(write_ops), min(read_bytes), min(write_bytes)) < 0:  # type: ignore[type-var,operator]
        return True
    # The usual report: no row beyond what one device can do, known from each column's largest
    # (a row's sum is at most theirs, rounded alike) without a sum per row.
    if (
        max(read_bytes) + max(write_bytes) <= MAX_LEAF_BYTES_PER_S  # type: ignore[type-var,operator]
        and max(read_ops) + max(write_ops) <= MAX_LEAF_OPS_PER_S  # type: ignore[type-var,operator]
    ):
        return False
    total = list(map(add, read_bytes, write_bytes))
    ops = list(map(add, read_ops, write_ops))
    if max(total) <= MAX_LEAF_BYTES_PER_S and max(ops) <= MAX_LEAF_OPS_PER_S:
        return False
    for name, nbytes, nops in zip(report.names, total, ops):
        if name in leaves:
            if nbytes > MAX_LEAF_BYTES_PER_S or nops > MAX_LEAF_OPS_PER_S:
                return True
        elif nbytes > 2**20 * MAX_LEAF_BYTES_PER_S:
            return True
    return False


def _fields_of(argv: tuple[str, ...]) -> tuple[str, ...]:
    """The -o list a `zfs list` sample was run with (older recordings asked for fewer fields)."""
    if "-o" in argv:
        i = argv.index("-o")
        if i + 1 < len(argv):
            return tuple(argv[i + 1].split(","))
    return ZFS_LIST_FIELDS


def _parse_ashift(s: RawSample) -> dict[str, int]:
    if s.argv and s.argv[0].endswith("zdb"):
        tops = parse_zdb_config(s.stdout)
        pool = s.key.split(":", 1)[1]
        return ashift_by_vdev_name(tops.get(pool, []))
    return parse_get_ashift(s.stdout)


PARSERS: dict[str, Callable[[RawSample], Any]] = {
    "status": lambda s: parse_status(list(s.argv), s.stdout),
    "list": lambda s: parse_list(s.stdout),
    "iostat": _parse_iostat,
    "diskstats": lambda s: parse_diskstats(s.stdout),  # the builder passes its wanted devices
    "devices": lambda s: parse_devices(s.stdout),
    "datasets": lambda s: parse_zfs_list(s.stdout, _fields_of(s.argv)),
    "version": lambda s: parse_version(s.stdout),
    "events": lambda s: parse_events(s.stdout),
    "ashift": _parse_ashift,
    "history": lambda s: parse_history(s.stdout),
    "smart": lambda s: parse_smartctl(s.stdout, s.argv[-1] if s.argv else ""),
    # SMART pasted as text (zdash.paste.smart): smartd's lines, one disk's smartctl -a / -x
    "smartd": lambda s: tuple(smartd_reports(s.stdout.splitlines())),
    "smarttext": lambda s: parse_smartctl_text(s.stdout, (s.argv[-1] if len(s.argv) > 2 else "") or None),
    "hist": lambda s: parse_histograms(s.stdout),
    "kernlog": lambda s: parse_kernel_log(s.stdout),
    "blockdevs": lambda s: parse_lsblk(s.stdout),
    "sysfs": lambda s: parse_sysfs(s.stdout),
}


def visible_sample(s: RawSample) -> RawSample:
    """The sample as the model may hold it: outputs, error and argv with every control shown
    escaped (zdash.visible); the same object when nothing needed it (the usual case)."""
    stdout, stderr = visible_text(s.stdout), visible_text(s.stderr)
    error = visible(s.error) if s.error else s.error
    argv = tuple(visible(a) for a in s.argv)
    if stdout is s.stdout and stderr is s.stderr and error is s.error and argv == s.argv:
        return s
    return dataclasses.replace(s, stdout=stdout, stderr=stderr, error=error, argv=argv)


@dataclasses.dataclass
class _Slot:
    value: Any = None
    good_time: float | None = None
    error: str | None = None
    raw: RawSample | None = None  # the sample `value` was parsed from (what a keyframe keeps)
    dropped: bool = False  # iostat: the report was judged "no rate" (value emptied)


def _sample_dict(s: RawSample) -> dict[str, Any]:
    return {f.name: getattr(s, f.name) for f in dataclasses.fields(s)}


def _sample_from(d: dict[str, Any]) -> RawSample:
    return RawSample(
        str(d["key"]),
        tuple(str(a) for a in d["argv"]),
        d.get("rc"),
        str(d.get("stdout") or ""),
        str(d.get("stderr") or ""),
        float(d.get("time") or 0),
        float(d.get("duration") or 0),
        d.get("error"),
    )


class SnapshotBuilder:
    def __init__(self, interval: float = 1.0, host: str | None = None) -> None:
        self.interval = interval or 1.0
        self.host = visible(host) if host else host
        self._slots: dict[str, _Slot] = {}
        self._prev_disk: tuple[float, dict] | None = None
        self._disk_rates: DiskRates = NO_RATES
        # Where each pool's vdevs find their figures in the columns (zdash.model.MeasureLayout),
        # and what they were made for: the structure, the report's row names, the disks' names.
        self._layouts: dict[str, MeasureLayout] = {}
        self._layouts_for: tuple[tuple[tuple[str, Vdev], ...], tuple[str, ...], tuple[str, ...]] = (
            (),
            (),
            (),
        )
        self._version_text: str | None = None
        self._iostat_names: tuple[str, ...] | None = None
        self._structure_key: tuple[object, ...] = ()
        self._wanted_for: object = None
        self._wanted: frozenset[str] = frozenset()
        self._leaf_names_for: object = None
        self._leaf_names: frozenset[str] = frozenset()
        self._structure: tuple[Pool, ...] = ()
        self._structure_id = 0
        self._events: dict[tuple[float, int | None, str], ZEvent] = {}
        self._events_shown: tuple[ZEvent, ...] | None = None  # _events sorted (None: to sort again)
        self._ticks = 0
        # Unchanged leaves of the last status parse, and what the structure made of them (for
        # the same list, ashift and device facts): a busy pool's status text is new every time.
        self._status_reuse: Reuse[Vdev] = Reuse()
        self._structure_reuse: Reuse[tuple[Vdev, Vdev]] = Reuse()
        # The vdev rows of the last `zpool list -v`: its disks' rows read the same answer after
        # answer while the pool's and its top-level vdevs' space moves.
        self._list_reuse: Reuse[ListVdev] = Reuse()
        self._structure_made_with: tuple[object, object] = ((), ())
        # Evidence: histogram baselines per pool and vdev, what smartctl said of the host, and the
        # Evidence built from them (rebuilt only when an evidence sample or the devices change).
        self._hist_bases: dict[str, dict[str, Baseline]] = {}
        self._histograms: dict[str, tuple[LatencyHistogram, ...]] = {}
        self._smart_said: str | None = None
        self._evidence: Evidence = NO_EVIDENCE
        self._evidence_for: tuple[object, ...] = ()
        self._evidence_changes = 0
        self._disks_for: tuple[object, ...] | None = None
        self._disks: tuple[LeafDisks, ...] = ()

    def _take(self, s: RawSample) -> None:
        s = visible_sample(s)
        kind = s.key.split(":", 1)[0]
        slot = self._slots.setdefault(s.key, _Slot())
        if kind in EVIDENCE_KINDS:
            self._evidence_changes += 1
        # smartctl's exit status is a bit field: a failing disk exits 8, 64, 216 with a whole report
        readable_smart = kind == "smart" and s.stdout.lstrip().startswith("{")
        if not s.ok and not readable_smart:
            slot.error = s.error or f"{' '.join(s.argv[:2])} exited {s.rc}"
            if kind == "smart":
                self._smart_said = slot.error  # smartctl not installed, timed out: said once
            return
        prev = slot.raw
        try:
            if (
                kind in SAME_TEXT_SAME_VALUE
                and prev is not None
                and s.stdout == prev.stdout
                and s.argv == prev.argv
            ):
                value: Any = slot.value  # what it parsed to last time, identity kept: no rebuild
            else:
                value = self._parse(kind, s)
        except ParseError as e:
            slot.error = f"{' '.join(s.argv[:2])}: unreadable output ({e})"
            return
        except KeyError:
            return  # a key this zdash does not know (newer recording): ignore, do not crash
        dropped = False
        if kind == "iostat":
            sane = self._sane_iostat(value)
            dropped, value = sane is not value and bool(value), sane
        slot.value, slot.good_time, slot.error, slot.raw, slot.dropped = value, s.time, None, s, dropped
        if kind == "diskstats":
            self._on_diskstats(s.time, value)
        if kind == "events":
            self._on_events(value)
        if kind == "version":
            self._version_text = s.stdout.splitlines()[0].strip() if s.stdout.strip() else None
        if kind == "smart":
            kind_of = value.unavailable_kind
            self._smart_said = value.unavailable if kind_of in HOST_WIDE_KINDS else None
        if kind == "hist":
            self._on_histograms(s.key.split(":", 1)[1], value, s.time)

    def _parse(self, kind: str, s: RawSample) -> Any:
        """PARSERS[kind](s) as this builder reads it: diskstats for the pools' devices, status and
        list on what their last answer built (zdash.parse.reuse: what reads as before is kept)."""
        if kind == "diskstats":
            return parse_diskstats(s.stdout, self._wanted_devices())
        if kind == "status":
            return self._status_reuse.run(lambda reuse: parse_status(list(s.argv), s.stdout, reuse))
        if kind == "list":
            return self._list_reuse.run(lambda reuse: parse_list(s.stdout, reuse))
        return PARSERS[kind](s)

    def _on_histograms(self, pool: str, blocks: Any, t: float) -> None:
        """Each vdev's counts since the first reading of this run (see parse.evidence)."""
        self._histograms[pool] = latency_histograms(pool, blocks, t, self._hist_bases.setdefault(pool, {}))

    def _wanted_devices(self) -> frozenset[str] | None:
        """The kernel names of the pools' disks (from the devices sample), None until known."""
        devices = self._slots.get("devices")
        if devices is None or not devices.value:
            return None
        if devices.value is not self._wanted_for:
            self._wanted_for = devices.value
            self._wanted = frozenset(f.device for f in devices.value.values() if f.device)
        return self._wanted

    def _sane_iostat(self, rows: IostatReport) -> IostatReport:
        """The report, or an empty one ("no rate this tick") when the interval spans a tree
        change or holds rates no device can produce."""
        names = rows.names
        changed = self._iostat_names is not None and names != self._iostat_names
        self._iostat_names = names
        pools: tuple[Pool, ...] = self._slots["status"].value or () if "status" in self._slots else ()
        if pools is not self._leaf_names_for:  # the leaves' names change only with the tree
            self._leaf_names_for = pools
            self._leaf_names = frozenset(n for p in pools for v in p.leaves() for n in (v.name, v.path) if n)
        leaves = self._leaf_names
        if changed or _impossible(rows, leaves):
            return EMPTY_REPORT
        return rows

    def _on_events(self, events: tuple[ZEvent, ...]) -> None:
        """A stream sample holds the new events, a full `zpool events` dump all of them: keep
        each once (by time, id and class), the newest EVENTS_KEEP of the last hour."""
        if not events:
            return
        for e in events:
            self._events[(e.time, e.eid, e.cls)] = e
        if len(self._events) > EVENTS_KEEP:
            for key in sorted(self._events)[: len(self._events) - EVENTS_KEEP]:
                del self._events[key]
        self._events_shown = None

    def _recent_events(self, now: float) -> tuple[ZEvent, ...]:
        """The events kept, oldest first: sorted once per change, not every tick (up to 2,000)."""
        shown = self._events_shown
        if shown is not None and (not shown or now - shown[0].time <= EVENTS_KEEP_S):
            return shown  # nothing new, and the oldest is still recent: nothing else has expired
        for key in [k for k in self._events if now - k[0] > EVENTS_KEEP_S]:
            del self._events[key]
        self._events_shown = tuple(self._events[k] for k in sorted(self._events))
        return self._events_shown

    def _on_diskstats(self, t: float, counters: dict) -> None:
        if self._prev_disk is not None:
            t0, prev = self._prev_disk
            self._disk_rates = rates_between(prev, counters, t - t0)
        self._prev_disk = (t, counters)

    # --- keyframes: the fold's state as plain data, and back ---------------------------------

    def checkpoint(self) -> dict[str, Any]:
        """Everything the next `feed` depends on, as JSON-able data: the raw sample behind each
        slot (parsed again on restore), the disk rates and counters, the events kept."""
        return {
            "interval": self.interval,
            "host": self.host,
            "ticks": self._ticks,
            "structure_id": self._structure_id,
            "version_text": self._version_text,
            "iostat_names": list(self._iostat_names) if self._iostat_names is not None else None,
            "slots": {
                key: {
                    "raw": _sample_dict(slot.raw) if slot.raw else None,
                    "error": slot.error,
                    "dropped": slot.dropped,
                }
                for key, slot in self._slots.items()
            },
            "prev_disk_time": self._prev_disk[0] if self._prev_disk else None,
            "disk_rates": {dev: dataclasses.asdict(r) for dev, r in self._disk_rates.items()},
            "events": [dataclasses.asdict(e) for e in self._events.values()],
            "hist_bases": {
                pool: {vdev: [t, [[c, list(n)] for c, n in cols]] for vdev, (t, cols) in bases.items()}
                for pool, bases in self._hist_bases.items()
            },
            "smart_said": self._smart_said,
        }

    @classmethod
    def restore(cls, state: dict[str, Any]) -> SnapshotBuilder:
        """A builder that continues exactly where the checkpointed one stood."""
        b = cls(float(state["interval"]), state.get("host"))
        # devices first: diskstats is parsed for the devices they name, as it was when fed
        for key, saved in sorted(state["slots"].items(), key=lambda kv: kv[0] != "devices"):
            slot = b._slots.setdefault(key, _Slot())
            raw = visible_sample(_sample_from(saved["raw"])) if saved.get("raw") else None
            if raw is not None:
                # parsed as feed parses it: the next status or list answer reuses what reads the same
                value = b._parse(key.split(":", 1)[0], raw)
                slot.value, slot.good_time, slot.raw = (() if saved.get("dropped") else value), raw.time, raw
                slot.dropped = bool(saved.get("dropped"))
            slot.error = saved.get("error")
        disk = b._slots.get("diskstats")
        if disk is not None and disk.value is not None and state.get("prev_disk_time") is not None:
            b._prev_disk = (float(state["prev_disk_time"]), disk.value)
        b._disk_rates = DiskRates.of({dev: DiskIo(**r) for dev, r in state.get("disk_rates", {}).items()})
        b._version_text = state.get("version_text")
        names = state.get("iostat_names")
        b._iostat_names = tuple(names) if names is not None else None
        b._events = {(e["time"], e["eid"], e["cls"]): ZEvent(**e) for e in state.get("events", [])}
        b._hist_bases = {
            pool: {
                vdev: (float(t), tuple((str(c), tuple(map(int, n))) for c, n in cols))
                for vdev, (t, cols) in bases.items()
            }
            for pool, bases in state.get("hist_bases", {}).items()
        }
        for key, slot in b._slots.items():  # the histograms as they stood, from the bases kept
            if key.startswith("hist:") and slot.raw is not None and slot.value is not None:
                pool = key.split(":", 1)[1]
                b._histograms[pool] = latency_histograms(
                    pool, slot.value, slot.raw.time, b._hist_bases.setdefault(pool, {})
                )
        b._smart_said = state.get("smart_said")
        b._evidence_changes = sum(1 for k in b._slots if k.split(":", 1)[0] in EVIDENCE_KINDS)
        b._ticks = int(state["ticks"])
        b._structure_id = int(state.get("structure_id", 0))
        b._refresh_structure(0.0, bump=False)  # the same structure, under the same number
        return b

    def feed(self, tick: Tick) -> Snapshot:
        self._ticks += 1
        for s in tick.samples:
            self._take(s)
        return self._build(tick.time)

    def _value(self, key: str, now: float, max_age_ticks: float | None = None) -> Any:
        slot = self._slots.get(key)
        if slot is None or slot.good_time is None:
            return None
        if max_age_ticks is not None and now - slot.good_time > max_age_ticks * self.interval:
            return None
        return slot.value

    def _refresh_structure(self, now: float, bump: bool = True) -> tuple[Dataset, ...]:
        """The tree with its space, ashift and device facts changes only when one of those
        commands answers (every few seconds to minutes): built once per change, not per tick,
        and numbered (Snapshot.structure_id) so checks of structure alone can reuse their work."""
        status: tuple[Pool, ...] = self._value("status", now) or ()
        listed = self._value("list", now) or _NONE
        devices = self._value("devices", now) or _NONE
        ashifts = {p.name: self._value(f"ashift:{p.name}", now) for p in status}
        datasets: tuple[Dataset, ...] = self._value("datasets", now) or ()
        history = self._value("history", now) or NO_HISTORY
        key = (
            id(status),
            id(listed),
            id(devices),
            id(datasets),
            id(history),
            tuple((n, id(a)) for n, a in ashifts.items()),
        )
        if key != self._structure_key:
            self._structure_key = key
            self._structure_id += bump
            # What the structure's leaves are made with: when any of it is another object, no
            # leaf made before can be reused. (The objects are held with their ids, so an id
            # cannot come back as another object's.)
            made_with = (id(listed), id(devices), tuple((n, id(a)) for n, a in sorted(ashifts.items())))
            if made_with != self._structure_made_with[0]:
                self._structure_reuse.clear()
            self._structure_made_with = (made_with, (listed, devices, ashifts))
            reuse = self._structure_reuse
            self._structure = tuple(
                join.attach_history(
                    join.attach_structure(p, listed.get(p.name), ashifts[p.name], devices, reuse), history
                )
                for p in status
            )
            reuse.next_pass()
        return datasets

    def _build(self, now: float) -> Snapshot:
        datasets = self._refresh_structure(now)
        report: IostatReport = self._value("iostat", now, IO_KEEP_TICKS) or EMPTY_REPORT
        disks = self._disk_rates if self._value("diskstats", now, IO_KEEP_TICKS) else NO_RATES
        layouts = self._measure_layouts(report.names, disks.names)
        pools = [join.attach_measures(p, layouts[p.name], report, disks) for p in self._structure]
        return Snapshot(
            time=now,
            pools=tuple(pools),
            datasets=tuple(datasets),
            sources=self._source_states(now),
            events=self._recent_events(now),
            host=self.host,
            zfs_version=self._version_text,
            interval=self.interval,
            structure_id=self._structure_id,
            evidence=self._current_evidence(now),
        )

    def _measure_layouts(self, names: tuple[str, ...], disks: tuple[str, ...]) -> dict[str, MeasureLayout]:
        """Each pool's MeasureLayout, made again only when the tree, the report's rows or the
        disks listed change (a tick of a steady pool: the same ones)."""
        # A layout reads only its pool's name and tree: a new structure of the same trees (a
        # status that moved only a scan) keeps them.
        trees = tuple((p.name, p.root) for p in self._structure)
        structure, was_names, was_disks = self._layouts_for
        if (
            len(structure) == len(trees)
            and all(n == m and a is b for (n, a), (m, b) in zip(structure, trees))
            and was_names == names
            and was_disks == disks
        ):
            return self._layouts
        blocks = join.iostat_blocks(names, {p.name for p in self._structure})
        disk_index = {d: i for i, d in enumerate(disks)}
        self._layouts = {
            p.name: join.measure_layout(p, names, blocks.get(p.name), disk_index) for p in self._structure
        }
        self._layouts_for = (trees, names, disks)
        return self._layouts

    def _current_evidence(self, now: float) -> Evidence:
        """SMART readings, histograms, the kernel log and the leaves' disks, rebuilt only when an
        evidence sample arrived, the device facts changed or a histogram aged out (most ticks: the
        same object). Histograms older than HIST_FRESH_S are dropped: the finding that asked for
        them is gone, and an old picture must not pass for the disk's state now."""
        devices = self._slots.get("devices")
        hists = tuple(
            h
            for pool in sorted(self._histograms)
            for h in self._histograms[pool]
            if now - h.time <= HIST_FRESH_S
        )
        key = (self._evidence_changes, devices.value if devices else None, len(hists))
        if key[0] == 0 and key[1] is None:
            return NO_EVIDENCE
        old = self._evidence_for
        if old and old[0] == key[0] and old[1] is key[1] and old[2] == key[2]:
            return self._evidence
        self._evidence_for = key
        smart = []
        for name, slot in sorted(self._slots.items()):
            if slot.value is None or slot.raw is None:
                continue
            if name.startswith(("smart:", "smarttext:")):
                smart.append(dataclasses.replace(slot.value, time=slot.raw.time))
            elif name == "smartd":  # every disk its pasted lines name
                smart += [dataclasses.replace(r, time=slot.raw.time) for r in slot.value]
        kernlog = self._slots.get("kernlog")
        self._evidence = Evidence(
            smart=tuple(smart),
            histograms=hists,
            kernel_log=kernlog.value if kernlog is not None and kernlog.value else (),
            disks=self._leaf_disks(devices.value if devices is not None and devices.value else None),
            smart_unavailable=self._smart_said,
            kernel_log_unavailable=kernlog.error if kernlog is not None and not kernlog.value else None,
        )
        return self._evidence

    def _leaf_disks(self, facts: Any) -> tuple[LeafDisks, ...]:
        """The disks under each leaf, resolved again only when the device facts, lsblk or the
        sysfs paths changed (a 5,000-leaf host resolves once per change, not per SMART reading)."""
        lsblk, sysfs = self._slots.get("blockdevs"), self._slots.get("sysfs")
        inputs = (facts, lsblk.value if lsblk else None, sysfs.value if sysfs else None)
        if self._disks_for is not None and all(a is b for a, b in zip(self._disks_for, inputs)):
            return self._disks
        self._disks_for = inputs
        # Only once lsblk was asked (answered or not): an older recording never asked, and a leaf
        # of it has no disks to speak of rather than "lsblk does not list loop0".
        self._disks = resolve(facts, inputs[1], inputs[2]) if facts and lsblk is not None else ()
        return self._disks

    def _source_states(self, now: float) -> tuple[SourceState, ...]:
        out = [
            SourceState(key, False, None, f"{key}: no data in {self._ticks} ticks")
            for key in EXPECTED
            if key not in self._slots and self._ticks > STALE_AFTER[key]
        ]
        for key in sorted(self._slots):
            if key.split(":", 1)[0] in EVIDENCE_KINDS:
                continue  # asked for only while a finding stands: its absence is no problem
            slot = self._slots[key]
            age = None if slot.good_time is None else max(0.0, now - slot.good_time)
            limit = stale_limit(key, self.interval)
            ok = slot.error is None and age is not None and age <= limit
            msg = slot.error
            if msg is None and not ok:
                msg = f"{key}: no fresh data for {age:.0f} s" if age is not None else f"{key}: no data yet"
            out.append(
                SourceState(key, ok, age, msg, stalled=not ok and slot.error is None and age is not None)
            )
        return tuple(out)
