"""A wall tile: one pool's health, readable across the room (big capacity digits, the state
word, the running scan and how many findings), coloured by the pool's worst condition."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Digits, Static

from zdash.checks.finding import Finding, Severity
from zdash.model import Pool
from zdash.ui.markup import tag
from zdash.ui.palette import STATE_VAR, state_role


def tile_level(pool: Pool, findings: Sequence[Finding]) -> str:
    worst = max((f.severity for f in findings if f.pool == pool.name), default=Severity.INFO)
    role = state_role(pool.state)
    if role == "crit" or worst == Severity.CRITICAL:
        return "crit"
    if role == "warn" or worst == Severity.WARNING:
        return "warn"
    return "ok"


class PoolTile(Vertical):
    def __init__(self, name: str) -> None:
        super().__init__()
        self.pool_name = name
        self.border_title = name
        self._shown: tuple | None = None

    def compose(self) -> ComposeResult:
        yield Static(classes="tile-state")
        yield Digits("")
        yield Static(classes="tile-scan")

    def show(self, pool: Pool, findings: Sequence[Finding], focused: bool) -> None:
        self._pending = (pool, findings, focused)
        if self.is_mounted:
            self._apply()

    def on_mount(self) -> None:
        self._apply()

    def _apply(self) -> None:
        if getattr(self, "_pending", None) is None:
            return
        pool, findings, focused = self._pending
        level = tile_level(pool, findings)
        fill = pool.fill_pct
        mine = [f for f in findings if f.pool == pool.name and f.severity > Severity.INFO]
        scan = pool.scan
        if scan is not None and scan.state == "scanning" and scan.pct_done is not None:
            scan_text = f"{scan.function} {scan.pct_done:.0f}%"
        elif scan is not None and scan.state == "paused":
            scan_text = f"{scan.function} paused"
        else:
            scan_text = ""
        state = tag(pool.state, "bold " + STATE_VAR[state_role(pool.state)])
        count = f"{len(mine)} finding{'s' if len(mine) != 1 else ''}" if mine else "no warnings"
        shown = (level, focused, state, fill, scan_text, count)
        if shown == self._shown:
            return
        self._shown = shown
        for cls in ("-ok", "-warn", "-crit"):
            self.set_class(cls == f"-{level}", cls)
        self.set_class(focused, "-focused")
        self.query_one(".tile-state", Static).update(f"{state}  {tag('CAP', '$foreground-muted')}")
        self.query_one(Digits).update(f"{fill:.0f}%" if fill is not None else "-")
        self.query_one(".tile-scan", Static).update(
            "\n".join(x for x in (tag(scan_text, "bold"), tag(count)) if x)
        )
