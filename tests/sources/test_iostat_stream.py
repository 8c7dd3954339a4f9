"""The iostat stream is cut into whole reports however the pipe delivers the bytes."""
from zdash.sources.iostat_stream import IostatStream, iostat_argv

ROWS = "tank\t1\t2\t0\t5\t0\t100\t-\t10\t-\t20\t-\t-\t-\t-\t-\t-\t-\nloop0\t0\t0\t0\t5\t0\t100\t-\t10\t-\t20\t-\t-\t-\t-\t-\t-\t-\n"


def _stream():
    return IostatStream(iostat_argv(1.0, ("tank",)))


def test_argv_is_the_streaming_form():
    assert iostat_argv(1.0, ("tank",)) == ("zpool", "iostat", "-v", "-H", "-p", "-l", "-y", "-P",
                                           "-T", "u", "tank", "1")


def test_reports_split_on_epoch_lines_even_mid_line():
    s = _stream()
    data = "1700000000\n" + ROWS + "1700000001\n" + ROWS + "1700000002\n" + ROWS
    buf = ""
    for i in range(0, len(data), 7):          # 7-byte chunks cut lines anywhere
        buf = s._emit_complete(buf + data[i:i + 7], quiet=False)
    buf = s._emit_complete(buf, quiet=True)   # the pipe went quiet: the last report is whole
    got = []
    while not s.reports.empty():
        got.append(s.reports.get_nowait().stdout)
    assert got == [f"{1700000000 + i}\n" + ROWS for i in range(3)]
    assert buf == ""


def test_skipped_first_report_is_not_a_report():
    s = _stream()
    s._emit_complete("1700000000\n1700000001\n" + ROWS, quiet=True)
    assert s.reports.qsize() == 1 and s.reports.get_nowait().stdout.startswith("1700000001\n")


def test_slow_consumer_sees_the_newest_report():
    s = _stream()
    for i in range(10):
        s._emit_complete(f"{1700000000 + i}\n" + ROWS, quiet=True)
    firsts = [s.reports.get_nowait().stdout.split("\n", 1)[0] for _ in range(s.reports.qsize())]
    assert firsts[-1] == "1700000009" and len(firsts) <= 4
