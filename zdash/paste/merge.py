"""Merging what a paste holds, pool by pool: the status reports (the later one of a pool
wins), the last list / iostat report of each pool, and a status built from a list or iostat
tree for a pool pasted without one. Every piece goes through the real parser before it is
kept; what it refuses is reported line by line with the parser's reason.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from zdash.model import UNSEEN, Pool
from zdash.parse import ParseError
from zdash.parse.zfs_list import parse_zfs_list
from zdash.parse.zpool_iostat import parse_iostat
from zdash.parse.zpool_list import parse_list
from zdash.parse.zpool_status.json_scan import JsonObject
from zdash.parse.zpool_status.text import parse_status_text
from zdash.paste.depth import UNNAMED_POOL
from zdash.paste.lineage import replay
from zdash.paste.split import (
    IostatPaste,
    JsonStatusPaste,
    ListPaste,
    PastedDoc,
    StatusPaste,
    Unread,
    ZfsPaste,
)
from zdash.paste.table import TreeRow
from zdash.paste.tree import SCANS_NOT_PASTED, synth_status
from zdash.paste.zfs_list import Props, zfs_text
from zdash.paste.zpool_iostat import IostatEntry, iostat_text
from zdash.paste.zpool_list import ListEntry, ListValues, list_text
from zdash.paste.zpool_status import is_config_header, label_of, pool_text

Entry = TypeVar("Entry", ListEntry, IostatEntry)


def groups(entries: Iterable[Entry]) -> list[list[Entry]]:
    """Split rows into pools: a depth-0 row starts one."""
    out: list[list[Entry]] = []
    for e in entries:
        if e.depth == 0 or not out:
            out.append([])
        out[-1].append(e)
    return out


class Run:
    """One import's bookkeeping: lines used, lines reported (once each) and notes."""

    def __init__(self, doc: PastedDoc) -> None:
        self.doc = doc
        self.notes: list[str] = list(doc.notes)
        self.unread, self.used = list(doc.unread), set(doc.used)
        self._reported = {u.line for u in doc.unread}

    def refuse(self, numbers: Iterable[int], why: str) -> None:
        for n in sorted(set(numbers) - self._reported):
            self.used.discard(n)
            self._reported.add(n)
            self.unread.append(Unread(n, self.doc.lines[n - 1], why))

    def checked(
        self, what: str, name: str, numbers: Iterable[int], parse: Callable[[str], object], text: str
    ) -> bool:
        try:
            parse(text)
        except ParseError as e:
            self.refuse(numbers, f"{what} of {name} could not be read: {e}")
            return False
        return True


def statuses(run: Run) -> dict[str, tuple[Pool, str | JsonObject]]:
    """{pool: (Pool, rebuilt text or its `zpool status -j` object)}; a pool pasted twice keeps
    its later report."""
    out: dict[str, tuple[Pool, str | JsonObject]] = {}
    firsts: dict[str, int] = {}  # the line each kept text report starts at
    for b in run.doc.blocks:
        if isinstance(b, JsonStatusPaste):
            for pool in b.pools:
                if pool.name in out and not pool.root.children:  # cut before its vdevs
                    run.notes.append(
                        f"pool {pool.name}: zpool status -j pasted again without its vdevs "
                        f"(line {b.first}); the report with them is used"
                    )
                    continue
                if pool.name in out:
                    run.notes.append(f"pool {pool.name}: zpool status pasted twice, line {b.first} is used")
                out[pool.name] = (pool, b.objects[pool.name])
            continue
        if not isinstance(b, StatusPaste):
            continue
        for sp in b.pools:
            text = pool_text(sp)
            if sp.name is None:
                run.refuse(sp.used, "a config table without a pool row")
                continue
            if sp.headless or sp.import_listing or not _has_label(text, ("scan", "scrub", "config")):
                # zpool 2.0+ prints no scan: line for a pool never scanned, so only a report
                # whole down to its config: says "never"; a table alone, a report cut above it
                # or a `zpool import` listing (which never prints scans) says nothing of scans
                # (a line in no wording zpool uses makes that known).
                text = _scans_not_pasted(text)
            if _rowless(text):
                if sp.name in out:
                    run.notes.append(
                        f"pool {sp.name}: zpool status pasted again without its config rows "
                        f"(line {sp.first}); the report with them is used"
                    )
                    continue
                # pool:/state:/scan: pasted without the table (cut by the poster, or a transcript
                # of scrub progress): the state and scans are still the pool's own word.
                text += _pool_row_only(sp.name, text)
                run.notes.append(
                    f"pool {sp.name}: `zpool status -x` says only that it is healthy (line "
                    f"{sp.first}): ONLINE; its vdevs, error counters and scrubs are unknown"
                    if sp.healthy_line
                    else f"pool {sp.name}: zpool status pasted without its config rows; its vdevs "
                    "and error counters are unknown"
                )
            try:
                (pool,) = parse_status_text(text)
            except (ParseError, ValueError) as e:
                run.refuse(sp.used, f"zpool status of {sp.name} could not be read: {e}")
                continue
            if sp.name in out and _other_pool(out[sp.name][0], pool):
                kept = f"{sp.name}(line{firsts[sp.name]})"
                earlier = out.pop(sp.name)[1]
                assert isinstance(earlier, str)  # text reports only reach firsts
                renamed = _renamed(earlier, sp.name, kept)
                (out[kept],) = [(p, renamed) for p in parse_status_text(renamed)]
                run.notes.append(
                    f"pool {sp.name}: the reports at lines {firsts[sp.name]} and {sp.first} share no "
                    f"device: two pools of that name, the earlier shown as {kept}"
                )
            elif sp.name in out:
                run.notes.append(f"pool {sp.name}: zpool status pasted twice, line {sp.first} is used")
            firsts[sp.name] = sp.first
            if sp.headless and sp.name == UNNAMED_POOL:
                run.notes.append(
                    f"config rows (line {sp.first}) pasted without their pool's row: shown in a "
                    f"pool named {UNNAMED_POOL}; the pool's state, and the layout of a vdev not "
                    "pasted, are unknown"
                )
            elif sp.headless:
                run.notes.append(
                    f"pool {sp.name}: its config table (line {sp.first}) was pasted without "
                    "the pool:/state: lines; the state is its pool row's"
                )
            out[sp.name] = (pool, text)
    return out


def _renamed(text: str, name: str, new: str) -> str:
    """A rebuilt status report with its pool: line and its config's pool row renamed."""
    lines = text.split("\n")
    for k, line in enumerate(lines):
        if (lab := label_of(line)) is not None and lab[0] == "pool":
            lines[k] = line.replace(name, new, 1)
        elif line.startswith("\t") and line.split()[:1] == [name]:
            lines[k] = line.replace(name, new, 1)
            break
    return "\n".join(lines)


def _other_pool(before: Pool, after: Pool) -> bool:
    """Two reports of one name are two pools (two hosts, an import listing of a destroyed
    namesake, issue 26) when both show devices and none of them is in both; the same pool
    reported again keeps at least one device (a replace swaps one, never all)."""
    old = {leaf.name for leaf in before.leaves()}
    new = {leaf.name for leaf in after.leaves()}
    return bool(old) and bool(new) and not old & new


def _rowless(text: str) -> bool:
    """No config row: no NAME STATE header, or nothing under it."""
    lines = text.split("\n")
    heads = [k for k, line in enumerate(lines) if is_config_header(line.strip())]
    return not heads or not any(line.startswith("\t") for line in lines[heads[-1] + 1 :])


def _has_label(text: str, labels: tuple[str, ...]) -> bool:
    return any((lab := label_of(line)) is not None and lab[0] in labels for line in text.split("\n"))


def _scans_not_pasted(text: str) -> str:
    """The text with a scan: line saying the paste holds none (after its pool: line), unless
    the paste has one."""
    if _has_label(text, ("scan", "scrub")):
        return text
    lines = text.split("\n")
    at = next((k + 1 for k, line in enumerate(lines) if (lab := label_of(line)) and lab[0] == "pool"), 0)
    return "\n".join([*lines[:at], SCANS_NOT_PASTED, *lines[at:]])


def _pool_row_only(name: str, text: str) -> str:
    """A config table of the pool row alone, in the state its state: line gives (unknown
    without one): no counters, no vdevs, nothing a check could read as a fault."""
    states = [
        v for line in text.split("\n") if (lab := label_of(line)) and lab[0] == "state" for v in [lab[1]]
    ]
    state = states[-1].split()[0] if states and states[-1] else UNSEEN
    return f"config:\n\n\tNAME  STATE\n\t{name}  {state}\n\n"


def latest_lists(run: Run) -> dict[str, list[ListEntry]]:
    """{pool: its rows in the last `zpool list` that has it}, each checked by the real parser."""
    lists = [b for b in run.doc.blocks if isinstance(b, ListPaste)]
    # A real `zpool list` wins over the pool row `zpool get` gave, wherever each was pasted.
    tables = [b.entries for b in lists if b.from_get] + [b.entries for b in lists if not b.from_get]
    return _latest(run, "zpool list", tables, parse_list, list_text)


def latest_iostats(run: Run) -> dict[str, list[IostatEntry]]:
    """{pool: its rows in the last `zpool iostat` report that has it}, each checked."""
    reports = [r for b in run.doc.blocks if isinstance(b, IostatPaste) for r in b.reports]
    return _latest(run, "zpool iostat", reports, parse_iostat, lambda pools: iostat_text(pools)[0])


def _latest(
    run: Run,
    what: str,
    reports: list[list[Entry]],
    parse: Callable[[str], object],
    layout: Callable[[list[list[Entry]]], str],
) -> dict[str, list[Entry]]:
    """Each pool's group of rows from the last report holding a group the parser accepts, once
    the pool's rows are laid out as the real command prints them (layout)."""
    out: dict[str, list[Entry]] = {}
    count: dict[str, int] = {}
    for report in reports:
        for group in groups(report):
            name = group[0].name
            if run.checked(what, name, [e.n for e in group], parse, layout([group])):
                out[name] = group
                count[name] = count.get(name, 0) + 1
    for name, k in count.items():
        if k > 1:
            run.notes.append(
                f"pool {name}: {k} {what} reports pasted, the last one (line {out[name][0].n}) is used"
            )
    return out


def space_from_iostat(entries: list[IostatEntry]) -> list[ListEntry]:
    """`zpool list -v` rows from iostat's alloc/free (the same vdev stats: vs_alloc and
    vs_space - vs_alloc) for the pool and its top-level vdevs; leaves have none."""
    out = []
    for e in entries:
        alloc, free = e.alloc, e.free
        values = ListValues()
        if e.depth <= 1 and alloc is not None and free is not None:
            cap = 100.0 * alloc / (alloc + free) if alloc + free else 0.0
            values = ListValues(
                size=alloc + free,
                alloc=alloc,
                free=free,
                cap=round(cap) if e.depth == 0 else round(cap, 1),
            )
        out.append(ListEntry(e.n, e.depth, e.name, e.vclass, values))
    return out


def synthesised(
    run: Run, name: str, listed: list[ListEntry] | None, io: list[IostatEntry] | None
) -> str | None:
    state = listed[0].values.health if listed else None
    if state is None and (said := all_healthy(run, name)) is not None:
        state = said
    tree: Sequence[TreeRow]
    if listed and (len(listed) > 1 or not io):
        tree, states, source = listed, [e.values.health for e in listed], "zpool list"
    elif io:
        tree, states, source = io, [state] + [None] * (len(io) - 1), "zpool iostat"
    else:
        return None  # neither pasted: no tree to build
    run.notes.append(
        f"pool {name}: no zpool status pasted; its vdev tree comes from {source}, "
        "its error counters are unknown (shown as 0)" + ("" if state else ", its state is unknown")
    )
    text = synth_status(name, state, tree, states)
    ok = run.checked("the vdev tree", name, [e.n for e in tree], parse_status_text, text)
    return text if ok else None


def all_healthy(run: Run, name: str) -> str | None:
    """ONLINE when the paste holds `zpool status -x`'s "all pools are healthy" (every imported
    pool ONLINE, no errors) and the pool's own state is not shown; the line is then used."""
    if not run.doc.all_healthy:
        return None
    run.used.update(run.doc.all_healthy)
    run.notes.append(
        f"pool {name}: its state is not in the paste, but `zpool status -x` says all pools are "
        f"healthy (line {run.doc.all_healthy[0]}): ONLINE"
    )
    return "ONLINE"


def datasets(run: Run) -> dict[str, Props]:
    """{dataset: properties} over every zfs list block, later columns winning; each row checked."""
    out: dict[str, Props] = {}
    for b in run.doc.blocks:
        if not isinstance(b, ZfsPaste):
            continue
        for name, props in b.rows.datasets.items():
            line = b.rows.lines[name]
            if run.checked("zfs list", name, [line], parse_zfs_list, zfs_text({name: props})):
                out.setdefault(name, {}).update(props)
    # A transcript's `zfs snapshot` / `zfs clone` / `zfs promote` lines, replayed in order.
    events = [(n, "snapshot" if clone is None else "clone", snap, clone) for snap, clone, n in run.doc.clones]
    events += [(n, "promote", fs, None) for fs, n in run.doc.promoted]
    lineage = replay(events) if events else None
    if events and lineage is None:
        run.notes.append(
            "the transcript's zfs clone/promote lines were not replayed: a promote of a clone, or "
            "snapshots, made before it; paste `zfs list -t all -o name,origin,clones` for what "
            "depends on what"
        )
    for snap in lineage.snapshots if lineage else ():
        out.setdefault(snap, {"name": snap, "type": "snapshot"})
    for clone, snap in lineage.origins if lineage else ():
        row = out.setdefault(clone, {"name": clone})
        row.setdefault("origin", snap)
        listed = [c for c in out[snap].get("clones", "").split(",") if c and c != "-"]
        out[snap]["clones"] = ",".join(dict.fromkeys([*listed, clone]))
    return out
