"""Merging what a paste holds, pool by pool: the status reports (the later one of a pool
wins), the last list / iostat report of each pool, and a status built from a list or iostat
tree for a pool pasted without one. Every piece goes through the real parser before it is
kept; what it refuses is reported line by line with the parser's reason.
"""

from __future__ import annotations

from zdash.parse import ParseError
from zdash.parse.zfs_list import parse_zfs_list
from zdash.parse.zpool_iostat import parse_iostat
from zdash.parse.zpool_list import parse_list
from zdash.parse.zpool_status.text import parse_status_text
from zdash.paste.split import PastedDoc, Unread
from zdash.paste.tree import synth_status
from zdash.paste.zfs_list import zfs_text
from zdash.paste.zpool_iostat import iostat_text
from zdash.paste.zpool_list import ListEntry, list_text
from zdash.paste.zpool_status import pool_text


def groups(entries: list) -> list[list]:
    """Split rows into pools: a depth-0 row starts one."""
    out: list[list] = []
    for e in entries:
        if e.depth == 0 or not out:
            out.append([])
        out[-1].append(e)
    return out


class Run:
    """One import's bookkeeping: lines used, lines reported (once each) and notes."""

    def __init__(self, doc: PastedDoc) -> None:
        self.doc, self.notes = doc, []
        self.unread, self.used = list(doc.unread), set(doc.used)
        self._reported = {u.line for u in doc.unread}

    def refuse(self, numbers, why: str) -> None:
        for n in sorted(set(numbers) - self._reported):
            self.used.discard(n)
            self._reported.add(n)
            self.unread.append(Unread(n, self.doc.lines[n - 1], why))

    def checked(self, what: str, name: str, numbers, parse, text: str) -> bool:
        try:
            parse(text)
        except ParseError as e:
            self.refuse(numbers, f"{what} of {name} could not be read: {e}")
            return False
        return True


def statuses(run: Run) -> dict:
    """{pool: (Pool, rebuilt text)}; a pool pasted twice keeps its later report."""
    out: dict = {}
    for b in (b for b in run.doc.blocks if b.kind == "status"):
        for sp in b.payload:
            text = pool_text(sp)
            if sp.name is None:
                run.refuse(sp.used, "a config table without a pool row")
                continue
            try:
                (pool,) = parse_status_text(text)
            except (ParseError, ValueError) as e:
                run.refuse(sp.used, f"zpool status of {sp.name} could not be read: {e}")
                continue
            if sp.name in out:
                run.notes.append(f"pool {sp.name}: zpool status pasted twice, line {sp.first} is used")
            if sp.headless:
                run.notes.append(
                    f"pool {sp.name}: its config table (line {sp.first}) was pasted without "
                    "the pool:/state: lines; the state is its pool row's"
                )
            out[sp.name] = (pool, text)
    return out


def latest(run: Run, kind: str, what: str) -> dict:
    """{pool: its rows in the last report that has it}, each checked by the real parser."""
    out: dict = {}
    count: dict = {}
    for b in (b for b in run.doc.blocks if b.kind == kind):
        for report in b.payload if kind == "iostat" else [b.payload]:
            for group in groups(report):
                name = group[0].name
                if kind == "list":
                    ok = run.checked(what, name, [e.n for e in group], parse_list, list_text([group]))
                else:
                    ok = run.checked(what, name, [e.n for e in group], parse_iostat, iostat_text([group])[0])
                if ok:
                    out[name] = group
                    count[name] = count.get(name, 0) + 1
    for name, k in count.items():
        if k > 1:
            run.notes.append(
                f"pool {name}: {k} {what} reports pasted, the last one (line {out[name][0].n}) is used"
            )
    return out


def space_from_iostat(entries: list) -> list[ListEntry]:
    """`zpool list -v` rows from iostat's alloc/free (the same vdev stats: vs_alloc and
    vs_space - vs_alloc) for the pool and its top-level vdevs; leaves have none."""
    out = []
    for e in entries:
        alloc, free = e.values.get("capacity_alloc"), e.values.get("capacity_free")
        values = {}
        if e.depth <= 1 and alloc is not None and free is not None:
            cap = 100.0 * alloc / (alloc + free) if alloc + free else 0.0
            values = {
                "SIZE": alloc + free,
                "ALLOC": alloc,
                "FREE": free,
                "CAP": round(cap) if e.depth == 0 else round(cap, 1),
            }
        out.append(ListEntry(e.n, e.depth, e.name, e.vclass, values))
    return out


def synthesised(run: Run, name: str, listed, io) -> str | None:
    state = listed[0].values.get("HEALTH") if listed else None
    if listed and (len(listed) > 1 or not io):
        tree, states, source = listed, [e.values.get("HEALTH") for e in listed], "zpool list"
    else:
        tree, states, source = io, [state] + [None] * (len(io) - 1), "zpool iostat"
    run.notes.append(
        f"pool {name}: no zpool status pasted; its vdev tree comes from {source}, "
        "its error counters are unknown (shown as 0)" + ("" if state else ", its state is unknown")
    )
    text = synth_status(name, state, tree, states)
    ok = run.checked("the vdev tree", name, [e.n for e in tree], parse_status_text, text)
    return text if ok else None


def datasets(run: Run) -> dict[str, dict]:
    """{dataset: properties} over every zfs list block, later columns winning; each row checked."""
    out: dict[str, dict] = {}
    for b in (b for b in run.doc.blocks if b.kind == "zfs"):
        for name, props in b.payload.items():
            if run.checked("zfs list", name, [props["_n"]], parse_zfs_list, zfs_text({name: props})):
                out.setdefault(name, {}).update(props)
    return out
