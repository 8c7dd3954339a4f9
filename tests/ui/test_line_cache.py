"""zdash.ui.line_cache: a widget drawn line by line draws what Textual draws of its whole
content (characters, colours, text-selection offsets), and makes again only the lines that
changed."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import App, ComposeResult
from textual.content import Content
from textual.geometry import Region
from textual.visual import Visual
from textual.widget import Widget

from zdash.ui.line_cache import LineCachedWidget
from zdash.ui.markup import join, lines, tag

CSS = "Cached, Whole { height: auto; padding: 0 1; color: $foreground; }"


def _lines(throughput: str) -> list[Content]:
    return [
        join(
            tag(" ● OK ", "bold $background on $success"), " ", tag("nothing above INFO", "$foreground-muted")
        ),
        join(tag("tank", "bold"), "  ", tag(throughput, "$foreground-muted")),
        tag("a line long enough to wrap at this width, and then some more words", "$warning"),
        join("two lines ", tag("in one", "italic"), "\n", tag("piece", "$error")),
        Content(""),
        tag("last", "reverse $primary"),
    ]


class Cached(LineCachedWidget):
    def __init__(self) -> None:
        super().__init__()
        self.shown = _lines("↓1.0 ↑2.0 MiB/s")

    def lines(self) -> Sequence[Content]:
        return self.shown


class Whole(Widget):
    """The same content drawn by Textual as one piece."""

    def __init__(self, cached: Cached) -> None:
        super().__init__()
        self.cached = cached

    def render(self) -> Content:
        return lines(self.cached.shown)


class Pair(App[None]):
    CSS = CSS

    def compose(self) -> ComposeResult:
        self.cached = Cached()
        yield self.cached
        yield Whole(self.cached)


def _drawn(widget: Widget) -> list[list[tuple[str, object]]]:
    strips = widget.render_lines(Region(0, 0, *widget.outer_size))
    return [[(s.text, s.style) for s in strip] for strip in strips]


async def _same(pilot, app: Pair) -> None:
    await pilot.pause()
    whole = app.query_one(Whole)
    whole.refresh(layout=True)
    await pilot.pause()
    assert app.cached.outer_size == whole.outer_size
    assert _drawn(app.cached) == _drawn(whole)


async def test_lines_draw_as_the_whole_content_and_only_changed_lines_are_made_again(monkeypatch):
    app = Pair()
    async with app.run_test(size=(40, 30)) as pilot:
        await _same(pilot, app)
        made: list[str] = []
        fitting, to_strips = Cached._fitting_strip, Visual.to_strips

        def fitted(widget, line, *args):
            made.append(line.plain)
            return fitting(widget, line, *args)

        def passed(widget, visual, *args, **kwargs):
            made.append(str(visual).strip("\n"))
            return to_strips(widget, visual, *args, **kwargs)

        monkeypatch.setattr(Cached, "_fitting_strip", fitted)
        monkeypatch.setattr(Visual, "to_strips", passed)
        app.cached.shown = _lines("↓9.5 ↑0.1 MiB/s")
        app.cached.redraw()
        assert made == ["tank  ↓9.5 ↑0.1 MiB/s"]  # the one line that changed, alone
        assert {(r.y, r.height) for r in app.cached._repaint_regions} == {(1, 1)}  # its row repainted
        monkeypatch.undo()
        await _same(pilot, app)
        assert "↓9.5" in app.cached.render().plain


async def test_a_line_that_wraps_longer_lays_the_widget_out_again():
    app = Pair()
    async with app.run_test(size=(40, 30)) as pilot:
        await pilot.pause()
        height = app.cached.outer_size.height
        app.cached.shown = [
            *app.cached.shown[:-1],
            tag("last, and now long enough to wrap once at least", "$primary"),
        ]
        app.cached.redraw()
        await _same(pilot, app)
        assert app.cached.outer_size.height == height + 1


async def test_a_theme_switch_and_a_resize_draw_the_lines_anew():
    app = Pair()
    async with app.run_test(size=(40, 30)) as pilot:
        await pilot.pause()
        before = _drawn(app.cached)
        app.theme = "textual-light"
        await _same(pilot, app)
        assert _drawn(app.cached) != before
        await pilot.resize_terminal(60, 30)
        await _same(pilot, app)
        assert app.cached.outer_size.width > 40


async def test_a_plain_refresh_draws_the_lines_as_they_are_now():
    """A widget refreshed by Textual or by a subclass's own clock (the wall's status line), not
    through redraw(): its lines are taken again."""
    app = Pair()
    async with app.run_test(size=(40, 30)) as pilot:
        await pilot.pause()
        app.cached.shown = _lines("↓3.0 ↑4.0 MiB/s")
        app.cached.refresh()
        await _same(pilot, app)
        assert any("↓3.0" in "".join(text for text, _ in row) for row in _drawn(app.cached))
