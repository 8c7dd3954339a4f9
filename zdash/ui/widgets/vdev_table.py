"""The vdev tree as a table: the pool, its top-level vdevs (fill beside the pool mean, ashift)
and the leaves (state, errors, SLOW, ops/s, MiB/s, total and disk wait, queue, %util), outliers
marked; columns give way by rank when the terminal is narrow (vdev_rows.COLUMNS).

Drawn line by line (Textual's line API), not with a DataTable: a DataTable re-renders every
visible cell through Rich whenever any cell changes, and here figures change every tick on
every row (about 60 ms a frame at 100 disks, most of the dashboard's CPU). This table keeps one
rendered line per row, keyed by the row's cells, so a tick costs the rows whose figures moved,
each built from plain segments, and marks only their lines for drawing (the border, its title
and the header stay drawn). Styled as the dashboard styles it, it hands those lines to the
screen itself, made whole (as Textual's per-line pass would extend and filter them), one line
object per changed row. The header stays at the top while the rows scroll; the cursor
keeps its row (by key) when rows come and go; a click or up/down/page keys move it."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import ClassVar, NamedTuple

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events, getters
from textual.binding import Binding, BindingType
from textual.color import Color
from textual.css.styles import RenderStyles
from textual.filter import ANSIToTruecolor, DimFilter, LineFilter, Monochrome, NoColor
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive, var
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.style import Style as VisualStyle

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


# The quick pass's final line: (content width, Textual's style for the cells beyond the rows'
# room, the line filters, the background they filter on).
_Final = tuple[int, Style, tuple[LineFilter, ...], Color]
# Textual's own line filters, each of which maps a line segment by segment (so a cell filtered
# alone is that cell of the filtered line)
_PER_SEGMENT = (ANSIToTruecolor, DimFilter, Monochrome, NoColor)


class _View(NamedTuple):
    """What every line of a pass of render_lines reads."""

    style: Style  # the table's own
    width: int  # the rows' room (without the scrollbar)
    x: int  # scroll offsets
    top: int
    cursor: int  # the cursor's row (-1: none shown)
    focus: bool


class _Drawn:
    """A cell's segments, and the same through the quick pass's line filters once asked."""

    __slots__ = ("filtered", "segments")

    def __init__(self, segments: list[Segment]) -> None:
        self.segments = segments
        self.filtered: list[Segment] | None = None


def _filter(segments: list[Segment], final: _Final) -> list[Segment]:
    _, _, filters, background = final
    for line_filter in filters:
        segments = line_filter.apply(segments, background)
    return segments


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
        # (key, cursor, focus, final) -> the row drawn, what its line was made for (end, pad
        # style, the quick pass's final), its line, the cells it was made of, as drawn, and the
        # style they were drawn in
        self._lines: dict[
            tuple[str, bool, bool, bool],
            tuple[Row, tuple[int, Style, _Final | None], Strip, tuple[Cell, ...], list[_Drawn], Style],
        ] = {}
        self._header: Strip | None = None
        # ((the cells' length, what the line is made for), a row line's tail, the line's length)
        self._tail: tuple[tuple[int, tuple[int, Style, _Final | None]], list[Segment], int] | None = None
        # By row style (the table's, the cursor's), column and cell: its segments, and the same
        # through the line filters of _filtered_for (the quick pass's rows; None until asked).
        # Cells repeat from tick to tick and row to row.
        self._cells: dict[Style, list[dict[Cell, _Drawn]]] = {}
        self._cells_made = 0
        self._filtered_for: tuple[tuple[LineFilter, ...], Color] | None = None
        self._length = 0  # cells of a row: the columns' widths and their padding
        self._announced: str | None = None
        # What every line of a pass of render_lines reads, read once for the pass: the table's
        # own style (DOMNode.rich_style walks every ancestor's styles), the width of its rows'
        # room and the scroll offsets (each a walk up to the screen and its compositor), the
        # cursor and focus.
        self._pass: _View | None = None
        self._quick_drawn = False  # lines drawn by _quick_lines since Textual's cache was cleared
        self.show_cursor = True  # False: a display only (the wall), no row is highlighted

    # --- data --------------------------------------------------------------------------------

    def on_mount(self) -> None:
        self._restyle()
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._restyle())

    def _restyle(self) -> None:
        self._styles = role_styles(self)
        self._lines.clear()
        self._cells.clear()
        self._cells_made = 0
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
            self._length = sum(w + _PAD for w in self._widths)
            self._lines.clear()
            self._cells.clear()
            self._cells_made = 0
        if rows.keys is not self._keys:  # the same plan keeps its keys (the same list)
            self._index = {key: i for i, key in enumerate(rows.keys)}
        self._rows, self._keys = rows, rows.keys
        if len(self._lines) > 4 * len(rows) + 64:  # rows that left the tree
            self._lines = {k: v for k, v in self._lines.items() if k[0] in self._index}
        self.virtual_size = Size(self._length, len(rows) + 1)
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
            quick = self._quick_lines(crop)
            if quick is not None:
                return quick
            if self._quick_drawn:  # Textual's cache of the rows' lines was passed by: it is old
                self._styles_cache.clear()
                self._quick_drawn = False
            return super().render_lines(crop)
        finally:
            self._pass = None

    def _quick_lines(self, crop: Region) -> list[Strip] | None:
        """The lines Textual's own pass (Widget.render_lines: its StylesCache) draws, for a table
        with a top border and no other edge, padding, outline, tint or opacity (the dashboard's
        and the wall's), without that pass over every row line: the border lines are Textual's,
        each row's line is the table's own, kept with its row (a changed row costs its line
        alone, not a second copy and Textual's per-line styles read again). None: a table styled
        otherwise, which Textual's pass draws."""
        styles = self.styles
        top, right, bottom, left = styles.gutter
        # (Widget.BLANK, a widget drawn blank whatever it renders, is Textual 7.3's; 6.2 has none)
        if right or bottom or left or getattr(self, "BLANK", False) or not self._plain(styles):
            return None
        width, _height = self.region.size
        content_width, content_height = self.content_region.size
        if width != content_width:
            return None
        base_background, background = self.background_colors
        inner = VisualStyle(background=base_background + background).rich_style  # as Textual pads
        filters = self.get_line_filters()
        strips: list[Strip] = []
        first, end = crop.y, crop.bottom
        if first < top:  # the border (and its title): Textual draws and keeps it
            strips += super().render_lines(Region(0, first, width, min(end, top) - first))
            first = top
        style, view_width, x, scroll_top, _, _ = self._view()
        rows = len(self._rows)
        # A row's line made whole here (extended to the content width, filtered) when nothing is
        # cropped from it and every filter maps segment by segment (Textual's own filters do):
        # one Strip for a changed row, its cells filtered once, not the whole line again.
        final = (content_width, inner, tuple(filters), background)
        whole = (
            x == 0
            and self._length <= view_width <= content_width
            and all(isinstance(f, _PER_SEGMENT) for f in filters)
        )
        for y in range(first, end):
            line_y = y - top
            i = scroll_top + line_y - 1
            if whole and line_y > 0 and i < rows:
                strips.append(self._row_strip(i, view_width, style, final))
                continue
            if line_y < content_height:
                strip = self.render_line(line_y).adjust_cell_length(content_width, inner)
            else:
                strip = Strip.blank(content_width, inner)
            for line_filter in filters:
                strip = strip.apply_filter(line_filter, background)
            strips.append(strip)
        self._quick_drawn = True
        if crop.column_span != (0, width):
            x1, x2 = crop.column_span
            strips = [strip.crop(x1, x2) for strip in strips]
        return strips

    def _plain(self, styles: RenderStyles) -> bool:
        """No outline, tint, opacity, text opacity, hatch or hovered link to draw."""
        if any(edge for edge, _ in styles.outline) or styles.tint.a or styles.text_opacity != 1.0:
            return False
        if styles.has_rule("hatch") and styles.hatch != "none":
            return False
        if self.opacity != 1.0:
            return False
        hover = getattr(self, "hover_style", None) if getattr(self, "auto_links", False) else None
        return not (hover is not None and hover.link_id)

    def _view(self) -> _View:
        """What the lines of a pass read (once per pass)."""
        if self._pass is not None:
            return self._pass
        return _View(
            self.rich_style,
            self.scrollable_content_region.width,
            int(self.scroll_x),
            int(self.scroll_y),
            self.cursor_row if self.show_cursor else -1,
            self.has_focus,
        )

    @property
    def _style(self) -> Style:
        return self._view()[0]

    def render_line(self, y: int) -> Strip:
        style, width, x, top, _, _ = self._view()
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

    def _tail_of(self, end: int, pad: Style, final: _Final | None) -> tuple[list[Segment], int]:
        """What follows a row's cells: padding to `end` in `pad`, and with `final` to the content
        width in Textual's style, filtered; and the line's length with it. The same for every
        row (kept in self._tail while made for the same)."""
        length = self._length
        tail: list[Segment] = []
        if length < end:
            tail.append(Segment(" " * (end - length), pad))
            length = end
        if final is not None:
            if length < final[0]:  # under the scrollbar, as Textual extends a line
                tail.append(Segment(" " * (final[0] - length), final[1]))
                length = final[0]
            tail = _filter(tail, final)
        return tail, length

    def _row_strip(self, i: int, end: int, pad: Style, final: _Final | None = None) -> Strip:
        """Row i's line, extended to `end` cells with `pad` (what crop_extend would add): one
        Strip made for a row whose figures changed, not three (the row, its simplified copy
        and the extended one; each Strip sets up seven caches of its own). With `final` (the
        content width, Textual's style for the cells beyond `end`, the line filters, each one
        segment by segment, and the background they filter on): the line as Textual's pass
        hands it on, extended to the content width and filtered, its cells filtered once."""
        row = self._rows[i]
        view = self._view()
        cursor = i == view.cursor
        focus = view.focus and cursor
        key = (row.key, cursor, focus, final is not None)
        made_for = (end, pad, final)
        cached = self._lines.get(key)
        if cached is not None and cached[0] == row and cached[1] == made_for:
            return cached[2]
        base = view.style
        if cursor:
            base += self._cursor_style(CURSOR if focus else CURSOR_BLURRED)
        if final is not None and self._filtered_for != final[2:]:
            for by_column in self._cells.values():
                for by_cell in by_column:
                    for drawn_cell in by_cell.values():
                        drawn_cell.filtered = None
            self._filtered_for = final[2:]
            self._lines.clear()  # their cells were filtered otherwise
            cached = None
        # The cells this row's line was last made of, where made in the same style: a cell
        # that is the same object (a row keeps its name, state and error cells while its vdev
        # reads the same) is that one, without looking it up by its value.
        before: tuple[Cell, ...] = ()
        made_before: list[_Drawn] = []
        if cached is not None and cached[5] == base:
            before, made_before = cached[3], cached[4]
        # Each cell's segments are simplified when first made: a row joins them, merging only
        # where one cell's last run and the next cell's first have the same style (what
        # Segment.simplify over the whole row gives, for a comparison per cell, not per run).
        # Filtered, a cell is merged as it was before its filters (as Textual filters a line
        # already joined).
        segments: list[Segment] = []
        columns = self._cells.get(base)
        if columns is None:
            columns = self._cells[base] = [{} for _ in self._widths]
        last: Style | None = None  # the style of the last segment before any filter
        made_now: list[_Drawn] = []
        for column, cell in enumerate(row.cells):
            if before and before[column] is cell:
                made = made_before[column]
            else:
                # A row whose figures moved keeps most of its cells (name, state, errors, fill...)
                kept = columns[column]
                found = kept.get(cell)
                if found is None:
                    width, right = self._widths[column], self._numeric[column]
                    found = kept[cell] = _Drawn(_cell_segments(cell, width, right, base, self._styles))
                    self._cells_made += 1
                made = found
            made_now.append(made)
            drawn = shown = made.segments
            if final is not None:
                filtered = made.filtered
                if filtered is None:
                    filtered = made.filtered = _filter(drawn, final)
                shown = filtered
            first = drawn[0].style
            if segments and (last is first or last == first):
                segments[-1] = Segment(segments[-1].text + shown[0].text, segments[-1].style)
                segments += shown[1:]
            else:
                segments += shown
            last = drawn[-1].style
        if self._cells_made > CELLS_KEPT:
            self._cells.clear()
            self._cells_made = 0
        tail_for = (self._length, made_for)
        if self._tail is None or self._tail[0] != tail_for:
            self._tail = (tail_for, *self._tail_of(end, pad, final))
        _, tail, length = self._tail
        segments += tail
        strip = Strip(segments, length)
        self._lines[key] = (row, made_for, strip, row.cells, made_now, base)
        return strip
