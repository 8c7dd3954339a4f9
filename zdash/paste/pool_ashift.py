"""The configured ashift a paste gives each pool (zdash.paste.ashift's blocks), as the
`zpool get -H -p -o name,value ashift POOL all-vdevs` samples the builder reads, and a status
for a pool the paste shows only that way (zdb's tree, an all-vdevs table's vdev names: no state
unless root-0's is printed, no error counters).

A grep's `ashift:` lines are the top-level vdevs, in order, of the pool the transcript last named
before them. A pool name given again by a later `zpool create` is another pool (the first was
destroyed or lives elsewhere): the earlier one is kept apart as NAME(lineN), N the line of the
`zpool create` that made it, so what it showed is judged too (corpus 264).
"""

from __future__ import annotations

from typing import NamedTuple

from zdash.model import AUX_CLASSES, Pool, VdevClass
from zdash.parse.vdev_ashift import ashift_by_vdev_name
from zdash.parse.zpool_status.json_scan import JsonObject
from zdash.paste.ashift import ROOT_VDEV, UNNAMED_TOP, ashift_rows, parse_ashift_value
from zdash.paste.depth import UNNAMED_POOL, UNSHOWN_VDEV, by_names, is_top_name
from zdash.paste.merge import Run
from zdash.paste.split import AshiftPaste
from zdash.paste.tree import synth_status
from zdash.paste.zpool_list import ListEntry, entries_from_get
from zdash.raw import RawSample

ASHIFT_ARGV = ("zpool", "get", "-H", "-p", "-o", "name,value", "ashift")


class _Row(NamedTuple):
    n: int
    depth: int
    name: str
    vclass: VdevClass


def ashift_samples(
    run: Run,
    texts: dict[str, str | JsonObject],
    lists: dict[str, list[ListEntry]],
    statuses: dict[str, Pool],
) -> tuple[RawSample, ...]:
    """The ashift samples; texts and lists gain what only these blocks say of a pool."""
    ashifts: dict[str, dict[str, int]] = {}
    trees: dict[str, list[_Row]] = {}
    states: dict[str, str] = {}
    for b in run.doc.blocks:
        if not isinstance(b, AshiftPaste):
            continue
        for pool, dumped in b.zdb.items():
            ashifts.setdefault(pool, {}).update(ashift_by_vdev_name(dumped))
            rows = [_Row(b.first, 0, pool, "normal")]
            for t in dumped:
                if t.type in ("hole", "indirect"):
                    continue
                vclass: VdevClass = "log" if t.is_log else "normal"
                rows.append(_Row(b.first, 1, t.name, vclass))
                if t.type not in ("disk", "file"):
                    rows += [_Row(b.first, 2, path.rsplit("/", 1)[-1], vclass) for path in t.leaf_paths]
            trees.setdefault(pool, rows)
        if b.vdevs is not None:
            pool = b.vdevs.pool or UNNAMED_POOL
            names = b.vdevs.names()
            listed = {
                n: a
                for n in names
                if is_top_name(n) and (a := parse_ashift_value(b.vdevs.props[n].get("ashift", "")))
            }
            ashifts.setdefault(pool, {}).update(listed)
            depths = by_names([pool, *names])
            trees.setdefault(pool, [_Row(b.first, d, n, "normal") for d, n in zip(depths, [pool, *names])])
            root = b.vdevs.props[ROOT_VDEV]
            if root.get("state"):
                states[pool] = root["state"]
            got = [f"{pool} {prop} {value} -" for prop, value in root.items()]
            if pool not in lists and (entries := entries_from_get(got, b.first)):
                lists[pool] = entries
                run.notes.append(f"pool {pool}: its space is root-0's in zpool get ... all-vdevs")
        if b.grepped:
            owner, made = _owner(run, b.first)
            if owner is None:
                run.refuse(range(b.first, b.last + 1), "`ashift:` lines with no pool named before them")
                continue
            # The pool's status names its top-level vdevs; zdb lists them in that order (by id).
            known = (
                [v.name for v in statuses[owner].top_level if v.vclass not in AUX_CLASSES]
                if owner in statuses
                else []
            )
            names = (
                known
                if len(known) == len(b.grepped)
                else [UNNAMED_TOP.format(k) for k in range(len(b.grepped))]
            )
            tops_named = dict(zip(names, b.grepped))
            ashifts[_identity(run, owner, made)] = tops_named
            run.notes.append(
                f"pool {owner}: `zdb | grep ashift` (line {b.first}) keeps no vdev names; "
                "its values are the top-level vdevs in order"
            )
    for pool, tops in list(ashifts.items()):
        if pool in texts:
            continue
        # A grep names no vdev and no member: each top-level vdev stands over one member the paste
        # did not show (a top alone would read as a single-disk vdev).
        rows = trees.get(pool) or [_Row(0, 0, pool, "normal")] + [
            r for n in tops for r in (_Row(0, 1, n, "normal"), _Row(0, 2, UNSHOWN_VDEV, "normal"))
        ]
        state = states.get(pool)
        texts[pool] = synth_status(pool, state, rows, [state] + [None] * (len(rows) - 1))
        run.notes.append(
            f"pool {pool}: known only from zdb / zpool get output; its vdevs' states and error "
            "counters are unknown"
        )
    return tuple(
        RawSample(f"ashift:{pool}", (*ASHIFT_ARGV, pool, "all-vdevs"), 0, ashift_rows(tops))
        for pool, tops in ashifts.items()
        if tops
    )


def _owner(run: Run, line: int) -> tuple[str | None, int]:
    """The pool the transcript last named before `line`, and the line of the `zpool create`
    that made it (0: not in the paste)."""
    before = [(n, pool, create) for n, pool, create in run.doc.named if n < line]
    if not before:
        return None, 0
    pool = before[-1][1]
    made = max((n for n, p, create in before if p == pool and create), default=0)
    return pool, made


def _identity(run: Run, pool: str, made: int) -> str:
    """The name a pool's grep is kept under: NAME for the latest pool of that name, NAME(lineN)
    for one a later `zpool create` of the same name replaced."""
    later = [n for n, p, create in run.doc.named if p == pool and create and n > made]
    if not later:
        return pool
    kept = f"{pool}(line{made})"
    run.notes.append(
        f"pool {pool}: the pool of that name made at line {made} is not the one `zpool create` "
        f"made again at line {later[0]}; it is shown as {kept}"
    )
    return kept
