"""The vdev table shows what an admin reads first in `zpool status -s` and `zpool iostat -vl`,
asserted on the lines it renders: SLOW per disk, total wait beside disk wait, the kernel's queue
depth, the configured ashift per top-level vdev, FILL and %UTIL in columns of their own; and at
80 columns the columns that tell a sick disk give way last, every figure whole."""

from __future__ import annotations

import pytest

from tests.sessions import fixture
from tests.ui.conftest import replay_app, wait_frame
from zdash.ui.vdev_rows import COLUMNS


async def _table(path: str, size: tuple[int, int]) -> tuple[list[str], dict[str, str]]:
    """The header's column labels, and each rendered row by the vdev name it starts with."""
    app = replay_app(path)
    async with app.run_test(size=size) as pilot:
        await wait_frame(pilot)
        await pilot.pause()
        table = app.screen.query_one("#vdevs")
        lines = [table.render_line(y).text for y in range(table.size.height)]
        rows = {}
        for line in lines[1:]:
            words = line.replace("│", " ").replace("├", " ").replace("└", " ").replace("!", " ").split()
            if words:
                rows[words[0]] = line
        return table.column_labels, rows | {"": lines[0]}


def _figures(line: str) -> list[str]:
    return line.split()


def under(header: str, line: str, label: str) -> str:
    """What a row shows under a right-aligned header label (these columns are as wide as their
    label: the cell is under it)."""
    start = header.index(label)
    return line[start - 1 : start + len(label)].strip()


async def test_the_captured_slow_disk_reads_as_zpool_prints_it(sessions):
    """The deranged-disk capture (dm-delay 100 ms, zio_slow_io_ms 50): status -s counted 1271
    slow I/Os on slowdisk and 2 on loop2; iostat -vl gave it 446 ms of total write wait against
    101 ms in the disk (the rest queued in ZFS); /proc/diskstats kept ~2 requests in flight."""
    labels, rows = await _table(sessions["deranged"], (200, 60))
    assert labels == [c.label for c in COLUMNS]  # 200 columns: every column
    header = rows[""]
    slow = rows["slowdisk"]

    def at(line: str, label: str) -> str:
        return under(header, line, label)

    assert (
        at(slow, "SLOW") == "1271" and at(rows["loop2"], "SLOW") == "2" and at(rows["loop0"], "SLOW") == "0"
    )
    assert at(slow, "TOTAL w") == "446" and at(slow, "DISK w") == "101"
    assert at(rows["loop0"], "TOTAL w") == "44" and at(rows["loop0"], "DISK w") == "1.9"
    assert at(slow, "QUEUE") == "2.1" and float(at(rows["loop0"], "QUEUE")) < 0.1
    assert "100%" in slow and "%" not in rows["mirror-1"][header.index("%UTIL") : header.index("QUEUE")]
    assert at(rows["mirror-1"], "SLOW") == "" and at(rows["mirror-1"], "QUEUE") == ""  # disks' facts


async def test_ashift_per_top_level_vdev():
    """The lab recording asked `zpool get ashift all-vdevs`: both mirrors were made at 9."""
    path = fixture("deranged-mirror")
    if path is None:
        pytest.skip("the lab recording is not in this checkout")
    _, rows = await _table(path, (200, 60))
    header = rows[""]
    assert (
        under(header, rows["mirror-0"], "ASHIFT") == "9" and under(header, rows["mirror-1"], "ASHIFT") == "9"
    )
    assert under(header, rows["sick"], "ASHIFT") == "" and under(header, rows["tank"], "ASHIFT") == ""


@pytest.mark.parametrize(
    ("size", "shown", "folded"),
    [
        (
            (80, 24),
            ["STATE", "ERR", "SLOW", "MiB/s", "DSKr", "DSKw", "%UTIL", "FILL"],
            ["OPS", "TOTr", "ASH"],
        ),
        (
            (120, 40),
            ["SLOW", "MiB/s", "TOTAL r", "TOTAL w", "DISK r", "DISK w", "%UTIL", "FILL"],
            ["OPS/s", "QUEUE"],
        ),
    ],
)
async def test_columns_fold_by_rank_and_what_stays_is_whole(sessions, size, shown, folded):
    """At 80 columns the sick disk is still told apart (SLOW, disk wait, %UTIL, fill); at 120
    total wait stands beside disk wait. No line is wider than the terminal, and no figure of
    the slow disk is cut."""
    labels, rows = await _table(sessions["deranged"], size)
    assert [label for label in labels if label in shown] == shown
    assert not set(folded) & set(labels)
    width = size[0]
    for line in rows.values():
        assert len(line.rstrip()) <= width - 2
    slow = _figures(rows["slowdisk"])
    assert "1271" in slow and "101" in slow and "100%" in slow
    assert ("446" in slow) == (size[0] >= 120)


async def test_fill_and_util_are_columns_of_their_own(sessions):
    """A top-level vdev has a fill and no %UTIL, a disk a %UTIL and no fill: one column, one fact."""
    _, rows = await _table(sessions["deranged"], (120, 40))
    header = rows[""]
    util = slice(header.index("%UTIL"), header.index("FILL"))
    fill = slice(header.index("FILL"), None)
    assert "%" in rows["loop0"][util] and "%" not in rows["loop0"][fill]
    assert "%" in rows["mirror-0"][fill] and "%" not in rows["mirror-0"][util]
    assert "+9" in rows["mirror-0"][fill]  # its gap to the pool's mean fill


async def test_a_support_vdev_keeps_its_name_whole_at_80_columns():
    """At 80 columns a class gives way before its vdev's name: "mirror-1 (spe…)", not
    "mirror-…pecial)" (the number tells one special mirror from another, and commands name it).
    40 rows: every vdev of the recording on screen."""
    path = fixture("log-special")
    if path is None:
        pytest.skip("the lab recording is not in this checkout")
    _, rows = await _table(path, (80, 40))
    state = rows[""].index("STATE")
    names = [line[:state].strip(" │├└") for key, line in rows.items() if key]
    assert "mirror-2 (log)" in names and "loop6 (cache)" in names, names
    (special,) = [n for n in names if n.startswith("mirror-1")]
    assert special.startswith("mirror-1 (spe") and special.endswith("…)"), names


async def test_a_playing_table_shows_each_tick_as_a_whole_redraw_would(tmp_path):
    """A new frame redraws only the lines whose row changed: what is on screen after each tick
    (the cursor moved and the rows scrolled on the way) is what drawing the whole table anew
    shows, and the figures did move."""
    from textual.geometry import Region

    from tests.bench.bench import write_recording

    path = str(tmp_path / "r.zdash")
    write_recording(path, 100, 14, described=False)  # every disk's figures move every tick
    app = replay_app(path, start=0, playing=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_frame(pilot)
        table = app.screen.query_one("#vdevs")

        def lines() -> list[list[tuple[str, object]]]:
            return [
                [(s.text, s.style) for s in strip]
                for strip in table.render_lines(Region(0, 0, *table.outer_size))
            ]

        moved = 0
        for tick in range(12):
            if tick in (4, 8):
                await pilot.press("pagedown", "down")  # another part of the tree, the cursor on it
            before, last = lines(), app.frame
            await app.clock.step()
            await wait_frame(pilot, lambda f, last=last: f is not last)
            await pilot.pause()
            shown = lines()  # what the screen keeps: only the lines marked for drawing were drawn
            table.refresh()
            assert shown == lines(), f"tick {tick}: a line on screen is not what the table draws"
            moved += shown != before
        assert moved >= 10


@pytest.mark.parametrize("size", [(200, 60), (80, 24)])
async def test_the_tables_own_pass_draws_what_textuals_pass_draws(tmp_path, size):
    """The table hands the screen its row lines made whole (extended under the scrollbar and
    through the app's line filters, one line object per changed row) instead of through Textual's
    per-line pass: every line, whole or cropped, is what that pass draws from the same rows,
    tick after tick, with the cursor moved, the rows scrolled, and the focus elsewhere and back."""
    from textual.geometry import Region
    from textual.scroll_view import ScrollView

    from tests.bench.bench import write_recording

    path = str(tmp_path / "r.zdash")
    write_recording(path, 100, 12, described=False)  # every disk's figures move every tick
    app = replay_app(path, start=0, playing=True)
    async with app.run_test(size=size) as pilot:
        await wait_frame(pilot)
        table = app.screen.query_one("#vdevs")

        def drawn(own: bool, crop: Region) -> list[list[tuple[str, object]]]:
            if not own:
                table._styles_cache.clear()  # Textual's pass, every line made anew
            strips = table.render_lines(crop) if own else ScrollView.render_lines(table, crop)
            return [[(s.text, s.style) for s in strip] for strip in strips]

        for tick in range(10):
            if tick == 3:
                await pilot.press("pagedown", "down")
            if tick == 6:
                await pilot.press("tab")  # the cursor's row blurred
            if tick == 8:
                await pilot.press("shift+tab")
            last = app.frame
            await app.clock.step()
            await wait_frame(pilot, lambda f, last=last: f is not last)
            await pilot.pause()
            width, height = table.outer_size
            for crop in (Region(0, 0, width, height), Region(0, 0, width, 3), Region(5, 2, width - 12, 6)):
                assert drawn(True, crop) == drawn(False, crop), f"tick {tick}, {crop}"
        assert table._quick_drawn  # the table's own pass drew them (not Textual's, twice)
