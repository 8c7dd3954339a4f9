"""A wall tile: one pool's health, readable across the room (big capacity digits, the state
word, the running scan and how many findings), coloured by the pool's worst condition."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.reactive import reactive
from textual.widgets import Digits, Static

from zdash.checks.finding import Finding, Severity
from zdash.model import Pool
from zdash.ui.markup import tag
from zdash.ui.roles import ROLE_VAR, state_role

Level = Literal["ok", "warn", "crit"]


def tile_level(pool: Pool, findings: Sequence[Finding]) -> Level:
    worst = max((f.severity for f in findings if f.pool == pool.name), default=Severity.INFO)
    role = state_role(pool.state)
    if role == "crit" or worst == Severity.CRITICAL:
        return "crit"
    if role == "warn" or worst == Severity.WARNING:
        return "warn"
    return "ok"


@dataclass(frozen=True, slots=True)
class TileView:
    """What a tile shows; compared by value, so an unchanged tile is not redrawn."""

    level: Level
    focused: bool
    state: str  # markup
    fill: float | None
    scan: str
    count: str


def tile_view(pool: Pool, findings: Sequence[Finding], focused: bool) -> TileView:
    mine = [f for f in findings if f.pool == pool.name and f.severity > Severity.INFO]
    scan = pool.scan
    if scan is not None and scan.state == "scanning" and scan.pct_done is not None:
        scan_text = f"{scan.function} {scan.pct_done:.0f}%"
    elif scan is not None and scan.state == "paused":
        scan_text = f"{scan.function} paused"
    else:
        scan_text = ""
    return TileView(
        tile_level(pool, findings),
        focused,
        tag(pool.state, "bold " + ROLE_VAR[state_role(pool.state)]),
        pool.fill_pct,
        scan_text,
        f"{len(mine)} finding{'s' if len(mine) != 1 else ''}" if mine else "no warnings",
    )


class PoolTile(Vertical):
    view: reactive[TileView | None] = reactive(None, layout=False, repaint=False)

    def __init__(self, name: str) -> None:
        super().__init__()
        self.pool_name = name
        self.border_title = name

    def compose(self) -> ComposeResult:
        yield Static(classes="tile-state")
        yield Digits("")
        yield Static(classes="tile-scan")

    def on_mount(self) -> None:
        self._show(self.view)

    def watch_view(self, view: TileView | None) -> None:
        if self.is_mounted:
            self._show(view)

    def _show(self, view: TileView | None) -> None:
        if view is None:
            return
        for level in ("ok", "warn", "crit"):
            self.set_class(level == view.level, f"-{level}")
        self.set_class(view.focused, "-focused")
        self.query_one(".tile-state", Static).update(f"{view.state}  {tag('CAP', '$foreground-muted')}")
        self.query_one(Digits).update(f"{view.fill:.0f}%" if view.fill is not None else "-")
        self.query_one(".tile-scan", Static).update(
            "\n".join(x for x in (tag(view.scan, "bold"), tag(view.count)) if x)
        )
