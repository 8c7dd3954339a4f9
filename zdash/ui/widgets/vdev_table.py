"""The vdev tree as a table: the pool, its top-level vdevs (fill beside the pool mean) and the
leaves (state, errors, ops/s, MB/s, disk latency, %util), outliers marked.

Updated in place by row key, only the cells that changed; the table is rebuilt only when the
topology (the list of row keys) or the layout width changes, keeping the cursor on its row."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

from rich.style import Style
from rich.text import Text
from textual import getters
from textual.reactive import var
from textual.widgets import DataTable

from zdash.feed.frame import Frame
from zdash.model import Pool, Vdev
from zdash.ui.app import ZdashApp
from zdash.ui.markup import cell_text
from zdash.ui.outliers import outlier_leaves
from zdash.ui.roles import ROLE_CLASSES, Cell, Role, role_styles
from zdash.ui.vdev_rows import COLUMNS, NARROW_LABELS, WIDE, Row, build_rows, shown_pool

_NUMERIC = {3, 4, 5, 6}  # right-aligned, so digits line up
_PAD = 2  # DataTable cell_padding=1 on each side
_CHROME = 4  # scrollbar and border


def _depths(v: Vdev, depth: int = 0) -> Iterator[tuple[int, Vdev]]:
    for c in v.children:
        yield depth + 1, c
        yield from _depths(c, depth + 1)


class VdevTable(DataTable[Any]):
    """Bound to its screen's frame and pool (data_bind); draws that pool of the frame."""

    COMPONENT_CLASSES: ClassVar[set[str]] = DataTable.COMPONENT_CLASSES | ROLE_CLASSES
    app = getters.app(ZdashApp)
    frame: var[Frame | None] = var(None)
    pool_name: var[str | None] = var(None)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(cursor_type="row", zebra_stripes=False, id=id)
        self._rows: dict[str, Row] = {}
        self._order: list[str] = []
        self._layout: tuple[bool, int] | None = None
        self._styles: dict[Role, Style] = {}

    def on_mount(self) -> None:
        self._styles = role_styles(self)
        self.app.theme_changed_signal.subscribe(self, self._on_theme)

    def _on_theme(self, _theme: object) -> None:
        self._styles = role_styles(self)
        self._layout = None  # re-render every cell in the new colours
        self._redraw()

    def watch_frame(self) -> None:
        self._redraw()

    def watch_pool_name(self) -> None:
        self._redraw()

    def on_resize(self) -> None:
        self._redraw()

    def _layout_for(self, width: int, pool: Pool) -> tuple[bool, int]:
        """Wide or compact columns; the name column as wide as the longest name (with its
        tree indent) when that fits, so the figures sit close to the names they belong to."""
        wide = width >= WIDE
        fixed = sum((c[1] if wide else c[2]) + _PAD for c in COLUMNS[1:])
        room = max(12, width - fixed - _PAD - _CHROME)
        longest = max([len(pool.name)] + [2 * d + len(v.name) + 10 for d, v in _depths(pool.root)])
        return wide, max(12, min(room, longest, 48))

    def _selected_key(self) -> str | None:
        if not self._order or self.cursor_row < 0 or self.cursor_row >= len(self._order):
            return None
        return self._order[self.cursor_row]

    def _redraw(self) -> None:
        frame = self.frame
        pool = shown_pool(frame.snapshot, self.pool_name) if frame is not None else None
        if pool is None or frame is None or not self._styles:
            return  # nothing to show yet (or no pool any more): keep what is shown
        outliers = outlier_leaves(pool, frame.findings, self.app.cfg)
        layout = self._layout_for(self.app.size.width, pool)
        rows = build_rows(pool, outliers, layout[1], layout[0])
        order = [r.key for r in rows]
        with self.app.batch_update():
            if order != self._order or layout != self._layout:
                self._rebuild(rows, layout)
                return
            for row in rows:
                old = self._rows[row.key]
                for col, (a, b) in enumerate(zip(old.cells, row.cells)):
                    if a != b:
                        self.update_cell(row.key, str(col), self._cell(col, b))
                self._rows[row.key] = row

    def _cell(self, col: int, cell: Cell) -> Text:
        return cell_text(cell, self._styles, "right" if col in _NUMERIC else "left")

    def _rebuild(self, rows: list[Row], layout: tuple[bool, int]) -> None:
        keep = self._selected_key()
        wide, name_width = layout
        self.clear(columns=True)
        for i, (label, w_wide, w_narrow) in enumerate(COLUMNS):
            width = name_width if i == 0 else (w_wide if wide else w_narrow)
            label = label if wide else NARROW_LABELS.get(i, label)
            self.add_column(
                Text(label, justify="right" if i in _NUMERIC else "left"), width=width, key=str(i)
            )
        for row in rows:
            self.add_row(*(self._cell(i, c) for i, c in enumerate(row.cells)), key=row.key)
        self._rows = {r.key: r for r in rows}
        self._order = [r.key for r in rows]
        self._layout = layout
        if keep in self._rows:
            self.move_cursor(row=self._order.index(keep), animate=False)
