"""Messages from the feed worker to the app."""

from __future__ import annotations

from textual.message import Message

from zdash.feed.frame import Frame
from zdash.feed.timeline import Timeline


class FrameReady(Message):
    """A new frame. Replaceable: when the UI falls behind, only the newest one is drawn."""

    def __init__(self, frame: Frame) -> None:
        super().__init__()
        self.frame = frame

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, FrameReady)


class FeedFailed(Message):
    def __init__(self, error: str, final: bool) -> None:
        super().__init__()
        self.error = error
        self.final = final


class TimelineReady(Message):
    """More of a recording's events found (zdash.feed.timeline); only the newest matters."""

    def __init__(self, timeline: Timeline) -> None:
        super().__init__()
        self.timeline = timeline

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, TimelineReady)
