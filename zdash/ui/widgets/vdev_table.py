"""The vdev tree as a table: the pool, its top-level vdevs (fill beside the pool mean) and the
leaves (state, errors, ops/s, MB/s, disk latency, %util), outliers marked.

Updated in place by row key, only the cells that changed; the table is rebuilt only when the
topology (the list of row keys) or the layout width changes, keeping the cursor on its row."""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual.widgets import DataTable

from zdash.model import Pool, Vdev
from zdash.ui.markup import cell_text
from zdash.ui.palette import palette
from zdash.ui.vdev_rows import COLUMNS, NARROW_LABELS, WIDE, Row, build_rows

_NUMERIC = {3, 4, 5, 6}  # right-aligned, so digits line up
_PAD = 2  # DataTable cell_padding=1 on each side
_CHROME = 4  # scrollbar and border


def _depths(v: Vdev, depth: int = 0):
    for c in v.children:
        yield depth + 1, c
        yield from _depths(c, depth + 1)


class VdevTable(DataTable):
    def __init__(self, **kwargs) -> None:
        super().__init__(cursor_type="row", zebra_stripes=False, **kwargs)
        self._rows: dict[str, Row] = {}
        self._order: list[str] = []
        self._layout: tuple[bool, int] | None = None
        self._last: tuple[Pool, frozenset[str]] | None = None

    def on_mount(self) -> None:
        self._pal = palette(self.app)
        self.app.theme_changed_signal.subscribe(self, self._on_theme)

    def _on_theme(self, _theme: object) -> None:
        self._pal = palette(self.app)
        self._layout = None  # re-render every cell in the new colours
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

    @property
    def selected_key(self) -> str | None:
        if not self._order or self.cursor_row < 0 or self.cursor_row >= len(self._order):
            return None
        return self._order[self.cursor_row]

    def label_of(self, key: str) -> str | None:
        row = self._rows.get(key)
        return row.label if row else None

    def show(self, pool: Pool, outliers: Iterable[str]) -> None:
        self._last = (pool, frozenset(outliers))
        self._redraw()

    def _redraw(self) -> None:
        if self._last is None or not self.is_mounted:
            return
        pool, outliers = self._last
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

    def _cell(self, col: int, cell) -> Text:
        return cell_text(cell, self._pal, "right" if col in _NUMERIC else "left")

    def _rebuild(self, rows: list[Row], layout: tuple[bool, int]) -> None:
        keep = self.selected_key
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
