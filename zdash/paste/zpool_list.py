"""A pasted human `zpool list [-v] [-p]` table into pool / vdev entries, and those into the
`zpool list -v -H -p` layout the list parser reads.

Columns come from the header, so 0.6.5-0.7 (no CKPOINT) and custom -o lists read too. Vdev
rows carry a fixed set whatever -o says until 2.4.1 (§1.2 of the output reference), and fewer
of them in old releases: 0.6.5-0.7 print SIZE ALLOC FREE EXPANDSZ FRAG CAP only (no DEDUP,
no HEALTH; `print_list_stats()` then) and name interior vdevs without their id ("mirror").
Human sizes are nicenum (3 significant digits), so converted bytes are that precise only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from zdash.parse import ParseError
from zdash.paste.table import (
    CLASS_WORDS,
    Row,
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
}
_FIXED_VDEV = {
    9: POOL_COLUMNS[:9],
    7: POOL_COLUMNS[:7],
    6: ("SIZE", "ALLOC", "FREE", "EXPANDSZ", "FRAG", "CAP"),
}
_PARSE = {
    "SIZE": size,
    "ALLOC": size,
    "FREE": size,
    "CKPOINT": size,
    "EXPANDSZ": size,
    "FRAG": pct,
    "CAP": pct,
    "DEDUP": ratio,
    "HEALTH": lambda t: None if t == "-" else t,
    "ALTROOT": lambda t: t,
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
class ListEntry:
    n: int
    depth: int  # 0 = pool row
    name: str
    vclass: str = "normal"
    values: dict = field(default_factory=dict)  # column -> parsed value


def take_list(lines: list[str], i: int, ends) -> tuple[int, list[ListEntry], list[tuple[int, str, str]]]:
    """Header at lines[i]; rows up to a blank line or where ends(j) says something else starts."""
    columns = lines[i].split()[1:]
    rows: list[Row] = []
    j = i + 1
    while j < len(lines) and lines[j].strip() and not ends(j) and looks_like_row(lines[j]):
        rows.append(row(j + 1, lines[j]))
        j += 1
    depth = ranks(rows)
    default = all(c in POOL_COLUMNS for c in columns)
    entries: list[ListEntry] = []
    unread: list[tuple[int, str, str]] = []
    vclass = "normal"
    for r in rows:
        text = lines[r.n - 1]
        if is_class_row(r.words):
            if not entries:
                unread.append((r.n, text, "zpool list: class header before any pool row"))
            vclass = CLASS_WORDS[r.words[0]]
            continue
        d = depth[r.width]
        if d > 0 and not entries:
            unread.append((r.n, text, "zpool list: vdev row before any pool row"))
            continue
        if d == 0:
            vclass = "normal"
        try:
            values = _values(r.words[1:], columns, d == 0, default)
        except ParseError as e:
            unread.append((r.n, text, f"zpool list: {e}"))
            continue
        entries.append(ListEntry(r.n, d, r.words[0], "normal" if d == 0 else vclass, values))
    return j, entries, unread


def _values(tokens: tuple[str, ...], columns: list[str], pool: bool, default: bool) -> dict:
    if len(tokens) == len(columns) or (
        not pool and default and len(tokens) in _FIXED_VDEV and len(tokens) < len(columns)
    ):
        layout = columns[: len(tokens)]
    elif not pool and len(tokens) in _FIXED_VDEV:
        layout = list(_FIXED_VDEV[len(tokens)])
    else:
        raise ParseError(f"{len(tokens) + 1} fields, the header has {len(columns) + 1}")
    return {c: _PARSE[c](t) for c, t in zip(layout, tokens) if c in _PARSE}


_CLASS_HEADER = {"log": "logs", "dedup": "dedup", "special": "special", "cache": "cache", "spare": "spare"}


def list_text(pools: list[list[ListEntry]]) -> str:
    """The `zpool list -v -H -p` layout: each pool's entries, pool row first."""
    out: list[str] = []
    for entries in pools:
        pool, vclass = entries[0].values, "normal"
        out.append(
            "\t".join([entries[0].name] + _cells(pool, POOL_COLUMNS[:9]) + [pool.get("ALTROOT") or "-"])
        )
        for e in entries[1:]:
            if e.vclass != vclass:
                vclass = e.vclass
                out.append(_CLASS_HEADER.get(vclass, vclass) + "  -" * 9)
            out.append("\t" + "\t".join([e.name] + _cells(e.values, POOL_COLUMNS[:9], vdev=True)))
    return "\n".join(out) + "\n" if out else ""


def _cells(values: dict, columns, vdev: bool = False) -> list[str]:
    cells = []
    for c in columns:
        v = values.get(c)
        if c == "HEALTH":
            cells.append(v or "-")
        elif c == "DEDUP" or (c == "CAP" and vdev):
            cells.append(num(v, integer=False))
        else:
            cells.append(num(v))
    return cells
