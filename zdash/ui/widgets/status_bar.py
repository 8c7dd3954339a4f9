"""The top line: where the data comes from (LIVE host, REPLAY file @ time, DEMO), how fresh it
is (stale sources with their age, no data at all, a failed feed) and the recording badge.

One Static of fixed height whose right part is padded into place: updating it never needs a
layout pass (a width:auto neighbour would re-layout the whole screen every tick)."""

from __future__ import annotations

import os

from textual.content import Content
from textual.widgets import Static

from zdash import fmt
from zdash.feed.frame import Frame
from zdash.ui.markup import tag

BADGE = {
    "live": ("LIVE", "reverse $success"),
    "replay": ("REPLAY", "reverse $primary"),
    "demo": ("DEMO", "reverse $accent"),
}


def left_markup(frame: Frame | None, loading: str) -> str:
    if frame is None:
        return f"{tag('zdash', 'bold')}  {tag(loading, '$foreground-muted')}"
    word, style = BADGE.get(frame.mode, BADGE["live"])
    out = f"{tag('zdash', 'bold')} {tag(f' {word} ', style)} {tag(frame.source, 'bold')}"
    if frame.position is not None:
        pos = frame.position
        state = "▶" if pos.playing else "❚❚"
        out += f" @ {tag(fmt.stamp(frame.time))}  {tag(f'{state} {pos.speed:g}×', '$text-primary')}"
    else:
        out += f"  {tag(fmt.clock(frame.time), '$foreground-muted')}"
    return out


def right_markup(frame: Frame | None, silence: float | None, error: str | None) -> str:
    parts = []
    if error:
        parts.append(f"{tag(' FAILED ', 'reverse $error')} {tag(error)}")
    elif silence is not None:
        parts.append(f"{tag(' NO DATA ', 'reverse $error')} for {fmt.duration(silence)}")
    elif frame is not None and frame.snapshot.problems:
        probs = frame.snapshot.problems
        worst = max(probs, key=lambda s: s.age_s or 0.0)
        age = f" {fmt.duration(worst.age_s)} old" if worst.age_s is not None else ""
        more = f" +{len(probs) - 1}" if len(probs) > 1 else ""
        parts.append(f"{tag(' STALE ', 'reverse $warning')} {tag(worst.key + age + more)}")
    if frame is not None and frame.recording:
        parts.append(f"{tag(' ● REC ', 'reverse $error')} {tag(os.path.basename(frame.recording))}")
    return "  ".join(parts)


class StatusBar(Static):
    def on_mount(self) -> None:
        self._shown: Content | None = None
        for attr in ("frame", "silence", "feed_error"):
            self.watch(self.app, attr, self._redraw, init=False)
        self._redraw()

    def on_resize(self) -> None:
        self._redraw()

    def _redraw(self, _value: object = None) -> None:
        app = self.app
        frame = getattr(app, "frame", None)
        left = Content.from_markup(left_markup(frame, getattr(app, "loading_text", "starting…")))
        right = Content.from_markup(
            right_markup(frame, getattr(app, "silence", None), getattr(app, "feed_error", None))
        )
        gap = self.size.width - left.cell_length - right.cell_length - 1
        # The right part (freshness, recording) matters more than the tail of the left one.
        line = (
            left + " " * max(gap, 1) + right
            if gap >= 1
            else left[: max(0, self.size.width - right.cell_length - 2)] + "  " + right
        )
        if line != self._shown:  # redraw only what changed
            self._shown = line
            self.update(line, layout=False)

    @property
    def text(self) -> str:
        return self._shown.plain if self._shown is not None else ""
