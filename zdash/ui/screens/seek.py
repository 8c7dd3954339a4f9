"""`t`: seek the replay to a clock time, a jump, a fraction of the span or a tick number."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from zdash import fmt
from zdash.ui.seek import HELP, SeekError, parse_seek


class SeekScreen(ModalScreen):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss", "Cancel")]

    def compose(self) -> ComposeResult:
        pos = self.app.frame.position if self.app.frame else None
        span = f"{fmt.clock(pos.start)} – {fmt.clock(pos.end)}" if pos else ""
        with Vertical(classes="dialog"):
            yield Static(f"Seek to… (recording {span})", classes="dialog-title")
            yield Static(HELP, classes="hint")
            yield Input(placeholder="+30s", id="seek-input")
            yield Static(id="seek-error")

    def on_mount(self) -> None:
        self.query_one(Input).cursor_blink = False  # steady screenshots, calm screens
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        frame = self.app.frame
        pos = frame.position if frame else None
        if pos is None:
            self.dismiss()
            return
        try:
            kind, value = parse_seek(event.value, pos.time, pos.start, pos.end, pos.count)
        except SeekError as e:
            self.query_one("#seek-error", Static).update(str(e))
            return
        if kind == "index":
            self.app.feed.seek_index(int(value))
        else:
            self.app.feed.seek_time(value)
        self.dismiss()
