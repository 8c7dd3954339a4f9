"""Vdev trees across pasted outputs: name rows as the status tree does (old anonymous interior
names get their id, short leaf names become the `-P` path status showed), and build a
`zpool status` report for a pool that was pasted only as `zpool list -v` / `zpool iostat -v`.

Before 0.8, `zpool list -v` and `zpool iostat -v` named interior vdevs without their id
("mirror", "raidz2"; 0.8's list still did, openzfs/zfs#11076), while `zpool status` says
"mirror-0". The id is the vdev's index in its parent (top level: in the pool, logs included),
so rows are matched to the status tree in order, kind by kind; with no status pasted they are
numbered by position, which is right unless vdevs were removed or logs added first.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from zdash.model import AUX_CLASSES, UNSEEN, Pool, Vdev, VdevClass
from zdash.parse.classes import STATUS_HEADING
from zdash.paste.depth import UNSHOWN_VDEV
from zdash.paste.table import TreeRow

_ANON = re.compile(r"(mirror|raidz[1-3]?|draid[1-3]?(?::[0-9a-z:]*)?|replacing|spare)")


def is_anonymous(name: str) -> bool:
    return _ANON.fullmatch(name) is not None


def fix_names(entries: Sequence[TreeRow], pool: Pool | None) -> tuple[list[str], bool]:
    """New names for a pool's entries (entry 0: the pool), and whether any anonymous name had
    to be numbered by position."""
    names = [e.name for e in entries]
    guessed = False
    # (depth, the status vdev matched at that depth, its children matched so far)
    stack: list[tuple[int, Vdev | None, list[Vdev]]] = [(0, pool.root if pool else None, [])]
    counters: dict[int, int] = {}
    for k, e in enumerate(entries[1:], 1):
        while len(stack) > 1 and stack[-1][0] >= e.depth:
            stack.pop()
        _, parent, used = stack[-1]
        position = counters.get(id(used), 0)
        counters[id(used)] = position + 1
        match = _match(e, parent, used) if parent is not None else None
        if match is not None:
            names[k] = match.name
        elif is_anonymous(e.name) and parent is None:
            names[k] = f"{e.name}-{position}"
            guessed = True
        stack.append((e.depth, match, []))
    return names, guessed


def _match(entry: TreeRow, parent: Vdev, used: list[Vdev]) -> Vdev | None:
    anon = is_anonymous(entry.name)
    for child in parent.children:
        if any(child is u for u in used):
            continue
        if parent.kind == "root" and child.vclass != entry.vclass:
            continue
        if (
            child.name == entry.name
            or child.path == entry.name
            or (anon and child.name.startswith(entry.name + "-"))
            or entry.name in _short(child.name)
            or child.name in _short(entry.name)
        ):
            used.append(child)
            return child
    return None


def _short(name: str) -> set[str]:
    """Names zpool prints without -P for a leaf shown with -P as a path: its last component,
    without the partition suffix zpool strips from whole disks."""
    if not name.startswith("/"):
        return set()
    base = name.rsplit("/", 1)[-1]
    return {
        base,
        re.sub(r"-part[0-9]+$", "", base),
        re.sub(r"(?<=[0-9])p[0-9]+$", "", base),
        re.sub(r"(?<=^[shv]d[a-z])[0-9]+$|(?<=^xvd[a-z])[0-9]+$", "", base),
    }


# A scan: line in no wording zpool uses: the status it is in says nothing of scans (unknown).
SCANS_NOT_PASTED = "  scan: not in the paste"


def synth_status(name: str, state: str | None, entries: Sequence[TreeRow], states: list[str | None]) -> str:
    """A `zpool status` text with the tree and the states a list/iostat paste gave: no
    counters (unknown), vdev states from HEALTH, else ONLINE under an ONLINE pool (a pool is
    ONLINE only when every vdev under its root is; cache and spares stay UNSEEN). A state the
    paste did not show is UNSEEN: unknown, which no check reads as a problem; so are its scans
    (list and iostat show none: a scan: line in no wording zpool uses says so)."""
    pool_state = state or UNSEEN
    out = [
        f"  pool: {name}",
        f" state: {pool_state}",
        SCANS_NOT_PASTED,
        "config:",
        "",
        "\tNAME  STATE",
        f"\t{name}  {pool_state}",
    ]
    vclass: VdevClass = "normal"
    for e, s in zip(entries[1:], states[1:]):
        if e.vclass != vclass:
            vclass = e.vclass
            out.append("\t" + STATUS_HEADING.get(vclass, vclass))
        if s is None:
            # a vdev the paste did not show stays unknown: its layout is what no check may judge
            shown = e.name != UNSHOWN_VDEV
            s = "ONLINE" if pool_state == "ONLINE" and shown and vclass not in AUX_CLASSES else UNSEEN
        out.append("\t" + "  " * e.depth + f"{e.name}  {s}")
    return "\n".join(out) + "\n\n"
