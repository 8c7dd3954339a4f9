"""The top line: where the data comes from (LIVE host, REPLAY file @ time, DEMO), how fresh it
is (stale sources with their age, no data at all, a failed feed) and the recording badge.

One widget of fixed height whose right part is padded into place: redrawing it never needs a
layout pass (a width:auto neighbour would re-layout the whole screen every tick)."""

from __future__ import annotations

import os

from textual import getters
from textual.content import Content

from zdash import fmt
from zdash.feed.frame import Frame, FrameMode
from zdash.ui.app import ZdashApp
from zdash.ui.line_cache import LineCachedWidget
from zdash.ui.markup import join, tag

BADGE: dict[FrameMode, tuple[str, str]] = {
    "live": ("LIVE", "reverse $success"),
    "replay": ("REPLAY", "reverse $primary"),
    "demo": ("DEMO", "reverse $accent"),
}


def left_content(frame: Frame | None, loading: str) -> Content:
    if frame is None:
        return join(tag("zdash", "bold"), "  ", tag(loading, "$foreground-muted"))
    word, style = BADGE[frame.mode]
    out = join(tag("zdash", "bold"), " ", tag(f" {word} ", style), " ", tag(frame.source, "bold"))
    if frame.position is not None:
        pos = frame.position
        state = "▶" if pos.playing else "❚❚"
        out += join(" @ ", tag(fmt.stamp(frame.time)), "  ", tag(f"{state} {pos.speed:g}×", "$text-primary"))
    else:
        out += join("  ", tag(fmt.clock(frame.time), "$foreground-muted"))
    return out


def right_content(frame: Frame | None, silence: float | None, error: str | None) -> Content:
    parts: list[Content] = []
    if error:
        parts.append(join(tag(" FAILED ", "reverse $error"), " ", tag(error)))
    elif silence is not None:
        parts.append(join(tag(" NO DATA ", "reverse $error"), f" for {fmt.duration(silence)}"))
    elif frame is not None and frame.snapshot.problems:
        probs = frame.snapshot.problems
        worst = max(probs, key=lambda s: s.age_s or 0.0)
        age = f" {fmt.duration(worst.age_s)} old" if worst.age_s is not None else ""
        more = f" +{len(probs) - 1}" if len(probs) > 1 else ""
        parts.append(join(tag(" STALE ", "reverse $warning"), " ", tag(worst.key + age + more)))
    if frame is not None and frame.recording:
        parts.append(join(tag(" ● REC ", "reverse $error"), " ", tag(os.path.basename(frame.recording))))
    if frame is not None and frame.flight:
        # The flight recorder: an incident being written, or why it could not be.
        badge = " ● INCIDENT " if frame.flight.startswith("recording") else " FLIGHT REC "
        parts.append(join(tag(badge, "reverse $warning"), " ", tag(frame.flight)))
    return Content("  ").join(parts)


def status_line(left: Content, right: Content, width: int) -> Content:
    """The right part (freshness, recording) matters more than the tail of the left one."""
    gap = width - left.cell_length - right.cell_length - 1
    if gap >= 1:
        return left + " " * max(gap, 1) + right
    return left[: max(0, width - right.cell_length - 2)] + "  " + right


class StatusBar(LineCachedWidget):
    """One line of fixed height whose right part is padded into place: redrawing it never
    needs a layout pass. Follows the app's frame, silence and feed error; its line is made
    again only when it reads otherwise (zdash.ui.line_cache)."""

    app = getters.app(ZdashApp)

    def on_mount(self) -> None:
        for attr in ("frame", "silence", "feed_error"):
            self.watch(self.app, attr, self._changed, init=False)

    def _changed(self) -> None:
        self.redraw()

    def left(self) -> Content:
        return left_content(self.app.frame, self.app.loading_text)

    def right(self) -> Content:
        app = self.app
        return right_content(app.frame, app.silence, app.feed_error)

    def lines(self) -> list[Content]:
        return [status_line(self.left(), self.right(), self.size.width)]

    @property
    def text(self) -> str:
        """What the bar says, as plain text."""
        return self.render().plain
