"""The latency heat strip: the slow disk's row sits right of its peer's (dm-delay 30 ms under
fio, the lab's histograms), the axis names the buckets, p50/p99 stand beside each row, and it
fits 80 columns as well as 200."""

from __future__ import annotations

from pathlib import Path

from tests.ui.conftest import evidence_app, wait_frame
from zdash.model import LatencyHistogram
from zdash.parse.zpool_iostat_hist import parse_histograms
from zdash.ui.latency_strip import FIRST, strip_lines

LAB = Path(__file__).resolve().parents[1] / "captures" / "evidence"


def text(cell) -> str:
    return "".join(t for t, _ in cell)


def rows():
    blocks = {b.name: b for b in parse_histograms((LAB / "zpool-iostat-w-v-H-p.load.txt").read_text())}
    h = {n: LatencyHistogram("ev", n, b.bounds, b.columns) for n, b in blocks.items()}
    return [("/dev/mapper/slownv", h["slownv"], "warn"), ("nvme1n1", h["nvme1n1"], "ok")]


def hump(line: str, start: int) -> int:
    """The column of a row's tallest block."""
    cells = line[start:]
    return max(range(len(cells)), key=lambda i: " ▁▂▃▄▅▆▇█".find(cells[i]))


def test_the_slow_disks_hump_is_right_of_its_peers():
    for width in (80, 200):
        axis, slow, peer = (text(c) for c in strip_lines(rows(), width))
        assert len(slow) <= width and len(peer) <= width
        assert "1µs" in axis and "4ms" in axis and "268ms" in axis
        start = axis.index("1µs")
        assert hump(slow, start) > hump(peer, start)
        assert slow.rstrip().endswith("p50 67 ms  p99 268 ms") and "p99 67 ms" in peer
        assert slow.startswith("…v/mapper/slownv ")  # the end of a path: the part that names it


def test_a_row_without_io_says_so():
    empty = LatencyHistogram(
        "p", "x", tuple((1 << (j + 1)) - 1 for j in range(37)), (("disk_read", (0,) * 37),)
    )
    _, line = strip_lines([("sdb", empty, "warn")], 80)
    assert text(line).endswith("no disk I/O in this window")


def test_faster_than_a_microsecond_lands_in_the_first_column():
    bounds = tuple((1 << (j + 1)) - 1 for j in range(37))
    cached = LatencyHistogram(
        "p", "x", bounds, (("disk_read", tuple(5 if j == 2 else 0 for j in range(37))),)
    )
    axis, line = (text(c) for c in strip_lines([("sdb", cached, "ok")], 80))
    start = axis.index("1µs")
    assert hump(line, start) == 0 and FIRST == 9


async def test_the_strip_stands_under_the_chart_where_there_is_room_for_it():
    """200x60: under the chart, the selected disk against its peer. 80x24 with the chart shown
    (`g`): no four rows are left for it, and a cut strip showed its title alone; the finding
    holds the picture instead."""
    for size, keys, shown in (
        ((200, 60), ("v", "down", "down"), True),
        ((80, 24), ("v", "down", "down", "g"), False),
    ):
        app = evidence_app()
        async with app.run_test(size=size) as pilot:
            await wait_frame(pilot, lambda f: True)
            for key in keys:
                await pilot.press(key)
                await pilot.pause()
            strip = app.screen.query_one("#latency")
            assert app.screen.query_one("#history").display
            assert (strip.display and not strip.has_class("-empty") and strip.region.height >= 4) == shown, (
                size
            )
            if shown:
                assert "sdb1 vs sdc1 in mirror-0" in str(strip.render())
