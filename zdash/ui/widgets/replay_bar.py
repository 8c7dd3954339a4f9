"""The replay's progress across the recording's time span; a click seeks (mouse optional:
every control also has a key)."""

from __future__ import annotations

from textual import events
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from zdash import fmt
from zdash.feed.frame import Frame, Position
from zdash.ui.markup import tag


def bar_span(pos: Position, width: int) -> tuple[int, int]:
    """(first column, columns) of the bar itself in a replay bar `width` wide."""
    head = len(f" {'▶' if pos.playing else '❚❚'} {pos.speed:g}×  {fmt.clock(pos.start)} ")
    tail = len(_tail(pos))
    return head, max(10, width - head - tail - 1)


def _tail(pos: Position) -> str:
    return f" {fmt.clock(pos.end)}  {pos.index + 1}/{pos.count}" + (" ↻" if pos.looping else "")


def bar_markup(pos: Position, width: int) -> str:
    state = tag("▶", "bold $zd-ok") if pos.playing else tag("❚❚", "bold $zd-warn")
    head = f" {state} {pos.speed:g}×  {fmt.clock(pos.start)} "
    _start, columns = bar_span(pos, width)
    done = round(pos.fraction * columns)
    bar = (
        tag("━" * done, "$primary")
        + tag("╸" if done < columns else "", "$primary")
        + tag("─" * max(0, columns - done - 1), "$zd-bar-free")
    )
    return head + bar + tag(_tail(pos), "$foreground-muted")


class ReplayBar(Widget):
    """Bound to its screen's frame (data_bind); draws the frame's replay position."""

    class Seek(Message):
        def __init__(self, fraction: float) -> None:
            super().__init__()
            self.fraction = fraction

    frame: reactive[Frame | None] = reactive(None)

    @property
    def position(self) -> Position | None:
        return self.frame.position if self.frame is not None else None

    def render(self) -> Content:
        pos = self.position
        return Content.from_markup(bar_markup(pos, self.size.width)) if pos is not None else Content()

    def on_click(self, event: events.Click) -> None:
        pos = self.position
        if pos is None:
            return
        start, width = bar_span(pos, self.size.width)
        if width and start <= event.x < start + width:
            self.post_message(self.Seek((event.x - start) / max(width - 1, 1)))
