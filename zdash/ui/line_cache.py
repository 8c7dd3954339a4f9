"""A widget drawn line by line that keeps the lines that read as before.

Textual redraws a widget whole when it is refreshed: every line of its content goes through
Content's pass again (wrapping, a style combined and a Rich style made per run of every line),
though on a dashboard at 1 Hz most lines read as they did a second ago (a pool header's verdict,
gauge and scrub lines; only its throughput moves).

`LineCachedWidget` is given its content as lines (`lines()`: one Content per line at the widget's
width) and is told when what it shows may have changed (`redraw()`, in place of `refresh()`).
It compares each line with the one it drew (the same text in the same styles: plain text and
spans), makes the strips of a changed line alone, through Textual's own pass (the same strips,
text-selection offsets included, that the whole content would have given that line), and
refreshes only the rows those strips cover. A line that wraps is one line of several rows; when
the number of rows changes the widget is refreshed whole (and laid out again if its height
follows its content). The strips kept are made again when the widget's width, its style (a
theme switch) or a text selection in it changes.

A plain `refresh()` (Textual's own, on a style or theme change; a subclass's clock) still
redraws the widget whole, its lines taken anew, each kept strip reused if its line reads the
same.

`render()` still gives the whole content (Textual measures a `height: auto` widget with it, a
selection copies its text, tests read it); nothing draws with it.

Limits: content aligned left and top (the default); a widget with another `content-align`
is drawn whole, as Textual would."""

from __future__ import annotations

from collections.abc import Sequence

from rich.segment import Segment
from rich.style import Style as RichStyle
from textual.content import Content
from textual.geometry import Region
from textual.strip import Strip
from textual.style import Style
from textual.visual import Visual
from textual.widget import Widget

NEWLINE = Content("\n")
NO_LINK = RichStyle()  # the link style handed on for a line without links (where it is not read)

RUN_STYLES_KEPT = 4096  # a widget's kept run styles (a line's runs move as its text does): cleared past this
LineKey = tuple[str, tuple[object, ...]]  # a line's text and its spans (Content == compares text only)


def line_key(line: Content) -> LineKey:
    return line.plain, tuple(line.spans)


class LineCachedWidget(Widget):
    """See the module. Subclasses give `lines()` and call `redraw()` when their data changed;
    the widget redraws itself when its size changes."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._lines: list[Content] = []
        self._keys: list[LineKey] = []
        # line index -> (its key, width, base style, its strips)
        self._strips: dict[int, tuple[LineKey, int, Style, list[Strip]]] = {}
        self._rows: list[tuple[int, int]] = []  # each row drawn: (line index, strip of that line)
        self._drawn = False  # lines taken at the current size at least once
        self._redrawing = False  # redraw() refreshing the rows it changed
        # (a run's style, its x, its line) -> the Rich style Textual's pass gives it, over
        # _run_base, and whether it has a click action (a link)
        self._run_styles: dict[tuple[Style, int, int], tuple[RichStyle, bool]] = {}
        self._run_base: Style | None = None

    def refresh(
        self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False
    ) -> LineCachedWidget:
        if repaint and not regions and not self._redrawing:
            self._drawn = False  # refreshed whole from outside: the lines are taken anew when drawn
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def lines(self) -> Sequence[Content]:
        """The content, a Content per line, at the widget's width (self.size.width)."""
        raise NotImplementedError

    def render(self) -> Content:
        return NEWLINE.join(self.lines())

    def on_resize(self) -> None:
        self._drawn = False
        self.redraw()

    def redraw(self) -> None:
        """Take the lines anew; refresh the rows of those that changed (all of them when the
        widget is not drawn at this size yet or its number of rows changed)."""
        new = self._split(self.lines())
        keys = [line_key(line) for line in new]
        if not self._drawn or not self.size.width or self._aligned_otherwise():
            self._take(new, keys)
            self.refresh(layout=self._height_follows())
            self._drawn = bool(self.size.width)
            return
        changed = [y for y, key in enumerate(keys) if y >= len(self._keys) or self._keys[y] != key]
        if not changed and len(keys) == len(self._keys):
            return
        rows_before = len(self._rows)
        self._take(new, keys)
        if len(self._rows) != rows_before:
            self.refresh(layout=self._height_follows())
            self._drawn = True
            return
        width = self.size.width
        dirty = set(changed)
        self._redrawing = True
        try:
            self.refresh(*(Region(0, row, width, 1) for row, (y, _) in enumerate(self._rows) if y in dirty))
        finally:
            self._redrawing = False

    @staticmethod
    def _split(lines: Sequence[Content]) -> list[Content]:
        """One Content per line of text (a piece holding newlines is several lines: each line's
        offsets are its own index, as in the whole content)."""
        out: list[Content] = []
        for line in lines:
            out.extend(line.split("\n", allow_blank=True) if "\n" in line.plain else (line,))
        return out

    def _take(self, lines: list[Content], keys: list[LineKey]) -> None:
        self._lines, self._keys = lines, keys
        for y in [y for y in self._strips if y >= len(lines)]:
            del self._strips[y]
        rows: list[tuple[int, int]] = []
        for y in range(len(lines)):
            rows.extend((y, piece) for piece in range(len(self._line_strips(y))))
        self._rows = rows

    def _height_follows(self) -> bool:
        height = self.styles.height
        return height is None or height.is_auto

    def _aligned_otherwise(self) -> bool:
        return tuple(self.styles.content_align) != ("left", "top")

    def _line_strips(self, y: int) -> list[Strip]:
        """Line y's strips at the current width and style: kept, or made by Textual's pass
        over that line alone, with the offsets of line y (blank lines before it, dropped)."""
        key, width, style = self._keys[y], self.size.width, self.visual_style
        kept = self._strips.get(y)
        if kept is not None and kept[:3] == (key, width, style) and self.text_selection is None:
            return kept[3]
        line = self._lines[y]
        strip = self._fitting_strip(line, y, width, style)
        if strip is not None:
            strips = [strip]
        else:
            content = Content("\n" * y) + line if y else line
            strips = Visual.to_strips(self, content, width, None, style)[y:] or [Strip.blank(width)]
        self._strips[y] = (key, width, style, strips)
        return strips

    def _fitting_strip(self, line: Content, y: int, width: int, style: Style) -> Strip | None:
        """Line y's strip as Textual's pass makes it, for a line that fits the width in a widget
        drawn plainly (left-aligned, no line padding, no selection, no tabs): the pass's wrapping
        and cropping leave such a line as it is, so its runs are styled directly, each with its
        offset (Content's _FormattedLine.to_strip, left-aligned); a run's Rich style is made once
        for its style and place (a bar's or header's line changes a few runs a frame, in place).
        None: take the whole pass."""
        if (
            not width
            or line.cell_length > width
            or "\t" in line.plain
            or self.text_selection is not None
            or self.styles.text_align not in ("left", "start")
            or self.styles.line_pad
        ):
            return None
        if style != self._run_base or len(self._run_styles) > RUN_STYLES_KEPT:
            self._run_base, self._run_styles = style, {}
        made = self._run_styles  # a run's Rich style, by its style and where it starts: made once
        segments: list[Segment] = []
        x = 0
        linked = False  # a run with a click action: the link style applies to it
        for text, text_style in line.render(style, end="", parse_style=self._get_style):
            run = made.get((text_style, x, y))
            if run is None:
                rich = (style + text_style).rich_style_with_offset(x, y)
                run = made[text_style, x, y] = (rich, "@click" in rich.meta)
            segments.append(Segment(text, run[0]))
            linked = linked or run[1]
            x += len(text)
        strip = Strip(segments, line.cell_length)
        if self.auto_links and not self.is_container and not self.screen._selecting:
            # As Visual.to_strips does. The link style (a walk of the CSS and the background
            # colours) is read only for a line with a link: it styles the runs with a click
            # action alone (Strip._apply_link_style).
            strip = strip._apply_link_style(self.link_style if linked else NO_LINK)
        return strip

    def render_line(self, y: int) -> Strip:
        if self._aligned_otherwise():
            return super().render_line(y)
        if not self._drawn:
            lines, rows_before = self._split(self.lines()), len(self._rows)
            self._take(lines, [line_key(line) for line in lines])
            self._drawn = bool(self.size.width)
            if len(self._rows) != rows_before and self._height_follows():
                self.call_later(self.refresh, layout=True)  # its height follows its rows
        if y >= len(self._rows):
            return Strip.blank(self.size.width, self.visual_style.rich_style)
        line, piece = self._rows[y]
        strips = self._line_strips(line)
        return (
            strips[piece]
            if piece < len(strips)
            else Strip.blank(self.size.width, self.visual_style.rich_style)
        )
