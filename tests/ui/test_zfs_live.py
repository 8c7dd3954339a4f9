"""On a real pool (marker `zfs`, run inside ../shared/zfslab): the dashboard on the live host
shows the pool and its numbers move under load, and a recording made from the UI replays.

    ../shared/zfslab/zfslab run --mem 4G '.venv/bin/pytest -q tests/ui/test_zfs_live.py'
"""

from __future__ import annotations

import time

import pytest

from tests.ui.conftest import table_text, wait_frame
from tests.zfs.lab import zfs_available
from zdash.config import CheckConfig
from zdash.feed.live import LiveFeed
from zdash.fold.recording import load_replay
from zdash.ui.app import ZdashApp
from zdash.ui.vdev_rows import pool_key
from zdash.ui.widgets.status_bar import StatusBar

WHY_NOT = zfs_available()
pytestmark = [pytest.mark.zfs, pytest.mark.skipif(WHY_NOT is not None, reason=WHY_NOT or "")]


def _shown(app, key: str) -> dict[str, str]:
    """What the vdev table shows for a row, as plain text by column header."""
    table = app.screen.query_one("#vdevs")
    return dict(zip(table.column_labels, table_text(table)[key]))


async def test_live_dashboard_numbers_move(lab, tmp_path):
    lab.pool("zdui", "mirror", lab.loop("a"), lab.loop("b"), "mirror", lab.loop("c"), lab.loop("d"))
    lab.fill("/zdui/prefill", 16)
    fio = lab.load("/zdui", 300, size="16M")
    try:
        feed = LiveFeed(CheckConfig(), 1.0, ("zdui",))
        app = ZdashApp(feed, record_dir=str(tmp_path))
        # 28 rows: the chart is hidden, the emulated lab VM has little CPU to spare
        async with app.run_test(size=(120, 28)) as pilot:
            first = await wait_frame(pilot, lambda f: f.snapshot.pool("zdui") is not None, timeout=180)
            key = pool_key(first.snapshot.pool("zdui"))
            assert "LIVE" in app.screen.query_one(StatusBar).text
            assert "zdui" in str(app.screen.query_one("#pool-header").render())
            await pilot.press("r")  # record from the UI while we watch
            measured, last, recorded = set(), first, 0
            end = time.monotonic() + 240
            # three different readings, and five frames into the recording
            while (len(measured) < 3 or recorded < 5) and time.monotonic() < end:
                last = await wait_frame(pilot, lambda f, prev=last: f is not prev, timeout=60)
                recorded += last.recording is not None
                cells = _shown(app, key)  # the pool row: MiB/s, total and disk write wait
                shown = (cells["MiB/s"], cells["TOTAL w"], cells["DISK w"])
                if "-" not in shown:
                    measured.add(shown)
            assert len(measured) >= 3, f"the numbers did not move: {measured}"
            assert any(float(mbs) > 0 for mbs, _, _ in measured)
            rows = table_text(app.screen.query_one("#vdevs"))
            assert len(rows) == 1 + 2 + 4  # the pool, its two mirrors, their four disks
            # a disk's row at 120 columns: status -s's SLOW count and its kernel %UTIL
            disk = _shown(app, next(k for k in rows if k != key and "mirror" not in rows[k][0]))
            assert disk["SLOW"].isdigit() and disk["%UTIL"].rstrip().endswith("%"), disk
            assert last.recording is not None and "REC" in app.screen.query_one(StatusBar).text
            await pilot.press("r")
            await wait_frame(pilot, lambda f: f.recording is None, timeout=60)
    finally:
        fio.kill()
        fio.wait()
    (path,) = tmp_path.glob("zdash-*")  # the format the dashboard records in (.zdash today)
    _header, snaps = load_replay(str(path))
    # every frame seen while recording is in the file (the one in flight at the stop may be too)
    assert len(snaps) >= recorded - 1 >= 4 and snaps[0].pool("zdui") is not None
