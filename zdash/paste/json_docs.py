"""JSON documents in a paste: `zpool status -j`, `zpool list -j [-v]`, `zpool get -j` and `zfs
list -j` (OpenZFS 2.3+), as zpool prints them (one line), as `jq` pretty-prints them, or as a
terminal wrapped the one line at its width.

A document says what it is in its own envelope (`output_version.command`); one filtered by jq
without it (`jq .pools`, `jq .pools.tank`) is told by its keys. A document cut short (an excerpt,
a screen's worth) or broken is reported whole, never completed: a vdev list cut in half would
read as a mirror with one side, a redundancy lost that is not.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from zdash.parse.zpool_status.json_scan import JsonObject

_DECODER = json.JSONDecoder()
# What marks an object as zpool/zfs output when it cannot be decoded (it is then reported as
# cut or broken, not left to the text readers line by line).
_ZFS_KEYS = ('"output_version"', '"pools"', '"datasets"', '"vdevs"', '"vdev_type"', '"scan_stats"')
_SNIFF = 4000  # characters looked at for those keys
POOL_GROUPS = ("logs", "dedup", "special", "l2cache", "spares")  # class groups of status / list -j


@dataclass(frozen=True, slots=True)
class JsonFound:
    first: int  # line numbers in the paste, 1-based, inclusive
    last: int
    doc: JsonObject | None  # None: cut short or broken (`why`)
    why: str = ""


def starts_json(line: str) -> bool:
    return line.lstrip().startswith("{")


def json_at(lines: list[str], i: int) -> JsonFound | None:
    """The JSON object that starts on lines[i] (0-based): decoded as pasted (jq's layout, or
    zpool's one line), else as one line a terminal wrapped (the lines up to the next blank one
    joined); a zpool/zfs-looking object that neither reads is found but not decoded. None when
    lines[i] starts no JSON object."""
    if not starts_json(lines[i]):
        return None
    text = "\n".join(lines[i:])
    start = len(lines[i]) - len(lines[i].lstrip())
    try:
        doc, end = _DECODER.raw_decode(text, start)
    except (ValueError, RecursionError) as e:
        error = e
    else:
        if isinstance(doc, dict):
            return JsonFound(i + 1, i + 1 + text.count("\n", 0, end), doc)
        return None
    j = i
    while j < len(lines) and lines[j].strip():
        j += 1
    if j - i > 1:
        joined = "".join(lines[i:j])
        try:
            doc, end = _DECODER.raw_decode(joined, start)
        except (ValueError, RecursionError):
            pass
        else:
            if isinstance(doc, dict):
                return JsonFound(i + 1, i + _line_of(lines, i, end), doc)
    if not any(key in text[:_SNIFF] for key in _ZFS_KEYS):
        return None
    where = f"line {i + 1 + error.lineno - 1}" if isinstance(error, json.JSONDecodeError) else "its nesting"
    return JsonFound(i + 1, j, None, f"zpool/zfs JSON that is cut short or broken (at {where}): not read")


def _line_of(lines: list[str], i: int, end: int) -> int:
    """How many of lines[i:] the first `end` characters of their concatenation reach into."""
    used = 0
    for k, line in enumerate(lines[i:], 1):
        used += len(line)
        if used >= end:
            return k
    return len(lines) - i


def command_of(doc: JsonObject) -> tuple[str | None, JsonObject]:
    """(the command that printed the document, the document with its envelope): its own
    `output_version.command`, or for one filtered by jq without it, what its keys say (`.pools`
    of status or list, one pool's object, `.datasets`). (None, doc) when nothing does."""
    version = doc.get("output_version")
    if isinstance(version, dict) and isinstance(version.get("command"), str):
        return version["command"], doc
    if isinstance(doc.get("datasets"), dict):
        return "zfs list", {**doc, "output_version": _envelope("zfs list")}
    pools = doc.get("pools")
    if not isinstance(pools, dict):
        kind = _pool_kind(doc)
        if kind is not None:  # `jq .pools.tank`: one pool's object
            return kind, {"output_version": _envelope(kind), "pools": {doc["name"]: doc}}
        pools = doc  # `jq .pools`: the pools object itself
    kinds = {_pool_kind(p) if isinstance(p, dict) else None for p in pools.values()}
    kind = kinds.pop() if len(kinds) == 1 else None
    if kind is None:
        return None, doc
    return kind, {"output_version": _envelope(kind), "pools": pools}


def _envelope(command: str) -> JsonObject:
    return {"command": command, "vers_major": 0, "vers_minor": 1}


def _pool_kind(obj: JsonObject) -> str | None:
    """A pool's object in status -j (vdev tree under its own name, scan_stats, error_count) or
    list/get -j (type POOL, properties)."""
    if not isinstance(obj.get("name"), str) or not isinstance(obj.get("state", ""), str):
        return None
    if obj.get("type") == "POOL" or isinstance(obj.get("properties"), dict):
        return "zpool list" if isinstance(obj.get("properties"), dict) else None
    if isinstance(obj.get("vdevs"), dict) or "scan_stats" in obj or "error_count" in obj:
        return "zpool status"
    return None


def json_property(props: object, name: str) -> str | None:
    """A property's value as the text tables print it (`{"value": 1006632960}` -> "1006632960",
    `{"value": "960M"}` -> "960M"); None when absent or not a scalar."""
    if not isinstance(props, dict):
        return None
    entry = props.get(name)
    value = entry.get("value") if isinstance(entry, dict) else None
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    return str(value)
