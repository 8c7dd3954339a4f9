"""The chart's plots, drawn from plotext's matrix (zdash.ui.widgets.plot), are the very content
Textual makes of plotext's ANSI canvas (what textual-plotext draws): the same characters in the
same colours, span for span, for every plot the dashboard draws (read/write lines, a disk
against its peers' dots, a plot with no I/O) in a dark and a light theme; and the lines the
plot hands Textual (its MatrixVisual) are, on screen, the lines Textual draws of that content."""

from __future__ import annotations

from types import SimpleNamespace

from rich.text import Text
from textual.content import Content
from textual.visual import Visual

from tests.checks.builders import T0, snap
from tests.ui.conftest import until, wait_frame
from tests.ui.test_chart import HistoryFeed, tank
from zdash.ui.app import ZdashApp
from zdash.ui.widgets.plot import Plot, matrix_content, matrix_text


def _as_plotext_draws(widget: Plot) -> Content:
    """What Textual draws of textual-plotext's own render for the figure as it stands."""
    return Content.from_rich_text(Text.from_ansi(widget.plt.build()), console=widget.app.console)


async def _same_as_plotext(pilot, label: str) -> int:
    """Every visible plot drawn from the matrix equals plotext's decoded canvas; how many."""
    compared = 0
    for widget in pilot.app.screen.query(Plot):
        if not widget.display:
            continue
        await until(pilot, lambda w=widget: label in str(w.render()), what=f"#{widget.id} drawn")
        visual = widget.render()
        mine = visual.content
        theirs = _as_plotext_draws(widget)
        assert mine.plain == theirs.plain == visual.plain, widget.id
        assert list(mine.spans) == list(theirs.spans), widget.id
        assert matrix_text(widget.plt.monitor.matrix).plain == mine.plain  # the Rich text too
        assert _on_screen(widget, visual) == _on_screen(widget, theirs), widget.id
        compared += 1
    return compared


def _on_screen(widget: Plot, visual: Visual) -> list[list[tuple[str, object]]]:
    """The lines Textual draws of `visual` in the widget: each line's text and Rich style per
    run of one style (Strip.simplify: how many segments make a run is not on screen), meta
    (Content's offsets for text selection) left out."""
    width, height = widget.size
    strips = Visual.to_strips(widget, visual, width, height, widget.visual_style)
    return [
        [(seg.text, seg.style) for seg in strip.discard_meta().simplify() if seg.text] for strip in strips
    ]


async def test_every_plot_is_the_text_plotext_draws_in_dark_and_light_themes():
    # writes that stop for a while (gaps, a wait line with no I/O) on a 2-way mirror
    snaps = [snap(T0 + t, tank(0.0 if 20 <= t < 30 else 6.0 + t % 5)) for t in range(60)]
    for theme in ("zdash-dark", "zdash-light"):
        app = ZdashApp(HistoryFeed(snaps), theme=theme)
        async with app.run_test(size=(160, 50)) as pilot:
            await wait_frame(pilot)
            assert await _same_as_plotext(pilot, "write") == 2  # MiB/s and disk wait
            chart = app.screen.query_one("#history")
            await pilot.press("v", "down", "down")  # pool, mirror-0, sda: against its peer
            await until(pilot, lambda c=chart: str(c.border_title).startswith("History · sda against"))
            assert await _same_as_plotext(pilot, "sdb") == 3  # MiB/s, %UTIL, disk wait


def test_an_empty_matrix_is_one_empty_line_as_the_decoder_reads_an_empty_canvas():
    empty = SimpleNamespace(rows=0, cols=0, marker=[], fullground=[], style=[], background=[])
    assert matrix_text(empty) == Text.from_ansi("")
    assert matrix_content(empty, None).plain == Content.from_rich_text(Text.from_ansi("")).plain
