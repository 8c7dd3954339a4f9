"""A plotext plot drawn from plotext's own cell matrix, not from its ANSI text.

textual-plotext's PlotextPlot asks plotext for the plot as a string of ANSI escape codes and
has Rich decode it back into styled text: plotext's canvas string (one comparison of three
colours per cell) and Rich's decoder (a style built per escape) were three quarters of a plot's
CPU, and the history chart's plots most of the dashboard's. Here the same matrix plotext would
have printed (a character, a foreground, a style and a background per cell) becomes the same
Rich Text directly: each run of cells of one colour triple one piece of text in the style the
decoder gives that triple's escapes (decoded once per triple, not once per run). The text is
identical, spans and all (tests/ui/test_plot.py compares the two on the charts zdash draws).

Textual is then handed the plot's lines, not that text: Content's way to the screen (wrapping,
a style combined and a Rich style made with its own offset for every run of every line) was
as long as plotext's drawing itself, for lines that are cut to the widget's width already. A
MatrixVisual makes each line's Strip from the runs directly, a Rich style per colour triple and
widget style; on screen the same characters in the same colours (tests/ui/test_plot.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from plotext._utility import colors_to_ansi
from rich.ansi import AnsiDecoder
from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.terminal_theme import TerminalTheme
from rich.text import Text
from textual.content import Content, Span
from textual.css.styles import RulesMap
from textual.geometry import Size
from textual.strip import Strip
from textual.style import Style as ContentStyle
from textual.visual import RenderOptions, Visual
from textual_plotext import PlotextPlot

_STYLES: dict[tuple[Any, Any, Any], Style | None] = {}
_CONTENT_STYLES: dict[tuple[Style, int], ContentStyle] = {}  # (Rich style, ANSI theme) -> Textual's
# (widget style, a run's style or None) -> the Rich style Content would draw that run in
_DRAWN: dict[tuple[ContentStyle, ContentStyle | None], Style] = {}
_DRAWN_KEPT = 1024  # cleared past this (theme switches)
# Whether Rich's decoder reads a canvas's last newline as an empty last line: Rich 14 and later
# do, 13.x drops it (the lowest Rich zdash declares, 13.4.2). The matrix's text follows the Rich
# installed, so it stays the decoder's text whichever that is.
_DECODER_KEEPS_LAST_NEWLINE = Text.from_ansi("x\n").plain.endswith("\n")


def cell_style(fullground: Any, style: Any, background: Any) -> Style | None:
    """The style Rich's decoder gives a cell plotext writes with these colours (None: plain)."""
    key = (fullground, style, background)
    if key not in _STYLES:
        decoded = AnsiDecoder().decode_line(colors_to_ansi(fullground, style, background) + "x")
        _STYLES[key] = decoded.spans[0].style if decoded.spans else None  # type: ignore[assignment]
    return _STYLES[key]


def _runs(matrix: Any) -> Iterator[list[tuple[str, Any, Any, Any]]]:
    """plotext's matrix (rows bottom up) as lines top first, each a list of runs of cells of one
    colour triple: (text, foreground, style, background)."""
    for row in range(matrix.rows - 1, -1, -1):
        marker, fg, st, bg = (
            matrix.marker[row],
            matrix.fullground[row],
            matrix.style[row],
            matrix.background[row],
        )
        runs = []
        start, cols = 0, matrix.cols
        for col in range(1, cols + 1):
            if col == cols or fg[col] != fg[start] or st[col] != st[start] or bg[col] != bg[start]:
                runs.append(("".join(marker[start:col]), fg[start], st[start], bg[start]))
                start = col
        yield runs


def matrix_text(matrix: Any) -> Text:
    """plotext's matrix as the Text that Text.from_ansi gives its canvas: top row first, a run
    of cells of one colour triple one span, and the canvas's last newline read as the installed
    Rich's decoder reads it (an empty last line, or nothing)."""
    lines: list[Text] = []
    for runs in _runs(matrix):
        line = Text()
        for text, fg, st, bg in runs:
            line.append(text, cell_style(fg, st, bg))
        lines.append(line)
    if _DECODER_KEEPS_LAST_NEWLINE or not lines:
        lines.append(Text())
    return Text("\n", tab_size=8).join(lines)


def _content_style(style: Style, ansi_theme: TerminalTheme | None) -> ContentStyle:
    key = (style, id(ansi_theme))
    converted = _CONTENT_STYLES.get(key)
    if converted is None:
        converted = _CONTENT_STYLES[key] = ContentStyle.from_rich_style(style, ansi_theme)
    return converted


def matrix_content(matrix: Any, ansi_theme: TerminalTheme | None) -> Content:
    """The Content Textual makes of matrix_text's Text (Content.from_rich_text: the same
    characters, a span of the same style per styled run), made straight from the matrix: the
    Rich Text and its conversion were a third of a plot's CPU."""
    pieces: list[str] = []
    spans: list[Span] = []
    at = 0
    for runs in _runs(matrix):
        for text, fg, st, bg in runs:
            style = cell_style(fg, st, bg)
            if style and text:  # as Text.append: no span for a plain or empty run
                spans.append(Span(at, at + len(text), _content_style(style, ansi_theme)))
            pieces.append(text)
            at += len(text)
        pieces.append("\n")
        at += 1
    if pieces and not _DECODER_KEEPS_LAST_NEWLINE:
        pieces.pop()  # joined: a newline between lines, none after the last
    return Content("".join(pieces), spans)


def _drawn_style(base: ContentStyle, style: ContentStyle | None) -> Style:
    """The Rich style Content.render_strips gives a run of `style` (None: plain) over the
    widget's `base`, without the offset Content adds for text selection (a plot has none)."""
    key = (base, style)
    drawn = _DRAWN.get(key)
    if drawn is None:
        if len(_DRAWN) > _DRAWN_KEPT:
            _DRAWN.clear()
        combined = ContentStyle.combine([base] if style is None else [base, style])
        drawn = _DRAWN[key] = (base + combined).rich_style
    return drawn


class MatrixVisual(Visual):
    """plotext's matrix as a Textual Visual: a line of runs per matrix row (top first), each run
    (text, its Textual style or None). The lines and their styles are those of matrix_content's
    Content; render_strips makes their Strips without Content's pass (see the module)."""

    def __init__(self, matrix: Any, ansi_theme: TerminalTheme | None) -> None:
        self._matrix, self._ansi_theme = matrix, ansi_theme
        self.lines: list[list[tuple[str, ContentStyle | None]]] = []
        for runs in _runs(matrix):
            line = []
            for text, fg, st, bg in runs:
                if text:
                    style = cell_style(fg, st, bg)
                    line.append((text, _content_style(style, ansi_theme) if style else None))
            self.lines.append(line)
        if _DECODER_KEEPS_LAST_NEWLINE or not self.lines:
            self.lines.append([])
        self.cells = [sum(cell_len(t) for t, _ in line) for line in self.lines]
        self.width = max(self.cells, default=0)

    @property
    def content(self) -> Content:
        """The same plot as Textual Content (spans and all): for readers of its text."""
        return matrix_content(self._matrix, self._ansi_theme)

    @property
    def plain(self) -> str:
        return "\n".join("".join(t for t, _ in line) for line in self.lines)

    def __str__(self) -> str:
        return self.plain

    def render_strips(
        self, width: int, height: int | None, style: ContentStyle, options: RenderOptions
    ) -> list[Strip]:
        if self.width > width:  # wider than the widget (not as drawn): Content folds it
            return self.content.render_strips(width, height, style, options)
        strips = []
        for line, cells in zip(self.lines if height is None else self.lines[:height], self.cells):
            if not line:  # as Content draws an empty line
                strips.append(Strip([Segment("", _drawn_style(style, None))], 0))
            else:
                strips.append(Strip([Segment(text, _drawn_style(style, run)) for text, run in line], cells))
        return strips

    def get_optimal_width(self, rules: RulesMap, _container_width: int) -> int:
        return self.width  # Textual passes the container's width positionally

    def get_height(self, rules: RulesMap, width: int) -> int:
        return len(self.lines)


class Plot(PlotextPlot):
    """PlotextPlot, drawn from the matrix (see the module's docstring)."""

    def _size_updated(
        self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        # As HistoryChart's: the size a layout gave asks for no second layout.
        return super()._size_updated(size, virtual_size, container_size, layout=False)

    def render(self) -> MatrixVisual:
        # As PlotextPlot.render sizes and themes the figure, then plotext's build() without
        # its last step (the canvas string).
        plot: Any = self.plt  # plotext's figure: its build steps are not in textual-plotext's stubs
        plot.plotsize(self.size.width, self.size.height)
        plot._set_size(self.size.width, self.size.height)
        plot.theme(self._get_plotext_theme_name(self.app.theme))
        plot._set_sizes()
        plot._build_matrix()
        return MatrixVisual(plot.monitor.matrix, self.app.ansi_theme)
