"""What a training recording says to look for, in a panel of its own above the replay bar: the
data stays in view while it is read (a toast covered half the screen for most of a scenario).
Shown while a replay starts paused; `i` hides it and brings it back."""

from __future__ import annotations

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from zdash.feed.frame import Frame

HINT = "space play · n / N next / previous event · i hide this"
TITLE = "About this recording"


class AboutPanel(Widget):
    """Bound to its screen's frame (data_bind): the recording's description, one paragraph."""

    frame: reactive[Frame | None] = reactive(None, repaint=False)
    # The text alone decides the panel's height: a new frame with the same description (every
    # tick) neither repaints nor re-lays out anything.
    text: reactive[str] = reactive("", layout=True)

    def on_mount(self) -> None:
        # The keys on its border, not under the text: a short terminal cuts the text's end,
        # never the keys.
        self.border_title = Content.assemble((TITLE, "bold $text-accent"), "  ", (HINT, "$foreground-muted"))

    def watch_frame(self, frame: Frame | None) -> None:
        self.text = " ".join((frame.description or "").split()) if frame is not None else ""

    def render(self) -> Content:
        return Content(self.text)
