"""Members of a JSON document pasted without its opening (corpus 156: a chunk from the middle
of `zpool status -j --json-flat-vdevs`, cut inside one vdev and after the next): the vdev
objects whose members are shown, read as devices of a pool the paste does not name.

A line `"key": value,` is a member, `"key": {` opens an object the key names, `}` or `},`
closes one. The first object may have lost its opening, and with it its key: its members before
the first closing brace are an object without a name. An object with a vdev's members
(`vdev_type`, or its error counters) is a vdev: its `name` (else its key, else
`(name-not-pasted)`), `state` (unknown when cut away), counters and `parent`. One without a
`parent` member sits where the objects at its indentation sit (zpool prints siblings at one
depth). They are laid out as the config table `zpool status -s` would print for a pool shown as
`(pool-not-pasted)`: read as any other status, judged for what they show (56 read errors are a
warning, whatever pool they are in), never for what the cut took away.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from zdash.model import UNSEEN
from zdash.paste.depth import UNNAMED_POOL, UNSHOWN_VDEV, is_top_name

_VALUE = r'"(?:[^"\\]|\\.){0,4096}"|-?[0-9]{1,20}(?:\.[0-9]{1,9})?|true|false|null'
MEMBER = re.compile(rf'"([\w.:-]{{1,64}})"\s*:\s*({_VALUE})\s*,?')
_OPEN = re.compile(r'"([^"]{1,255})"\s*:\s*\{')
_CLOSE = re.compile(r"\}\s*,?")
UNNAMED = "(name-not-pasted)"
_COUNTERS = ("read_errors", "write_errors", "checksum_errors")
_LEAF_TYPES = frozenset({"disk", "file"})
MAX_OBJECTS = 10_000  # far beyond a pasted chunk


@dataclass
class _Object:
    key: str | None
    indent: int = -1  # of its members
    members: dict[str, str] = field(default_factory=dict)


def is_member(line: str) -> bool:
    return MEMBER.fullmatch(line.strip()) is not None


def take_members(lines: list[str], i: int) -> tuple[int, list[_Object]]:
    """The run of member/open/close lines from lines[i]: its end and the objects it shows."""
    stack = [_Object(None)]  # the object cut open at the top
    done: list[_Object] = []
    j = i
    while j < len(lines) and len(done) < MAX_OBJECTS:
        text = lines[j].strip()
        if (m := MEMBER.fullmatch(text)) is not None:
            if not stack:
                stack.append(_Object(None))  # inside an object whose opening was cut
            top = stack[-1]
            top.members[m[1]] = m[2].strip('"')
            top.indent = top.indent if top.indent >= 0 else len(lines[j]) - len(lines[j].lstrip())
        elif (m := _OPEN.fullmatch(text)) is not None:
            stack.append(_Object(m[1]))
        elif _CLOSE.fullmatch(text) is not None:
            if stack:
                done.append(stack.pop())
        else:
            break
        j += 1
    done += reversed(stack)  # cut before they closed
    return j, done


def _is_vdev(o: _Object) -> bool:
    return "vdev_type" in o.members or any(c in o.members for c in _COUNTERS)


def members_status(objects: list[_Object]) -> tuple[str, str] | None:
    """(pool, the `zpool status -s` text of the vdevs the objects show); None when they show
    no disk with something to judge (a state or a counter)."""
    leaves = [o for o in objects if _is_vdev(o) and o.members.get("vdev_type", "disk") in _LEAF_TYPES]
    if not any("state" in o.members or any(c in o.members for c in _COUNTERS) for o in leaves):
        return None
    by_indent = {o.indent: o.members["parent"] for o in leaves if "parent" in o.members}
    groups: dict[str, list[_Object]] = {}
    for o in leaves:
        groups.setdefault(o.members.get("parent") or by_indent.get(o.indent) or UNSHOWN_VDEV, []).append(o)
    # a parent that is no vdev's name is the pool's root: its disks are single-disk vdevs
    pools = {p for p in groups if p != UNSHOWN_VDEV and not is_top_name(p) and not _GROUP.fullmatch(p)}
    pool = next(iter(pools)) if len(pools) == 1 and _POOL.fullmatch(next(iter(pools))) else UNNAMED_POOL
    slow = any("slow_ios" in o.members for o in leaves)
    dash = "  -" if slow else ""
    rows = [f"\t{pool}  {UNSEEN}  0 0 0{dash}"]
    for parent, members in groups.items():
        depth = 1 if parent == pool else 2
        if parent != pool:
            rows.append(f"\t  {parent}  {UNSEEN}  0 0 0{dash}")
        for o in members:
            name = o.members.get("name") or o.key or UNNAMED
            counts = " ".join(o.members.get(c, "0") for c in _COUNTERS)
            rows.append(
                "\t"
                + "  " * depth
                + f"{name}  {o.members.get('state', UNSEEN)}  {counts}"
                + (f"  {o.members.get('slow_ios', '-')}" if slow else "")
            )
    header = "\tNAME  STATE  READ WRITE CKSUM" + ("  SLOW" if slow else "")
    return pool, f"  pool: {pool}\n state: {UNSEEN}\nconfig:\n\n{header}\n" + "\n".join(rows) + "\n"


_GROUP = re.compile(r"(?:replacing|spare)-[0-9]{1,6}")
_POOL = re.compile(r"[A-Za-z][\w.:-]{0,255}")
