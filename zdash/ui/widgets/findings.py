"""The findings, worst first: one row each (severity, pool, title); Enter opens the finding's
why, evidence and suggested actions. Rows are keyed by Finding.key, so the cursor stays on a
finding while its title changes tick by tick: a new frame updates the cells that changed, in
place (the row alone repainted); the rows are rebuilt only when the list of findings (or the
width) changes.

The cursor rests on the worst finding until the admin moves it (a key or a click): a finding
that arrives above it later takes the cursor with it, so `f` then Enter opens the worst finding
*now*, not the note that was worst when `f` was pressed.

Above the history chart the table is as tall as its findings (up to ten rows) and keeps the
rows it has grown to until it has held fewer for SHRINK_AFTER_S: a finding that comes and goes
(the demo's slow disk, every loop) no longer resizes the chart under it. Each resize was two
layout passes of the whole screen and both plots redrawn, more than the rest of a second's
frames together.

A row count the table's box already has room for (a finding gone while the rows are held, one
replaced by another) changes its virtual size only: that repaints the table, without laying the
screen out again (a layout pass of the whole screen, ~10 ms, and the plots redrawn at their
unchanged size)."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.style import Style
from rich.text import Text
from textual import getters
from textual.binding import Binding, BindingType
from textual.css.scalar import Scalar, Unit
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import var
from textual.widgets import DataTable

from zdash.checks.finding import Finding
from zdash.feed.frame import Frame
from zdash.ui.app import ZdashApp
from zdash.ui.roles import ROLE_CLASSES, SEVERITY_ICON, Role, role_styles, severity_role

_SEV_WIDTH = max(len(word) for word in SEVERITY_ICON.values())  # "? STALE" whole, never "? STA…"

NONE_KEY = "-"
SHRINK_AFTER_S = 60.0  # fewer findings for this long (app clock): the table gives its rows back
DRAWN_CELLS_KEPT = 256  # drawn cells remembered (a finding's cells as drawn): cleared past this
RowCells = tuple[tuple[str, Role], tuple[str, Role]]  # (severity, title) as (text, role)


def finding_id(f: Finding) -> str:
    check, pool, subject = f.key
    return f"{check}\x1f{pool}\x1f{subject}"  # every finding, every tick: one f-string


def finding_row(f: Finding | None, pool_prefix: bool, waiting: bool = False) -> RowCells:
    if f is None and waiting:  # no data yet: nothing was checked, so nothing is "fine" either
        return ("…", "muted"), ("waiting for the first sample…", "muted")
    if f is None:
        return ("✓", "ok"), ("nothing to report: no check found anything", "muted")
    # With several pools, say which one; with one, the pool name is noise.
    prefix = pool_prefix and f.pool and not f.title.startswith(f.pool)
    title = f"{f.pool}: {f.title}" if prefix else f.title
    return (SEVERITY_ICON[f.severity], severity_role(f.severity)), (title, "text")


class FindingsTable(DataTable[Any]):
    """Bound to its screen's frame (data_bind)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = DataTable.COMPONENT_CLASSES | ROLE_CLASSES
    # A row table: home/end go to the first/last finding (DataTable's scroll sideways).
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("home", "scroll_top", "First finding", show=False),
        Binding("end", "scroll_bottom", "Last finding", show=False),
    ]

    class Open(Message):
        def __init__(self, finding: Finding) -> None:
            super().__init__()
            self.finding = finding

    app = getters.app(ZdashApp)
    frame: var[Frame | None] = var(None)
    _was: Size | None = None  # while DataTable sizes its rows anew: the virtual size before
    _row_only: int | None = None  # while a cell of this row is updated: the row alone is repainted

    def __init__(self, *, id: str | None = None) -> None:
        # the cells keep their severity colour on the selected row (the cursor is a background only)
        super().__init__(cursor_type="row", show_header=False, cursor_foreground_priority="renderable", id=id)
        self._by_id: dict[str, Finding] = {}
        self._order: list[str] = []
        self._cells: dict[str, RowCells] = {}
        self._pool_prefix = False
        self._title = ""
        self._title_width = 0
        self._styles: dict[Role, Style] = {}
        self._chosen = False  # the admin moved the cursor: it follows their finding, not the worst
        self._held = 0  # rows the table keeps its height for
        self._fewer_since: float | None = None  # app clock: since when it has had fewer
        # (row, column, how drawn) -> (the cell's Text, its row and column keys, its lines)
        self._drawn_cells: dict[tuple[Any, ...], tuple[Any, tuple[Any, Any], Any]] = {}

    def rest_on_worst(self) -> None:
        """Back on the worst finding (row 0), and following it until the admin moves again."""
        self._chosen = False
        self.move_cursor(row=0, animate=False)

    # The admin's own cursor moves (keys, a click): from then on the cursor stays on their finding.
    def action_cursor_up(self) -> None:
        self._chosen = True
        super().action_cursor_up()

    def action_cursor_down(self) -> None:
        self._chosen = True
        super().action_cursor_down()

    def action_page_up(self) -> None:
        self._chosen = True
        super().action_page_up()

    def action_page_down(self) -> None:
        self._chosen = True
        super().action_page_down()

    def action_scroll_top(self) -> None:
        self._chosen = True
        super().action_scroll_top()

    def action_scroll_bottom(self) -> None:
        self._chosen = True
        super().action_scroll_bottom()

    def on_click(self) -> None:
        self._chosen = True

    def on_blur(self) -> None:
        self._chosen = False  # away from the table, the cursor rests on the worst again

    def on_mount(self) -> None:
        self._styles = role_styles(self)
        self.app.theme_changed_signal.subscribe(self, self._on_theme)

    def _on_theme(self, _theme: object) -> None:
        self._styles = role_styles(self)
        self._order = []  # redraw every row in the new colours
        self._draw()

    def watch_frame(self) -> None:
        self._draw()

    def on_resize(self) -> None:
        self._draw()

    def _fit_columns(self) -> bool:
        """The title column takes the rest of the width (DataTable has no 1fr columns), so a
        long title ends in an ellipsis instead of scrolling sideways. True when rebuilt."""
        width = max(20, self.size.width - _SEV_WIDTH - 2 * 2 - 2)
        if width == self._title_width:
            return False
        self._title_width = width
        self.clear(columns=True)
        self.add_column("sev", width=_SEV_WIDTH, key="sev")
        self.add_column("title", width=width, key="title")
        return True

    def _text(self, cell: tuple[str, Role]) -> Text:
        return Text(cell[0], style=self._styles[cell[1]], no_wrap=True, overflow="ellipsis")

    def _draw(self) -> None:
        if not self._styles:
            return  # not mounted yet: on_mount's styles come first
        frame = self.frame
        findings = frame.findings if frame is not None else ()
        if frame is not None:
            prefix = len(frame.snapshot.pools) > 1
            if prefix != self._pool_prefix:
                self._pool_prefix, self._order = prefix, []
        self._by_id = {finding_id(f): f for f in findings}
        order = list(self._by_id) or [NONE_KEY]
        cells = {k: finding_row(self._by_id.get(k), self._pool_prefix, frame is None) for k in order}
        title = f"Findings ({len(findings)})" if findings else "Findings"
        if title != self._title:  # setting a border title repaints the widget, changed or not
            self.border_title = self._title = title
        keep = self._order[self.cursor_row] if 0 <= self.cursor_row < len(self._order) else None
        with self.app.batch_update():
            if self._fit_columns() or order != self._order:
                self.clear()
                for k in order:
                    self.add_row(*(self._text(c) for c in cells[k]), key=k)
                # Once the admin has moved the cursor in the table it stays on their finding;
                # otherwise it rests on the worst (row 0), whenever that finding arrived, so
                # `f` then Enter opens what matters most now.
                row = order.index(keep) if keep in cells and self.has_focus and self._chosen else 0
                self.move_cursor(row=row, animate=False)
            else:
                for k in order:
                    for col, old, new in zip(("sev", "title"), self._cells[k], cells[k]):
                        if old != new:
                            self._row_only = self.get_row_index(k)
                            try:
                                self.update_cell(k, col, self._text(new))
                            finally:
                                self._row_only = None
            self._order, self._cells = order, cells
        self._hold_height(len(order))

    def _render_cell(
        self,
        row_index: int,
        column_index: int,
        base_style: Style,
        width: int,
        cursor: bool = False,
        hover: bool = False,
    ) -> Any:
        """DataTable's own, kept by the cell shown: DataTable keys its drawn cells by a count of
        every update, so a live finding's new title drew its unchanged severity cell anew as
        well, each a pass through Rich. A cell is the same Text object until updated (_draw
        puts a new one in only where it reads otherwise)."""
        if row_index < 0 or column_index < 0:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        row_key = self._row_locations.get_key(row_index)
        column_key = self._column_locations.get_key(column_index)
        if row_key is None or column_key is None:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        cell = self._data.get(row_key, {}).get(column_key)
        key = (
            row_index,
            column_index,
            base_style,
            width,
            cursor,
            hover,
            self._show_hover_cursor,
            self._pseudo_class_state,
            self.rows[row_key].height if row_key in self.rows else None,
        )
        kept = self._drawn_cells.get(key)
        if kept is not None and cell is not None and kept[0] is cell and kept[1] == (row_key, column_key):
            return kept[2]
        lines = super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        if len(self._drawn_cells) > DRAWN_CELLS_KEPT:
            self._drawn_cells.clear()
        self._drawn_cells[key] = (cell, (row_key, column_key), lines)
        return lines

    def _update_dimensions(self, new_rows: Any) -> None:
        """DataTable's own (on idle, after rows came or went), which sets the virtual size."""
        self._was = self.virtual_size
        try:
            super()._update_dimensions(new_rows)
        finally:
            self._was = None

    def refresh(
        self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False
    ) -> FindingsTable:
        if layout and self._was is not None and self._same_box(self._was, self.virtual_size):
            layout = False  # the rows' new count fits the box it has: a repaint is all it needs
        if self._row_only is not None and not regions and repaint and not (layout or recompose):
            row, self._row_only = self._row_only, None
            return self.refresh_row(row)  # DataTable's update_cell repaints the whole table
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def _same_box(self, was: Size, now: Size) -> bool:
        """Whether a layout with virtual size `now` (rows came or went) gives the table the box it
        has: as wide, no scroll bar before or after, and (height: auto) its rows' height within
        its min-height and max-height the height it has."""
        room = self.scrollable_content_region.height
        if now.width != was.width or now.height > room or was.height > room:
            return False
        if self.show_vertical_scrollbar or self.show_horizontal_scrollbar:
            return False
        height = self.styles.height
        if height is None or not height.is_auto:
            return True  # its height is not its rows'
        low, high = _cells(self.styles.min_height, 0), _cells(self.styles.max_height, 10**6)
        return min(max(now.height + self.gutter.height, low), high) == self.outer_size.height

    def _hold_height(self, rows: int) -> None:
        """Keep the height of the most rows shown lately (see the module's docstring) where the
        table is as tall as its rows (height: auto, the chart below); where it fills the space
        left (no chart: 1fr) it holds nothing. Held, its minimum height is what its CSS gives
        that many rows (its top border, within its min-height and max-height)."""
        height = self.styles.height
        if height is None or not height.is_auto:
            self._held, self._fewer_since = 0, None
            self.styles.min_height = None  # the stylesheet's
            return
        if rows >= self._held:
            self._held, self._fewer_since = rows, None
        elif self._fewer_since is None:
            self._fewer_since = self.app.clock.now()
        elif self.app.clock.now() - self._fewer_since >= SHRINK_AFTER_S:
            self._held, self._fewer_since = rows, None
        base = self.styles.base  # the stylesheet's own min-height and max-height
        low, high = _cells(base.min_height, 0), _cells(base.max_height, 10**6)
        lines = min(max(self._held + 1, low), high)
        if self.styles.min_height != Scalar.from_number(lines):
            self.styles.min_height = lines

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        f = self._by_id.get(str(event.row_key.value))
        if f is not None:
            self.post_message(self.Open(f))


def _cells(scalar: Scalar | None, default: int) -> int:
    """A height the stylesheet gives in lines (a percentage or fraction: `default`)."""
    return int(scalar.value) if scalar is not None and scalar.unit == Unit.CELLS else default
