"""The replay's progress across the recording's time span, with a marker where something
happens (zdash.feed.timeline: the incident's onset, a finding raised or cleared, a state change;
`n`/`N` jump to them); a click seeks (mouse optional: every control also has a key).

Each kind of marker has its own glyph (theme variables zd-mark-*, so they differ without
colour) and colour: the onset $text-accent, a finding its severity's, a cleared one $zd-ok, a
state change $foreground. Where several fall in one column the most telling is drawn (onset,
then raised, cleared, state); the playhead on a marker shows it reversed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from textual import events
from textual.content import Content
from textual.message import Message
from textual.reactive import var

from zdash import fmt
from zdash.checks.finding import Severity
from zdash.feed.frame import Frame, Position
from zdash.feed.timeline import Event, EventKind, Timeline
from zdash.ui.line_cache import LineCachedWidget
from zdash.ui.markup import join, tag
from zdash.ui.roles import ROLE_VAR, severity_role
from zdash.ui.themes import MARK_GLYPHS

MARK_VAR: dict[EventKind, str] = {
    "onset": "zd-mark-onset",
    "raised": "zd-mark-raised",
    "cleared": "zd-mark-cleared",
    "state": "zd-mark-state",
}
KIND_WORD: dict[EventKind, str] = {
    "onset": "onset",
    "raised": "raised",
    "cleared": "cleared",
    "state": "state change",
}
_RANK: dict[EventKind, int] = {"onset": 3, "raised": 2, "cleared": 1, "state": 0}


def bar_span(pos: Position, width: int) -> tuple[int, int]:
    """(first column, columns) of the bar itself in a replay bar `width` wide."""
    head = len(f" {'▶' if pos.playing else '❚❚'} {pos.speed:g}×  {fmt.clock(pos.start)} ")
    tail = len(_tail(pos))
    return head, max(10, width - head - tail - 1)


def _tail(pos: Position) -> str:
    return f" {fmt.clock(pos.end)}  {pos.index + 1}/{pos.count}" + (" ↻" if pos.looping else "")


def glyph(kind: EventKind, variables: Mapping[str, str]) -> str:
    """The marker of a kind of event, from the theme (a CSS string there: zdash.ui.themes)."""
    name = MARK_VAR[kind]
    return (variables.get(name) or "").strip('"') or MARK_GLYPHS[name]


def mark_style(event: Event) -> str:
    if event.kind == "onset":
        return "bold $text-accent"
    if event.kind == "raised":
        return "bold " + ROLE_VAR[severity_role(event.severity or Severity.WARNING)]
    return "$zd-ok" if event.kind == "cleared" else "$foreground"


def marker_legend(variables: Mapping[str, str]) -> str:
    """The `?` help's line on the markers, in the theme's glyphs."""
    g = {k: glyph(k, variables) for k in MARK_VAR}
    return (
        f"Replay bar: {g['onset']} the incident begins (recorded with a training scenario), "
        f"{g['raised']} a finding raised,\n  {g['cleared']} one cleared, {g['state']} a pool or vdev "
        "changes state; n / N jump to the next / previous one."
    )


def _column(t: float, pos: Position, columns: int) -> int:
    """The bar's column of time t: 0 at the recording's start, the last at its end (the same
    mapping a click seeks by)."""
    span = pos.end - pos.start
    fraction = 0.0 if span <= 0 else min(max((t - pos.start) / span, 0.0), 1.0)
    return round(fraction * (columns - 1))


def marker_columns(pos: Position, columns: int, events: Sequence[Event]) -> dict[int, Event]:
    """Column -> the event drawn there (the most telling of those that fall in it)."""
    out: dict[int, Event] = {}
    for e in events:
        col = _column(e.time, pos, columns)
        had = out.get(col)
        rank = (_RANK[e.kind], e.severity or 0)
        if had is None or rank > (_RANK[had.kind], had.severity or 0):
            out[col] = e
    return out


def bar_content(
    pos: Position, width: int, timeline: Timeline | None = None, variables: Mapping[str, str] | None = None
) -> Content:
    _start, columns = bar_span(pos, width)
    return join(*bar_pieces(pos, columns, timeline, variables), tail_content(pos))


def tail_content(pos: Position) -> Content:
    return tag(_tail(pos), "$foreground-muted")


def playhead(pos: Position, columns: int) -> int:
    """The playhead's column on a bar `columns` wide (past the last at the recording's end)."""
    return _column(pos.time, pos, columns) if not pos.at_end else columns


def bar_pieces(
    pos: Position, columns: int, timeline: Timeline | None = None, variables: Mapping[str, str] | None = None
) -> tuple[Content, ...]:
    """The bar's head and its runs of cells, `columns` wide: all but the tail (the tick count,
    which moves every tick). They read the same while the playhead stays in its column, on the
    same span, state, speed, events and theme (ReplayBar keeps them that long)."""
    state = tag("▶", "bold $zd-ok") if pos.playing else tag("❚❚", "bold $zd-warn")
    head = join(" ", state, f" {pos.speed:g}×  {fmt.clock(pos.start)} ")
    at = playhead(pos, columns)
    marks = marker_columns(pos, columns, timeline.events) if timeline is not None else {}
    runs: list[tuple[str, str]] = []  # (text, style), neighbours of one style joined
    for col in range(columns):
        mark = marks.get(col)
        if mark is not None:
            cell = (glyph(mark.kind, variables or {}), mark_style(mark) + (" reverse" if col == at else ""))
        else:
            cell = (
                ("━", "$primary") if col < at else ("╸", "$primary") if col == at else ("─", "$zd-bar-free")
            )
        if runs and runs[-1][1] == cell[1]:
            runs[-1] = (runs[-1][0] + cell[0], cell[1])
        else:
            runs.append(cell)
    return (head, *(tag(text, style) for text, style in runs))


class ReplayBar(LineCachedWidget):
    """Bound to its screen's frame (data_bind); draws the frame's replay position (its line
    made again only when it reads otherwise: zdash.ui.line_cache)."""

    class Seek(Message):
        def __init__(self, fraction: float) -> None:
            super().__init__()
            self.fraction = fraction

    frame: var[Frame | None] = var(None)
    timeline: var[Timeline | None] = var(None)
    _pieces: tuple[tuple[object, ...], tuple[Content, ...]] | None = None  # (what they are made from, them)

    @property
    def position(self) -> Position | None:
        return self.frame.position if self.frame is not None else None

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _t: self.redraw())  # glyphs are the theme's

    def watch_frame(self) -> None:
        self.redraw()

    def watch_timeline(self) -> None:
        self.redraw()

    def lines(self) -> list[Content]:
        pos = self.position
        if pos is None:
            return []
        _start, columns = bar_span(pos, self.size.width)
        timeline, variables = self.timeline, self.app.theme_variables
        # What the head and the runs of cells are made from: compared, not made, each frame (the
        # playhead changes column every few dozen ticks of a long recording).
        at = playhead(pos, columns)
        key = (pos.playing, pos.speed, pos.start, pos.end, columns, at, timeline, variables)
        if self._pieces is None or self._pieces[0] != key:
            self._pieces = (key, bar_pieces(pos, columns, timeline, variables))
        return [join(*self._pieces[1], tail_content(pos))]

    def on_click(self, event: events.Click) -> None:
        pos = self.position
        if pos is None:
            return
        start, width = bar_span(pos, self.size.width)
        if width and start <= event.x < start + width:
            self.post_message(self.Seek((event.x - start) / max(width - 1, 1)))
