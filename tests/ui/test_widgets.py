"""The dashboard's widgets follow the frame and the viewer: pool tabs and `[` `]`, the chart
following the vdev cursor, cells restyled by a theme switch, the wall moving to the next pool
on the clock. Asserted on what is on screen."""

from __future__ import annotations

from rich.text import Text

from tests.actions.helpers import snap, two_way
from tests.feed.clock import ManualClock
from tests.ui.conftest import SnapFeed, replay_app, table_text, until, wait_frame
from zdash.ui.app import WallApp, ZdashApp
from zdash.ui.big_word import big_lines
from zdash.ui.widgets.pool_tabs import PoolTabs

TWO_POOLS = snap(two_way("tank"), two_way("backup", states=("ONLINE", "FAULTED")))


def _render(app, selector: str) -> str:
    return str(app.screen.query_one(selector).render())


def _pools_in_table(app) -> list[str]:
    return [k for k in table_text(app.screen.query_one("#vdevs")) if k.startswith("pool:")]


async def test_pool_tabs_and_brackets_switch_the_pool_shown():
    app = ZdashApp(SnapFeed(TWO_POOLS))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_frame(pilot)
        tabs = app.screen.query_one(PoolTabs)
        assert (
            tabs.display and "tank" in _render(app, "#pool-tabs") and "backup" in _render(app, "#pool-tabs")
        )
        verdict, health = _render(app, "#pool-header").splitlines()[:2]
        assert health.startswith("tank") and _pools_in_table(app) == ["pool:tank"]
        assert verdict.strip().startswith("● OK")  # the verdict leads: tank has nothing above INFO
        await pilot.press("right_square_bracket")
        await until(
            pilot,
            lambda: _render(app, "#pool-header").splitlines()[1].startswith("backup"),
            what="the next pool",
        )
        assert _render(app, "#pool-header").strip().startswith("✖ CRIT")  # backup lost a side
        assert _pools_in_table(app) == ["pool:backup"]
        states = [cells[1] for cells in table_text(app.screen.query_one("#vdevs")).values()]
        assert "FAULTED" in states  # backup's faulted side
        await pilot.press("left_square_bracket")
        await until(pilot, lambda: _pools_in_table(app) == ["pool:tank"], what="the first pool again")


async def test_one_pool_has_no_tabs_and_no_pool_keys(sessions):
    app = replay_app(sessions["healthy"])
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_frame(pilot)
        assert not app.screen.query_one(PoolTabs).display
        keys = {b.binding.action for b in app.screen.active_bindings.values() if b.enabled}
        assert not keys & {"pool(1)", "pool(-1)"}


async def test_the_chart_follows_the_vdev_cursor(sessions):
    app = replay_app(sessions["deranged"])
    async with app.run_test(size=(120, 40)) as pilot:
        frame = await wait_frame(pilot)
        chart = app.screen.query_one("#history")
        assert chart.border_title == f"History · pool {frame.snapshot.pools[0].name}"
        rows = table_text(app.screen.query_one("#vdevs"))
        second = list(rows.values())[1][0].split()[-1]  # the first vdev's name, after its tree line
        await pilot.press("v", "down")
        await until(pilot, lambda: chart.border_title == f"History · {second}", what="the chart on the vdev")
        await pilot.press("up")
        await until(pilot, lambda: "History · pool" in str(chart.border_title), what="the chart on the pool")


async def test_a_theme_switch_recolours_the_table_cells(sessions):
    app = replay_app(sessions["healthy"], theme="zdash-dark")
    async with app.run_test(size=(120, 40)) as pilot:
        frame = await wait_frame(pilot)
        table = app.screen.query_one("#vdevs")
        key = f"pool:{frame.snapshot.pools[0].name}"

        def state_colour():
            cell = table.get_row(key)[1]  # STATE: ONLINE, in the theme's success colour
            assert isinstance(cell, Text) and cell.plain.startswith("ONLINE")
            return cell.spans[0].style.color.triplet.hex if cell.spans else cell.style.color.triplet.hex

        def expected(theme: str) -> str:
            variables = app.get_css_variables()
            assert app.theme == theme
            return variables["zd-ok"].lower()

        dark = state_colour()
        assert dark == expected("zdash-dark")
        app.theme = "zdash-light"
        await until(
            pilot, lambda: state_colour() == expected("zdash-light"), what="the light theme's colours"
        )
        assert state_colour() != dark


async def test_the_wall_shows_every_pool_that_fits_worst_first_and_the_sickest_in_detail():
    clock = ManualClock()
    app = WallApp(SnapFeed(TWO_POOLS), clock=clock)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_frame(pilot)
        header = lambda: _render(app, "#wall-detail-header")  # noqa: E731
        # backup lost a mirror side: its tile comes first, leads with CRIT, and is in detail
        await until(pilot, lambda: header().startswith("backup"), what="the sick pool in detail")
        tiles = {str(t.border_title): t for t in app.screen.query("PoolTile")}
        assert list(tiles) == ["backup", "tank"]
        backup, tank = tiles["backup"].view, tiles["tank"].view
        assert (backup.word, backup.subject) == ("✖ CRIT", "mirror-0 has no redundancy left")
        assert backup.why.startswith("runs on sda alone")  # device paths by their last part
        assert (tank.word, tank.subject, tank.why) == ("● OK", "ONLINE", "nothing above INFO")
        await until(pilot, lambda: clock.waiting >= 3, what="the wall's, the clock's and the silence timers")
        clock.advance(app.settings.wall_cycle_s)  # both fit: nothing cycles
        await pilot.pause()
        assert header().startswith("backup")
        assert [t.border_title for t in app.screen.query("PoolTile")] == ["backup", "tank"]
        assert not app.screen.query_one("#wall-paging").display


async def test_the_wall_cycles_pools_only_when_they_do_not_fit_and_never_hides_a_sick_one():
    pools = [
        two_way(f"p{i:02d}", states=("ONLINE", "FAULTED") if i in (4, 9) else ("ONLINE", "ONLINE"))
        for i in range(30)
    ]
    clock = ManualClock()
    app = WallApp(SnapFeed(snap(*pools)), clock=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_frame(pilot)
        names = lambda: [t.border_title for t in app.screen.query("PoolTile")]  # noqa: E731
        await until(pilot, lambda: len(names()) > 2, what="tiles")
        first = names()
        assert 2 < len(first) < 30 and first[:2] == ["p04", "p09"]  # the sick ones first
        paging = str(app.screen.query_one("#wall-paging").render())
        assert f"{len(first)} of 30 pools shown" in paging
        await until(pilot, lambda: clock.waiting >= 3, what="the wall's timers")
        clock.advance(app.settings.wall_cycle_s)
        app.feed.send(app.frame.snapshot)  # data kept coming meanwhile: no NO DATA banner
        await until(pilot, lambda: app.silence is None and names() != first, what="the next page")
        second = names()
        assert second[:2] == ["p04", "p09"] and not set(second[2:]) & set(first[2:])


async def test_the_verdict_is_the_biggest_text_on_the_wall_at_every_size():
    """At 80x24, 120x40 and 200x60, one pool or two: each tile leads with its verdict in block
    letters several rows tall (everything else on the wall is one row per line)."""
    for pools in (snap(two_way("tank", states=("ONLINE", "FAULTED"))), TWO_POOLS):
        for size in ((80, 24), (120, 40), (200, 60)):
            app = WallApp(SnapFeed(pools), clock=ManualClock())
            async with app.run_test(size=size) as pilot:
                await wait_frame(pilot)
                await until(
                    pilot, lambda a=app: all(t.view for t in a.screen.query("PoolTile")), what="tiles"
                )
                for tile in app.screen.query("PoolTile"):
                    assert tile.scale >= 1, (size, tile.border_title, tile.scale)
                    big = big_lines(tile.view.word, tile.scale)
                    assert big is not None and len(big) >= 4
                    assert tile.text.startswith("\n".join(big)), (size, tile.text)
                    assert tile.region.width <= size[0] and tile.region.bottom <= size[1]


async def test_the_wall_cycle_firing_while_the_screen_is_torn_down_does_not_crash_the_exit():
    """Quitting removes the wall's widgets while its pool cycle may still fire: that tick has
    nothing to draw on and must not end the app in a WorkerFailed (1 of 5 lab fleet runs)."""
    clock = ManualClock()
    app = WallApp(SnapFeed(TWO_POOLS), clock=clock)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_frame(pilot)
        await until(pilot, lambda: clock.waiting >= 2, what="the wall's and the silence timers")
        await app.screen.query_one("#wall-banner").remove()  # as at teardown
        clock.advance(app.settings.wall_cycle_s)
        await pilot.pause()
        assert app.return_code is None  # still running: the worker did not fail


def test_a_finding_names_its_pool_once_and_any_other_subject_beside_it():
    from zdash.checks.finding import Finding, Severity
    from zdash.ui.screens.finding import finding_content

    def provenance(kind: str, subject: str) -> str:
        finding = Finding("scan", Severity.INFO, "tank", subject, kind, title="t", why="w")
        return finding_content(finding)[1].plain.splitlines()[0]

    assert provenance("pool", "tank") == "scan · pool tank"
    assert provenance("leaf", "/dev/sdb") == "scan · pool tank · leaf /dev/sdb"
