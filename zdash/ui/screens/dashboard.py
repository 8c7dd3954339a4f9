"""The dashboard: status, pool header, vdev table, findings, history chart, a training
recording's description, replay bar.

Takes every frame from `app.frame` while it is the current screen; its widgets are bound to
its frame and pool (data_bind) and each redraws only what changed. Replay controls and recording are bound here and enabled by what
the feed can do (check_action), so the footer and `?` list only the keys that work: replay
controls on a recording, recording on the live host."""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from textual import events, getters, on
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Footer

from zdash.feed.frame import Frame
from zdash.feed.timeline import Timeline
from zdash.ui.app import ZdashApp
from zdash.ui.compositor import BandedCompositor
from zdash.ui.seek import SeekTarget
from zdash.ui.vdev_rows import shown_pool
from zdash.ui.widgets.about_panel import AboutPanel
from zdash.ui.widgets.event_panel import EventPanel
from zdash.ui.widgets.findings import FindingsTable
from zdash.ui.widgets.history_chart import HistoryChart
from zdash.ui.widgets.latency_panel import LatencyPanel
from zdash.ui.widgets.pool_header import PoolHeader
from zdash.ui.widgets.pool_tabs import PoolTabs
from zdash.ui.widgets.replay_bar import ReplayBar, marker_legend
from zdash.ui.widgets.status_bar import StatusBar
from zdash.ui.widgets.vdev_table import VdevTable

SHORT = 30  # rows below which the chart starts hidden
REPLAY_ACTIONS = {"pause", "step", "speed", "seek", "seek_edge", "event"}


def _action_name(action: str) -> str:
    return action.split("(", 1)[0]


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
        # One footer item for the pair: no room for two at 80 columns (N is in `?` and the palette).
        # Not a Binding.Group: Textual's compact footer glues a group's label to the next key.
        Binding("n", "event(1)", "Event", tooltip="Next event on the replay bar (pauses)"),
        Binding(
            "N", "event(-1)", "Prev event", show=False, tooltip="Previous event on the replay bar (pauses)"
        ),
        # Not priority bindings: a focused table's own home/end (first/last row) come first.
        Binding("home,less_than_sign", "seek_edge(0)", "Start of the recording", show=False),
        Binding("end,greater_than_sign", "seek_edge(1)", "End of the recording", show=False),
        Binding("r", "record", "Rec", tooltip="Start or stop recording the live data to a session file"),
        Binding("d", "datasets", "Datasets", tooltip="Datasets: clone graph and what destroy -R takes"),
        Binding("g", "chart", "Chart", tooltip="Show or hide the history chart"),
        Binding(
            "p",
            "peers",
            "Peers",
            show=False,
            tooltip="A disk's chart: against its vdev peers, or read/write",
        ),
        Binding("left_square_bracket", "pool(-1)", "Prev pool", show=False),
        Binding("right_square_bracket", "pool(1)", "Next pool", show=False),
        Binding("f", "focus_panel('findings')", "Go to the findings", show=False),
        Binding("v", "focus_panel('vdevs')", "Go to the vdevs", show=False),
        Binding("i", "about", "About", show=False, tooltip="Show or hide what this recording shows"),
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
    about_open: var[bool] = var(True)  # the description panel, until `i` hides it
    chart_peers: var[bool] = var(True)  # a disk's chart against its vdev peers (`p`)
    timeline: var[Timeline | None] = var(None, init=False)  # the replay's events (markers)

    def __init__(self) -> None:
        super().__init__()
        # The status bar (first row) and the replay bar (last) change every frame: drawn band
        # by band, a frame does not take every widget's every line (zdash.ui.compositor).
        self._compositor = BandedCompositor()
        self.chart_pref: bool | None = None  # None: shown when the terminal is tall enough

    def compose(self) -> ComposeResult:
        shown = (DashboardScreen.frame, DashboardScreen.pool_name)
        yield StatusBar()
        # The data in a body that takes what the description, the replay bar and the footer
        # leave: at 80x24 a long description no longer pushes the bar and its markers off.
        with Vertical(id="body"):
            yield PoolTabs(id="pool-tabs").data_bind(*shown)
            yield PoolHeader(id="pool-header").data_bind(*shown)
            yield VdevTable(id="vdevs").data_bind(*shown)
            yield FindingsTable(id="findings").data_bind(DashboardScreen.frame)
            yield HistoryChart(id="history").data_bind(
                *shown, DashboardScreen.selected, peers=DashboardScreen.chart_peers
            )
            yield LatencyPanel(id="latency").data_bind(*shown, DashboardScreen.selected)
        yield AboutPanel(id="about").data_bind(DashboardScreen.frame)
        yield EventPanel(id="event").data_bind(DashboardScreen.frame)
        yield ReplayBar(id="replay-bar").data_bind(DashboardScreen.frame, DashboardScreen.timeline)
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self.query_one("#vdevs").border_title = "Vdevs"
        self.query_one("#replay-bar").display = self.app.feed.can_control
        self.query_one("#about").display = False
        self.watch(self.app, "frame", self._take, init=True)
        self.watch(self.app, "timeline", self._take_timeline, init=True)
        self.query_one("#vdevs").focus()

    def on_resize(self) -> None:
        short = self.size.height < SHORT
        self.set_class(short, "-short")
        self.set_class(not (self.chart_pref if self.chart_pref is not None else not short), "-no-chart")

    def on_screen_resume(self) -> None:
        self._take(self.app.frame)  # catch up with frames that arrived while covered
        self._take_timeline(self.app.timeline)

    def _take_timeline(self, timeline: Timeline | None) -> None:
        if timeline is not None and self.is_current:
            self.timeline = timeline

    def _take(self, frame: Frame | None) -> None:
        if frame is None or not self.is_current:
            return
        pool = shown_pool(frame.snapshot, self.pool_name)
        self.frame = frame
        self.pool_name = pool.name if pool is not None else None
        self.multi_pool = len(frame.snapshot.pools) > 1
        self.has_description = bool(frame.description and frame.description.strip())

    def watch_has_description(self) -> None:
        self._show_about()

    def watch_about_open(self) -> None:
        self._show_about()

    def _show_about(self) -> None:
        self.query_one("#about").display = self.has_description and self.about_open

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

    def _why_not(self, action: str) -> str:
        """Why a key of this screen does nothing now: said when it is pressed, so a key never
        just does nothing (the footer and `?` list only the keys that work)."""
        feed = self.app.feed
        if action in REPLAY_ACTIONS:
            return "replay controls work on a recording: this is the live host (zdash replay FILE)"
        if action == "record":
            if feed.can_control:
                return "recording is of a live host: this is a recording already"
            return "recording is not possible here"
        if action == "pool":
            return "one pool only: no other pool to switch to"
        if action == "about":
            return "this recording carries no description"
        return ""

    def on_key(self, event: events.Key) -> None:
        for binding in self.BINDINGS:
            if not isinstance(binding, Binding) or event.key not in binding.key.split(","):
                continue
            name = _action_name(binding.action)
            if self.check_action(name, ()) is False:
                self.notify(f"{binding.description}: {self._why_not(name)}", timeout=4, markup=False)
                event.stop()
                return

    def palette_commands(self) -> Iterator[SystemCommand]:
        """zdash's own commands in the command palette (ctrl+p), only those that work now."""
        feed = self.app.feed
        yield SystemCommand(
            "Open the worst finding", "Its detail: why, evidence, what to do", self.open_worst
        )
        if self.multi_pool:
            yield SystemCommand("Next pool", "Show the next pool", lambda: self.action_pool(1))
            yield SystemCommand("Previous pool", "Show the previous pool", lambda: self.action_pool(-1))
        if feed.can_control:
            yield SystemCommand(
                "Seek…", "Go to a time, +30s, 50% or #tick of the recording", self.action_seek
            )
            yield SystemCommand(
                "Next event", "The next marker on the replay bar (pauses)", lambda: self.action_event(1)
            )
            yield SystemCommand(
                "Previous event", "The previous marker (pauses)", lambda: self.action_event(-1)
            )
        if feed.can_record:
            yield SystemCommand("Record", "Start or stop recording the live data", self.action_record)
        yield SystemCommand(
            "Wall view", "The read-only wall: tiles, worst first (escape returns)", self.open_wall
        )
        yield SystemCommand("Datasets and clones", "What zfs destroy -R would take", self.action_datasets)
        yield SystemCommand("Chart", "Show or hide the history chart", self.action_chart)

    def open_worst(self) -> None:
        from zdash.ui.screens.finding import FindingScreen

        findings = self.app.frame.findings if self.app.frame else ()
        if not findings:
            self.notify("no findings: nothing above what the table shows")
            return
        self.app.push_screen(FindingScreen(findings[0]))  # the feed sorts them worst first

    def open_wall(self) -> None:
        from zdash.ui.screens.wall import WallView

        self.app.push_screen(WallView(self.app.settings.wall_cycle_s, self.app.settings.wall_chart))

    def action_focus_panel(self, panel: str) -> None:
        widget = self.query_one(f"#{panel}")
        if isinstance(widget, FindingsTable):
            widget.rest_on_worst()  # the findings are worst first: `f` always goes to the worst
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
        from zdash.ui.screens.help import LEGEND, HelpScreen

        legend = LEGEND
        if self.app.feed.can_control:
            legend += "\n" + marker_legend(self.app.theme_variables)
        self.app.push_screen(HelpScreen(self, legend=legend))

    def action_about(self) -> None:
        self.about_open = not self.about_open

    def action_event(self, step: int) -> None:
        """To the next (step 1) or previous (-1) tick with an event, paused, saying what it is."""
        timeline, pos = self.timeline, self.frame.position if self.frame else None
        if pos is None:
            return
        if timeline is None:
            self.notify("still looking for this recording's events…", timeout=3)
            return
        index = timeline.next_index(pos.index) if step > 0 else timeline.previous_index(pos.index)
        if index is None:
            where = "after" if step > 0 else "before"
            more = ""
            if timeline.stopped and step > 0:
                more = f" found (the search for events stopped at tick {timeline.scanned + 1})"
            elif not timeline.complete and step > 0:
                more = " yet (still looking)"
            self.notify(f"no event {where} this tick{more}", severity="warning", timeout=3, markup=False)
            return
        self.app.feed.jump(index)
        # In a panel of the layout, not a toast: the figures the event changed stay in view.
        self.query_one(EventPanel).show(index, timeline.at(index))

    # -- pools and chart --------------------------------------------------------------------
    def action_chart(self) -> None:
        shown = not self.has_class("-no-chart")
        self.chart_pref = not shown
        self.set_class(shown, "-no-chart")  # shown again, the chart draws itself (on_show)

    def action_peers(self) -> None:
        self.chart_peers = not self.chart_peers
        if not self.chart_peers:
            self.notify("chart: read and write", timeout=3)
        elif self.has_class("-no-chart"):
            self.notify("chart: a disk against its vdev peers (g shows the chart)", timeout=3)
        else:
            self.notify("chart: a disk against its vdev peers (select a disk row)", timeout=3)

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
