"""The vdev table's rows as plain data: (text, colour role) segments per cell. Kept apart from
the widget so the table can diff rows cheaply (tuples compare by value) and tests can read
them without an app."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import repeat
from typing import Literal, overload

from zdash import fmt
from zdash.fold.series import pool_key
from zdash.model import DATA_CLASSES, IoStats, Pool, Snapshot, Vdev
from zdash.ui.markup import merge_runs
from zdash.ui.roles import Cell, Role, state_role, state_word

RowKind = Literal["pool", "top", "interior", "leaf"]
Source = Literal["status", "iostat", "diskstats", "ashift"]


@dataclass(frozen=True, slots=True)
class Column:
    """One column of the vdev table: one fact, from one input."""

    key: str  # what it holds (Row.cell, tests)
    label: str  # header in a wide table
    short: str  # header at 80 columns
    width: int  # cells in a wide table
    narrow: int  # cells at 80 columns
    # Which columns give way when the terminal is narrow: the highest first, equal ranks
    # together (a read/write pair goes as one); 0 never.
    fold: int
    numeric: bool  # right-aligned, so digits line up
    source: Source | None  # the input whose staleness greys it (Snapshot.problems keys)


# Left to right: health (status -s), then zpool iostat -vl's figures, then the disk as the kernel
# sees it, then the top-level vdev's configuration and space. At 80 columns what tells a sick
# disk from a healthy one stays (state, errors, SLOW, MiB/s, disk wait, %UTIL, fill); ops/s,
# total wait, the configured ashift and the kernel queue depth come back as the width allows.
COLUMNS = (
    Column("name", "VDEV", "VDEV", 0, 0, 0, False, None),
    Column("state", "STATE", "STATE", 8, 8, 0, False, "status"),
    Column("errors", "ERR r/w/ck", "ERR", 10, 7, 0, False, "status"),
    Column("slow", "SLOW", "SLOW", 4, 4, 1, True, "status"),
    Column("ops", "OPS/s", "OPS", 5, 4, 6, True, "iostat"),
    Column("mbs", "MiB/s", "MiB/s", 5, 5, 2, True, "iostat"),
    Column("total_r", "TOTAL r", "TOTr", 7, 4, 5, True, "iostat"),
    Column("total_w", "TOTAL w", "TOTw", 7, 4, 5, True, "iostat"),
    Column("disk_r", "DISK r", "DSKr", 6, 4, 3, True, "iostat"),
    Column("disk_w", "DISK w", "DSKw", 6, 4, 3, True, "iostat"),
    Column("util", "%UTIL", "%UTIL", 11, 5, 2, False, "diskstats"),
    Column("queue", "QUEUE", "QUE", 5, 4, 8, True, "diskstats"),
    Column("ashift", "ASHIFT", "ASH", 6, 3, 7, True, "ashift"),
    Column("fill", "FILL", "FILL", 15, 4, 2, False, "iostat"),  # space comes with every report
)
WIDE = 100  # terminal columns from which the wide widths are used
_BAR = 6  # cells of a fill or %UTIL bar in a wide table; at 80 columns the figure alone


@dataclass(frozen=True, slots=True)
class Row:
    key: str
    kind: RowKind
    cells: tuple[Cell, ...]  # one per column shown, in `columns` order
    label: str = ""  # the vdev's name, for the chart title
    columns: tuple[str, ...] = ()  # the keys of the columns the cells are for

    def cell(self, column: str) -> Cell:
        """The cell of a column by its key (Column.key); KeyError when it is not shown."""
        return self.cells[self.columns.index(column)]


def fit_columns(width: int, wide: bool, name_need: int, pad: int) -> tuple[Column, ...]:
    """The columns a table `width` cells wide shows (the name column first), folding the
    highest-ranked away until what is left and `name_need` cells of name fit."""
    shown = list(COLUMNS)
    while True:
        used = sum((c.width if wide else c.narrow) + pad for c in shown[1:]) + name_need + pad
        ranks = [c.fold for c in shown]
        if used <= width or max(ranks) == 0:
            return tuple(shown)
        top = max(ranks)
        shown = [c for c in shown if c.fold != top]


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


_NONE = _c("")  # a fact this row does not have (a vdev's SLOW, a disk's FILL)
_UNKNOWN = _c("-", "muted")  # a fact this row has that was not measured


_IO_KEYS = ("ops", "mbs", "total_r", "total_w", "disk_r", "disk_w")
_IO_UNKNOWN = dict.fromkeys(_IO_KEYS, _UNKNOWN)
# A row's figures from zpool iostat -l, in IoStats' field order: read/write ops, read/write
# bytes, total wait read/write, disk wait read/write.
Figures = tuple[float, float, float, float, float | None, float | None, float | None, float | None]


def _io_cells(io: IoStats | None) -> dict[str, Cell]:
    """ops/s, MiB/s, total wait and disk wait (r, w): zpool iostat -l's row."""
    if io is None:
        return _IO_UNKNOWN
    return _figure_cells(
        (
            io.read_ops,
            io.write_ops,
            io.read_bytes,
            io.write_bytes,
            io.total_wait_read,
            io.total_wait_write,
            io.disk_wait_read,
            io.disk_wait_write,
        )
    )


def _figure_cells(f: Figures) -> dict[str, Cell]:
    total_ops = f[0] + f[1]
    role: Role = "text" if total_ops else "muted"
    return {
        "ops": ((fmt.ops(total_ops), role),),
        "mbs": ((fmt.mbps(f[2] + f[3]), role),),
        "total_r": ((fmt.ms(f[4]), role),),
        "total_w": ((fmt.ms(f[5]), role),),
        "disk_r": ((fmt.ms(f[6]), role),),
        "disk_w": ((fmt.ms(f[7]), role),),
    }


def _column_reader(pool: Pool) -> tuple[Callable[[Vdev], Figures | None], Callable[[Vdev], int]]:
    """Readers of a vdev's iostat figures and of its row of the kernel's disk rates straight
    from the tick's columns (Pool.measures), what io_of/disk_of read, without building an IoStats
    per row; None / -1 where the vdev's figures are its own or absent (the caller asks
    io_of/disk_of)."""
    m = pool.measures
    if m is None:
        return (lambda v: None), (lambda v: -1)
    layout, slot_of = m.layout, m.slot_of
    io, disk = m.io_columns, m.disk_columns
    io_rows, disk_rows = layout.io_rows, layout.disk_rows

    def figures(v: Vdev) -> Figures | None:
        k = slot_of(v)
        i = -1 if k is None else io_rows[k]
        if i < 0:
            return None
        c = io  # the report's columns, as io_at reads them
        assert c is not None
        return (c[0][i], c[1][i], c[2][i], c[3][i], c[4][i], c[5][i], c[6][i], c[7][i])  # type: ignore[return-value]

    def disk_row(v: Vdev) -> int:
        k = slot_of(v)
        return -1 if k is None else disk_rows[k]

    def none(v: Vdev) -> None:
        return None  # a reader without its columns (or columns without one): io_of says

    return (
        none if io is None or m.io_at is None or len(io) != 8 else figures,
        (lambda v: -1) if disk is None or m.disk_at is None else disk_row,
    )


def _slow(v: Vdev) -> Cell:
    """ZFS's count of I/Os that took longer than zio_slow_io_ms (status -s), a leaf's alone."""
    if v.slow_ios is None:
        return _UNKNOWN
    return _c(str(v.slow_ios), "warn-bold" if v.slow_ios else "muted")


def _queue_cell(q: float | None) -> Cell:
    return _UNKNOWN if q is None else _c(fmt.queue(q), "text" if q else "muted")


def _ashift(top: Vdev) -> Cell:
    """The top-level vdev's configured ashift; a warning colour when a disk in it has larger
    sectors than 2^ashift (writes then read-modify-write; zdash.checks.ashift says why)."""
    if top.ashift is None:
        return _UNKNOWN
    sector = 1 << top.ashift
    small = any(
        (d.native_sector or 0) > sector or (d.physical_ashift or 0) > top.ashift for d in top.leaves()
    )
    return _c(str(top.ashift), "warn" if small else "text")


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


# Cells made from a few figures that repeat (a fill moves slowly, %UTIL is shown whole), kept
# by what they are made from; cleared past KEPT.
_KEPT_CELLS: dict[tuple[object, ...], Cell] = {}
KEPT = 4096


def _kept(key: tuple[object, ...], make: Callable[[], Cell]) -> Cell:
    cell = _KEPT_CELLS.get(key)
    if cell is None:
        if len(_KEPT_CELLS) >= KEPT:
            _KEPT_CELLS.clear()
        cell = _KEPT_CELLS[key] = make()
    return cell


def _fill_cell(pct: float | None, mean: float | None, wide: bool) -> Cell:
    if pct is None:
        return _NONE
    return _kept(("fill", pct, mean, wide), lambda: _made_fill_cell(pct, mean, wide))


def _made_fill_cell(pct: float, mean: float | None, wide: bool) -> Cell:
    figure: tuple[str, Role] = (f"{fmt.fill(pct):>4}", fill_role(pct) if pct >= 80 else "text")
    if not wide:
        return (figure,)
    cell = bar(pct / 100, fill_role(pct), mean / 100 if mean is not None else None, _BAR)
    cell += ((" ", "text"), figure)
    if mean is not None:  # the tick in the bar is the mean; the figure is the gap
        delta = round(pct - mean)  # an int: no "-0"
        cell += ((f" {delta:+3d}", "warn" if abs(delta) >= 10 else "muted"),)
    return cell


def _util_cell(v: Vdev, util: float | None, outlier: bool, wide: bool) -> Cell:
    if util is None:
        return _c("file" if v.kind == "file" else "-", "muted")
    emphasis: Role = "crit-bold" if outlier else "warn" if util >= 80 and not wide else "text"
    figure = (f"{util:3.0f}%", emphasis)  # without its bar (80 columns) the figure takes the colour
    if not wide:
        return (figure,)
    role: Role = "crit" if outlier else "warn" if util >= 80 else "bar"
    # the same bar and figure from many a util: kept by what is drawn
    filled, _ = fmt.bar_cells(util / 100, _BAR)
    return _kept(
        ("util", filled, figure, role), lambda: (*bar(util / 100, role, None, _BAR), (" ", "text"), figure)
    )


def _name(prefix: str, name: str, width: int, role: Role, marked: bool = False, tag: str = "") -> Cell:
    cell: Cell = ((prefix, "muted"),) if prefix else ()
    if marked:
        cell += (("! ", "crit-bold"),)
    room = max(width - len(prefix) - (2 if marked else 0), 4)
    return cell + ((_tagged(name, tag, room), "crit-bold" if marked else role),)


def _tagged(name: str, tag: str, room: int) -> str:
    """A name and its class (" (special)") in `room` cells. The name is the vdev's identity (the
    number tells mirror-1 from mirror-3; commands name it): where both do not fit the class gives
    way first, "mirror-1 (spe…)", never "mirror-…pecial)"."""
    if len(name) + len(tag) <= room or not tag:
        return fmt.shorten(name + tag, room)
    if room - len(name) >= len(" (x…)"):
        return f"{name} ({tag[2:-1][: room - len(name) - 4]}…)"
    return fmt.shorten(name + tag, room)


def _greyed(cell: Cell) -> Cell:
    return tuple((text, "muted") for text, _ in cell)


def build_rows(
    pool: Pool,
    outliers: Iterable[str],
    name_width: int,
    wide: bool = True,
    stale: frozenset[str] = frozenset(),
    columns: tuple[Column, ...] = COLUMNS,
    previous: Rows | None = None,
) -> Rows:
    """The table's rows with a cell for each of `columns` (the name first). `stale`: the keys
    of the inputs that are not fresh (Snapshot.problems): the columns they fill are greyed,
    their figures being old (the status bar says which input and how old). `previous`: the
    rows of the frame before, whose plan (and the cells a vdev keeps) serve again while the
    pool's tree is the same object."""
    plan = previous.plan if previous is not None else None
    if plan is None or plan.root is not pool.root or plan.name != pool.name:
        plan = Plan(pool)
    return Rows(pool, outliers, name_width, wide, stale, columns, plan)


class Plan:
    """The rows of one pool tree before any figure: each row's key, kind, label, tree prefix,
    depth and vdev, the pool's own row first. The fold keeps a pool's tree (the same objects)
    from tick to tick while `zpool status` reads the same, so a plan serves frame after frame;
    beside it, per row, the cells that come from the vdev alone (name, state, errors, SLOW,
    ashift), kept while the vdev and what they were made for are the same."""

    __slots__ = ("held", "keys", "name", "root", "rows")

    def __init__(self, pool: Pool) -> None:
        self.root, self.name = pool.root, pool.name  # the root held: the ids below stay theirs
        rows: list[tuple[str, RowKind, str, str, int, Vdev]] = [
            (pool_key(pool), "pool", pool.name, "", 0, pool.root)
        ]
        seen: set[str] = set()
        for prefix, depth, v in _walk(pool.root.children):
            key = v.key
            while key in seen:  # a GUID-less duplicate name: keep keys unique
                key += "#"
            seen.add(key)
            kind: RowKind = ("top" if depth == 1 else "interior") if v.children else "leaf"
            rows.append((key, kind, v.name, prefix, depth, v))
        self.rows = rows
        self.keys = [r[0] for r in rows]
        # row index -> (what the cells were made for, the cells by column key)
        self.held: dict[int, tuple[tuple[object, ...], dict[str, Cell]]] = {}


class Rows(Sequence[Row]):
    """The rows of one frame's table, each made when first asked for: the table draws the ~30
    rows in view, not the hundreds of a large pool (at 100 disks, making every row was most of
    a 1 Hz frame's own CPU). Their keys, kinds and labels are known at once (the cursor, the
    row count); a row's cells are made from the same frame whenever it is asked."""

    def __init__(
        self,
        pool: Pool,
        outliers: Iterable[str],
        name_width: int,
        wide: bool,
        stale: frozenset[str],
        columns: tuple[Column, ...],
        plan: Plan | None = None,
    ) -> None:
        self._keys_shown = tuple(c.key for c in columns)
        # the ashift source is asked per pool (zdash.raw.ashift_key): this pool's counts
        late = {k for k in stale if ":" not in k} | ({"ashift"} if f"ashift:{pool.name}" in stale else set())
        self._greyed = frozenset(c.key for c in columns if c.source in late)
        self._marked = frozenset(outliers)
        self._pool, self._name_width, self._wide = pool, name_width, wide
        self._targets: set[int] | None = None
        self._figures, self._disk_row = _column_reader(pool)
        disk = pool.measures.disk_columns if pool.measures is not None else None
        self._util, self._queue = (disk[0], disk[7]) if disk is not None and len(disk) == 8 else ((), ())
        self.plan = plan if plan is not None else Plan(pool)
        self._made: list[Row | None] = [None] * len(self.plan.rows)
        self.keys = self.plan.keys

    def __len__(self) -> int:
        return len(self._made)

    @overload
    def __getitem__(self, i: int) -> Row: ...
    @overload
    def __getitem__(self, i: slice) -> list[Row]: ...
    def __getitem__(self, i: int | slice) -> Row | list[Row]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        row = self._made[i]
        if row is None:
            row = self._made[i] = self._make(i)
        return row

    def made(self, i: int) -> Row | None:
        """Row i if it was made (asked for) already, else None: nothing is made to answer."""
        return self._made[i]

    def _resilver_targets(self) -> set[int]:
        """The disks a running resilver writes to (online under replacing-N / spare-N)."""
        if self._targets is None:
            scan = self._pool.scan
            resilver = scan is not None and scan.function == "resilver" and scan.state == "scanning"
            self._targets = (
                {
                    id(c)
                    for v in self._pool.root.walk()
                    if v.kind in ("replacing", "spare")
                    for c in v.children[1:]
                    if c.state == "ONLINE"
                }
                if resilver
                else set()
            )
        return self._targets

    def _held(self, i: int, depth: int, prefix: str, v: Vdev, marked: bool) -> dict[str, Cell]:
        """The cells of row i that come from its vdev alone, made once for the same vdev (the
        plan's), width, marking and resilver state."""
        keys = self._keys_shown
        resilvering = depth > 0 and id(v) in self._resilver_targets()
        made_for = (self._name_width, marked, resilvering, keys)
        held = self.plan.held.get(i)
        if held is not None and held[0] == made_for:
            return held[1]
        if depth == 0:
            cells = {"name": _name("", self._pool.name, self._name_width, "bold")}
        else:
            tag = "" if v.vclass == "normal" or depth > 1 else f" ({v.vclass})"
            role: Role = "text" if v.is_leaf else "bold"
            cells = {"name": _name(prefix, v.name, self._name_width, role, marked, tag)}
        cells["state"] = _state(v, resilvering)
        cells["errors"] = _errors(v)
        if depth == 1 and "ashift" in keys:  # walks the vdev's disks: only when shown
            cells["ashift"] = _ashift(v)
        if depth > 0 and not v.children:
            cells["slow"] = _slow(v)
        self.plan.held[i] = (made_for, cells)
        return cells

    def _make(self, i: int) -> Row:
        key, kind, label, prefix, depth, v = self.plan.rows[i]
        pool, wide = self._pool, self._wide
        marked = depth > 0 and v.is_leaf and (v.label in self._marked or v.name in self._marked)
        facts = dict(self._held(i, depth, prefix, v, marked))
        figures = self._figures(v)
        facts.update(_io_cells(pool.io_of(v)) if figures is None else _figure_cells(figures))
        if depth == 0:
            facts["fill"] = _fill_cell(pool.fill_pct, None, wide)
        elif depth == 1 and v.vclass in DATA_CLASSES:  # a top-level vdev (a single disk is one too)
            facts["fill"] = _fill_cell(v.fill_pct, pool.fill_pct, wide)
        if kind == "leaf":
            d = self._disk_row(v)
            if d < 0 or not self._util:
                disk = pool.disk_of(v)
                util, queue = (disk.util_pct, disk.queue_depth) if disk is not None else (None, None)
            else:
                util, queue = self._util[d], self._queue[d]
            facts["queue"] = _queue_cell(queue)
            facts["util"] = _util_cell(v, util, marked, wide)
        keys = self._keys_shown
        cells = tuple(map(facts.get, keys, repeat(_NONE)))
        if self._greyed:
            cells = tuple(_greyed(c) if k in self._greyed else c for k, c in zip(keys, cells))
        return Row(key, kind, cells, label, keys)


def _walk(children: tuple[Vdev, ...], prefix: str = "", depth: int = 1) -> Iterator[tuple[str, int, Vdev]]:
    for i, v in enumerate(children):
        last = i == len(children) - 1
        yield prefix + ("└ " if last else "├ "), depth, v
        yield from _walk(v.children, prefix + ("  " if last else "│ "), depth + 1)
