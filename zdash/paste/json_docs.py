"""JSON documents in a paste: `zpool status -j`, `zpool list -j [-v]`, `zpool get -j`, `zfs list
-j` and `zfs get -j` (OpenZFS 2.3+), as zpool prints them (one line), as `jq` pretty-prints them, or as a
terminal wrapped the one line at its width.

A document says what it is in its own envelope (`output_version.command`); one filtered by jq
without it (`jq .pools`, `jq .pools.tank`) is told by its keys. A document cut short (an excerpt,
a screen's worth) is closed after its last whole member and read for what is whole, never
completed: what the cut left open is dropped where it would mislead (a vdev list cut in half
reads as a mirror with one side, a redundancy lost that is not), so a status cut inside its
vdevs keeps the pool's state, status, msgid and scan, as a text status pasted without its
config table does. Broken JSON is reported whole.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from zdash.parse.classes import JSON_CLASS_GROUPS
from zdash.parse.zpool_status.json_scan import JsonObject

_DECODER = json.JSONDecoder()
# What marks an object as possibly zpool/zfs output (a key of theirs in its first _SNIFF
# characters): only such an object is decoded, and one that does not decode is reported as cut
# or broken, not left to the text readers line by line.
_ZFS_KEYS = ('"output_version"', '"pools"', '"datasets"', '"vdevs"', '"vdev_type"', '"scan_stats"', '"name"')
_SNIFF = 4000  # characters looked at for those keys
POOL_GROUPS = tuple(group for group, _ in JSON_CLASS_GROUPS)  # class groups of status / list -j


@dataclass(frozen=True, slots=True)
class JsonFound:
    first: int  # line numbers in the paste, 1-based, inclusive
    last: int
    doc: JsonObject | None  # None: broken (`why`)
    why: str = ""
    cut: frozenset[int] = frozenset()  # ids of the containers a cut left open (doc is salvaged)


def starts_json(line: str) -> bool:
    return line.lstrip().startswith("{")


def json_at(lines: list[str], i: int) -> JsonFound | None:
    """The JSON object that starts on lines[i] (0-based): decoded as pasted (jq's layout, or
    zpool's one line), else as one line a terminal wrapped (the lines up to the next blank one
    joined); a zpool/zfs-looking object that neither reads is found but not decoded. None when
    lines[i] starts no JSON object that could be zpool's or zfs's (no key of theirs in its first
    few thousand characters: `{` lines of anything else cost no decoding)."""
    if not starts_json(lines[i]):
        return None
    j = i  # the document's lines run to a blank one (a Markdown fence counts as blank)
    while j < len(lines) and lines[j].strip():
        j += 1
    text = "\n".join(lines[i:j])
    if not any(key in text[:_SNIFF] for key in _ZFS_KEYS):
        return None
    start = len(lines[i]) - len(lines[i].lstrip())
    error: Exception | None = None
    # as pasted; then over blank lines too (a page that double-spaced the lines); then as one
    # line a terminal wrapped
    for attempt in (text, "\n".join(lines[i:]) if j < len(lines) else None):
        if attempt is None:
            continue
        try:
            doc, end = _DECODER.raw_decode(attempt, start)
        except (ValueError, RecursionError) as e:
            error = error or e
            continue
        if not isinstance(doc, dict):
            return None
        return JsonFound(i + 1, i + 1 + attempt.count("\n", 0, end), doc)
    if j - i > 1:
        joined = "".join(lines[i:j])
        try:
            doc, end = _DECODER.raw_decode(joined, start)
        except (ValueError, RecursionError):
            pass
        else:
            if isinstance(doc, dict):
                return JsonFound(i + 1, i + _line_of(lines, i, end), doc)
    # cut short: its lines end (a blank line, the end of the paste) before it closes
    salvaged = _salvage("\n".join(lines[i:j]), start) or _salvage("".join(lines[i:j]), start)
    if salvaged is not None:
        doc, cut = salvaged
        return JsonFound(i + 1, j, doc, cut=cut)
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


_CUT = "\x00cut"  # the mark of a container the cut left open (no zpool/zfs key holds a NUL)


def _salvage(text: str, start: int) -> tuple[JsonObject, frozenset[int]] | None:
    """A document that runs to the end of the paste without closing: closed after the last
    member the innermost open container holds whole (a comma, or a nested container's close,
    says it is), each open container marked as cut. None when it is not that (a stray bracket,
    broken JSON)."""
    brackets: list[str] = []  # the open containers, outermost first
    safe_end, holds = 0, False  # of the innermost: where its whole members end, and if any do
    in_string = escape = False
    for k in range(start, len(text)):
        c = text[k]
        if in_string:
            if escape:
                escape = False
            elif c == "\\":
                escape = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "{[":
            brackets.append(c)
            safe_end, holds = k + 1, False
        elif c in "}]":
            if len(brackets) < 2:
                return None  # the document closed: whatever broke it, it was not a cut
            brackets.pop()
            safe_end, holds = k + 1, True  # a whole member of the container it was in
        elif c == "," and brackets:
            safe_end, holds = k, True
    if not brackets:
        return None
    closing = []
    for depth, bracket in enumerate(reversed(brackets)):
        mark = '"\\u0000cut": true}' if bracket == "{" else '"\\u0000cut"]'
        # the innermost holds what it held; each outer one, at least the member the cut is in
        closing.append(("," if holds or depth else "") + mark)
    try:
        doc = json.loads(text[start:safe_end] + "".join(closing))
    except (ValueError, RecursionError):
        return None
    if not isinstance(doc, dict):
        return None
    cut: set[int] = set()
    _unmark(doc, cut)
    return doc, frozenset(cut)


def _unmark(value: object, cut: set[int]) -> None:
    if isinstance(value, dict):
        if value.pop(_CUT, None) is not None:
            cut.add(id(value))
        for v in value.values():
            _unmark(v, cut)
    elif isinstance(value, list):
        if value and value[-1] == _CUT:
            value.pop()
            cut.add(id(value))
        for v in value:
            _unmark(v, cut)


def drop_cut(command: str, document: JsonObject, cut: frozenset[int]) -> list[str]:
    """A salvaged document made safe to read, in place: a pool cut before its name and state is
    dropped; a status cut inside its vdevs keeps the pool's own fields and a root without
    children (the vdevs and error counters unknown, as a text status pasted without its config
    table); a class group or error list the cut reached is dropped; a list keeps its pool row.
    Returns a note per pool touched."""
    notes: list[str] = []
    pools = document.get("pools")
    if not cut or not isinstance(pools, dict):
        return notes
    for key in list(pools):
        obj = pools[key]
        if not isinstance(obj, dict) or id(obj) not in cut:
            continue
        name, state = obj.get("name"), obj.get("state")
        if not isinstance(name, str) or not isinstance(state, str):
            del pools[key]
            notes.append(f"a pool's `{command} -j` is cut short before its name and state: not read")
            continue
        parts = ("vdevs", *POOL_GROUPS, "errlist") if command == "zpool status" else ("vdevs",)
        lost = [k for k in parts if isinstance(obj.get(k), (dict, list)) and id(obj[k]) in cut]
        for k in lost:
            del obj[k]
        if command == "zpool status" and "vdevs" not in obj:
            obj["vdevs"] = {name: {"name": name, "vdev_type": "root", "state": state}}
            notes.append(
                f"pool {name}: its zpool status -j is cut short before its vdevs end; its vdevs "
                "and error counters are unknown"
            )
        else:
            notes.append(
                f"pool {name}: its `{command} -j` is cut short; what the cut reached "
                f"({', '.join(lost) or 'the fields after it'}) is not read"
            )
    return notes
