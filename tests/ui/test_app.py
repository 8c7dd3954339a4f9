"""Pilot tests: the app driven by keys on recordings (the lab fixtures when present)."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from tests.capture_ticks import capture_tick
from tests.feed.clock import ManualClock
from tests.feed.test_feed import FakeSource
from tests.ui.conftest import first_tick, play_until, replay_app, table_text, toasts, until, wait_frame
from zdash.checks.registry import CheckEngine
from zdash.config import CheckConfig
from zdash.feed.live import LiveFeed
from zdash.resources import ResourceError
from zdash.ui.app import ZdashApp
from zdash.ui.big_word import big_lines
from zdash.ui.screens.dashboard import DashboardScreen
from zdash.ui.screens.datasets import DatasetsScreen
from zdash.ui.screens.finding import FindingScreen
from zdash.ui.screens.help import HelpScreen
from zdash.ui.screens.wall import WallScreen
from zdash.ui.widgets.findings import SHRINK_AFTER_S, FindingsTable
from zdash.ui.widgets.status_bar import StatusBar


def _status(app) -> str:
    return app.screen.query_one(StatusBar).text


async def _open_finding(pilot, check: str) -> FindingScreen:
    app = pilot.app
    table = app.screen.query_one(FindingsTable)
    await pilot.press("f")
    row = next(i for i, f in enumerate(app.frame.findings) if f.check == check)
    table.move_cursor(row=row)
    await pilot.press("enter")
    await pilot.pause()
    assert isinstance(app.screen, FindingScreen)
    return app.screen


async def test_deranged_disk_finding_appears_marks_the_leaf_and_opens(recordings):
    path = recordings["deranged"]
    app = replay_app(path, start=first_tick(path, "deranged_disk"))
    async with app.run_test(size=(120, 40)) as pilot:
        frame = await wait_frame(pilot, lambda f: any(x.check == "deranged_disk" for x in f.findings))
        finding = next(x for x in frame.findings if x.check == "deranged_disk")
        rows = app.screen.query_one(FindingsTable)
        assert rows.row_count == len(frame.findings)
        shown = table_text(app.screen.query_one("#vdevs"))
        marked = [cells[0] for cells in shown.values() if "! " in cells[0]]
        assert len(marked) == 1 and marked[0].split("! ")[1] in finding.subject  # the disk named
        screen = await _open_finding(pilot, "deranged_disk")
        body = str(screen.query_one("#finding-body").render())
        assert "Why" in body and "Evidence" in body and "Suggested actions" in body
        assert finding.why.split()[0] in body and "$ zpool" in body  # argv shown, read-only
        await pilot.press("escape")
        assert isinstance(app.screen, DashboardScreen)


async def test_f_then_enter_opens_the_worst_finding_and_the_header_leads_with_it(recordings):
    """Watched from before the fault: the INFO notes come first, the WARNING appears above them
    later; `f` Enter must open the WARNING, and the header's first line name it."""
    path = recordings["deranged"]
    app = replay_app(path, start=first_tick(path, "deranged_disk") - 1, playing=False)
    async with app.run_test(size=(120, 40)) as pilot:
        before = await wait_frame(pilot)
        assert before.findings and all(f.check != "deranged_disk" for f in before.findings)
        await pilot.press("full_stop")
        frame = await wait_frame(pilot, lambda f: any(x.check == "deranged_disk" for x in f.findings))
        worst = frame.findings[0]
        assert worst.check == "deranged_disk"
        header = str(app.screen.query_one("#pool-header").render()).splitlines()[0]
        assert "▲ WARN" in header and worst.title[:40] in header
        await pilot.press("f", "enter")
        screen = await until(pilot, lambda: isinstance(app.screen, FindingScreen) and app.screen)
        assert screen.finding.check == "deranged_disk"


async def test_deranged_mirror_key_by_key_enter_opens_the_warning_that_came_after_f():
    """As a newcomer plays the demo: `f` at the first tick (only INFO notes yet), `space`, and
    Enter once the WARN has appeared above them. The cursor rested on the worst finding, so it
    moved up with the WARN: Enter opens the slow disk, and no INFO's plan (a scrub, on a pool a
    sick disk drags) is one keypress away."""
    from zdash.scenarios import path_of

    app = replay_app(path_of("deranged-mirror"), start=0, playing=False)
    async with app.run_test(size=(120, 40)) as pilot:
        first = await wait_frame(pilot)
        assert first.findings and all(f.severity == 0 for f in first.findings)  # notes only
        await pilot.press("f")
        table = app.screen.query_one(FindingsTable)
        assert table.has_focus and table.cursor_row == 0
        await pilot.press("space")  # play
        frame = await play_until(pilot, lambda f: any(x.check == "deranged_disk" for x in f.findings), 30)
        assert frame.findings[0].check == "deranged_disk" and frame.findings[0].severity == 1
        await pilot.press("enter")
        screen = await until(pilot, lambda: isinstance(app.screen, FindingScreen) and app.screen)
        assert screen.finding.check == "deranged_disk" and screen.finding.severity == 1
        # The plan keys on this screen are the WARN's own actions: no scrub among them.
        plans = [a.action for a in screen.finding.actions if a.action]
        assert plans and screen.plans == len(plans) and not any("scrub" in p for p in plans)
        assert "$ zpool scrub" not in str(screen.query_one("#finding-body").render())


async def test_a_cursor_the_admin_moved_stays_on_their_finding(recordings):
    """Once the admin moves the cursor, a finding arriving above does not take it away."""
    path = recordings["deranged"]
    app = replay_app(path, start=first_tick(path, "deranged_disk") - 1, playing=False)
    async with app.run_test(size=(120, 40)) as pilot:
        before = await wait_frame(pilot)
        assert len(before.findings) >= 2
        await pilot.press("f", "down")
        table = app.screen.query_one(FindingsTable)
        chosen = before.findings[1]
        await pilot.press("full_stop")
        frame = await wait_frame(pilot, lambda f: any(x.check == "deranged_disk" for x in f.findings))
        assert frame.findings[0].check == "deranged_disk"
        assert table.cursor_row == [f.key for f in frame.findings].index(chosen.key)
        await pilot.press("f")  # `f` again: back on the worst
        assert table.cursor_row == 0


async def test_a_finding_that_goes_leaves_the_chart_as_it_was_for_a_minute():
    """The demo's slow disk comes and goes every loop: the chart under the findings keeps its
    size when it goes (the table keeps the rows it grew to, blank), and gets the row back once
    the table has shown fewer findings for SHRINK_AFTER_S."""
    from zdash.scenarios import path_of

    app = replay_app(path_of("deranged-mirror"), start=16, playing=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_frame(pilot, lambda f: len(f.findings) == 3)
        table, chart = app.screen.query_one(FindingsTable), app.screen.query_one("#history")
        await until(pilot, lambda: table.row_count == 3 and table.size.height == 3)
        tall = chart.size.height
        await pilot.press("comma", "comma")  # two ticks back: before the slow disk, two findings
        await wait_frame(pilot, lambda f: f.position.index == 14 and len(f.findings) == 2)
        await until(pilot, lambda: table.row_count == 2)
        assert table.size.height == 3 and chart.size.height == tall
        app.clock.advance(SHRINK_AFTER_S)
        await pilot.press("comma")
        await wait_frame(pilot, lambda f: f.position.index == 13)
        await until(pilot, lambda: chart.size.height == tall + 1, what="the chart given the row back")
        assert table.size.height == 2


def _layouts_counted(screen) -> list[tuple[object, ...]]:
    """The screen's layouts from now on, one entry each (its _refresh_layout counted)."""
    layouts: list[tuple[object, ...]] = []
    lay_out = screen._refresh_layout

    def counted(*args: object, **kwargs: object) -> None:
        layouts.append(args)
        lay_out(*args, **kwargs)

    screen._refresh_layout = counted
    return layouts


async def test_a_finding_that_goes_while_the_rows_are_held_redraws_the_table_alone():
    """The slow disk's finding goes while the table holds three rows: the table repaints its
    rows, and the screen is not laid out again (a pass over every widget, the plots redrawn)."""
    from zdash.scenarios import path_of

    app = replay_app(path_of("deranged-mirror"), start=16, playing=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_frame(pilot, lambda f: len(f.findings) == 3)
        table = app.screen.query_one(FindingsTable)
        await until(pilot, lambda: table.row_count == 3 and table.size.height == 3)
        await pilot.pause()
        layouts = _layouts_counted(app.screen)
        await pilot.press("comma", "comma")
        frame = await wait_frame(pilot, lambda f: f.position.index == 14 and len(f.findings) == 2)
        await until(pilot, lambda: table.row_count == 2 and table.virtual_size.height == 2)
        await pilot.pause()
        assert layouts == [] and table.size.height == 3
        shown = [str(table.get_row_at(i)[1]) for i in range(table.row_count)]
        assert shown == [f.title for f in frame.findings]


async def test_a_finding_that_comes_lays_the_screen_out_once_and_the_plots_fill_their_new_height():
    """The slow disk's finding arrives: the findings table grows and the chart under it loses
    rows. One layout of the screen (the sizes the layout gave ask for no second one), and each
    plot is drawn again at its new height."""
    from zdash.scenarios import path_of
    from zdash.ui.widgets.plot import Plot

    app = replay_app(path_of("deranged-mirror"), start=14, playing=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_frame(pilot, lambda f: len(f.findings) == 2)
        table, chart = app.screen.query_one(FindingsTable), app.screen.query_one("#history")
        await until(pilot, lambda: table.row_count == 2)
        await pilot.pause()
        tall = chart.size.height
        layouts = _layouts_counted(app.screen)
        await pilot.press("full_stop", "full_stop")
        await wait_frame(pilot, lambda f: len(f.findings) == 3)
        await until(pilot, lambda: table.row_count == 3 and chart.size.height == tall - 1)
        await pilot.pause()
        assert len(layouts) == 1
        plots = [p for p in chart.query(Plot) if p.display]
        drawn = [p.render().plain for p in plots]
        assert [len(text.rstrip("\n").split("\n")) for text in drawn] == [p.size.height for p in plots]


async def test_a_finding_whose_title_moves_repaints_its_row_alone(monkeypatch):
    """The slow disk's title moves every tick (its %util against its peers'): its row is
    repainted with the new title, the other rows and the border kept as drawn."""
    from textual.widget import Widget

    from zdash.scenarios import path_of

    app = replay_app(path_of("deranged-mirror"), start=16, playing=False)
    async with app.run_test(size=(120, 40)) as pilot:
        before = await wait_frame(pilot, lambda f: len(f.findings) == 3)
        table = app.screen.query_one(FindingsTable)
        await until(pilot, lambda: table.row_count == 3)
        await pilot.pause()
        refreshed: list[tuple[object, ...]] = []
        refresh = Widget.refresh

        def recorded(widget, *regions, **flags):
            if widget is table:
                refreshed.append(regions)
            return refresh(widget, *regions, **flags)

        monkeypatch.setattr(Widget, "refresh", recorded)
        await pilot.press("full_stop")
        frame = await wait_frame(pilot, lambda f: f.position.index == before.position.index + 1)
        worst = frame.findings[0]
        assert worst.key == before.findings[0].key and worst.title != before.findings[0].title
        await until(pilot, lambda: str(table.get_row_at(0)[1]) == worst.title)
        assert refreshed and all(regions for regions in refreshed)  # rows, never the whole table
        assert {r.y for regions in refreshed for r in regions} == {0}  # the worst finding's row


async def test_the_findings_table_draws_what_datatable_draws_as_titles_move():
    """The table keeps a drawn cell while it is the same cell (a live finding's new title no
    longer draws its severity cell anew): tick by tick, focused and not, the cursor moved, its
    lines are DataTable's own drawing of the same rows, segment by segment."""
    from textual.geometry import Region
    from textual.widgets import DataTable

    from zdash.scenarios import path_of

    app = replay_app(path_of("deranged-mirror"), start=16, playing=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_frame(pilot, lambda f: len(f.findings) == 3)
        table = app.screen.query_one(FindingsTable)
        await until(pilot, lambda: table.row_count == 3)

        def drawn(own: bool) -> list[list[tuple[str, object]]]:
            table._clear_caches()
            if own:  # DataTable's drawing: every cell drawn anew
                table._drawn_cells.clear()
                render_cell, table._render_cell = (
                    table._render_cell,
                    lambda *a, **k: DataTable._render_cell(table, *a, **k),
                )
            try:
                lines = table.render_lines(Region(0, 0, *table.size))
            finally:
                if own:
                    table._render_cell = render_cell
            return [[(s.text, s.style) for s in line] for line in lines]

        titles = set()
        for step in range(6):
            if step == 2:
                await pilot.press("f")  # the table focused: the cursor's own colours
            if step == 4:
                await pilot.press("down")
            last = app.frame
            await pilot.press("full_stop")
            frame = await wait_frame(pilot, lambda f, last=last: f is not last)
            await until(
                pilot, lambda frame=frame: str(table.get_row_at(0)[1]).endswith(frame.findings[0].title[-8:])
            )
            await pilot.pause()
            titles.add(frame.findings[0].title)
            table._clear_caches()
            table.render_lines(Region(0, 0, *table.size))  # the kept cells drawn, as a frame does
            assert drawn(own=False) == drawn(own=True)
        assert len(titles) > 1  # the worst finding's title moved while drawn


async def test_degraded_findings_appear_and_open(recordings):
    path = recordings["degraded"]
    app = replay_app(path, start=first_tick(path, "health"))
    async with app.run_test(size=(120, 40)) as pilot:
        frame = await wait_frame(pilot, lambda f: any(x.check == "health" for x in f.findings))
        assert any(p.state == "DEGRADED" for p in frame.snapshot.pools)
        screen = await _open_finding(pilot, "health")
        assert "Why" in str(screen.query_one("#finding-body").render())


@pytest.mark.slow
async def test_pause_step_seek_move_the_replay_time(sessions):
    app = replay_app(sessions["degraded"], start=0, playing=False)
    async with app.run_test(size=(120, 40)) as pilot:
        f0 = await wait_frame(pilot)
        times = app.feed.times
        assert f0.position.index == 0 and "❚❚" in _status(app)
        await pilot.press("full_stop")
        f1 = await wait_frame(pilot, lambda f: f.position.index == 1)
        assert f1.time == times[1] and f1 is not f0
        await pilot.press("full_stop", "full_stop", "comma")
        assert (await wait_frame(pilot, lambda f: f.position.index == 2)).time == times[2]
        await pilot.press("greater_than_sign")  # > and <: the recording's ends, whatever has focus
        await wait_frame(pilot, lambda f: f.position.at_end)
        await pilot.press("less_than_sign")
        await wait_frame(pilot, lambda f: f.position.index == 0)
        # home/end belong to the focused table: the first/last finding, the replay stays put
        await pilot.press("f", "end")
        findings = app.screen.query_one(FindingsTable)
        assert findings.row_count > 1 and findings.cursor_row == findings.row_count - 1
        await pilot.press("home")
        assert findings.cursor_row == 0 and app.frame.position.index == 0
        await pilot.press("full_stop", "end")
        await wait_frame(pilot, lambda f: f.position.index == 1)
        await pilot.pause()
        assert app.frame.position.index == 1 and findings.cursor_row == findings.row_count - 1
        await pilot.press("less_than_sign")
        await wait_frame(pilot, lambda f: f.position.index == 0)
        # seek to a tick, then to a clock time typed as the status bar shows it
        await pilot.press("t")
        await pilot.press(*"#5", "enter")
        assert (await wait_frame(pilot, lambda f: f.position.index == 4)).time == times[4]
        import time as _t

        await pilot.press("t")
        await pilot.press(*_t.strftime("%H:%M:%S", _t.localtime(times[8])), "enter")
        assert (await wait_frame(pilot, lambda f: f.position.index == 8)).time == times[8]
        assert times[8] and "03:40:08" in _status(app)
        # a bad seek says why and stays open
        await pilot.press("t", *"later", "enter")
        assert "cannot read" in str(app.screen.query_one("#seek-error").render())
        await pilot.press("escape")
        # resume: time moves on by itself (here: the test's clock); speed shows in the status bar
        await pilot.press("plus", "plus", "plus", "plus", "space")
        await wait_frame(pilot, lambda f: f.position.playing and f.position.speed == 16)
        assert "16×" in _status(app) and app.frame.position.index == 8
        await play_until(pilot, lambda f: f.position.index > 8)  # it played on by itself
        await pilot.press("space")
        await wait_frame(pilot, lambda f: not f.position.playing)


async def test_live_dashboard_says_live_and_hides_replay_keys(tmp_path):
    ticks = [capture_tick("scrub", "scrubbing", 1_700_000_000.0 + k) for k in range(4)]
    feed = LiveFeed(CheckConfig(), 1.0, (), source_factory=lambda: FakeSource(ticks))
    app = ZdashApp(feed, record_dir=str(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_frame(pilot, lambda f: len(f.series) == 4)
        assert "LIVE" in _status(app) and "lab" in _status(app)
        keys = {b.binding.action for b in app.screen.active_bindings.values()}
        assert "record" in keys and not keys & {"pause", "step(1)", "seek"}
        assert "scrub" in str(app.screen.query_one("#pool-header").render())


async def test_live_recording_badge_and_no_data_banner(tmp_path):
    ticks = [capture_tick("healthy", None, 1_700_000_000.0 + k) for k in range(200)]

    gate = asyncio.Event()

    class Gated(FakeSource):
        async def ticks(self):
            for n, t in enumerate(self._ticks):
                if n == 2:
                    await gate.wait()  # two ticks, then wait for the test to press r
                yield t
            await asyncio.sleep(3600)  # then the host stops answering

    clock = ManualClock()
    feed = LiveFeed(CheckConfig(), 1.0, (), source_factory=lambda: Gated(ticks[:6]))
    app = ZdashApp(feed, record_dir=str(tmp_path), clock=clock)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_frame(pilot, lambda f: len(f.series) == 2)
        await pilot.press("r")
        gate.set()
        await wait_frame(pilot, lambda f: f.recording is not None)
        assert "● REC" in _status(app) and "zdash-lab-" in _status(app)
        await wait_frame(pilot, lambda f: len(f.series) == 6)
        assert "NO DATA" not in _status(app)
        await clock.sleeping()  # the app's silence check
        clock.advance(30.0)  # 30 s without a frame
        await until(pilot, lambda: "NO DATA" in _status(app), what="the NO DATA banner")
        assert "30s" in _status(app)
        await pilot.press("r")
    recorded = list(tmp_path.glob("zdash-lab-*.zdash"))
    assert len(recorded) == 1
    # The dashboard records format 2: it replays, from the first recorded tick, with the pool.
    from zdash.sources.recording import open_recording

    rec = open_recording(str(recorded[0]))
    assert rec.count() == 4 and rec.header.description == "recorded from the dashboard"


@pytest.mark.parametrize("wall", [False, True], ids=["dashboard", "wall"])
async def test_ctrl_c_quits(recordings, wall):
    """As in top or htop: Textual only said how to quit (issue #25)."""
    app = replay_app(recordings["deranged"], wall=wall)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_frame(pilot)
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.return_code == 0 and not app.is_running


def _help_text(screen: HelpScreen) -> str:
    return "\n".join(str(w.render()) for w in screen.query("Static"))


async def test_wall_mode_binds_no_action(recordings):
    app = replay_app(recordings["deranged"], playing=True, loop=True, wall=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_frame(pilot)
        assert isinstance(app.screen, WallScreen) and app.theme == "zdash-wall"
        actions = {b.binding.action for b in app.screen.active_bindings.values()}
        # the App's ctrl+q / ctrl+c, ? and g (the chart: a view, never an action on a pool)
        assert actions <= {"quit", "help_quit", "help", "chart"}, actions
        assert not app.use_command_palette
        frame = app.frame
        assert frame.position.playing and frame.position.speed == 1.0
        await pilot.press("space", "comma", "t", "d", "r", "ctrl+p", "q", "enter")
        await pilot.pause()
        assert isinstance(app.screen, WallScreen) and len(app.screen_stack) == 1
        await pilot.press("question_mark")  # ? answers: what the wall is, and that it is read-only
        assert isinstance(app.screen, HelpScreen) and "read-only" in _help_text(app.screen)
        await pilot.press("escape")
        assert isinstance(app.screen, WallScreen)
        assert app.return_code is None
        # no key reached the replay: still playing at 1x where it was (it moves only with the clock)
        assert app.feed.playing and app.feed.speed == 1.0 and app.frame is frame
        tile = app.screen.query_one("PoolTile")
        # the verdict, big: the tile's first rows are its word in block letters
        assert tile.text.startswith("\n".join(big_lines(tile.view.word, tile.scale))), tile.text


async def test_wall_banner_when_data_is_stale(sessions):
    app = replay_app(sessions["healthy"], wall=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_frame(pilot)
        app.feed_error = "FileNotFoundError: zpool"
        await pilot.pause()
        banner = app.screen.query_one("#wall-banner")
        assert banner.has_class("-failed") and "FAILED" in str(banner.render())
        # nothing on the wall is current: a big STALE across it, and every tile says STALE
        assert str(banner.render()).startswith("\n".join(big_lines("? STALE", 1)))
        tile = app.screen.query_one("PoolTile")
        assert tile.view.word == "? STALE" and tile.view.subject.startswith("data collection failed")
        assert tile.view.why.startswith("last seen ● OK")
        app.feed_error = None
        await pilot.pause()
        assert not banner.has_class("-failed") and not banner.has_class("-stale")
        assert tile.view.word == "● OK"


async def test_demo_starts_where_there_is_no_zpool(sessions, monkeypatch, capsys):
    """`zdash` on a host without zpool: one line on stderr, then the demo in the UI."""
    from zdash import cli

    monkeypatch.setenv("ZDASH_DEMO", sessions["deranged"])
    monkeypatch.setenv("PATH", "/nonexistent")
    started = []
    monkeypatch.setattr(ZdashApp, "run", lambda self: started.append(self))
    monkeypatch.setattr("zdash.commands.dashboard.has_terminal", lambda: True)
    assert cli.main([]) == 0
    assert "no `zpool`" in capsys.readouterr().err
    (app,) = started
    assert app.feed.mode == "demo"
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_frame(pilot)
        status = _status(app)
        assert "DEMO" in status and "no zpool on this host" in status


async def test_datasets_view_shows_what_destroy_R_takes(sessions):
    app = replay_app(sessions["clones"])
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_frame(pilot)
        await pilot.press("d")
        assert isinstance(app.screen, DatasetsScreen)
        detail = await until(
            pilot,
            lambda: (d := str(app.screen.query_one("#dataset-detail").render())) and "destroy -R" in d and d,
            what="the dataset detail",
        )
        assert "zfs destroy -R clones/base@s1" in detail
        assert "clones/clone1" in detail and "clones/clone2" in detail
        await pilot.press("question_mark")  # its own keys and legend, not the dashboard's
        assert isinstance(app.screen, HelpScreen)
        shown = _help_text(app.screen)
        assert "Back to the dashboard" in shown and "destroy -R" in shown
        assert "Vdev table" not in shown and "Pause or resume" not in shown
        await pilot.press("escape", "escape")
        assert isinstance(app.screen, DashboardScreen)


async def test_help_lists_the_keys_that_apply(sessions):
    app = replay_app(sessions["healthy"])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_frame(pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        text = " ".join(str(w.render()) for w in app.screen.query("Static"))
        assert "Pause or resume" in text and "Seek to a time" in text
        assert "recording the live data" not in text  # r applies to live only
        await pilot.press("escape")
        assert isinstance(app.screen, DashboardScreen)


async def test_themes_from_the_themes_folder(sessions):
    app = replay_app(sessions["healthy"], theme="zdash-light")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_frame(pilot)
        assert app.theme == "zdash-light" and not app.current_theme.dark
        assert set(app.available_themes) == {"zdash-dark", "zdash-light", "zdash-wall"}
        app.theme = "zdash-dark"  # as the command palette does
        await pilot.pause()
        assert app.current_theme.dark
    with pytest.raises(ResourceError, match="unknown theme 'nope'"):
        replay_app(sessions["healthy"], theme="nope")


async def test_theme_from_the_config_file(sessions, tmp_path, monkeypatch):
    from zdash.config import read_config

    (tmp_path / "zdash").mkdir()
    (tmp_path / "zdash" / "config.yaml").write_text("ui:\n  theme: zdash-light\n  wall_cycle_s: 5\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    settings = read_config().ui
    assert settings.theme == "zdash-light" and settings.wall_cycle_s == 5.0
    app = replay_app(sessions["healthy"], settings=settings)
    assert app.theme == "zdash-light"


def test_bundled_demo_recording_replays():
    """The demo (a lab recording in fixtures/) is what a newcomer sees first: it must be there,
    replay, and show its incident (a deranged disk) at some tick."""
    from zdash.fold.recording import load_replay
    from zdash.scenarios import demo_recording

    demo = str(demo_recording())
    header, snaps = load_replay(demo)
    assert header.description and first_tick(demo, "deranged_disk") > 0
    assert len(snaps) >= 5 and any(s.pools for s in snaps)


@pytest.mark.slow
@pytest.mark.parametrize("name", __import__("zdash.scenarios", fromlist=["names"]).names())
async def test_every_bundled_scenario_replays_and_says_what_to_look_for(name):
    """Issue 6: each lab recording plays in the TUI, its pool on screen, its description shown
    as the replay starts (in its panel, not a toast: issue 11)."""
    from zdash.scenarios import path_of

    app = replay_app(path_of(name), start=0, playing=True)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        frame = await play_until(pilot, lambda f: bool(f.snapshot.pools))
        assert frame.mode == "replay" and frame.description
        about = " ".join(frame.description.split())
        panel = app.screen.query_one("#about")
        await until(pilot, lambda: panel.display and about in str(panel.render()), what="the description")
        assert not toasts(app)
        await wait_frame(pilot, lambda f: f is app.frame)  # the table shows the newest frame
        names = {cells[0].strip() for cells in table_text(app.screen.query_one("#vdevs")).values()}
        assert frame.snapshot.pools[0].name in names and len(names) >= 2  # the pool and its vdevs


async def test_a_bug_in_the_ui_leaves_a_crash_report_and_one_line_not_a_traceback(
    sessions, monkeypatch, tmp_path
):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))

    def broken(self, message):
        raise ZeroDivisionError("a bug in a handler")

    monkeypatch.setattr(ZdashApp, "on_frame_ready", broken)
    app = replay_app(sessions["healthy"])
    app.report_crashes = True  # what `zdash` sets; tests otherwise keep Textual's re-raise
    async with app.run_test(size=(120, 40)):
        for _ in range(500):  # bounded: the app exits on its own (no pilot.pause after that)
            if app.crash_message:
                break
            await asyncio.sleep(0.02)
    (report,) = (tmp_path / "zdash").glob("crash-*.txt")
    assert 'raise ZeroDivisionError("a bug in a handler")' in report.read_text()
    assert app.return_code == 1
    line = app.crash_message or ""  # `zdash` prints it once the terminal is back
    assert line.startswith("zdash: internal error (ZeroDivisionError: a bug in a handler)")
    assert str(report) in line and "\n" not in line


async def test_the_wall_survives_its_tiles_reordering_on_every_frame():
    """Worst first: when the sick pool changes from frame to frame the tiles are rebuilt each
    time, and a tile can get its Mount after the next frame began removing it. The wall must
    draw on (a failed query in a tile ended it: seen when a fleet host went down)."""
    from tests.actions.helpers import snap, two_way
    from tests.ui.conftest import SnapFeed
    from zdash.ui.app import WallApp

    sick_a = snap(two_way("a", states=("ONLINE", "FAULTED")), two_way("b"))
    sick_b = snap(two_way("a"), two_way("b", states=("ONLINE", "FAULTED")))
    app = WallApp(SnapFeed(sick_a))
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_frame(pilot)
        wall = app.screen
        for frame_snap in (sick_b, sick_a, sick_b):  # three frames in one go, no pause between
            app.frame = dataclasses.replace(
                app.frame, snapshot=frame_snap, findings=CheckEngine().update(frame_snap)
            )
            wall._draw()
        await pilot.pause()
        await pilot.pause()
        tiles = list(app.screen.query("PoolTile"))
        assert [t.border_title for t in tiles] == ["b", "a"]  # b is the sick one now: first
        assert tiles[0].view is not None and tiles[0].view.level == "crit"
        await until(pilot, lambda: "CAP" in tiles[0].text, what="drawn")
    assert app.return_code in (None, 0)


async def test_the_wall_clock_ticking_while_the_wall_closes_is_no_crash(sessions, monkeypatch):
    """The wall's clock ticks every second on its own. A screen closes its widgets first and
    itself last, so under load a tick could come after the wall's top line was gone and before
    the wall stopped: escape from the wall then ended zdash (NoMatches: WallStatusBar). Here the
    tick comes exactly then: the clock moves a second as the top line leaves. (Quitting is not
    this race: Textual cancels every worker before it closes the screens.)"""
    from zdash.ui.screens.wall import WallStatusBar, WallView

    app = replay_app(sessions["healthy"])
    clock = app.clock

    def tick_as_it_leaves(_bar) -> None:
        clock.advance(1.0)

    monkeypatch.setattr(WallStatusBar, "on_unmount", tick_as_it_leaves, raising=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_frame(pilot)
        app.push_screen(WallView())
        await until(pilot, lambda: isinstance(app.screen, WallView) and app.screen.query(WallStatusBar))
        bar = app.screen.query_one(WallStatusBar)
        # the page cycle and the wall clock asleep (a paused replay counts no silence)
        await until(pilot, lambda: clock.waiting >= 2, what="the wall clock asleep")
        await pilot.press("escape")  # back to the dashboard
        await until(pilot, lambda: not bar.is_attached, what="the wall closed")
        clock.advance(1.0)  # the app's clock ticks on, with no wall
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen) and app.is_running
    assert app.return_code in (None, 0), app.crash_message


async def test_the_live_wall_clock_moves_on_when_no_frame_comes():
    """Across a room the clock beside "data as of" says the wall is alive: it moves every
    second by itself, while the data's time stays where the last frame left it."""
    from tests.actions.helpers import snap, two_way
    from tests.ui.conftest import SnapFeed
    from zdash import fmt
    from zdash.ui.app import WallApp

    clock = ManualClock()
    app = WallApp(SnapFeed(snap(two_way("a"))), clock=clock)
    async with app.run_test(size=(120, 30)) as pilot:
        frame = await wait_frame(pilot)
        await until(pilot, lambda: fmt.clock(frame.time) in app.export_screenshot(), what="the clock drawn")
        for moved in (1.0, 2.0, 3.0):
            # the silence count, the page cycle and the wall clock: each asleep before time moves
            await until(pilot, lambda: clock.waiting >= 3, what="the clocks asleep")
            clock.advance(1.0)
            later = fmt.clock(frame.time + moved)
            await until(pilot, lambda t=later: t in app.export_screenshot(), what=f"the clock at {later}")
        assert app.frame is frame  # no frame came: the clock moved alone


async def test_the_exit_watchdog_kills_zdash_children_before_it_leaves(monkeypatch):
    """After a hang-up under load the watchdog's os._exit came before the feed had stopped a
    hung `zpool status`, which then ran on for good (2 of 30 hang-ups at load 34): it kills
    them itself first."""
    import os
    import signal
    import sys

    from zdash.aio import within
    from zdash.sources.spawn import spawn
    from zdash.ui.app import leave_now

    exits: list[int] = []
    monkeypatch.setattr(os, "_exit", exits.append)
    hung = await spawn([sys.executable, "-c", "import time; time.sleep(60)"])
    leave_now()
    assert exits == [0]
    assert await within(hung.wait(), 10) == -signal.SIGKILL


async def test_zdash_settles_its_garbage_collector_once_after_the_first_frame(monkeypatch):
    """`zdash` itself (settle_after_start) leaves its start-up objects out of the collector's
    passes once the first frame is drawn, once; an app in a test process never does (each
    test's app must be collected)."""
    import zdash.ui.app as app_module
    from zdash.scenarios import demo_recording

    settled: list[int] = []
    monkeypatch.setattr(app_module, "settle", lambda: settled.append(1))
    for asked in (False, True):
        app = replay_app(str(demo_recording()), start=0, playing=True)
        app.settle_after_start = asked
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_frame(pilot)
            for _ in range(3):
                last = app.frame
                await app.clock.step(1.0)
                await wait_frame(pilot, lambda f, last=last: f is not last)
            await pilot.pause()
        assert settled == ([1] if asked else [])
