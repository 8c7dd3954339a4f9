"""What happened at the tick `n` / `N` landed on, in a panel of its own above the replay bar:
the event and the figures it changed stay in view together. (It was a toast: at 80x24 two
presses stacked toasts over the vdev table's figures, the very rows the event is about.)

Shown from the jump until the replay moves off that tick (play, step, seek); one line per
event, its marker glyph and colour as on the bar."""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from zdash.feed.frame import Frame
from zdash.feed.timeline import Event
from zdash.ui.markup import join, lines, tag
from zdash.ui.widgets.replay_bar import KIND_WORD, glyph, mark_style


class EventPanel(Widget):
    """Bound to its screen's frame (data_bind); `show` puts a tick's events in it."""

    frame: reactive[Frame | None] = reactive(None, repaint=False)
    # (tick index, its events) on show, None when hidden: its height follows the events.
    shown: reactive[tuple[int, tuple[Event, ...]] | None] = reactive(None, layout=True)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        # A frame of the tick the replay left may still arrive after the jump: the panel closes
        # only once the replay has reached the event's tick and then moved off it.
        self._reached = False

    def on_mount(self) -> None:
        self.display = False
        self.app.theme_changed_signal.subscribe(self, lambda _t: self.refresh())  # glyphs are the theme's

    def show(self, index: int, events: Sequence[Event]) -> None:
        self._reached = self.frame is not None and self._index(self.frame) == index
        self.shown = (index, tuple(events))

    def watch_shown(self, shown: tuple[int, tuple[Event, ...]] | None) -> None:
        self.display = shown is not None
        # The screen's `-event` class lets a short terminal's description give up rows to it.
        self.screen.set_class(shown is not None, "-event")
        if shown is not None:
            self.border_title = join(
                tag(f"Event · tick {shown[0] + 1}", "bold $text-accent"),
                "  ",
                tag("n / N next / previous · space play", "$foreground-muted"),
            )

    @staticmethod
    def _index(frame: Frame) -> int | None:
        return frame.position.index if frame.position is not None else None

    def watch_frame(self, frame: Frame | None) -> None:
        if self.shown is None or frame is None:
            return
        if self._index(frame) == self.shown[0]:
            self._reached = True
        elif self._reached:
            self.shown = None

    def render(self) -> Content:
        if self.shown is None:
            return Content()
        variables = self.app.theme_variables
        return lines(
            join(tag(glyph(e.kind, variables), mark_style(e)), f" {KIND_WORD[e.kind]}: {e.text}")
            for e in self.shown[1]
        )
