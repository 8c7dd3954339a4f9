"""Wall mode: read-only, for a monitor nobody touches for weeks. Big per-pool tiles, the worst
findings, and one pool's detail that moves to the next pool on its own. No bindings at all
(ctrl+q from the App still quits), no command palette; a banner when the data is stale or a
command failed. Widgets are created once (tiles only when the set of pools changes) and
updated in place, so memory stays flat."""

from __future__ import annotations

from typing import ClassVar, Literal

from textual import getters
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.css.query import NoMatches
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Static

from zdash.checks.finding import Severity
from zdash.feed.frame import Frame
from zdash.model import Pool
from zdash.ui.app import ZdashApp
from zdash.ui.markup import tag
from zdash.ui.roles import ROLE_VAR, SEVERITY_ICON, severity_role
from zdash.ui.widgets.history_chart import HistoryChart
from zdash.ui.widgets.pool_header import PoolHeader, pool_findings
from zdash.ui.widgets.pool_tile import LEVEL_ORDER, PoolTile, tile_level, tile_view
from zdash.ui.widgets.status_bar import StatusBar
from zdash.ui.widgets.vdev_table import VdevTable

WORST = 5
BannerClass = Literal["", "-stale", "-failed"]


def banner_text(frame: Frame | None, silence: float | None, error: str | None) -> tuple[BannerClass, str]:
    """(css class, text); no class when all is well."""
    if error:
        return "-failed", f"DATA COLLECTION FAILED: {error}"
    if silence is not None:
        return "-failed", f"NO DATA FOR {silence:.0f} s"
    if frame is not None and frame.snapshot.problems:
        msgs = "; ".join(s.message or s.key for s in frame.snapshot.problems[:3])
        return "-stale", f"STALE DATA: {msgs}"
    return "", ""


class WallScreen(Screen[None], inherit_bindings=False):
    # `?` only: what the wall shows and that nothing here acts on a pool.
    BINDINGS: ClassVar[list[BindingType]] = [Binding("question_mark", "help", "Keys", show=False)]
    AUTO_FOCUS = None
    app = getters.app(ZdashApp)
    focus_index: var[int] = var(0, init=False)  # which pool the detail shows (mod the pools)
    # The frame shown and the pool in detail: the detail widgets are bound to these.
    frame: var[Frame | None] = var(None, init=False)
    focus_pool: var[str | None] = var(None, init=False)

    def __init__(self, cycle_s: float = 15.0) -> None:
        super().__init__()
        self.cycle_s = cycle_s
        self._tiles: dict[str, PoolTile] = {}

    def compose(self) -> ComposeResult:
        yield StatusBar()
        yield Static(id="wall-banner")
        yield Horizontal(id="tiles")
        yield Static(id="wall-findings")
        detail = {"frame": WallScreen.frame, "pool_name": WallScreen.focus_pool}  # the focused pool
        yield PoolHeader("no pools", verdict=False, id="wall-detail-header").data_bind(**detail)
        table = VdevTable(id="wall-vdevs").data_bind(**detail)
        table.can_focus = False  # nothing to focus: no widget bindings become active
        table.show_cursor = False
        yield table
        yield HistoryChart(id="wall-history").data_bind(**detail)

    def on_mount(self) -> None:
        for attr in ("frame", "silence", "feed_error"):
            self.watch(self.app, attr, lambda _v: self._draw(), init=False)
        self.run_worker(self._cycle(), group="wall-cycle")
        self._draw()

    async def _cycle(self) -> None:
        """The next pool every cycle_s, on the app's clock."""
        while True:
            await self.app.clock.sleep(self.cycle_s)
            self.focus_index += 1

    def action_help(self) -> None:
        from zdash.ui.screens.help import WALL_TEXT, HelpScreen

        self.app.push_screen(HelpScreen(self, (), WALL_TEXT))

    def watch_focus_index(self) -> None:
        self._draw()

    def on_resize(self) -> None:
        # A short screen gives the vdev rows the room (the sick row must stay in view); the
        # chart needs about a dozen lines to say anything.
        self.query_one("#wall-history").display = self.size.height >= 34

    def _draw(self) -> None:
        try:
            self._draw_now()
        except NoMatches:
            # The screen is being torn down (the app quitting): its widgets are gone while the
            # pool cycle or a frame watcher still fires. Nothing to draw on; seen in 1 of 5 lab
            # fleet runs as a WorkerFailed at exit.
            return

    def _draw_now(self) -> None:
        app = self.app
        frame: Frame | None = app.frame
        cls, text = banner_text(frame, app.silence, app.feed_error)
        banner = self.query_one("#wall-banner", Static)
        banner.set_class(cls == "-stale", "-stale")
        banner.set_class(cls == "-failed", "-failed")
        banner.update(tag(text))
        if frame is None:
            return
        # Worst first: the tiles left to right and the detail's cycle start with the sickest pool.
        pools = sorted(frame.snapshot.pools, key=lambda p: LEVEL_ORDER[tile_level(p, frame.findings)])
        self._sync_tiles([p.name for p in pools])
        focus = pools[self.focus_index % len(pools)] if pools else None
        for p in pools:
            self._tiles[p.name].view = tile_view(
                p, frame.findings, focus is not None and p.name == focus.name
            )
        worst = self._worst(frame, pools)
        box = self.query_one("#wall-findings", Static)
        box.display = bool(worst)
        box.update(worst)
        self.frame = frame
        self.focus_pool = focus.name if focus is not None else None
        if focus is not None:
            self._reveal(focus, frame)

    def _reveal(self, pool: Pool, frame: Frame) -> None:
        """Keep the row of the pool's worst finding in view (the table has no visible cursor
        here; the cursor only scrolls), so a small screen never cuts off the one that matters."""
        worst = next(iter(pool_findings(pool, frame.findings)), None)
        table = self.query_one("#wall-vdevs", VdevTable)
        if worst is None or worst.subject == pool.name:
            table.move_cursor(0)
            return
        keys = table.row_keys
        for v in pool.root.walk():
            if worst.subject in (v.path, v.name, v.label) and v.key in keys:
                table.move_cursor(keys.index(v.key))
                return

    def _sync_tiles(self, names: list[str]) -> None:
        if names == list(self._tiles):
            return
        box = self.query_one("#tiles", Horizontal)
        box.remove_children()
        self._tiles = {n: PoolTile(n) for n in names}
        box.mount_all(self._tiles.values())

    def _worst(self, frame: Frame, pools: list[Pool]) -> str:
        """The findings above INFO that no tile leads with (each tile shows its pool's worst),
        with their pool when there are several; empty when the tiles say it all."""
        on_tiles = {id(f[0]) for p in pools if (f := pool_findings(p, frame.findings))}
        rest = [f for f in frame.findings if f.severity > Severity.INFO and id(f) not in on_tiles]
        shown = rest[:WORST]
        if not shown:
            return ""
        several = len(pools) > 1
        lines = [
            f"{tag(SEVERITY_ICON[f.severity], 'bold ' + ROLE_VAR[severity_role(f.severity)])}  "
            + tag((f"{f.pool}: " if several and f.pool and not f.title.startswith(f.pool) else "") + f.title)
            for f in shown
        ]
        more = len(rest) - len(shown)
        if more > 0:
            lines.append(tag(f"+{more} more", "$foreground-muted"))
        return "\n".join(lines)


class WallView(WallScreen, inherit_bindings=False):
    """The wall opened from the dashboard (command palette): the same read-only view, and
    escape goes back to the dashboard."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "Keys", show=False),
        Binding("escape", "app.pop_screen", "Back to the dashboard", show=False),
    ]
