"""A paste into the raw samples one zdash tick holds, in the layouts the builder's parsers read.

status -> `zpool status` text, rebuilt (pasted_status) and checked pool by pool with the text
parser; list -> `zpool list -v -H -p`; iostat -> `zpool iostat -v -H -p [-l]`; zfs list ->
`zfs list -H -p -o <ZFS_LIST_FIELDS>` (pasted_merge checks each piece with the real parser).
A pool pasted only as `zpool list -v` or `zpool iostat -v` gets a status built from that tree,
since the builder takes the pools from `zpool status`; iostat's alloc/free stand in for a
missing `zpool list`. Rows named as the status tree names them (pasted_tree).
"""

from __future__ import annotations

import dataclasses
import json
import shlex
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

from zdash.model import Pool, Vdev, VdevClass
from zdash.parse.zfs_list import ZFS_LIST_FIELDS
from zdash.parse.zpool_iostat_hist import parse_histograms
from zdash.parse.zpool_status.json_scan import JsonObject
from zdash.paste.merge import (
    Entry,
    Run,
    all_healthy,
    datasets,
    latest_iostats,
    latest_lists,
    space_from_iostat,
    statuses,
    synthesised,
)
from zdash.paste.pool_ashift import ashift_samples
from zdash.paste.smart import smart_samples
from zdash.paste.split import HistogramPaste, PastedDoc, Unread, split_pasted
from zdash.paste.tree import fix_names, synth_status
from zdash.paste.zfs_list import Props, zfs_text
from zdash.paste.zpool_iostat import IostatEntry, iostat_text
from zdash.paste.zpool_list import ListEntry, list_text, space_from_status_json
from zdash.raw import RawSample

JSON_STATUS_ARGV = ("zpool", "status", "-j")
LIST_ARGV = ("zpool", "list", "-v", "-H", "-p")
IOSTAT_ARGV = ("zpool", "iostat", "-v", "-H", "-p")
HISTORY_ARGV = ("zpool", "history")
HISTOGRAM_ARGV = ("zpool", "iostat", "-w")
ZFS_ARGV = ("zfs", "list", "-H", "-p", "-t", "all", "-o", ",".join(ZFS_LIST_FIELDS))


@dataclass
class Imported:
    samples: tuple[RawSample, ...]
    unread: list[Unread]
    notes: list[str]
    newest: float | None  # the latest time printed in the paste (scan, -T), if any
    doc: PastedDoc
    used: set[int] = field(default_factory=set)
    # Only zfs output was read (zfs list/get, a transcript's zfs snapshot/clone/promote): no
    # zpool output, so nothing in the paste says how the pools are (issue 26: judged for what
    # it shows, its clones and space, never for the pools' health).
    datasets_only: bool = False

    @property
    def ok(self) -> bool:
        return bool(self.samples)


def import_paste(text: str) -> Imported:
    doc = split_pasted(text)
    run = Run(doc)
    status = statuses(run)
    lists = latest_lists(run)
    iostats = latest_iostats(run)
    _fix_names(run, status, lists)
    _fix_names(run, status, iostats)
    texts: dict[str, str | JsonObject] = {name: t for name, (_, t) in status.items()}
    for name in [*lists, *(n for n in iostats if n not in lists)]:
        if name not in texts and (tree := synthesised(run, name, lists.get(name), iostats.get(name))):
            texts[name] = tree
    for name, entries in iostats.items():
        if name not in lists and entries[0].alloc is not None:
            lists[name] = space_from_iostat(entries)
            run.notes.append(f"pool {name}: no zpool list pasted; its space is zpool iostat's alloc/free")
    for name, (_, report) in status.items():
        if name not in lists and not isinstance(report, str) and (space := space_from_status_json(report)):
            lists[name] = space
            run.notes.append(
                f"pool {name}: no zpool list pasted; its space is zpool status -j's alloc_space/total_space"
            )
    found = datasets(run)
    # Only datasets pasted: the pool is known, its state is not. A pool is read from them only
    # when they show its space (used/avail, which capacity is judged from); names and origins
    # alone say nothing of the pool (corpus 260, 261: UNKNOWN, as an `-o origin,name` list, 202).
    spaced = (d for d, props in found.items() if props.keys() & {"used", "avail"})
    for name in dict.fromkeys(d.split("/", 1)[0].split("@", 1)[0] for d in spaced):
        if name not in texts:
            texts[name] = synth_status(name, all_healthy(run, name), [], [])
            run.notes.append(
                f"pool {name}: known only from its datasets (zfs list/get); its vdevs and state are unknown"
            )
    # Configured ashift (zdb, zpool get ... all-vdevs): a sample per pool, and the tree of a pool
    # pasted only that way.
    pooled = bool(status or lists or iostats)
    ashift = ashift_samples(run, texts, lists, {name: pool for name, (pool, _) in status.items()})
    samples = _samples(_one_dialect(run, texts, status), lists, iostats, found) + ashift
    samples += _histograms(run, texts)
    # SMART beside zpool's output (smartd lines, smartctl text): evidence for the pools pasted,
    # read only where a pool is (alone it holds no pool a verdict could rest on).
    smart = smart_samples(run) if texts else ()
    samples += smart
    if doc.added:  # the transcript's `zpool add`/`attach` lines, as `zpool history` prints commands
        history = "".join(shlex.join(argv) + "\n" for argv, _ in doc.added)
        samples += (RawSample("history", HISTORY_ARGV, 0, history),)
    times = list(doc.times) + [
        t
        for p, _ in status.values()
        for s in p.scans
        for t in (s.start_time, s.end_time, s.pause_time)
        if t is not None
    ]
    if not run.used & set(doc.all_healthy):
        run.unread += [
            Unread(n, doc.lines[n - 1], "`zpool status -x` summary: no details to import")
            for n in doc.all_healthy
        ]
    _account(run)
    return Imported(
        samples,
        sorted(run.unread, key=lambda u: u.line),
        run.notes,
        max(times) if times else None,
        doc,
        run.used,
        datasets_only=bool(found) and not pooled and not ashift and not doc.all_healthy,
    )


def _one_dialect(
    run: Run, texts: dict[str, str | JsonObject], status: dict[str, tuple[Pool, str | JsonObject]]
) -> dict[str, str] | dict[str, JsonObject]:
    """The pools' status reports in one dialect, as one status sample holds them: JSON when
    every pool's came as `zpool status -j`, else text, a JSON one beside text reduced to its
    tree and states (the text parser reads no JSON, and no zpool prints both at once)."""
    jsons = {name: t for name, t in texts.items() if not isinstance(t, str)}
    if not jsons:
        return {name: t for name, t in texts.items() if isinstance(t, str)}
    if len(jsons) == len(texts):
        return jsons
    out: dict[str, str] = {}
    for name, t in texts.items():
        if isinstance(t, str):
            out[name] = t
            continue
        pool = status[name][0]
        rows = [_Row(0, depth, v.name, v.vclass) for depth, v in _walk(pool.root, 0)]
        out[name] = synth_status(name, pool.state, rows, [v.state for _, v in _walk(pool.root, 0)])
        run.notes.append(
            f"pool {name}: its zpool status -j was pasted beside text zpool status; only its "
            "vdev tree and states are read (no error counters, no scan)"
        )
    return out


class _Row(NamedTuple):
    n: int
    depth: int
    name: str
    vclass: VdevClass


def _walk(v: Vdev, depth: int) -> Iterator[tuple[int, Vdev]]:
    yield depth, v
    for c in v.children:
        yield from _walk(c, depth + 1)


def _samples(
    texts: dict[str, str] | dict[str, JsonObject],
    lists: dict[str, list[ListEntry]],
    iostats: dict[str, list[IostatEntry]],
    datasets: dict[str, Props],
) -> tuple[RawSample, ...]:
    samples = []
    if texts and all(isinstance(t, str) for t in texts.values()):
        samples.append(RawSample("status", ("zpool", "status"), 0, "".join(map(str, texts.values()))))
    elif texts:
        document = {"output_version": {"command": "zpool status", "vers_major": 0, "vers_minor": 1}}
        samples.append(RawSample("status", JSON_STATUS_ARGV, 0, json.dumps({**document, "pools": texts})))
    if lists:
        samples.append(RawSample("list", LIST_ARGV, 0, list_text(list(lists.values()))))
    if iostats:
        body, lat = iostat_text(list(iostats.values()))
        samples.append(RawSample("iostat", IOSTAT_ARGV + (("-l",) if lat else ()), 0, body))
    if datasets:
        samples.append(RawSample("datasets", ZFS_ARGV, 0, zfs_text(datasets)))
    return tuple(samples)


def _fix_names(
    run: Run, status: dict[str, tuple[Pool, str | JsonObject]], table: dict[str, list[Entry]]
) -> None:
    """Rows of a list or iostat table named as the pool's status tree names them."""
    for name, entries in table.items():
        names, guessed = fix_names(entries, status[name][0] if name in status else None)
        table[name] = [dataclasses.replace(e, name=nm) for e, nm in zip(entries, names)]
        if guessed:
            run.notes.append(
                f"pool {name}: interior vdevs printed without their id (older zpool "
                "list/iostat) were numbered by position"
            )


def _histograms(run: Run, texts: dict[str, str | JsonObject]) -> tuple[RawSample, ...]:
    """Each pasted `zpool iostat -w` of a pool the paste also shows, as that pool's histogram
    sample: zpool prints the pool's table first, then its vdevs' (each its own table in the
    paste), so a table of a pool starts a run the following histogram tables join. A histogram
    alone holds no state, capacity or error a verdict could rest on: not imported."""
    runs: dict[str, list[str]] = {}
    pool: str | None = None
    for b in run.doc.blocks:
        if not isinstance(b, HistogramPaste):
            pool = None  # another command's output ends the run
            continue
        lines = range(b.first, b.last + 1)
        name = next(iter(parse_histograms(b.text))).name
        if name in texts:
            pool = name
        if pool is None:
            run.refuse(
                lines, "`zpool iostat -w/-r` histogram: not imported (no status or list of its pool pasted)"
            )
            continue
        run.used.update(lines)
        runs.setdefault(pool, []).append(b.text)
    return tuple(RawSample(f"hist:{p}", HISTOGRAM_ARGV, 0, "\n".join(parts)) for p, parts in runs.items())


def _account(run: Run) -> None:
    """Every non-blank line is used or reported, never both."""
    reported = {u.line for u in run.unread}
    run.used -= reported
    for n, line in enumerate(run.doc.lines, 1):
        if line.strip() and n not in run.used and n not in reported:
            run.unread.append(Unread(n, line, "not read"))
