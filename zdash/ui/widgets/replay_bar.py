"""The replay's progress across the recording's time span; a click seeks (mouse optional:
every control also has a key)."""

from __future__ import annotations

from textual import events
from textual.message import Message
from textual.widgets import Static

from zdash import fmt
from zdash.feed.frame import Position
from zdash.ui.markup import tag


class ReplayBar(Static):
    class Seek(Message):
        def __init__(self, fraction: float) -> None:
            super().__init__()
            self.fraction = fraction

    def on_mount(self) -> None:
        self._pos: Position | None = None
        self._shown: str | None = None
        self._bar_span = (0, 0)

    def show(self, pos: Position | None) -> None:
        self._pos = pos
        self._draw()

    def on_resize(self) -> None:
        self._draw()

    def _draw(self) -> None:
        pos = self._pos
        if pos is None:
            return
        state = tag("▶", "bold $text-success") if pos.playing else tag("❚❚", "bold $text-warning")
        head = f" {state} {pos.speed:g}×  {fmt.clock(pos.start)} "
        tail = f" {fmt.clock(pos.end)}  {pos.index + 1}/{pos.count}" + (" ↻" if pos.looping else "")
        head_len = len(f" {'▶' if pos.playing else '❚❚'} {pos.speed:g}×  {fmt.clock(pos.start)} ")
        width = max(10, self.size.width - head_len - len(tail) - 1)
        done = round(pos.fraction * width)
        bar = (
            tag("━" * done, "$primary")
            + tag("╸" if done < width else "", "$primary")
            + tag("─" * max(0, width - done - 1), "$zd-bar-free")
        )
        self._bar_span = (head_len, width)
        text = head + bar + tag(tail, "$foreground-muted")
        if text != self._shown:
            self._shown = text
            self.update(text, layout=False)

    def on_click(self, event: events.Click) -> None:
        start, width = self._bar_span
        if width and start <= event.x < start + width:
            self.post_message(self.Seek((event.x - start) / max(width - 1, 1)))
