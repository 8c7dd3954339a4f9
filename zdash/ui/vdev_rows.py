"""The vdev table's rows as plain data: (text, colour role) segments per cell. Kept apart from
the widget so the table can diff rows cheaply (tuples compare by value) and tests can read
them without an app."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Literal

from zdash import fmt
from zdash.feed.history import pool_key
from zdash.model import DATA_CLASSES, Pool, Snapshot, Vdev
from zdash.ui.markup import merge_runs
from zdash.ui.roles import Cell, Role, state_role, state_word

RowKind = Literal["pool", "top", "interior", "leaf"]
# (label, width in a wide table, width at 80 columns); the name column takes what is left.
COLUMNS = (
    ("VDEV", 0, 0),
    ("STATE", 9, 8),
    ("ERR r/w/ck", 10, 7),
    ("OPS/s", 6, 4),
    ("MiB/s", 6, 5),
    ("RD ms", 6, 4),
    ("WR ms", 6, 4),
    ("FILL · %UTIL", 17, 11),
)
NARROW_LABELS = {2: "ERR", 3: "OPS", 5: "RDms", 6: "WRms", 7: "FILL/UTIL"}
WIDE = 100  # terminal columns from which the wide layout fits


@dataclass(frozen=True, slots=True)
class Row:
    key: str
    kind: RowKind
    cells: tuple[Cell, ...]
    label: str = ""  # the vdev's name, for the chart title


def shown_pool(snapshot: Snapshot, name: str | None) -> Pool | None:
    """The pool a view shows: the one named, else the first (the named one may be gone)."""
    pools = snapshot.pools
    return next((p for p in pools if p.name == name), pools[0] if pools else None)


def row_label(pool: Pool, key: str) -> str | None:
    """What a row key of this pool's table names, for titles: "pool NAME" or the vdev's name;
    None when the key is not one of this pool's rows."""
    if key == pool_key(pool):
        return f"pool {pool.name}"
    vdev_key = key.rstrip("#")  # build_rows keeps duplicate keys apart with '#'
    return next((v.name for v in pool.root.walk() if v.key == vdev_key), None)


def peers_of(pool: Pool, key: str) -> tuple[Vdev, Vdev, list[Vdev]] | None:
    """The disk a row key names, its top-level vdev and the other disks of that vdev (through
    replacing-N / spare-N), for the chart's peer overlay; None for a row that is not a disk or
    a disk with no peer (a single-disk vdev)."""
    vdev_key = key.rstrip("#")
    for top in pool.root.children:
        leaves = list(top.leaves())
        disk = next((v for v in leaves if v.key == vdev_key), None)
        if disk is not None and top is not disk:
            peers = [v for v in leaves if v is not disk]
            return (disk, top, peers) if peers else None
    return None


def _c(text: str, role: Role = "text") -> Cell:
    return ((text, role),)


def _io_cells(v: Vdev) -> tuple[Cell, ...]:
    io = v.io
    if io is None:
        return _c("-", "muted"), _c("-", "muted"), _c("-", "muted"), _c("-", "muted")
    total_ops = io.read_ops + io.write_ops
    total_bytes = io.read_bytes + io.write_bytes
    role: Role = "text" if total_ops else "muted"
    return (
        _c(fmt.ops(total_ops), role),
        _c(fmt.mbps(total_bytes), role),
        _c(fmt.ms(io.disk_wait_read), role),
        _c(fmt.ms(io.disk_wait_write), role),
    )


def _errors(v: Vdev) -> Cell:
    if v.kind == "root" and not v.children:
        return _c("-", "muted")  # a pool seen without its vdevs (a status cut before its config)
    text = f"{v.read_errors}/{v.write_errors}/{v.checksum_errors}"
    return _c(text, "crit-bold" if (v.read_errors or v.write_errors or v.checksum_errors) else "muted")


def _state(v: Vdev, resilvering: bool = False) -> Cell:
    """↻: the disk a running resilver writes to (zpool marks it "(resilvering)" in text
    output; in JSON only its place under replacing-N/spare-N tells)."""
    text = state_word(v.state) + (" ↻" if resilvering or (v.aux and "resilver" in v.aux) else "")
    return _c(text, state_role(v.state))


def bar(frac: float, role: Role, mark: float | None = None, width: int = 8) -> Cell:
    """An eighth-block bar; `mark` (0..1) draws a tick, here the pool mean fill."""
    filled, empty = fmt.bar_cells(frac, width)
    chars: list[tuple[str, Role]] = [(ch, role) for ch in filled] + [(ch, "bar-free") for ch in empty]
    if mark is not None:
        chars[min(int(mark * width), width - 1)] = ("│", "mark")
    return merge_runs(chars)


def fill_role(pct: float) -> Role:
    return "crit" if pct >= 90 else "warn" if pct >= 80 else "bar"


def _fill_cell(pct: float | None, mean: float | None, wide: bool) -> Cell:
    if pct is None:
        return _c("")
    cell = bar(pct / 100, fill_role(pct), mean / 100 if mean is not None else None, 8 if wide else 6)
    cell += ((f" {fmt.fill(pct):>4}", fill_role(pct) if pct >= 80 else "text"),)
    if mean is not None and wide:  # the tick in the bar is the mean; the figure is the gap
        delta = round(pct - mean)  # an int: no "-0"
        cell += ((f" {delta:+3d}", "warn" if abs(delta) >= 10 else "muted"),)
    return cell


def _util_cell(v: Vdev, outlier: bool, wide: bool) -> Cell:
    util = v.disk.util_pct if v.disk is not None else None
    if util is None:
        return _c("file" if v.kind == "file" else "-", "muted")
    role: Role = "crit" if outlier else "warn" if util >= 80 else "bar"
    return bar(util / 100, role, None, 8 if wide else 6) + (
        (f" {util:3.0f}%", "crit-bold" if outlier else "text"),
    )


def _name(prefix: str, name: str, width: int, role: Role, marked: bool = False) -> Cell:
    room = max(width - len(prefix) - (2 if marked else 0), 4)
    cell: Cell = ((prefix, "muted"),) if prefix else ()
    if marked:
        cell += (("! ", "crit-bold"),)
    return cell + ((fmt.shorten(name, room), "crit-bold" if marked else role),)


def _greyed(cell: Cell) -> Cell:
    return tuple((text, "muted") for text, _ in cell)


# Which columns each input fills: when that input is stale its figures are old, so they are
# drawn muted (the status bar says which input and how old). Fill comes with every iostat
# report; %UTIL is from /proc/diskstats.
_COLUMNS_OF: dict[str, tuple[int, ...]] = {"status": (1, 2), "iostat": (3, 4, 5, 6)}


def _grey_stale(cells: tuple[Cell, ...], stale: frozenset[str], util: bool) -> tuple[Cell, ...]:
    cols = {c for key in stale for c in _COLUMNS_OF.get(key, ())}
    if ("diskstats" if util else "iostat") in stale:
        cols.add(7)
    if not cols:
        return cells
    return tuple(_greyed(c) if i in cols else c for i, c in enumerate(cells))


def build_rows(
    pool: Pool,
    outliers: Iterable[str],
    name_width: int,
    wide: bool = True,
    stale: frozenset[str] = frozenset(),
) -> list[Row]:
    """`stale`: the keys of the inputs that are not fresh (Snapshot.problems): their columns
    are greyed."""
    marked = frozenset(outliers)
    mean = pool.fill_pct
    root = pool.root
    rows = [
        Row(
            pool_key(pool),
            "pool",
            (
                _name("", pool.name, name_width, "bold"),
                _state(root),
                _errors(root),
                *_io_cells(root),
                _fill_cell(mean, None, wide),
            ),
            pool.name,
        )
    ]
    seen: set[str] = set()
    scan = pool.scan
    resilver = scan is not None and scan.function == "resilver" and scan.state == "scanning"
    targets = (
        {
            id(c)
            for v in root.walk()
            if v.kind in ("replacing", "spare")
            for c in v.children[1:]
            if c.state == "ONLINE"
        }
        if resilver
        else set()
    )
    for prefix, depth, v in _walk(root.children):
        key = v.key
        while key in seen:  # a GUID-less duplicate name: keep keys unique
            key += "#"
        seen.add(key)
        label = v.name + ("" if v.vclass == "normal" or depth > 1 else f" ({v.vclass})")
        is_marked = v.is_leaf and (v.label in marked or v.name in marked)
        kind: RowKind
        util = False
        if v.children:
            kind = "top" if depth == 1 else "interior"
            last = _fill_cell(v.fill_pct, mean, wide) if depth == 1 and v.vclass in DATA_CLASSES else _c("")
        elif depth == 1 and v.vclass in DATA_CLASSES and not is_marked:
            # A single-disk vdev is both: its row shows the vdev's fill (the space view) unless
            # the disk is the outlier, when its %util is what matters.
            kind, last = "leaf", _fill_cell(v.fill_pct, mean, wide)
        else:
            kind, last, util = "leaf", _util_cell(v, is_marked, wide), True
        name = _name(prefix, label, name_width, "text" if v.is_leaf else "bold", is_marked)
        state = _state(v, id(v) in targets)
        cells = (name, state, _errors(v), *_io_cells(v), last)
        rows.append(Row(key, kind, _grey_stale(cells, stale, util) if stale else cells, v.name))
    if stale:
        rows[0] = Row(rows[0].key, rows[0].kind, _grey_stale(rows[0].cells, stale, False), rows[0].label)
    return rows


def _walk(children: tuple[Vdev, ...], prefix: str = "", depth: int = 1) -> Iterator[tuple[str, int, Vdev]]:
    for i, v in enumerate(children):
        last = i == len(children) - 1
        yield prefix + ("└ " if last else "├ "), depth, v
        yield from _walk(v.children, prefix + ("  " if last else "│ "), depth + 1)
