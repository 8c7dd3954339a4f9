"""The vdev tree as a table: the pool, its top-level vdevs (fill beside the pool mean, ashift)
and the leaves (state, errors, SLOW, ops/s, MiB/s, total and disk wait, queue, %util), outliers
marked; columns give way by rank when the terminal is narrow (vdev_rows.COLUMNS).

Drawn line by line (Textual's line API), not with a DataTable: a DataTable re-renders every
visible cell through Rich whenever any cell changes, and here figures change every tick on
every row (about 60 ms a frame at 100 disks, most of the dashboard's CPU). This table keeps one
rendered line per row, keyed by the row's cells, so a tick costs the rows whose figures moved,
each built from plain segments, and marks only their lines for drawing (the border, its title
and the header stay drawn). The header stays at the top while the rows scroll; the cursor
keeps its row (by key) when rows come and go; a click or up/down/page keys move it."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import ClassVar

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events, getters
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive, var
from textual.scroll_view import ScrollView
from textual.strip import Strip

from zdash.feed.frame import Frame
from zdash.model import Pool, Vdev
from zdash.ui.app import ZdashApp
from zdash.ui.markup import cell_text
from zdash.ui.roles import ROLE_CLASSES, Cell, Role, role_styles
from zdash.ui.vdev_rows import WIDE, Column, Row, Rows, build_rows, fit_columns, shown_pool

_PAD = 2  # one space each side of a cell
_CHROME = 4  # scrollbar and border
HEADER = "vdev-table--header"
CURSOR = "vdev-table--cursor"
CURSOR_BLURRED = "vdev-table--cursor-blurred"


CELLS_KEPT = 20_000  # drawn cells remembered: cleared past this (figures of ticks gone by)
NAME_NEED = 15  # name cells kept before a column is folded (longer names are shortened)


def _depths(v: Vdev, depth: int = 0) -> Iterator[tuple[int, Vdev]]:
    for c in v.children:
        yield depth + 1, c
        yield from _depths(c, depth + 1)


def _name_cells(depth: int, v: Vdev) -> int:
    """The cells a vdev's name takes in the first column: its tree indent, the name, the
    outlier mark a disk may get (`! `) or the class of a top-level vdev (` (special)`)."""
    extra = 2 if v.is_leaf else 0
    if depth == 1 and v.vclass != "normal":
        extra = max(extra, len(v.vclass) + 3)
    return 2 * depth + len(v.name) + extra


def _cell_segments(
    cell: Cell, width: int, right: bool, base: Style, styles: dict[Role, Style]
) -> list[Segment]:
    """One cell as segments exactly `width` + _PAD columns wide: padded, justified, cropped."""
    runs = [(text, styles[role]) for text, role in cell if text]
    used = sum(cell_len(t) for t, _ in runs)
    if used > width:  # crop at the right edge (names are shortened before this; figures fit)
        kept, room = [], width
        for t, s in runs:
            if room <= 0:
                break
            piece = t if cell_len(t) <= room else set_cell_size(t, room)
            kept.append((piece, s))
            room -= cell_len(piece)
        runs, used = kept, width - max(room, 0)
    gap = " " * (width - used)
    out = [Segment(" ", base)]
    if right and gap:
        out.append(Segment(gap, base))
    out += [Segment(t, base + s) for t, s in runs]
    if not right and gap:
        out.append(Segment(gap, base))
    out.append(Segment(" ", base))
    return list(Segment.simplify(out))


class VdevTable(ScrollView, can_focus=True):
    """Bound to its screen's frame and pool (data_bind); draws that pool of the frame."""

    COMPONENT_CLASSES: ClassVar[set[str]] = set(ROLE_CLASSES) | {HEADER, CURSOR, CURSOR_BLURRED}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor(-1)", "Up", show=False),
        Binding("down", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "edge(0)", "First row", show=False),
        Binding("end", "edge(1)", "Last row", show=False),
    ]
    app = getters.app(ZdashApp)
    frame: var[Frame | None] = var(None)
    pool_name: var[str | None] = var(None)
    cursor_row: reactive[int] = reactive(0, always_update=False)

    class RowHighlighted(Message):
        """The cursor is on another row: `key` is the row's key (build_rows)."""

        def __init__(self, table: VdevTable, key: str) -> None:
            super().__init__()
            self.table, self.key = table, key

        @property
        def control(self) -> VdevTable:
            return self.table

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._rows: Sequence[Row] = ()  # made as they are drawn (vdev_rows.Rows)
        self._keys: list[str] = []
        self._index: dict[str, int] = {}
        self._layout: tuple[bool, int, tuple[Column, ...]] | None = None
        self._longest: tuple[Vdev, str, int] | None = None  # (tree, pool name, its longest name)
        self._widths: list[int] = []
        self._numeric: list[bool] = []
        self._styles: dict[Role, Style] = {}
        # (key, cursor, focus) -> the row drawn, the (end, pad style) it was extended to, its line
        self._lines: dict[tuple[str, bool, bool], tuple[Row, tuple[int, Style], Strip]] = {}
        self._header: Strip | None = None
        # (cell, column, style) -> its segments: cells repeat from tick to tick and row to row
        self._cells: dict[tuple[Cell, int, Style], list[Segment]] = {}
        self._announced: str | None = None
        # What every line of a pass of render_lines reads, read once for the pass: the table's
        # own style (DOMNode.rich_style walks every ancestor's styles), the width of its rows'
        # room and the scroll offsets (each a walk up to the screen and its compositor).
        self._pass: tuple[Style, int, int, int] | None = None
        self.show_cursor = True  # False: a display only (the wall), no row is highlighted

    # --- data --------------------------------------------------------------------------------

    def on_mount(self) -> None:
        self._restyle()
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._restyle())

    def _restyle(self) -> None:
        self._styles = role_styles(self)
        self._lines.clear()
        self._cells.clear()
        self._header = None
        self._redraw()

    def watch_frame(self) -> None:
        self._redraw(partial=True)

    def watch_pool_name(self) -> None:
        self._redraw()

    def on_resize(self) -> None:
        self._redraw()

    def _layout_for(self, width: int, pool: Pool) -> tuple[bool, int, tuple[Column, ...]]:
        """Wide or narrow widths, the name column's width and the columns shown: the name as
        wide as the longest name (with its tree indent) when that fits, so the figures sit
        close to the names they belong to; columns fold away (by rank) before the name is cut
        below NAME_NEED."""
        wide = width >= WIDE
        known = self._longest
        if known is not None and known[0] is pool.root and known[1] == pool.name:
            longest = known[2]
        else:  # a walk of the whole tree: once per tree (the fold keeps it while it reads the same)
            longest = max([len(pool.name)] + [_name_cells(d, v) for d, v in _depths(pool.root)])
            self._longest = (pool.root, pool.name, longest)
        room = width - _CHROME
        columns = fit_columns(room, wide, min(longest, NAME_NEED), _PAD)
        fixed = sum((c.width if wide else c.narrow) + _PAD for c in columns[1:])
        return wide, max(12, min(room - fixed - _PAD, longest, 48)), columns

    def _redraw(self, partial: bool = False) -> None:
        """The rows of the frame's pool; with `partial` (a new frame of the same rows) only the
        lines in view whose row changed are drawn again, not the border, its title, the header
        and the rows that read as before (a cursor, scroll, focus, size or theme change redraws
        the whole table through its own refresh)."""
        frame = self.frame
        pool = shown_pool(frame.snapshot, self.pool_name) if frame is not None else None
        if pool is None or frame is None or not self._styles:
            return  # nothing to show yet (or no pool any more): keep what is shown
        outliers = frame.outliers_of(pool)
        layout = self._layout_for(self.app.size.width, pool)
        keep = self.selected_key
        stale = frozenset(s.key for s in frame.snapshot.problems)
        wide, name_width, columns = layout
        drawn, same_layout = self._rows, layout == self._layout
        rows = build_rows(
            pool, outliers, name_width, wide, stale, columns, drawn if isinstance(drawn, Rows) else None
        )
        if not same_layout:
            self._layout, self._header = layout, None
            self._widths = [
                name_width if i == 0 else (c.width if wide else c.narrow) for i, c in enumerate(columns)
            ]
            self._numeric = [c.numeric for c in columns]
            self._lines.clear()
            self._cells.clear()
        if rows.keys is not self._keys:  # the same plan keeps its keys (the same list)
            self._index = {key: i for i, key in enumerate(rows.keys)}
        self._rows, self._keys = rows, rows.keys
        if len(self._lines) > 4 * len(rows) + 64:  # rows that left the tree
            self._lines = {k: v for k, v in self._lines.items() if k[0] in self._index}
        self.virtual_size = Size(sum(w + _PAD for w in self._widths), len(rows) + 1)
        row = self._index.get(keep, min(self.cursor_row, len(rows) - 1)) if keep is not None else 0
        self.cursor_row = max(0, row)
        self._announce()
        if partial and same_layout and isinstance(drawn, Rows) and drawn.keys == rows.keys:
            self._refresh_changed(drawn, rows)
        else:
            self.refresh()

    def _refresh_changed(self, drawn: Rows, rows: Rows) -> None:
        """Mark for drawing the lines in view whose row is not the one drawn there (a row not
        made since the last frame was not drawn: its line is marked too)."""
        top = int(self.scroll_y)
        body = max(0, self.scrollable_content_region.height - 1)
        width = max(self.virtual_size.width, self.size.width)
        end = min(top + body, len(rows))
        start: int | None = None  # the first of a run of changed lines
        for i in range(top, end + 1):
            changed = i < end and drawn.made(i) != rows[i]
            if changed and start is None:
                start = i
            elif not changed and start is not None:
                self.refresh(Region(0, 1 + start - top, width, i - start))
                start = None

    # --- what tests and screens read ---------------------------------------------------------

    @property
    def selected_key(self) -> str | None:
        """The key of the row under the cursor (None before the first frame)."""
        if 0 <= self.cursor_row < len(self._keys):
            return self._keys[self.cursor_row]
        return None

    @property
    def row_keys(self) -> list[str]:
        return list(self._keys)

    def get_row(self, key: str) -> list[Text]:
        """The row's cells as styled text (what it shows, for tests and tools)."""
        row = self._rows[self._index[key]]
        return [
            cell_text(c, self._styles, "right" if right else "left")
            for c, right in zip(row.cells, self._numeric)
        ]

    @property
    def column_labels(self) -> list[str]:
        """The headers of the columns shown, left to right (what the header row says)."""
        if self._layout is None:
            return []
        wide, _, columns = self._layout
        return [c.label if wide else c.short for c in columns]

    # --- cursor ------------------------------------------------------------------------------

    def watch_cursor_row(self, old: int, new: int) -> None:
        self._announce()
        self._scroll_to_cursor()
        self.refresh()

    def _announce(self) -> None:
        key = self.selected_key
        if key is not None and key != self._announced:
            self._announced = key
            self.post_message(self.RowHighlighted(self, key))

    def _scroll_to_cursor(self) -> None:
        body = max(1, self.scrollable_content_region.height - 1)  # rows under the header
        top = int(self.scroll_y)
        if self.cursor_row < top:
            self.scroll_to(y=self.cursor_row, animate=False)
        elif self.cursor_row >= top + body:
            self.scroll_to(y=self.cursor_row - body + 1, animate=False)

    def move_cursor(self, row: int) -> None:
        self.cursor_row = max(0, min(row, len(self._rows) - 1))

    def action_cursor(self, step: int) -> None:
        self.move_cursor(self.cursor_row + step)

    def action_edge(self, end: int) -> None:
        self.move_cursor(len(self._rows) - 1 if end else 0)

    def action_page(self, direction: int) -> None:
        self.move_cursor(self.cursor_row + direction * max(1, self.scrollable_content_region.height - 2))

    def on_click(self, event: events.Click) -> None:
        if event.y >= 1:
            self.move_cursor(int(self.scroll_y) + event.y - 1)

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    # --- drawing -----------------------------------------------------------------------------

    def render_lines(self, crop: Region) -> list[Strip]:
        self._pass = self._view()
        try:
            return super().render_lines(crop)
        finally:
            self._pass = None

    def _view(self) -> tuple[Style, int, int, int]:
        """(the table's style, its rows' width, scroll x, scroll y): read once per pass."""
        if self._pass is not None:
            return self._pass
        return self.rich_style, self.scrollable_content_region.width, int(self.scroll_x), int(self.scroll_y)

    @property
    def _style(self) -> Style:
        return self._view()[0]

    def render_line(self, y: int) -> Strip:
        style, width, x, top = self._view()
        if y == 0:
            return self._header_strip().crop_extend(x, x + width, style)
        i = top + y - 1
        if i >= len(self._rows):
            return Strip.blank(width, style)
        return self._row_strip(i, x + width, style).crop(x, x + width)

    def _header_strip(self) -> Strip:
        if self._header is None:
            style = self._style + self.get_component_rich_style(HEADER, partial=True)
            plain = {role: Style() for role in self._styles}
            segments: list[Segment] = []
            for label, width, right in zip(self.column_labels, self._widths, self._numeric):
                cell: Cell = ((label, "text"),)
                segments += _cell_segments(cell, width, right, style, plain)
            self._header = Strip(segments).simplify()
        return self._header

    def _cursor_style(self, component: str) -> Style:
        """The cursor's tint, blended onto the table's background as CSS would draw it (Rich
        colours are opaque): a tint, not a block colour, so every cell keeps its own colour,
        a severity included, on the selected row."""
        css = self.get_component_styles(component)
        return Style(bgcolor=(self.styles.background + css.background).rich_color)

    def _row_strip(self, i: int, end: int, pad: Style) -> Strip:
        """Row i's line, extended to `end` cells with `pad` (what crop_extend would add): one
        Strip made for a row whose figures changed, not three (the row, its simplified copy
        and the extended one; each Strip sets up seven caches of its own)."""
        row = self._rows[i]
        cursor, focus = self.show_cursor and i == self.cursor_row, self.has_focus
        key = (row.key, cursor, focus and cursor)
        cached = self._lines.get(key)
        if cached is not None and cached[0] == row and cached[1] == (end, pad):
            return cached[2]
        base = self._style
        if cursor:
            base += self._cursor_style(CURSOR if focus else CURSOR_BLURRED)
        # Each cell's segments are simplified when first made: a row joins them, merging only
        # where one cell's last run and the next cell's first have the same style (what
        # Segment.simplify over the whole row gives, for a comparison per cell, not per run).
        segments: list[Segment] = []
        cells = self._cells
        for column, (cell, width, right) in enumerate(zip(row.cells, self._widths, self._numeric)):
            # A row whose figures moved keeps most of its cells (name, state, errors, fill...)
            drawn = cells.get((cell, column, base))
            if drawn is None:
                drawn = cells[cell, column, base] = _cell_segments(cell, width, right, base, self._styles)
            if segments:
                last, first = segments[-1], drawn[0]
                if last.style is first.style or last.style == first.style:
                    segments[-1] = Segment(last.text + first.text, last.style)
                    segments += drawn[1:]
                    continue
            segments += drawn
        if len(cells) > CELLS_KEPT:
            cells.clear()
        simple = segments
        length = sum(w + _PAD for w in self._widths)
        if length < end:
            simple.append(Segment(" " * (end - length), pad))
            length = end
        strip = Strip(simple, length)
        self._lines[key] = (row, (end, pad), strip)
        return strip
