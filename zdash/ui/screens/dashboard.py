"""The dashboard: status, pool header, vdev table, findings, history chart, replay bar.

Takes every frame from `app.frame` while it is the current screen; its widgets are bound to
its frame and pool (data_bind) and each redraws only what changed. Replay controls and recording are bound here and enabled by what
the feed can do (check_action), so the footer and `?` list only the keys that work: replay
controls on a recording, recording on the live host."""

from __future__ import annotations

from typing import ClassVar

from textual import getters, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Footer

from zdash.feed.frame import Frame
from zdash.ui.app import ZdashApp
from zdash.ui.seek import SeekTarget
from zdash.ui.vdev_rows import shown_pool
from zdash.ui.widgets.findings import FindingsTable
from zdash.ui.widgets.history_chart import HistoryChart
from zdash.ui.widgets.pool_header import PoolHeader
from zdash.ui.widgets.pool_tabs import PoolTabs
from zdash.ui.widgets.replay_bar import ReplayBar
from zdash.ui.widgets.status_bar import StatusBar
from zdash.ui.widgets.vdev_table import VdevTable

SHORT = 30  # rows below which the chart starts hidden
REPLAY_ACTIONS = {"pause", "step", "speed", "seek", "seek_edge"}


class DashboardScreen(Screen[None]):
    app = getters.app(ZdashApp)

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "Keys", tooltip="This help: the keys that apply now"),
        Binding("space", "pause", "Play/Pause", tooltip="Pause or resume the replay"),
        Binding("comma", "step(-1)", "Back", tooltip="One tick back (pauses)"),
        Binding("full_stop", "step(1)", "Fwd", tooltip="One tick forward (pauses)"),
        Binding("minus", "speed(-1)", "Slower", show=False, tooltip="Half the replay speed"),
        Binding("plus,equals_sign", "speed(1)", "Faster", show=False, tooltip="Double the replay speed"),
        Binding("t", "seek", "Seek", tooltip="Seek to a time, +30s, 50% or #tick"),
        # Not priority bindings: a focused table's own home/end (first/last row) come first.
        Binding("home,less_than_sign", "seek_edge(0)", "Start of the recording", show=False),
        Binding("end,greater_than_sign", "seek_edge(1)", "End of the recording", show=False),
        Binding("r", "record", "Rec", tooltip="Start or stop recording the live data to a session file"),
        Binding("d", "datasets", "Datasets", tooltip="Datasets: clone graph and what destroy -R takes"),
        Binding("g", "chart", "Chart", tooltip="Show or hide the history chart"),
        Binding("left_square_bracket", "pool(-1)", "Prev pool", show=False),
        Binding("right_square_bracket", "pool(1)", "Next pool", show=False),
        Binding("f", "focus_panel('findings')", "Go to the findings", show=False),
        Binding("v", "focus_panel('vdevs')", "Go to the vdevs", show=False),
        Binding("i", "about", "About this recording", show=False),
        Binding("q", "app.quit", "Quit", tooltip="Quit zdash"),
    ]

    # The frame on show (the app's, while this screen is current) and which pool it shows: the
    # widgets are bound to these (data_bind), so one assignment per frame redraws them all.
    frame: var[Frame | None] = var(None, init=False)
    pool_name: var[str | None] = var(None, init=False)
    selected: var[str | None] = var(None, init=False)  # the vdev row under the cursor
    # What decides whether `[` `]` and `i` apply: bindings=True re-checks the keys on a change.
    multi_pool: var[bool] = var(False, bindings=True)
    has_description: var[bool] = var(False, bindings=True)

    def __init__(self) -> None:
        super().__init__()
        self.chart_pref: bool | None = None  # None: shown when the terminal is tall enough

    def compose(self) -> ComposeResult:
        shown = (DashboardScreen.frame, DashboardScreen.pool_name)
        yield StatusBar()
        yield PoolTabs(id="pool-tabs").data_bind(*shown)
        yield PoolHeader(id="pool-header").data_bind(*shown)
        yield VdevTable(id="vdevs").data_bind(*shown)
        yield FindingsTable(id="findings").data_bind(DashboardScreen.frame)
        yield HistoryChart(id="history").data_bind(*shown, DashboardScreen.selected)
        yield ReplayBar(id="replay-bar").data_bind(DashboardScreen.frame)
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self.query_one("#vdevs").border_title = "Vdevs"
        self.query_one("#replay-bar").display = self.app.feed.can_control
        self.watch(self.app, "frame", self._take, init=True)
        self.query_one("#vdevs").focus()

    def on_resize(self) -> None:
        short = self.size.height < SHORT
        self.set_class(short, "-short")
        self.set_class(not (self.chart_pref if self.chart_pref is not None else not short), "-no-chart")

    def on_screen_resume(self) -> None:
        self._take(self.app.frame)  # catch up with frames that arrived while covered

    def _take(self, frame: Frame | None) -> None:
        if frame is None or not self.is_current:
            return
        pool = shown_pool(frame.snapshot, self.pool_name)
        self.frame = frame
        self.pool_name = pool.name if pool is not None else None
        self.multi_pool = len(frame.snapshot.pools) > 1
        self.has_description = bool(frame.description)

    @on(VdevTable.RowHighlighted, "#vdevs")
    def _vdev_highlighted(self, event: VdevTable.RowHighlighted) -> None:
        self.selected = event.key

    @on(FindingsTable.Open)
    def _open_finding(self, event: FindingsTable.Open) -> None:
        from zdash.ui.screens.finding import FindingScreen

        self.app.push_screen(FindingScreen(event.finding))

    @on(ReplayBar.Seek)
    def _bar_seek(self, event: ReplayBar.Seek) -> None:
        pos = self.app.frame.position if self.app.frame else None
        if pos is not None:
            self.app.feed.seek_time(pos.start + event.fraction * (pos.end - pos.start))

    # -- keys: whether each applies comes from what the feed can do -------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        feed = self.app.feed
        if action in REPLAY_ACTIONS:
            return feed.can_control
        if action == "record":
            return self.app.can_record
        if action == "pool":
            return self.multi_pool
        if action == "about":
            return self.has_description
        return True

    def action_focus_panel(self, panel: str) -> None:
        widget = self.query_one(f"#{panel}")
        if isinstance(widget, FindingsTable) and not widget.has_focus:
            widget.move_cursor(row=0)  # the findings are worst first: open on the worst
        widget.focus()

    def action_pause(self) -> None:
        self.app.feed.toggle_pause()

    def action_step(self, n: int) -> None:
        self.app.feed.step(n)

    def action_speed(self, direction: int) -> None:
        self.app.feed.change_speed(direction)

    def action_seek_edge(self, end: int) -> None:
        self.app.feed.seek_index(10**9 if end else 0)

    def action_seek(self) -> None:
        from zdash.ui.screens.seek import SeekScreen

        pos = self.app.frame.position if self.app.frame else None
        if pos is not None:
            self.app.push_screen(SeekScreen(pos), self._seek)

    def _seek(self, target: SeekTarget | None) -> None:
        if target is None:
            return
        kind, value = target
        if kind == "index":
            self.app.feed.seek_index(int(value))
        else:
            self.app.feed.seek_time(value)

    def action_record(self) -> None:
        self.app.toggle_recording()

    def action_datasets(self) -> None:
        from zdash.ui.screens.datasets import DatasetsScreen

        self.app.push_screen(DatasetsScreen())

    def action_help(self) -> None:
        from zdash.ui.screens.help import HelpScreen

        self.app.push_screen(HelpScreen(self))

    def action_about(self) -> None:
        from zdash.ui.screens.help import AboutScreen

        if self.app.frame and self.app.frame.description:
            self.app.push_screen(AboutScreen(self.app.frame))

    # -- pools and chart --------------------------------------------------------------------
    def action_chart(self) -> None:
        shown = not self.has_class("-no-chart")
        self.chart_pref = not shown
        self.set_class(shown, "-no-chart")  # shown again, the chart draws itself (on_show)

    def action_pool(self, step: int) -> None:
        frame = self.frame
        if frame is None or not frame.snapshot.pools:
            return
        names = [p.name for p in frame.snapshot.pools]
        i = names.index(self.pool_name) if self.pool_name in names else 0
        self.select_pool((i + step) % len(names))

    def action_select_pool(self, index: int) -> None:
        self.select_pool(index)

    def select_pool(self, index: int) -> None:
        frame = self.frame
        if frame is not None and 0 <= index < len(frame.snapshot.pools):
            self.pool_name = frame.snapshot.pools[index].name
