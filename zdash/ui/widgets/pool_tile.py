"""A wall tile: one pool, readable across the room. It leads with the verdict, the worst
finding's word, glyph and title on a field of its severity's colour (OK when nothing is above
INFO), then the state word in big letters and the level's colour beside the capacity in big
digits (stacked when the tile is too narrow for both; ordinary bold text when even the word
alone does not fit), and the running scan. Tiles share the screen's width (no fixed box)."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.reactive import reactive
from textual.widgets import Digits, Static

from zdash.checks.finding import Finding, Severity
from zdash.model import Pool
from zdash.ui.big_word import big_rows, big_width
from zdash.ui.markup import tag
from zdash.ui.roles import ROLE_VAR, SEVERITY_ICON, severity_role, state_role
from zdash.ui.widgets.pool_header import BADGE, pool_findings

Level = Literal["ok", "warn", "crit"]


def tile_level(pool: Pool, findings: Sequence[Finding]) -> Level:
    """The worse of the pool's state and its worst finding (UNKNOWN, zdash cannot see, is as
    alarming as CRITICAL)."""
    worst = max((f.severity for f in pool_findings(pool, findings)), default=Severity.INFO)
    role = state_role(pool.state)
    if role == "crit" or severity_role(worst) == "crit":
        return "crit"
    if role == "warn" or worst == Severity.WARNING:
        return "warn"
    return "ok"


LEVEL_ORDER: dict[Level, int] = {"crit": 0, "warn": 1, "ok": 2}


@dataclass(frozen=True, slots=True)
class TileView:
    """What a tile shows; compared by value, so an unchanged tile is not redrawn."""

    level: Level
    focused: bool
    verdict: str  # markup: the worst finding (word, glyph, title) or OK
    state: str  # the pool's state word
    state_style: str  # its markup style: bold and the level's colour
    fill: float | None
    scan: str


def tile_view(pool: Pool, findings: Sequence[Finding], focused: bool) -> TileView:
    mine = pool_findings(pool, findings)
    scan = pool.scan
    if scan is not None and scan.state == "scanning" and scan.pct_done is not None:
        scan_text = f"{scan.function} {scan.pct_done:.0f}%"
    elif scan is not None and scan.state == "paused":
        scan_text = f"{scan.function} paused"
    else:
        scan_text = ""
    level = tile_level(pool, findings)
    if mine:
        worst = mine[0]
        more = tag(f"  +{len(mine) - 1} more", "$foreground-muted") if len(mine) > 1 else ""
        verdict = f"{tag(f' {SEVERITY_ICON[worst.severity]} ', BADGE[severity_role(worst.severity)])} {tag(worst.title, 'bold')}{more}"
    else:
        verdict = tag(" ● OK ", BADGE["info"]) + " " + tag("nothing above INFO", "$foreground-muted")
    # The state word in the tile's level colour: never a green ONLINE inside a red or amber tile.
    state_colour = ROLE_VAR[state_role(pool.state)] if level == "ok" else ROLE_VAR[level]
    return TileView(level, focused, verdict, pool.state, "bold " + state_colour, pool.fill_pct, scan_text)


_DIGITS_WIDTH = 13  # "100%" in Digits' three-column glyphs, and the gap before it


class PoolTile(Vertical):
    view: reactive[TileView | None] = reactive(None, layout=False, repaint=False)

    def __init__(self, name: str) -> None:
        super().__init__()
        self.pool_name = name
        self.border_title = name

    def compose(self) -> ComposeResult:
        yield Static(classes="tile-verdict")
        with Horizontal(classes="tile-main"):
            yield Static(classes="tile-state")
            with Vertical(classes="tile-cap"):
                yield Static(tag("CAP", "$foreground-muted"), classes="tile-cap-label")
                yield Digits("")
        yield Static(classes="tile-scan")

    def on_mount(self) -> None:
        self._show(self.view)

    def on_resize(self) -> None:
        self._show(self.view)

    def watch_view(self, view: TileView | None) -> None:
        if self.is_mounted:
            self._show(view)

    def _show(self, view: TileView | None) -> None:
        if view is None:
            return
        # Not while its children are not (or no longer) there: a tile the wall re-sorts can get
        # its Mount after its removal began (seen when a fleet host went down and its tile moved
        # first), and a failed query there would end the wall. The next view draws it.
        with contextlib.suppress(NoMatches):
            self._draw(view)

    def _draw(self, view: TileView) -> None:
        for level in ("ok", "warn", "crit"):
            self.set_class(level == view.level, f"-{level}")
        self.set_class(view.focused, "-focused")
        self.query_one(".tile-verdict", Static).update(view.verdict)
        room = self.size.width  # inside border and padding
        rows = big_rows(view.state) if big_width(view.state) <= room else None
        state = "\n".join(rows) if rows else view.state
        self.query_one(".tile-state", Static).update(tag(state, view.state_style))
        # Side by side when both fit, else the capacity below the state word.
        self.query_one(".tile-main").set_class(big_width(view.state) + _DIGITS_WIDTH > room, "-stacked")
        self.query_one(Digits).update(f"{view.fill:.0f}%" if view.fill is not None else "-")
        self.query_one(".tile-scan", Static).update(tag(view.scan, "bold"))
