"""Issue 11, a replay that teaches: the description in its own panel while the replay waits,
markers on the replay bar with keys to jump between them, and a disk's chart drawn against its
vdev peers. On the bundled lab scenarios, asserted on what is on screen."""

from __future__ import annotations

import bisect

import pytest

from tests.ui.conftest import first_tick, replay_app, table_text, toasts, until, wait_frame
from zdash.cli import _parse
from zdash.commands.dashboard import build_feed
from zdash.config import Config
from zdash.scenarios import path_of
from zdash.sources.session import read_session
from zdash.ui.app import WallApp, ZdashApp
from zdash.ui.widgets.replay_bar import bar_span

MIRROR = path_of("deranged-mirror")


def _onset_tick(path: str) -> int:
    """The first tick at or after the onset the scenario recorded (read straight from the file)."""
    header, ticks = read_session(path)
    times = [t.time for t in ticks]
    assert header.onset is not None
    return bisect.bisect_left(times, header.onset)


def _lead_tick(path: str) -> int:
    """The tick LEAD_S before the scenario's onset: where its replay opens."""
    from zdash.feed.replay import LEAD_S

    header, ticks = read_session(path)
    times = [t.time for t in ticks]
    return bisect.bisect_left(times, header.onset - LEAD_S)


async def _timeline(pilot):
    return await until(
        pilot, lambda: pilot.app.timeline if pilot.app.timeline and pilot.app.timeline.complete else None
    )


def _regions_overlap(a, b) -> bool:
    return a.x < b.right and b.x < a.right and a.y < b.bottom and b.y < a.bottom


async def test_a_described_replay_starts_paused_with_its_description_in_a_panel_that_i_hides():
    args = _parse(["replay", MIRROR])
    feed = build_feed(args, Config())
    assert feed.playing is False  # a training recording waits while it is read
    app = ZdashApp(feed)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        frame = await wait_frame(pilot)
        # paused a few seconds before the onset, not at the quiet start
        assert not frame.position.playing and frame.position.index == _lead_tick(MIRROR)
        panel = app.screen.query_one("#about")
        text = str(panel.render())
        assert panel.display and " ".join(frame.description.split()) in " ".join(text.split())
        title = str(panel.border_title)
        assert "space play" in title and "i hide" in title  # on its border: never cut off
        for data in ("#vdevs", "#findings", "#replay-bar"):  # beside the data, never over it
            assert not _regions_overlap(panel.region, app.screen.query_one(data).region)
        assert not toasts(app)  # no toast over the data any more
        rows = table_text(app.screen.query_one("#vdevs"))
        assert any("sick" in cells[0] for cells in rows.values())  # the sick disk is in view
        await pilot.press("i")
        await until(pilot, lambda: not panel.display, what="the panel hidden by i")
        assert not app.frame.position.playing  # hiding it does not start the replay
        await pilot.press("i")
        await until(pilot, lambda: panel.display, what="the panel shown again by i")
        await pilot.press("space")
        await wait_frame(pilot, lambda f: f.position.playing)


async def test_the_wall_plays_a_recording_at_once_and_shows_no_description():
    feed = build_feed(_parse(["replay", "--wall", MIRROR]), Config())
    assert feed.playing is True
    app = WallApp(feed)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await wait_frame(pilot)
        assert not app.screen.query("#about") and not toasts(app)
        assert app.timeline is None  # no markers are looked for on the wall


def _event_panel(app) -> str:
    """What the event panel says, "" while it is hidden."""
    panel = app.screen.query_one("#event")
    return f"{panel.border_title}\n{panel.render()}" if panel.display else ""


@pytest.mark.slow
async def test_next_and_previous_event_keys_move_the_replay_to_the_marked_events_in_order():
    raised = first_tick(MIRROR, "deranged_disk")
    onset = _onset_tick(MIRROR)
    assert 0 < onset < raised  # the fault begins some ticks before the check is sure of it
    app = replay_app(MIRROR, start=0)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await wait_frame(pilot)
        await _timeline(pilot)
        await pilot.press("n")
        frame = await wait_frame(pilot, lambda f: f.position.index == onset)
        assert not any(f.check == "deranged_disk" for f in frame.findings)  # not yet diagnosed
        await until(pilot, lambda: "onset" in _event_panel(app), what="the onset named")
        assert f"tick {onset + 1}" in _event_panel(app)
        await pilot.press("n")
        frame = await wait_frame(pilot, lambda f: f.position.index == raised)
        assert frame.findings[0].check == "deranged_disk" and not frame.position.playing
        await until(pilot, lambda: "raised" in _event_panel(app) and "sick" in _event_panel(app))
        assert "onset" not in _event_panel(app)  # this tick's events alone
        await pilot.press("n")  # nothing happens after the finding is raised
        await until(pilot, lambda: any("no event after" in t for t in toasts(app)), what="the notice")
        assert app.frame.position.index == raised
        await pilot.press("N")
        await wait_frame(pilot, lambda f: f.position.index == onset)
        await until(pilot, lambda: "onset" in _event_panel(app), what="the onset named again")
        app.clear_notifications()
        await pilot.press("N")
        await until(pilot, lambda: any("no event before" in t for t in toasts(app)), what="the notice")
        assert app.frame.position.index == onset
        await pilot.press("full_stop")  # the replay moves on: the event is no longer on show
        await wait_frame(pilot, lambda f: f.position.index == onset + 1)
        await until(pilot, lambda: not _event_panel(app), what="the event panel closed by a step")


FAULTED = path_of("faulted-disk")


async def test_at_80x24_the_event_n_lands_on_is_shown_beside_the_vdev_table_never_over_its_figures():
    """Found on faulted-disk at 80x24: each `n` put a toast over the vdev table's right half,
    the second stacked on the first, hiding the figures of the very disks the event was about.
    The event now has a panel of the layout above the replay bar; the table keeps its rows."""
    app = ZdashApp(build_feed(_parse(["replay", FAULTED]), Config()))
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await wait_frame(pilot)
        await _timeline(pilot)
        table = app.screen.query_one("#vdevs")
        for _ in range(2):  # the onset, then the fault: the pool DEGRADED, mirror-1 on one disk
            await pilot.press("n")
        await until(pilot, lambda: "DEGRADED" in str(table_text(table)), what="the table at the fault")
        data = {name: app.screen.query_one(name).region for name in ("#vdevs", "#findings", "#about")}
        for toast in app.screen.query("Toast"):  # (before: two toasts, one over the table's rows 4-7)
            assert not any(_regions_overlap(toast.region, r) for r in data.values()), str(toast.render())
        await until(pilot, lambda: "FAULTED" in _event_panel(app), what="the fault's event shown")
        panel = app.screen.query_one("#event")
        for name, region in data.items():
            assert not _regions_overlap(panel.region, region), name
        assert table.region.height >= 6  # the header and the pool's first rows stay in view
        assert panel.region.bottom <= app.screen.query_one("#replay-bar").region.y
        # one line per event at 80 columns: the state change and the finding raised, each in view
        assert panel.region.height == 3
        assert "state change" in _event_panel(app) and "raised" in _event_panel(app)


async def test_the_event_keys_are_in_the_footer_and_the_help():
    app = replay_app(MIRROR, start=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_frame(pilot)
        footer = app.screen.query_one("Footer")
        keys = {k.key for k in footer.query("FooterKey")}
        assert "n" in keys  # N beside it would push "q Quit" off an 80-column footer
        await pilot.press("question_mark")
        body = " ".join(str(w.render()) for w in app.screen.query("Static"))
        assert "n / N jump to the next / previous one" in body
        assert "◆ the incident begins" in body and "▲ a finding raised" in body and "✓ one cleared" in body


def _bar_text(app) -> str:
    return str(app.screen.query_one("#replay-bar").render())


async def test_the_replay_bar_marks_the_onset_and_the_finding_where_they_happen():
    app = replay_app(MIRROR, start=0)
    async with app.run_test(size=(120, 40)) as pilot:
        frame = await wait_frame(pilot)
        timeline = await _timeline(pilot)
        await until(pilot, lambda: "◆" in _bar_text(app), what="the markers drawn")
        bar = app.screen.query_one("#replay-bar")
        text = _bar_text(app)
        assert text.count("◆") == 1 and text.count("▲") == 1
        pos = frame.position
        start, columns = bar_span(pos, bar.size.width)

        def column(t: float) -> int:
            return start + round((t - pos.start) / (pos.end - pos.start) * (columns - 1))

        onset = next(e for e in timeline.events if e.kind == "onset")
        raised = next(e for e in timeline.events if e.kind == "raised")
        assert text.index("◆") == column(onset.time) and text.index("▲") == column(raised.time)
        # the finding's marker in its severity's colour, the onset's in the accent colour
        content = bar.render()
        styles = {content.plain[s.start : s.end]: str(s.style) for s in content.spans}
        assert "$zd-warn" in styles["▲"] and "$text-accent" in styles["◆"]


@pytest.mark.slow
async def test_the_chart_of_a_disk_overlays_its_vdev_peers_and_p_switches_back():
    app = replay_app(MIRROR)  # the last tick: the disk has been slow for a while
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_frame(pilot)
        table = app.screen.query_one("#vdevs")
        chart = app.screen.query_one("#history")
        await pilot.press("v")
        for _ in range(len(table.row_keys)):  # down the tree to the sick disk
            if str(chart.border_title).startswith("History · sick"):
                break
            await pilot.press("down")
        await until(pilot, lambda: chart.border_title == "History · sick against loop2 in mirror-1")
        util = app.screen.query_one("#chart-util")
        assert util.display
        drawn = {w.id: str(w.render()) for w in chart.query("PlotextPlot")}
        for plot, title in (("chart-mbs", "MiB/s"), ("chart-util", "%UTIL"), ("chart-lat", "disk wait ms")):
            assert title in drawn[plot] and "sick" in drawn[plot] and "loop2" in drawn[plot]
        await pilot.press("p")
        await until(pilot, lambda: chart.border_title == "History · sick", what="read/write again")
        assert not util.display
        drawn = str(app.screen.query_one("#chart-lat").render())
        assert "write" in drawn and "loop2" not in drawn  # this disk alone (it only writes)


async def test_at_80x24_the_replay_bar_and_its_markers_stay_on_screen_beside_the_description():
    """Issue 27: the description panel pushed the replay bar, and its markers, off an 80x24
    screen. The data now takes what the panel, the bar and the footer leave."""
    feed = build_feed(_parse(["replay", MIRROR]), Config())
    app = ZdashApp(feed)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_frame(pilot)
        await _timeline(pilot)
        panel, bar = app.screen.query_one("#about"), app.screen.query_one("#replay-bar")
        await until(pilot, lambda: "◆" in _bar_text(app), what="the markers drawn")
        assert panel.display and panel.region.height >= 4  # the description, beside the data
        assert bar.region.bottom <= 23 and bar.region.height == 1  # above the footer, on screen
        assert not _regions_overlap(panel.region, bar.region)
        text = _bar_text(app)
        assert text.count("◆") == 1 and text.count("▲") == 1
        assert app.screen.query_one("#vdevs").region.height >= 3  # and some data


async def test_markers_a_search_could_not_finish_are_said_to_be_incomplete_and_the_replay_plays_on(
    tmp_path, monkeypatch
):
    fake = tmp_path / "python"  # the scan's child dies: out of memory on a huge recording, say
    fake.write_text("#!/bin/sh\necho 'MemoryError: too big' >&2\nexit 3\n")
    fake.chmod(0o755)
    monkeypatch.setattr("sys.executable", str(fake))
    app = replay_app(MIRROR, start=0)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await wait_frame(pilot)
        said = await until(pilot, lambda: [t for t in toasts(app) if "markers incomplete" in t])
        assert "MemoryError: too big" in said[0] and "0 of" in said[0]
        await pilot.press("n")  # no event found: the key says the search stopped, not "still looking"
        await until(pilot, lambda: [t for t in toasts(app) if "the search for events stopped" in t])
        await pilot.press("full_stop")  # a step: the replay itself goes on
        await until(pilot, lambda: app.frame is not None and app.frame.position.index == 1)
