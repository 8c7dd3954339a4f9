"""The iostat stream, run on a real child process, is cut into whole reports however the pipe
delivers the bytes; a stream with no epoch lines ends with a clear error, not a growing buffer."""

from __future__ import annotations

import sys

from zdash.sources.iostat_stream import IostatStream, iostat_argv

ROWS = "tank\t1\t2\t0\t5\t0\t100\t-\t10\t-\t20\t-\t-\t-\t-\t-\t-\t-\nloop0\t0\t0\t0\t5\t0\t100\t-\t10\t-\t20\t-\t-\t-\t-\t-\t-\t-\n"


def _child(data: str, chunk: int = 7) -> tuple[str, ...]:
    """A stand-in zpool that writes `data` in small flushed chunks, cutting lines anywhere."""
    repeat = ""
    if len(data) > 100_000:  # keep argv short: send one line, repeated
        line = data.split("\n", 1)[0] + "\n"
        data, repeat = line, f" * {data.count(line)}"
    code = (
        "import sys\n"
        f"d = {data!r}{repeat}\n"
        f"for i in range(0, len(d), {chunk}):\n"
        f"    sys.stdout.write(d[i:i + {chunk}]); sys.stdout.flush()\n"
    )
    return (sys.executable, "-c", code)


async def _reports(data: str, chunk: int = 7) -> tuple[list[str], str | None]:
    stream = IostatStream(_child(data, chunk))
    await stream.run()
    got = []
    while not stream.reports.empty():
        got.append(stream.reports.get_nowait().stdout)
    return got, stream.error


def test_argv_is_the_streaming_form():
    assert iostat_argv(1.0, ("tank",)) == (
        "zpool",
        "iostat",
        "-v",
        "-H",
        "-p",
        "-l",
        "-y",
        "-P",
        "-T",
        "u",
        "tank",
        "1",
    )


async def test_reports_split_on_epoch_lines_even_mid_line():
    got, error = await _reports("1700000000\n" + ROWS + "1700000001\n" + ROWS + "1700000002\n" + ROWS)
    assert got == [f"{1700000000 + i}\n" + ROWS for i in range(3)]
    assert error == "zpool iostat stopped: exit code 0"  # the child ended: said, not hidden


async def test_skipped_first_report_is_not_a_report():
    got, _ = await _reports("1700000000\n1700000001\n" + ROWS)
    assert got == ["1700000001\n" + ROWS]


async def test_slow_consumer_sees_the_newest_report():
    got, _ = await _reports("".join(f"{1700000000 + i}\n" + ROWS for i in range(10)), chunk=1 << 16)
    assert got[-1].startswith("1700000009\n") and len(got) <= 4


async def test_output_without_epoch_lines_is_an_error_not_a_growing_buffer():
    got, error = await _reports(("x" * 1023 + "\n") * 1100, chunk=1 << 16)
    assert got == [] and "no -T u epoch line in 1 MiB" in (error or "")


async def test_a_report_printed_with_pauses_in_it_is_not_cut_short():
    """zpool writes a big report in pipe-buffer pieces as it formats the rows; on a starved CPU
    (a 1,000-disk pool in the lab VM) the pieces came with pauses longer than the quiet gap, and
    each pause was read as the report's end: trees missing most of their disks."""
    rows = ROWS * 50
    half = len(rows) // 2
    code = (
        "import sys, time\n"
        f"rows = {rows!r}\n"
        "for k in range(4):\n"
        "    sys.stdout.write(f'{1700000000 + k}\\n' + rows[:" + str(half) + "]); sys.stdout.flush()\n"
        "    time.sleep(0.4)  # longer than the stream's quiet gap, mid-report\n"
        "    sys.stdout.write(rows[" + str(half) + ":]); sys.stdout.flush()\n"
        "    time.sleep(0.4)\n"
    )
    stream = IostatStream((sys.executable, "-c", code))
    await stream.run()
    got = []
    while not stream.reports.empty():
        got.append(stream.reports.get_nowait().stdout)
    assert got and all(r.count("\n") == 1 + rows.count("\n") for r in got), [r.count("\n") for r in got]
