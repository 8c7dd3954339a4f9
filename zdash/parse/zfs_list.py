"""`zfs list -H -p -t filesystem,volume,snapshot -o <fields>` into model.Dataset records.

The collector builds its -o list from ZFS_LIST_FIELDS; other -o lists (the captures use
name,type,used,avail,refer,mountpoint,origin) parse when their fields are passed. Columns this
model has no slot for (mountpoint, ...) are read and ignored. '-' survives -p for values that
do not apply (avail of a snapshot, origin of a non-clone, clones of a snapshot without any):
they become None / (). `clones` is comma-separated in nvlist order, not sorted (reference §6).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from zdash.model import Dataset
from zdash.parse import ParseError

ZFS_LIST_FIELDS = (
    "name",
    "type",
    "origin",
    "clones",
    "used",
    "avail",
    "refer",
    "usedbydataset",
    "usedbysnapshots",
    "compression",
    "compressratio",
    "dedup",
    "atime",
    "relatime",
    "xattr",
)


def zfs_list_argv(pools: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The `zfs list` zdash runs: every filesystem, volume and snapshot (of `pools`, or all),
    script mode, exact numbers, the fields this parser reads."""
    return (
        "zfs",
        "list",
        "-r",
        "-H",
        "-p",
        "-t",
        "filesystem,volume,snapshot",
        "-o",
        ",".join(ZFS_LIST_FIELDS),
        *pools,
    )


# zfs accepts short and long property names in -o; map both onto Dataset's field names.
_ALIASES = {
    "name": "name",
    "type": "kind",
    "origin": "origin",
    "clones": "clones",
    "used": "used",
    "avail": "avail",
    "available": "avail",
    "refer": "refer",
    "referenced": "refer",
    "usedbydataset": "used_by_dataset",
    "usedds": "used_by_dataset",
    "usedbysnapshots": "used_by_snapshots",
    "usedsnap": "used_by_snapshots",
    "compression": "compression",
    "compress": "compression",
    "compressratio": "compressratio",
    "ratio": "compressratio",
    "dedup": "dedup",
    "atime": "atime",
    "relatime": "relatime",
    "xattr": "xattr",
}
_BYTES = {"used", "avail", "refer", "used_by_dataset", "used_by_snapshots"}
_INT = re.compile(r"\d{1,20}", re.ASCII)  # u64; bounded so int() cannot blow up
_RATIO = re.compile(r"(\d{1,20}(?:\.\d{1,20})?)x?", re.ASCII)


def _clones(s: str) -> tuple[str, ...]:
    return () if s in ("-", "") else tuple(c for c in s.split(",") if c)


def _bytes(attr: str, s: str, n: int) -> int | None:
    if s == "-":
        return None
    if not _INT.fullmatch(s):
        raise ParseError(f"zfs list line {n}: {attr} {s[:20]!r} is not an integer (run with -p)")
    return int(s)


def _ratio(s: str, n: int) -> float | None:
    if s == "-":
        return None
    m = _RATIO.fullmatch(s)
    if not m:
        raise ParseError(f"zfs list line {n}: compressratio {s[:20]!r} is not a ratio")
    return float(m.group(1))


def _dataset(attrs: list[str | None], cols: list[str], n: int) -> Dataset:
    """One row, each column converted in printed order (the first bad one is reported)."""
    texts: dict[str, str | None] = {}
    sizes: dict[str, int | None] = {}
    clones: tuple[str, ...] = ()
    ratio: float | None = None
    for attr, s in zip(attrs, cols):
        if attr is None:
            continue
        if attr == "clones":
            clones = _clones(s)
        elif attr in _BYTES:
            sizes[attr] = _bytes(attr, s, n)
        elif attr == "compressratio":
            ratio = _ratio(s, n)
        else:
            texts[attr] = None if s == "-" else s
    name, kind = texts.get("name"), texts.get("kind")
    if not name or not kind:
        raise ParseError(f"zfs list line {n}: empty name or type")
    return Dataset(
        name=name,
        kind=kind,
        origin=texts.get("origin"),
        clones=clones,
        used=sizes.get("used"),
        avail=sizes.get("avail"),
        refer=sizes.get("refer"),
        used_by_dataset=sizes.get("used_by_dataset"),
        used_by_snapshots=sizes.get("used_by_snapshots"),
        compression=texts.get("compression"),
        compressratio=ratio,
        dedup=texts.get("dedup"),
        atime=texts.get("atime"),
        relatime=texts.get("relatime"),
        xattr=texts.get("xattr"),
    )


def parse_zfs_list(text: str, fields: str | Iterable[str] = ZFS_LIST_FIELDS) -> tuple[Dataset, ...]:
    """`fields`: the -o list, as a sequence of property names or the comma-joined string."""
    if not isinstance(text, str):
        raise ParseError(f"zfs list: expected text, got {type(text).__name__}")
    try:
        names = tuple(fields.split(",") if isinstance(fields, str) else map(str, fields))
    except TypeError:
        raise ParseError("zfs list: fields must be a sequence of property names") from None
    attrs = [_ALIASES.get(f.strip().lower()) for f in names]
    if "name" not in attrs or "kind" not in attrs:
        raise ParseError("zfs list: the -o list must include name and type")
    out: list[Dataset] = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        cols = line.split("\t")
        if len(cols) != len(names):
            raise ParseError(
                f"zfs list line {n}: {len(cols)} fields, expected {len(names)} ({','.join(names)[:60]})"
            )
        out.append(_dataset(attrs, cols, n))
    return tuple(out)
