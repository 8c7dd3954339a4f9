"""The configured ashift of each top-level vdev (reference §5).

2.2+: the vdev property, `zpool get -H -p -o name,value ashift <pool> all-vdevs`. The pool
property `zpool get ashift <pool>` is only a hint for future vdevs and says nothing here.
0.8-2.1: `zdb -C [pool]`, whose nvlist dump carries `ashift:` on each top-level children[N]
only; `zdb -l DEVICE` (a leaf's labels) carries its own top-level vdev as the label's vdev_tree. Leaves have no configured ashift of their own (a leaf's vdev property is its logical
ashift), so the caller keeps the rows named like top-level vdevs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypeAlias

from zdash.parse import ParseError

_NOT_PRINTED = ("hole", "indirect")  # zpool never shows these (reference §0, vdev names)
_CHILD = re.compile(r"children\[(\d{1,9})\]", re.ASCII)
_SMALL_INT = re.compile(r"\d{1,20}", re.ASCII)


# zdb's nvlist dump as nested dicts: a value is a string (quotes kept), True for a bare boolean
# key, or a nested list.
NvValue: TypeAlias = "str | bool | NvList"
NvList: TypeAlias = "dict[str, NvValue]"


@dataclass(frozen=True, slots=True)
class TopVdevAshift:
    index: int  # N of children[N] in vdev_tree
    name: str  # as zpool prints it: mirror-1, raidz2-0, sdb, /tmp/d1, a GUID
    type: str  # mirror, raidz, draid, disk, file, hole, indirect, ...
    ashift: int | None
    is_log: bool = False
    alloc_bias: str | None = None  # special / dedup when present; 2.3.2's zdb -C omits it
    guid: str | None = None
    leaf_paths: tuple[str, ...] = ()


def parse_get_ashift(text: str) -> dict[str, int]:
    """Rows `name<TAB>value` (-o name,value) or the default `name<TAB>property<TAB>value
    <TAB>source`. root-0 is the root vdev, not a top-level one: skipped. '-' values skipped."""
    if not isinstance(text, str):
        raise ParseError(f"zpool get ashift: expected text, got {type(text).__name__}")
    out: dict[str, int] = {}
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        cols = line.split("\t")
        if len(cols) == 2:
            name, value = cols
        elif len(cols) in (3, 4) and cols[1] == "ashift":
            name, value = cols[0], cols[2]
        else:
            raise ParseError(
                f"zpool get ashift line {n}: expected name<TAB>value or "
                f"name<TAB>ashift<TAB>value<TAB>source, got {line.strip()[:50]!r}"
            )
        if name == "root-0" or value == "-":
            continue
        if not name or not _SMALL_INT.fullmatch(value):
            raise ParseError(f"zpool get ashift line {n}: bad row {line.strip()[:50]!r}")
        out[name] = int(value)
    return out


def _nvlist_tree(text: str) -> NvList:
    """zdb's nvlist dump: `key: value`, `key:` opening a nested list (indented deeper),
    bare `key` for booleans. Strings keep their quotes here."""
    root: NvList = {}
    stack: list[tuple[int, NvList]] = [(-1, root)]
    for line in text.splitlines():
        body = line.strip()
        if not body:
            continue
        indent = len(line) - len(line.lstrip())
        while stack[-1][0] >= indent:
            stack.pop()
        parent = stack[-1][1]
        if body.endswith(":"):
            node: NvList = {}
            parent[body[:-1]] = node
            stack.append((indent, node))
        elif ": " in body:
            key, value = body.split(": ", 1)
            parent[key] = value
        else:
            parent[body] = True
    return root


def _str(node: NvList, key: str) -> str | None:
    v = node.get(key)
    return v.strip("'") if isinstance(v, str) else None


def _int(node: NvList, key: str) -> int | None:
    v = _str(node, key)
    return int(v) if v is not None and _SMALL_INT.fullmatch(v) else None


def _children(node: NvList) -> list[tuple[int, NvList]]:
    kids = [
        (int(m.group(1)), v) for k, v in node.items() if isinstance(v, dict) and (m := _CHILD.fullmatch(k))
    ]
    return sorted(kids, key=lambda kv: kv[0])


def _leaf_paths(top: NvList) -> tuple[str, ...]:
    """Paths of the leaves under a top-level vdev, in order (iterative: no recursion limit)."""
    paths: list[str] = []
    todo = [top]
    while todo:
        node = todo.pop()
        kids = _children(node)
        path = _str(node, "path")
        if not kids and path:
            paths.append(path)
        todo.extend(k for _, k in reversed(kids))
    return tuple(paths)


def _strip_partition(dev: str) -> str:
    """zfs_strip_partition() (lib/libzutil/os/linux): a whole-disk leaf loses -partN, pN or
    N; as in C, only the first applicable rule is tried."""
    if dev.find("-part") > 0:
        base, _, num = dev.partition("-part")
    elif (p := dev.rfind("p")) > 1 and dev[p - 1].isdigit():
        base, num = dev[:p], dev[p + 1 :]
    elif m := re.match(r"(?:[hsv]d|xvd)[A-Za-z]+", dev):
        base, num = m.group(0), dev[m.end() :]
    else:
        return dev
    return base if num.isascii() and num.isdigit() else dev


def _zpool_name(top: NvList, index: int) -> str:
    """zpool_vdev_name() without -P/-g/-L, with VDEV_NAME_TYPE_ID."""
    vtype, vid, guid = _str(top, "type") or "?", _int(top, "id"), _str(top, "guid")
    vid = index if vid is None else vid
    path = _str(top, "path")
    if vtype in ("disk", "file") or path:
        if path is None or "not_present" in top:
            return guid or f"{vtype}-{vid}"  # a missing device shows as its GUID
        if vtype == "file":
            return path
        dev = path.rsplit("/", 1)[-1]
        return _strip_partition(dev) if _int(top, "whole_disk") == 1 else dev
    if vtype == "raidz":
        return f"raidz{_int(top, 'nparity') or 1}-{vid}"  # pools older than raidz2 lack nparity
    if vtype == "draid":  # zpool_draid_name(): parity, data, children, spares (in that order)
        return (
            f"draid{_int(top, 'nparity')}:{_int(top, 'draid_ndata')}d:"
            f"{len(_children(top))}c:{_int(top, 'draid_nspares')}s-{vid}"
        )
    return f"{vtype}-{vid}"


def parse_zdb_config(text: str) -> dict[str, list[TopVdevAshift]]:
    """`zdb -C pool` ("MOS Configuration:"), `zdb -C` (the cache file, one `<pool>:` block
    per pool) or `zdb -l DEVICE` (labels: the leaf's top-level vdev). A later block for the same
    pool wins."""
    if not isinstance(text, str):
        raise ParseError(f"zdb -C: expected text, got {type(text).__name__}")
    if not text.strip():
        return {}
    out: dict[str, list[TopVdevAshift]] = {}
    for chunk in _LABEL.split(text):  # `zdb -l` prints up to four labels; each read alone
        _read_configs(_nvlist_tree(chunk), out)
    if not out:
        raise ParseError("zdb: no pool configuration (a vdev_tree of type 'root', or a label's) found")
    return out


_LABEL = re.compile(r"^\s*LABEL [0-9]{1,2}\s*$", re.MULTILINE)


def _read_configs(tree: NvList, out: dict[str, list[TopVdevAshift]]) -> None:
    blocks = [(k, v) for k, v in tree.items() if isinstance(v, dict)] + [("", tree)]
    for header, cfg in blocks:
        vt = cfg.get("vdev_tree")
        if not isinstance(vt, dict):
            continue
        label = _str(vt, "type") != "root"
        if not label:
            tops = _children(vt)
        elif "top_guid" in cfg and _str(cfg, "name"):
            # `zdb -l`: a leaf's label, whose vdev_tree is its own top-level vdev (one of
            # vdev_children, at index id). A later label of another leaf adds its top.
            tops = [(_int(vt, "id") or 0, vt)]
        else:
            continue
        pool = _str(cfg, "name") or header
        found = {t.index: t for t in out.get(pool, [])} if label else {}
        for i, top in tops:
            found[i] = TopVdevAshift(
                i,
                _zpool_name(top, i),
                _str(top, "type") or "?",
                _int(top, "ashift"),
                _int(top, "is_log") == 1,
                _str(top, "alloc_bias"),
                _str(top, "guid"),
                _leaf_paths(top),
            )
        out[pool] = [found[i] for i in sorted(found)]


def ashift_by_vdev_name(tops: Iterable[TopVdevAshift]) -> dict[str, int]:
    """One pool's TopVdevAshift list -> {name zpool prints: ashift}, like parse_get_ashift."""
    try:
        tops = list(tops)
    except TypeError:
        raise ParseError("ashift_by_vdev_name: expected one pool's TopVdevAshift list") from None
    return {
        t.name: t.ashift
        for t in tops
        if isinstance(t, TopVdevAshift) and t.ashift is not None and t.type not in _NOT_PRINTED
    }
