"""A pasted human `zpool list [-v] [-p]` table into pool / vdev entries, and those into the
`zpool list -v -H -p` layout the list parser reads.

Columns come from the header, so 0.6.5-0.7 (no CKPOINT) and custom -o lists read too. Vdev
rows carry a fixed set whatever -o says until 2.4.1 (§1.2 of the output reference), and fewer
of them in old releases: 0.6.5-0.7 print SIZE ALLOC FREE EXPANDSZ FRAG CAP only (no DEDUP,
no HEALTH; `print_list_stats()` then) and name interior vdevs without their id ("mirror").
Human sizes are nicenum (3 significant digits), so converted bytes are that precise only.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from zdash.model import VdevClass
from zdash.parse import ParseError
from zdash.parse.classes import JSON_CLASS_GROUPS, JSON_CLASSES, LIST_HEADING, TABLE_HEADINGS
from zdash.parse.units import size_step
from zdash.parse.zpool_status.json_scan import JsonObject
from zdash.paste.depth import UNNAMED_POOL, by_names, mangled
from zdash.paste.json_docs import json_property
from zdash.paste.table import (
    Row,
    Unreadable,
    decimal,
    is_class_row,
    looks_like_row,
    num,
    pct,
    ranks,
    ratio,
    row,
    size,
)

POOL_COLUMNS = ("SIZE", "ALLOC", "FREE", "CKPOINT", "EXPANDSZ", "FRAG", "CAP", "DEDUP", "HEALTH", "ALTROOT")
_KNOWN = frozenset(POOL_COLUMNS) | {
    "NAME",
    "GUID",
    "VERSION",
    "BOOTFS",
    "FREEING",
    "LEAKED",
    "ASHIFT",
    "READONLY",
    "COMMENT",
    "FAILMODE",
    "AUTOEXPAND",
    "USED",  # Solaris and early ZFS: USED AVAIL for ALLOC FREE
    "AVAIL",
}
_RENAMED = {"USED": "ALLOC", "AVAIL": "FREE"}
_FIXED_VDEV = {
    9: POOL_COLUMNS[:9],
    7: POOL_COLUMNS[:7],
    6: ("SIZE", "ALLOC", "FREE", "EXPANDSZ", "FRAG", "CAP"),
}


def is_list_header(line: str) -> bool:
    words = line.split()
    return (
        len(words) >= 3
        and words[0] == "NAME"
        and bool({"SIZE", "ALLOC", "HEALTH", "CAP"} & set(words))
        and sum(w in _KNOWN for w in words) >= len(words) - 1
    )


@dataclass
class ListValues:
    """A row's columns (POOL_COLUMNS), None where not printed or '-'. Percents as printed
    (a vdev's CAP is permyriad-precise: 11.9)."""

    size: int | None = None
    alloc: int | None = None
    free: int | None = None
    ckpoint: int | None = None
    expandsz: int | None = None
    frag: float | None = None
    cap: float | None = None
    dedup: float | None = None
    health: str | None = None
    altroot: str | None = None


@dataclass
class ListEntry:
    n: int
    depth: int  # 0 = pool row
    name: str
    vclass: VdevClass = "normal"
    values: ListValues = field(default_factory=ListValues)


# Header-less tables (`-H`, a header the author trimmed, an excerpt from the middle) are read by
# the shape of their values: the column layouts zpool list has printed, by number of values.
_POOL_LAYOUTS = {
    10: POOL_COLUMNS,  # 0.8+
    9: ("SIZE", "ALLOC", "FREE", "EXPANDSZ", "FRAG", "CAP", "DEDUP", "HEALTH", "ALTROOT"),  # 0.6.5-0.7
    7: ("SIZE", "ALLOC", "FREE", "CAP", "DEDUP", "HEALTH", "ALTROOT"),  # 0.6.0-0.6.4
}
_VDEV_LAYOUTS = {9: POOL_COLUMNS[:9]}
_STATES = frozenset({"ONLINE", "DEGRADED", "FAULTED", "OFFLINE", "UNAVAIL", "REMOVED", "SUSPENDED"})
_SIZE = re.compile(r"-|[0-9]{1,20}|[0-9]{1,4}(?:[.,][0-9]{1,3})?[KMGTPEZ]", re.ASCII)
_PCT_SHAPE = re.compile(r"-|[0-9]{1,3}(?:[.,][0-9]{1,4})?%?", re.ASCII)
_RATIO_SHAPE = re.compile(r"-|[0-9]{1,6}(?:[.,][0-9]{1,4})?x?", re.ASCII)


def _fits(column: str, token: str) -> bool:
    if column in ("SIZE", "ALLOC", "FREE", "CKPOINT", "EXPANDSZ"):
        return _SIZE.fullmatch(token) is not None
    if column in ("FRAG", "CAP"):
        return _PCT_SHAPE.fullmatch(token) is not None
    if column == "DEDUP":
        return _RATIO_SHAPE.fullmatch(token) is not None
    if column == "HEALTH":
        return token in _STATES or token == "-"
    return token == "-" or token.startswith("/")  # ALTROOT


def headerless_columns(line: str) -> tuple[tuple[str, ...], bool] | None:
    """(columns, is a pool row) when a line without a header reads as a `zpool list` row by the
    shape of its values: sizes, percentages, a dedup ratio, a health state, an altroot."""
    words = line.split()
    values = words[1:]
    layouts = [(_POOL_LAYOUTS.get(len(values)), True), (_VDEV_LAYOUTS.get(len(values)), False)]
    for columns, pool in layouts:
        if columns is None or not all(_fits(c, t) for c, t in zip(columns, values)):
            continue
        health = values[columns.index("HEALTH")]
        if health in _STATES and (values[0] != "-" or not pool):
            return columns, pool
    return None


def headerless_values(tokens: tuple[str, ...], columns: list[str]) -> ListValues | None:
    """A pool row's values in a layout another tool fixed (a report script's table), when every
    token has its column's shape; None otherwise."""
    if len(tokens) != len(columns) or not all(_fits(c, t) for c, t in zip(columns, tokens)):
        return None
    return _values(tokens, columns, pool=True, default=False)


def take_list(
    lines: list[str], i: int, ends: Callable[[int], bool]
) -> tuple[int, list[ListEntry], list[Unreadable]]:
    """Header at lines[i]; rows up to a blank line or where ends(j) says something else starts.
    Without a header (lines[i] is a row: headerless_columns), the columns are the row's shape;
    a table that starts below its pool row gets the pool `(pool-not-pasted)`."""
    shape = headerless_columns(lines[i]) if not is_list_header(lines[i]) else None
    if shape is not None:
        columns, _ = list(shape[0]), shape[1]
        j = i
    else:
        columns = [_RENAMED.get(c, c) for c in lines[i].split()[1:]]
        j = i + 1
    rows: list[Row] = []
    while (
        j < len(lines)
        and lines[j].strip()
        and looks_like_row(lines[j])
        and (j == i or headerless_columns(lines[j]) is not None or not ends(j))
    ):
        rows.append(row(j + 1, lines[j]))
        j += 1
    depth = ranks(rows)
    if shape is not None and not shape[1]:  # starts at a vdev: the pool row was not pasted
        depth = {w: d + 1 for w, d in depth.items()}
    default = all(c in POOL_COLUMNS for c in columns)
    entries: list[ListEntry] = []
    unread: list[Unreadable] = []
    vclass: VdevClass = "normal"
    for r in rows:
        text = lines[r.n - 1]
        if is_class_row(r.words):
            if not entries:
                unread.append((r.n, text, "zpool list: class header before any pool row"))
            vclass = TABLE_HEADINGS[r.words[0]]
            continue
        d = depth[r.width]
        if d > 0 and not entries and shape is None:
            unread.append((r.n, text, "zpool list: vdev row before any pool row"))
            continue
        if d == 0:
            vclass = "normal"
        try:
            values = _values(r.words[1:], columns, d == 0, default)
        except ParseError as e:
            unread.append((r.n, text, f"zpool list: {e}"))
            continue
        if d > 0 and not entries:
            entries.append(ListEntry(r.n, 0, UNNAMED_POOL))
        entries.append(ListEntry(r.n, d, r.words[0], "normal" if d == 0 else vclass, values))
    return j, _names_depth(entries), unread


def _names_depth(entries: list[ListEntry]) -> list[ListEntry]:
    """`-H` prints every vdev row behind one TAB, whatever its depth; a header-less paste may
    have lost its indentation: where the widths do not fit the names, the names tell."""
    out: list[ListEntry] = []
    pool: list[ListEntry] = []
    for e in [*entries, None]:
        if e is None or e.depth == 0:
            if pool:
                names, depths = [x.name for x in pool], [x.depth for x in pool]
                if mangled(names, depths):
                    pool = [dataclasses.replace(x, depth=d) for x, d in zip(pool, by_names(names))]
                out += pool
            pool = []
        if e is not None:
            pool.append(e)
    return out


def _values(tokens: tuple[str, ...], columns: list[str], pool: bool, default: bool) -> ListValues:
    if len(tokens) == len(columns) or (
        not pool and default and len(tokens) in _FIXED_VDEV and len(tokens) < len(columns)
    ):
        layout = columns[: len(tokens)]
    elif not pool and len(tokens) in _FIXED_VDEV:
        layout = list(_FIXED_VDEV[len(tokens)])
    elif pool and columns[-1:] == ["HEALTH"] and len(tokens) == len(columns) + 1:
        layout = [*columns, "ALTROOT"]  # a header copied without its last name (corpus 203)
    else:
        raise ParseError(f"{len(tokens) + 1} fields, the header has {len(columns) + 1}")
    out = ListValues()
    for c, t in zip(layout, tokens):  # other columns (GUID, BOOTFS, ...) are not kept
        match c:
            case "SIZE":
                out.size = size(t)
            case "ALLOC":
                out.alloc = size(t)
            case "FREE":
                out.free = size(t)
            case "CKPOINT":
                out.ckpoint = size(t)
            case "EXPANDSZ":
                out.expandsz = size(t)
            case "FRAG":
                out.frag = pct(t)
            case "CAP":
                out.cap = pct(t)
            case "DEDUP":
                out.dedup = ratio(t)
            case "HEALTH":
                out.health = None if t == "-" else t
            case "ALTROOT":
                out.altroot = t
    if pool and "ALLOC" in layout:
        out.alloc = _alloc_within_cap(out, tokens[layout.index("ALLOC")])
    return out


def _alloc_within_cap(v: ListValues, token: str) -> int | None:
    """ALLOC moved, inside what its rounded figure can mean, to agree with CAP.

    zpool's CAP is floor(alloc * 100 / size) from exact bytes (spa_prop_get_config), so the true
    fill is in [CAP, CAP + 1) %. The human figures are rounded to three digits: 922G / 1.00T
    reads as 90.04 % where zpool printed CAP 89 %, and the 90 % rule would call CRITICAL what
    zpool itself says is 89 % full. Within ALLOC's own rounding step, the value nearest the one
    printed that agrees with CAP (to the tenth zdash shows) is taken; exact (-p) figures, or a
    CAP no rounding explains, keep ALLOC as printed."""
    alloc, total, cap = v.alloc, v.size, v.cap
    if alloc is None or not total or cap is None:
        return alloc
    half = size_step(decimal(token)) / 2 + 1
    low = max(alloc - half, math.ceil(cap / 100.0 * total))  # at CAP itself, not a byte under
    high = min(alloc + half, (cap + 1) / 100.0 * total - 1)
    if half <= 1.5 or low > high:  # exact bytes, or no rounding explains the disagreement
        return alloc
    # Kept under CAP + 0.95 %: zdash shows a tenth of a percent, and "90.0 % full" beside zpool's
    # own CAP 89 % would contradict the verdict (a shift of at most 0.05 %, less than the rounding).
    return int(min(max(alloc, low), high, (cap + 0.94) / 100.0 * total))


def list_text(pools: list[list[ListEntry]]) -> str:
    """The `zpool list -v -H -p` layout: each pool's entries, pool row first."""
    out: list[str] = []
    for entries in pools:
        pool = entries[0].values
        vclass: VdevClass = "normal"
        out.append("\t".join([entries[0].name, *_cells(pool), pool.altroot or "-"]))
        for e in entries[1:]:
            if e.vclass != vclass:
                vclass = e.vclass
                out.append(LIST_HEADING.get(vclass, vclass) + "  -" * 9)
            out.append("\t" + "\t".join([e.name, *_cells(e.values, vdev=True)]))
    return "\n".join(out) + "\n" if out else ""


def _cells(v: ListValues, vdev: bool = False) -> list[str]:
    """The first 9 of POOL_COLUMNS, as -H -p prints them."""
    return [
        num(v.size),
        num(v.alloc),
        num(v.free),
        num(v.ckpoint),
        num(v.expandsz),
        num(v.frag),
        num(v.cap, integer=not vdev),
        num(v.dedup, integer=False),
        v.health or "-",
    ]


# `zpool get` properties that are `zpool list` columns (its other properties are not read).
GET_COLUMNS = {
    "size": "SIZE",
    "allocated": "ALLOC",
    "free": "FREE",
    "checkpoint": "CKPOINT",
    "expandsize": "EXPANDSZ",
    "fragmentation": "FRAG",
    "capacity": "CAP",
    "dedupratio": "DEDUP",
    "health": "HEALTH",
}


# Every pool property `zpool get all` prints (0.6-2.4), besides feature@ and unsupported@: how a
# `get` row is told without its NAME PROPERTY VALUE SOURCE header (an excerpt that starts after
# it, corpus 257).
POOL_PROPERTIES = frozenset(
    str.split(
        "allocated altroot ashift autoexpand autoreplace autotrim bcloneratio bclonesaved bcloneused "
        "bootfs cachefile capacity checkpoint comment compatibility dedup_table_quota dedup_table_size "
        "dedupcached dedupditto dedupratio delegation expandsize failmode fragmentation free freeing "
        "guid health last_scrubbed_txg leaked listsnapshots load_guid multihost readonly size "
        "version"
    )
)
_GET_SOURCES = frozenset({"-", "default", "local"})


def headerless_get_row(line: str) -> str | None:
    """The pool a `zpool get` row without its header names (`tank  capacity  19%  -`), else None."""
    words = line.split()
    if len(words) < 4 or words[-1] not in _GET_SOURCES or "/" in words[0] or "@" in words[0]:
        return None
    prop = words[1]
    known = prop in POOL_PROPERTIES or prop.startswith(("feature@", "unsupported@"))
    return words[0] if known else None


def entries_from_get(lines: list[str], first: int) -> list[ListEntry] | None:
    """`zpool get all|PROPS POOL` under its NAME PROPERTY VALUE SOURCE header (lines, from
    line number `first`) as one pool row per pool, the columns `zpool list` shares with it: the
    capacity of a pool pasted with `zpool get` and no `zpool list` (corpus 132: 98 %, nowhere
    else). None when it is not pool properties (`zfs get`: dataset names, other properties)."""
    found: dict[str, tuple[int, dict[str, str]]] = {}
    for k, line in enumerate(lines):
        words = line.split()
        if len(words) < 3 or words[1] not in GET_COLUMNS:
            continue
        name = words[0]
        if "/" in name or "@" in name:
            return None  # a dataset: `zfs get`
        found.setdefault(name, (first + k, {}))[1][GET_COLUMNS[words[1]]] = words[2]
    out = []
    for name, (n, props) in found.items():
        columns = list(props)
        try:
            values = _values(tuple(props.values()), columns, pool=True, default=False)
        except ParseError:
            continue
        out.append(ListEntry(n, 0, name, values=values))
    return out or None


# `zpool list -vj` keeps a pool's class groups inside its "vdevs" object (collect_list_stats()),
# under the names status -j puts beside it: group name -> the class its members are in.
_JSON_GROUPS = dict(JSON_CLASS_GROUPS)


def entries_from_json(pools: object, n: int, *, vdevs: bool = True) -> list[list[ListEntry]]:
    """`zpool list -j [-v]` or `zpool get -j` (`vdevs`=False: pool rows only) as each pool's
    entries, pool row first, all pointing at line `n` (where the document starts). Values are
    read as the table's text is (`{"value": "960M"}`, `{"value": 1006632960}` with --json-int)."""
    if not isinstance(pools, dict):
        raise ParseError("'pools' is not an object")
    out = []
    for key, obj in pools.items():
        if not isinstance(obj, dict):
            raise ParseError(f"pool {key!r} is not an object")
        name = obj.get("name", key)
        if not isinstance(name, str) or not name:
            raise ParseError(f"pool {key!r} has no name")
        entries = [ListEntry(n, 0, name, values=_json_values(obj.get("properties"), pool=True))]
        if vdevs:
            entries += _json_vdevs(obj.get("vdevs"), n, 1, "normal")
        out.append(entries)
    return out


def _json_vdevs(vdevs: object, n: int, depth: int, vclass: VdevClass) -> list[ListEntry]:
    if vdevs is None:
        return []
    if not isinstance(vdevs, dict) or depth > 8:
        raise ParseError("a 'vdevs' that is not an object, or nested too deep")
    out: list[ListEntry] = []
    groups = []
    for key, obj in vdevs.items():
        if not isinstance(obj, dict):
            raise ParseError(f"vdev {key!r} is not an object")
        if depth == 1 and key in _JSON_GROUPS and "vdev_type" not in obj:
            groups.append((_JSON_GROUPS[key], obj))  # after the normal vdevs, as zpool lists them
            continue
        name = obj.get("name", key)
        if not isinstance(name, str) or not name:
            raise ParseError(f"vdev {key!r} has no name")
        values = _json_values(obj.get("properties"), pool=False)
        out.append(ListEntry(n, depth, name, vclass, values))
        out += _json_vdevs(obj.get("vdevs"), n, depth + 1, vclass)
    for group_class, members in groups:
        out += _json_vdevs(members, n, depth, group_class)
    return out


def _json_values(props: object, pool: bool) -> ListValues:
    got = {column: value for prop, column in GET_COLUMNS.items() if (value := json_property(props, prop))}
    if not got:
        return ListValues()
    return _values(tuple(got.values()), list(got), pool=pool, default=False)


def space_from_status_json(pool: JsonObject) -> list[ListEntry] | None:
    """`zpool list -v` rows from one pool's `zpool status -j` object: its root vdev's and its
    top-level vdevs' alloc_space / total_space, the vdev stats `zpool list` prints as ALLOC and
    SIZE (a key left out is 0, as zpool omits zeros). None when the root has no total_space."""
    vdevs = pool.get("vdevs")
    name = pool.get("name")
    if not isinstance(vdevs, dict) or not isinstance(name, str):
        return None
    root = vdevs.get(name)
    if not isinstance(root, dict):
        return None
    tops: list[tuple[VdevClass, JsonObject]] = [("normal", v) for v in _members(root.get("vdevs"), name)]
    for group, vclass in JSON_CLASS_GROUPS:
        if vclass in ("log", "dedup", "special"):  # allocating classes; cache and spares have no space
            tops += [(vclass, v) for v in _members(pool.get(group), name)]
    for entry in vdevs.values():  # --json-flat-vdevs: class vdevs sit beside the root
        if isinstance(entry, dict) and "parent" not in entry and entry is not root:
            flat_class = JSON_CLASSES.get(str(entry.get("class")))
            if flat_class in ("log", "dedup", "special"):
                tops.append((flat_class, entry))
    pool_row = _space_row(0, name, "normal", root)
    if pool_row is None:
        return None
    rows = [pool_row]
    for vclass, v in tops:
        row = _space_row(1, str(v.get("name")), vclass, v)
        if row is not None:
            rows.append(row)
    return rows


def _members(group: object, parent: str) -> list[JsonObject]:
    """A vdevs object's direct members (under --json-flat-vdevs, those that name it as parent)."""
    if not isinstance(group, dict):
        return []
    return [v for v in group.values() if isinstance(v, dict) and v.get("parent", parent) == parent]


def _space_row(depth: int, name: str, vclass: VdevClass, v: JsonObject) -> ListEntry | None:
    try:
        total = size(str(v.get("total_space", "-")))
        alloc = size(str(v.get("alloc_space", 0)))
    except ParseError:
        return None
    if not total or alloc is None or alloc > total:
        return None
    cap = 100.0 * alloc / total
    values = ListValues(
        size=total, alloc=alloc, free=total - alloc, cap=round(cap) if depth == 0 else round(cap, 1)
    )
    return ListEntry(0, depth, name, vclass, values)
