"""Wall mode: read-only, for a monitor nobody touches for weeks and that is read from across
the room. Per pool a tile whose largest element is the verdict (OK / WARN / CRIT / STALE in big
letters), then the subject and the one-line why, then capacity; the tiles fill the screen and
reflow for 1-12 pools (zdash.ui.wall_layout), and cycle only when they do not all fit. The
detail (the sickest pool's vdev rows) takes what space is left; the history chart only when
asked (`g`, or `ui: {wall_chart: true}`). The top line holds a clock and "data as of"; when the
data is old, a big STALE across the screen and every tile says STALE.

No key acts on a pool (ctrl+q from the App still quits), no command palette. Widgets are created
once (tiles only when the set of pools shown changes) and updated in place: memory stays flat."""

from __future__ import annotations

from typing import ClassVar, Literal

from textual import getters
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container
from textual.content import Content
from textual.css.query import NoMatches
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Static

from zdash import fmt
from zdash.checks.finding import Severity
from zdash.feed.frame import Frame
from zdash.model import Pool
from zdash.ui.app import ZdashApp
from zdash.ui.big_word import big_lines, rows, width
from zdash.ui.roles import ROLE_VAR, SEVERITY_ICON, severity_role
from zdash.ui.wall_layout import WallLayout, plan_wall
from zdash.ui.widgets.history_chart import HistoryChart
from zdash.ui.widgets.pool_header import PoolHeader, pool_findings
from zdash.ui.widgets.pool_tile import LEVEL_ORDER, STALE_WORD, WIDEST_USUAL, PoolTile, tile_level, tile_view
from zdash.ui.widgets.status_bar import StatusBar
from zdash.ui.widgets.vdev_table import VdevTable

WORST = 5
DETAIL_MIN = 6  # rows: the detail header (3) and a few vdev rows, or no detail at all
CHART_MIN = 10  # rows the history chart needs to say anything
BannerClass = Literal["", "-stale", "-failed"]


def stale_reason(silence: float | None, error: str | None) -> str | None:
    """Why nothing on the wall is current (None: the data is fresh): the feed failed, or no
    frame for a while (zdash.ui.app counts the silence)."""
    if error:
        return f"data collection failed: {error}"
    if silence is not None:
        return f"no data for {fmt.duration(silence)}"
    return None


def banner_text(frame: Frame | None, silence: float | None, error: str | None) -> tuple[BannerClass, str]:
    """(css class, text); no class when all is well. Failed (nothing is current) or stale (some
    inputs are old: the tiles of what they feed say so)."""
    if error:
        return "-failed", f"DATA COLLECTION FAILED: {error}"
    if silence is not None:
        return "-failed", f"NO DATA FOR {silence:.0f} s"
    if frame is not None and frame.snapshot.problems:
        msgs = "; ".join(s.message or s.key for s in frame.snapshot.problems[:3])
        return "-stale", f"STALE DATA: {msgs}"
    return "", ""


class WallStatusBar(StatusBar):
    """The wall's top line: where the data comes from, then a clock and when the data is from.
    On a live host the clock runs on from the last frame's time by the app's clock (so it moves
    when no frame comes); a recording's clock is the recording's."""

    def on_mount(self) -> None:
        # The line ticks itself: its worker ends with it. Ticked from the screen, a tick that
        # came while the screen closed (its widgets go first, the screen and its workers last)
        # found no line and ended zdash (NoMatches).
        self.run_worker(self._tick(), group="wall-clock")

    async def _tick(self) -> None:
        """The clock moves every second, frame or not."""
        while True:
            await self.app.clock.sleep(1.0)
            self.refresh()

    def right(self) -> Content:
        app = self.app
        frame, right = app.frame, super().right()
        if frame is None or frame.position is not None:  # a replay: its own time is the clock
            return right
        clock = Content.assemble(
            ("data as of ", "$foreground-muted"),
            (fmt.clock(frame.time), "bold"),
            "   ",
            (fmt.clock(frame.time + app.frame_age), "bold $text-primary"),
        )
        return right + "  " + clock if right.cell_length else clock


class WallScreen(Screen[None], inherit_bindings=False):
    # `?` and `g` only: what the wall shows, and the chart; nothing here acts on a pool.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "Keys", show=False),
        Binding("g", "chart", "Chart", show=False),
    ]
    AUTO_FOCUS = None
    app = getters.app(ZdashApp)
    page: var[int] = var(0, init=False)  # which page of tiles, when they do not all fit
    # The frame shown and the pool in detail: the detail widgets are bound to these.
    frame: var[Frame | None] = var(None, init=False)
    focus_pool: var[str | None] = var(None, init=False)

    def __init__(self, cycle_s: float = 15.0, chart: bool = False) -> None:
        super().__init__()
        self.cycle_s = cycle_s
        self.chart = chart
        self._tiles: dict[str, PoolTile] = {}
        self._layout: WallLayout | None = None

    def compose(self) -> ComposeResult:
        yield WallStatusBar()
        yield Static(id="wall-banner")
        yield Container(id="tiles")
        yield Static(id="wall-paging")
        yield Static(id="wall-findings")
        detail = {"frame": WallScreen.frame, "pool_name": WallScreen.focus_pool}  # the sickest pool
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
        """The next page of tiles every cycle_s, on the app's clock (only when they do not fit)."""
        while True:
            await self.app.clock.sleep(self.cycle_s)
            if self._layout is not None and self._layout.per_page < len(self._tiles_wanted()):
                self.page += 1

    def action_help(self) -> None:
        from zdash.ui.screens.help import WALL_TEXT, HelpScreen

        self.app.push_screen(HelpScreen(self, (), WALL_TEXT))

    def action_chart(self) -> None:
        self.chart = not self.chart
        self._draw()

    def watch_page(self) -> None:
        self._draw()

    def on_resize(self) -> None:
        self._layout = None
        self._draw()

    def _draw(self) -> None:
        try:
            self._draw_now()
        except NoMatches:
            # The screen is being torn down (the app quitting): its widgets are gone while the
            # pool cycle or a frame watcher still fires. Nothing to draw on; seen in 1 of 5 lab
            # fleet runs as a WorkerFailed at exit.
            return

    def _tiles_wanted(self) -> list[Pool]:
        frame = self.app.frame
        if frame is None:
            return []
        # Worst first: the tiles left to right, top to bottom, start with the sickest pool.
        return sorted(frame.snapshot.pools, key=lambda p: LEVEL_ORDER[tile_level(p, frame.findings)])

    def _draw_now(self) -> None:
        app = self.app
        frame: Frame | None = app.frame
        stale = stale_reason(app.silence, app.feed_error)
        used = self._banner(frame, stale)
        if frame is None:
            return
        pools = self._tiles_wanted()
        views = {p.name: tile_view(p, frame.findings, frame.snapshot, stale) for p in pools}
        words = {v.word for v in views.values()} | {WIDEST_USUAL}
        height = self.size.height - 1 - used  # the top line and the banner
        layout = plan_wall(len(pools), self.size.width, height - 1, lambda s: max(width(w, s) for w in words))
        shown = self._page(pools, layout, frame)
        self._sync_tiles([p.name for p in shown], layout)
        for p in shown:
            tile = self._tiles[p.name]
            tile.scale, tile.lines, tile.view = layout.scale, layout.lines, views[p.name]
        left = height - layout.rows * layout.tile_height - self._paging(len(shown), len(pools))
        left -= self._findings(frame, shown, left)
        self.frame = frame
        focus = pools[0] if pools else None
        self.focus_pool = focus.name if focus is not None else None
        self._detail(left, focus, frame)

    def _banner(self, frame: Frame | None, stale: str | None) -> int:
        """The big STALE when nothing is current, a line when some inputs are old; its rows."""
        cls, text = banner_text(frame, self.app.silence, self.app.feed_error)
        banner = self.query_one("#wall-banner", Static)
        banner.set_class(cls == "-stale", "-stale")
        banner.set_class(cls == "-failed", "-failed")
        if cls == "-failed" and stale is not None:
            scale = 2 if width(STALE_WORD, 2) <= self.size.width - 2 and self.size.height >= 40 else 1
            big = big_lines(STALE_WORD, scale) or (STALE_WORD,)
            banner.update(Content("\n").join([*map(Content, big), Content(text)]))
            return rows(scale) + 1
        banner.update(Content(text))
        return 1 if cls else 0

    def _page(self, pools: list[Pool], layout: WallLayout, frame: Frame) -> list[Pool]:
        """The pools whose tiles show now: all when they fit; else the sick ones always (paging
        through them only when they alone are too many) and the healthy ones in turns."""
        n = layout.per_page
        if n >= len(pools):
            return pools
        sick = [p for p in pools if tile_level(p, frame.findings) != "ok"]
        well = [p for p in pools if tile_level(p, frame.findings) == "ok"]
        if len(sick) >= n:
            start = (self.page * n) % len(sick)
            return (sick[start:] + sick[:start])[:n]
        room = n - len(sick)
        start = (self.page * room) % len(well)
        return sick + (well[start:] + well[:start])[:room]

    def _paging(self, shown: int, total: int) -> int:
        line = self.query_one("#wall-paging", Static)
        line.display = shown < total
        if shown < total:
            line.update(
                Content.styled(
                    f"{shown} of {total} pools shown, the sickest always; the others in turns every "
                    f"{self.cycle_s:g} s",
                    "$foreground-muted",
                )
            )
            return 1
        return 0

    def _sync_tiles(self, names: list[str], layout: WallLayout) -> None:
        box = self.query_one("#tiles", Container)
        if layout != self._layout:
            self._layout = layout
            box.styles.grid_size_columns = layout.columns
            box.styles.height = layout.rows * layout.tile_height
            box.styles.grid_rows = str(layout.tile_height)
        if names == list(self._tiles):
            return
        box.remove_children()
        self._tiles = {n: PoolTile(n) for n in names}
        box.mount_all(self._tiles.values())

    def _findings(self, frame: Frame, pools: list[Pool], room: int) -> int:
        """The findings above INFO that no tile leads with (each tile shows its pool's worst),
        with their pool when there are several; its rows (none when there is no room)."""
        box = self.query_one("#wall-findings", Static)
        on_tiles = {id(f[0]) for p in pools if (f := pool_findings(p, frame.findings))}
        rest = [f for f in frame.findings if f.severity > Severity.INFO and id(f) not in on_tiles]
        fit = min(WORST, room - DETAIL_MIN - 1)
        shown = rest[: max(fit, 0)]
        box.display = bool(shown)
        if not shown:
            return 0
        several = len(frame.snapshot.pools) > 1
        lines = [
            Content.assemble(
                (SEVERITY_ICON[f.severity], "bold " + ROLE_VAR[severity_role(f.severity)]),
                "  ",
                (f"{f.pool}: " if several and f.pool and not f.title.startswith(f.pool) else "") + f.title,
            )
            for f in shown
        ]
        more = len(rest) - len(shown)
        if more > 0:
            lines.append(Content.styled(f"+{more} more", "$foreground-muted"))
        box.update(Content("\n").join(lines))
        return len(lines) + 1  # and its rule

    def _detail(self, room: int, pool: Pool | None, frame: Frame) -> None:
        """The sickest pool's header and vdev rows where space is left; the chart when asked and
        there is room for it beside the rows."""
        show = room >= DETAIL_MIN and pool is not None
        self.query_one("#wall-detail-header").display = show
        table = self.query_one("#wall-vdevs", VdevTable)
        table.display = show
        chart = self.query_one("#wall-history")
        chart.display = show and self.chart and room >= DETAIL_MIN + CHART_MIN
        if show and pool is not None:
            self._reveal(pool, frame)

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


class WallView(WallScreen, inherit_bindings=False):
    """The wall opened from the dashboard (command palette): the same read-only view, and
    escape goes back to the dashboard."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "Keys", show=False),
        Binding("g", "chart", "Chart", show=False),
        Binding("escape", "app.pop_screen", "Back to the dashboard", show=False),
    ]
