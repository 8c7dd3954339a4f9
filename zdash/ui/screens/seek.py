"""`t`: seek the replay to a clock time, a jump, a fraction of the span or a tick number. The
screen only reads what was typed: it dismisses with the target, and the dashboard seeks."""

from __future__ import annotations

from typing import ClassVar

from textual import getters
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from zdash import fmt
from zdash.feed.frame import Position
from zdash.ui.app import ZdashApp
from zdash.ui.seek import HELP, SeekError, SeekTarget, parse_seek


class SeekScreen(ModalScreen[SeekTarget | None]):
    """Dismisses with where to go, or None when cancelled."""

    app = getters.app(ZdashApp)

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, position: Position) -> None:
        super().__init__()
        self.position = position  # where the replay stood when `t` was pressed

    def compose(self) -> ComposeResult:
        pos = self.position
        with Vertical(classes="dialog"):
            yield Static(
                f"Seek to… (recording {fmt.clock(pos.start)} – {fmt.clock(pos.end)})", classes="dialog-title"
            )
            yield Static(HELP, classes="hint")
            yield Input(placeholder="+30s", id="seek-input")
            yield Static(id="seek-error")

    def on_mount(self) -> None:
        self.query_one(Input).cursor_blink = False  # steady screenshots, calm screens
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        # A jump (+30s) counts from where the replay is now: it may have played on meanwhile.
        frame = self.app.frame
        pos = frame.position if frame is not None and frame.position is not None else self.position
        try:
            target = parse_seek(event.value, pos.time, pos.start, pos.end, pos.count)
        except SeekError as e:
            self.query_one("#seek-error", Static).update(Content(str(e)))  # what was typed: text, not markup
            return
        self.dismiss(target)

    def action_cancel(self) -> None:
        self.dismiss(None)
