"""A pasted human `zfs list [-o ...] [-t ...] [-p]` table into `zfs list -H -p` rows with the
collector's field list (ZFS_LIST_FIELDS), '-' where the paste did not say.

Columns come from the header (USED AVAIL REFER MOUNTPOINT by default; TYPE ORIGIN CLONES,
`-o space`'s USEDSNAP USEDDS ...). Without a TYPE column the type is read from the name: '@'
snapshot, '#' bookmark, a mountpoint of '-' a volume, else a filesystem. Several pastes of
the same dataset (`zfs list` then `zfs list -o space`) are merged, the later one winning.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeAlias

from zdash.parse import ParseError
from zdash.parse.zfs_list import ZFS_LIST_FIELDS
from zdash.paste.json_docs import json_property
from zdash.paste.table import Unreadable, num, ratio, size

# Header word -> property (the columns `zfs list` prints; §6 and zfs_prop.c column names).
HEADERS = {
    "NAME": "name",
    "TYPE": "type",
    "ORIGIN": "origin",
    "CLONES": "clones",
    "USED": "used",
    "AVAIL": "avail",
    "REFER": "refer",
    "USEDDS": "usedbydataset",
    "USEDSNAP": "usedbysnapshots",
    "COMPRESS": "compression",
    "RATIO": "compressratio",
    "DEDUP": "dedup",
    "ATIME": "atime",
    "XATTR": "xattr",
    "MOUNTPOINT": "mountpoint",
}
_OTHER = frozenset(
    {
        "USEDREFRESERV",
        "USEDCHILD",
        "QUOTA",
        "RESERV",
        "REFQUOTA",
        "REFRESERV",
        "VOLSIZE",
        "VOLBLOCK",
        "RECSIZE",
        "CANMOUNT",
        "MOUNTED",
        "SYNC",
        "COPIES",
        "LUSED",
        "LREFER",
        "WRITTEN",
        "ENCRYPTION",
        "KEYSTATUS",
        "CHECKSUM",
        "SHARENFS",
        "LABEL",
        "RDONLY",
        "SNAPDIR",
        "GUID",
        "CREATION",
    }
)
_NAME = re.compile(r"[A-Za-z0-9][\w.:/@#+-]{0,255}")  # zfs dataset name characters
_BYTES = {"used", "avail", "refer", "usedbydataset", "usedbysnapshots"}
_ZPOOL_ONLY = frozenset(
    {"SIZE", "ALLOC", "FREE", "CAP", "HEALTH", "FRAG", "CKPOINT", "EXPANDSZ", "STATE", "PROPERTY"}
)


def is_zfs_header(line: str) -> bool:
    """`zfs list [-o ...]` headers: NAME first by default, anywhere with `-o origin,name`
    (corpus 202); every word a column `zfs list` prints, none of them zpool's alone."""
    words = line.split()
    return (
        len(words) >= 2
        and words.count("NAME") == 1
        and not (_ZPOOL_ONLY & set(words))
        and all(w in HEADERS or w in _OTHER for w in words)
    )


# A dataset's properties as pasted (ZFS_LIST_FIELDS names, mountpoint), values in -H -p form.
Props: TypeAlias = dict[str, str]


@dataclass
class ZfsRows:
    """A pasted zfs list table: each dataset's properties in paste order, and the line each was
    last read from."""

    datasets: dict[str, Props] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)


def take_zfs(lines: list[str], i: int, ends: Callable[[int], bool]) -> tuple[int, ZfsRows, list[Unreadable]]:
    """Header at lines[i]: {dataset: {property: value}} in paste order, and unread lines."""
    header = lines[i].split()
    at = header.index("NAME")
    out = ZfsRows()
    unread: list[Unreadable] = []
    j = i + 1
    while j < len(lines) and lines[j].strip() and not ends(j):
        words = lines[j].split()
        if len(words) < 2 or len(words) <= at or not _NAME.fullmatch(words[at]):
            break  # prose after the table: not part of it
        if len(words) > len(header) and header[-1] in ("MOUNTPOINT", "ORIGIN", "CLONES"):
            words = words[: len(header) - 1] + [" ".join(words[len(header) - 1 :])]
        try:
            props = _row(header, words)
        except ParseError as e:
            unread.append((j + 1, lines[j], f"zfs list: {e}"))
        else:
            out.datasets.setdefault(props["name"], {}).update(props)
            out.lines[props["name"]] = j + 1
        j += 1
    return j, out, unread


def _row(header: list[str], words: list[str]) -> Props:
    if len(words) != len(header):
        raise ParseError(f"{len(words)} fields, the header has {len(header)}")
    props: Props = {}
    for h, w in zip(header, words):
        key = HEADERS.get(h)
        if key is not None:
            props[key] = _value(key, w)
    if not props["name"] or props["name"][0] in "-/@#":
        raise ParseError(f"{props['name'][:40]!r} is not a dataset name")
    return props


def _value(key: str, text: str) -> str:
    """A property's value as pasted (`1.5G`, `1.00x`, exact digits) in `zfs list -H -p` form."""
    if key in _BYTES:
        return num(size(text))
    if key == "compressratio":
        return num(ratio(text), integer=False)
    return text


def kind(props: Props) -> str:
    if props.get("type") in ("filesystem", "volume", "snapshot", "bookmark"):
        return props["type"]
    name = props["name"]
    if "@" in name:
        return "snapshot"
    if "#" in name:
        return "bookmark"
    return "volume" if props.get("mountpoint") == "-" else "filesystem"


def zfs_text(datasets: dict[str, Props]) -> str:
    """`zfs list -H -p -o <ZFS_LIST_FIELDS>` rows."""
    rows = []
    for props in datasets.values():
        cells = {**props, "type": kind(props)}
        rows.append("\t".join(str(cells.get(f, "-")).replace("\t", " ") for f in ZFS_LIST_FIELDS))
    return "\n".join(rows) + "\n" if rows else ""


# `zfs list -j` property names that differ from the header words' (HEADERS' values).
_JSON_NAMES = {"available": "avail", "referenced": "refer"}


def rows_from_json(datasets: object, n: int) -> ZfsRows:
    """`zfs list -j` (`datasets.<name>` = {name, type, properties: {used: {value}, ...}}) as the
    rows a pasted table gives, every dataset pointing at line `n` (where the document starts)."""
    if not isinstance(datasets, dict):
        raise ParseError("'datasets' is not an object")
    out = ZfsRows()
    wanted = set(HEADERS.values())
    for key, obj in datasets.items():
        if not isinstance(obj, dict):
            raise ParseError(f"dataset {key!r} is not an object")
        name = obj.get("name", key)
        if not isinstance(name, str) or not _NAME.fullmatch(name) or name[0] in "-/@#":
            raise ParseError(f"{str(name)[:40]!r} is not a dataset name")
        props: Props = {"name": name}
        kind = obj.get("type")
        if isinstance(kind, str) and kind.lower() in ("filesystem", "volume", "snapshot", "bookmark"):
            props["type"] = kind.lower()
        raw = obj.get("properties")
        for prop in raw if isinstance(raw, dict) else ():
            key_ = _JSON_NAMES.get(prop, prop)
            value = json_property(raw, prop)
            if key_ in wanted and key_ not in ("name", "type") and value is not None:
                props[key_] = _value(key_, value)
        out.datasets.setdefault(name, {}).update(props)
        out.lines[name] = n
    return out
