"""zpool_iostat: one report's rows, splitting a `-T u` stream, and the live StreamSplitter.

The captures ran `zpool iostat -v -l -H -p <pool> 1 N` without -T, so their N reports follow
each other with no marker; the streams below add epoch lines the way `-T u` prints them
(print_timestamp() before each report, and before the skipped first one under -y).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from zdash.model import IoStats
from zdash.parse import ParseError
from zdash.parse.zpool_iostat import StreamSplitter, parse_iostat, split_reports

CAPTURES = Path(__file__).resolve().parents[1] / "captures"
LATENCY = sorted(CAPTURES.glob("*/zpool-iostat-v-l-H-p-*.txt"))
DERANGED = CAPTURES / "deranged-disk/zpool-iostat-v-l-H-p-1-5.txt"


def _id(p: Path) -> str:
    return f"{p.parent.name}/{p.name}"


def _reports(path: Path) -> list[str]:
    """Cut an `interval count` capture into its `count` reports (all have the same rows)."""
    count = int(re.search(r"-1-(\d)", path.name).group(1))
    lines = path.read_text().splitlines(keepends=True)
    size, rest = divmod(len(lines), count)
    assert rest == 0
    return ["".join(lines[i * size : (i + 1) * size]) for i in range(count)]


def _stream(reports: list[str], start: int = 1763782000, skip_first: bool = True) -> str:
    head = f"{start}\n" if skip_first else ""  # -y: the skipped report leaves its epoch line
    return head + "".join(f"{start + 1 + i}\n{r}" for i, r in enumerate(reports))


@pytest.mark.parametrize("path", LATENCY, ids=_id)
def test_every_capture_parses_into_identical_reports(path):
    reports = [parse_iostat(r) for r in _reports(path)]
    names = [[row.name for row in rows] for rows in reports]
    assert all(n == names[0] for n in names) and len(names[0]) >= 2
    first = reports[0]
    groups = [row.group for row in first]  # -H prints a blank line where a class heading goes
    assert groups == sorted(groups)
    assert first[0].alloc > 0 and first[0].free > 0  # the pool row has space
    assert all(isinstance(row.io, IoStats) for row in first)


def test_the_slow_disk_by_hand():
    reports = [parse_iostat(r) for r in _reports(DERANGED)]
    slow = reports[4][6]
    assert slow.name == "slowdisk" and (slow.alloc, slow.free) == (0, 0)  # leaves: 0 under -p
    assert slow.io == IoStats(
        read_ops=0,
        write_ops=13,
        read_bytes=0,
        write_bytes=1807917,
        total_wait_read=None,
        total_wait_write=445794596,
        disk_wait_read=None,
        disk_wait_write=100663296,
    )
    # dm-delay 100 ms: in every report where both wrote, the slow disk's disk wait dwarfs its
    # siblings' (latencies are histogram midpoints: 100663296 ns is the 2^26.5 bucket).
    for rows in reports:
        by = {r.name: r.io for r in rows}
        peers = [by[n].disk_wait_write for n in ("loop0", "loop1", "loop2") if by[n].disk_wait_write]
        if by["slowdisk"].disk_wait_write and peers:
            assert by["slowdisk"].disk_wait_write > 20 * max(peers)


def test_first_report_truncates_ops_but_keeps_bytes_and_latency():
    """Ops are truncated integers: the since-import report shows 0 read ops/s next to 1482
    read B/s and a read latency. '-' is the no-I/O marker, not a zero count."""
    slow = parse_iostat(_reports(DERANGED)[0])[6].io
    assert (slow.read_ops, slow.read_bytes, slow.total_wait_read) == (0, 1482, 100663296)


def test_paths_under_dash_p():
    rows = parse_iostat(_reports(CAPTURES / "deranged-disk/zpool-iostat-v-l-H-p-P-1-5.txt")[0])
    assert [r.name for r in rows][-2:] == ["/dev/loop2", "/dev/mapper/slowdisk"]


def test_ten_latency_columns_of_0_8_to_2_1():
    """0.8-2.1 print no rebuild column (reference §2.2): drop it, the same IoStats remain."""
    report = _reports(DERANGED)[0]
    old = "".join(line.rsplit("\t", 1)[0] + "\n" for line in report.splitlines())
    assert len(old.splitlines()[0].split("\t")) == 17
    assert parse_iostat(old) == parse_iostat(report)


# Reference §2.3 schematic (derived from code): `zpool iostat -Hpv tank` without -l, a log
# disk and a cache disk, each group opened by an empty line.
SCHEMATIC = """\
tank\t1318699008\t8881389568\t0\t5\t1229\t153600
mirror-0\t1318699008\t8881389568\t0\t5\t1229\t153600
sda\t0\t0\t0\t2\t614\t76800
sdb\t0\t0\t0\t2\t614\t76800

sdc\t131072\t4294836224\t0\t0\t0\t0

nvme0n1\t0\t0\t0\t0\t0\t0
"""


def test_blank_lines_open_class_groups_without_latency():
    rows = parse_iostat(SCHEMATIC)
    assert [(r.name, r.group) for r in rows] == [
        ("tank", 0),
        ("mirror-0", 0),
        ("sda", 0),
        ("sdb", 0),
        ("sdc", 1),
        ("nvme0n1", 2),
    ]
    assert rows[4].alloc == 131072 and rows[0].io.write_bytes == 153600
    assert all(r.io.total_wait_read is None and r.io.disk_wait_write is None for r in rows)


def test_several_pools_in_one_report_keep_row_order():
    """Nothing separates pools under -H (§2.3): groups keep counting into the next pool."""
    healthy = _reports(CAPTURES / "healthy/zpool-iostat-v-l-H-p-1-2.txt")[1]
    rows = parse_iostat(SCHEMATIC + healthy)
    assert [r.name for r in rows][5:8] == ["nvme0n1", "healthy", "mirror-0"]
    assert rows[6].group == 2


# Real OpenZFS 2.3.2 (zfslab): `zpool iostat -v -H -p -l -y -T u 1 2` over the two pools of
# test_zpool_list.CLASSES_H (ic: mirror + special + log + cache + spare; ic2: one file).
# Confirms: -T u prints under -H; under -y the skipped first report leaves a bare epoch line;
# a blank line opens each class group; nothing separates ic2 from ic's cache group; no spares.
LIVE_STREAM = """\
1795322064
1795322065
ic^I4351488^I498964992^I0^I0^I0^I0^I-^I-^I-^I-^I-^I-^I-^I-^I-^I-^I-
mirror-0^I4194304^I247463936^I0^I0^I0^I0^I-^I-^I-^I-^I-^I-^I-^I-^I-^I-^I-
/tmp/ic/a^I0^I0^I0^I0^I0^I0^I-^I-^I-^I-^I-^I-^I-^I-^I-^I-^I-
/tmp/ic/b^I0^I0^I0^I0^I0^I0^I-^I-^I-^I-^I-^I-^I-^I-^I-^I-^I-

/tmp/ic/sp^I157184^I251501056^I0^I0^I0^I0^I-^I-^I-^I-^I-^I-^I-^I-^I-^I-^I-

/tmp/ic/log^I0^I251658240^I0^I0^I0^I0^I-^I-^I-^I-^I-^I-^I-^I-^I-^I-^I-

/tmp/ic/cache^I3160576^I260555776^I0^I0^I0^I0^I-^I-^I-^I-^I-^I-^I-^I-^I-^I-^I-
ic2^I136704^I251521536^I0^I0^I0^I0^I-^I-^I-^I-^I-^I-^I-^I-^I-^I-^I-
/tmp/ic/c^I136704^I251521536^I0^I0^I0^I0^I-^I-^I-^I-^I-^I-^I-^I-^I-^I-^I-
1795322066
ic^I4351488^I498964992^I0^I0^I0^I0^I-^I-^I-^I-^I-^I-^I-^I-^I-^I-^I-
mirror-0^I4194304^I247463936^I0^I0^I0^I0^I-^I-^I-^I-^I-^I-^I-^I-^I-^I-^I-
/tmp/ic/a^I0^I0^I0^I0^I0^I0^I-^I-^I-^I-^I-^I-^I-^I-^I-^I-^I-
/tmp/ic/b^I0^I0^I0^I0^I0^I0^I-^I-^I-^I-^I-^I-^I-^I-^I-^I-^I-

/tmp/ic/sp^I157184^I251501056^I0^I0^I0^I0^I-^I-^I-^I-^I-^I-^I-^I-^I-^I-^I-

/tmp/ic/log^I0^I251658240^I0^I0^I0^I0^I-^I-^I-^I-^I-^I-^I-^I-^I-^I-^I-

/tmp/ic/cache^I3160576^I260555776^I0^I0^I0^I0^I-^I-^I-^I-^I-^I-^I-^I-^I-^I-^I-
ic2^I136704^I251521536^I0^I0^I0^I0^I-^I-^I-^I-^I-^I-^I-^I-^I-^I-^I-
/tmp/ic/c^I136704^I251521536^I0^I0^I0^I0^I-^I-^I-^I-^I-^I-^I-^I-^I-^I-^I-
""".replace("^I", "\t")


def test_live_stream_with_class_groups_and_two_pools():
    split = split_reports(LIVE_STREAM)
    assert [(ts, bool(text.strip())) for ts, text in split] == [
        (1795322064, False),
        (1795322065, True),
        (1795322066, True),
    ]
    rows = parse_iostat(split[1][1])
    assert [(r.name, r.group) for r in rows] == [
        ("ic", 0),
        ("mirror-0", 0),
        ("/tmp/ic/a", 0),
        ("/tmp/ic/b", 0),
        ("/tmp/ic/sp", 1),
        ("/tmp/ic/log", 2),
        ("/tmp/ic/cache", 3),
        ("ic2", 3),
        ("/tmp/ic/c", 3),
    ]
    assert rows[6].alloc == 3160576  # cache devices report their fill
    assert all(r.io.total_wait_write is None for r in rows)  # idle pool: '-' everywhere
    splitter = StreamSplitter()
    got = [rep for line in LIVE_STREAM.splitlines(keepends=True) for rep in splitter.feed(line)]
    assert got == [split[1]] and splitter.flush() == split[2]


def test_split_reports_on_epoch_lines():
    reports = _reports(DERANGED)
    split = split_reports(_stream(reports))
    assert split[0] == (1763782000, "")  # the -y skip
    assert [ts for ts, _ in split] == list(range(1763782000, 1763782006))
    assert [parse_iostat(t) for _, t in split[1:]] == [parse_iostat(r) for r in reports]


def test_split_reports_keeps_the_preamble_and_an_unfinished_tail():
    reports = _reports(DERANGED)
    stream = "header junk\n" + _stream(reports)[:-200]
    split = split_reports(stream)
    assert split[0] == (None, "header junk\n")
    assert split[-1][0] == 1763782005 and split[-1][1] == reports[-1][:-200]
    assert split_reports("") == []


@pytest.mark.parametrize("chunk", [1, 2, 7, 64, 333, 4096])
def test_stream_splitter_yields_each_report_once_complete(chunk):
    reports = _reports(DERANGED)
    stream = "\n" + _stream(reports)  # a stray line before the first epoch is dropped
    splitter, got = StreamSplitter(), []
    for i in range(0, len(stream), chunk):
        got += splitter.feed(stream[i : i + chunk])
    # the last report has no following epoch line yet: complete only on flush
    assert [r for _, r in got] == reports[:-1]
    assert [ts for ts, _ in got] == [1763782001, 1763782002, 1763782003, 1763782004]
    assert splitter.flush() == (1763782005, reports[-1])
    assert splitter.flush() is None


def test_stream_splitter_line_split_across_chunks():
    splitter = StreamSplitter()
    assert splitter.feed("17637820") == []
    assert splitter.feed("01\nhealthy\t1\t2\t3\t4\t5") == []
    assert splitter.feed("\t6\n1763782") == []
    assert splitter.feed("002\n") == [(1763782001, "healthy\t1\t2\t3\t4\t5\t6\n")]


def test_stream_without_epoch_lines_is_reported():
    """If -T u printed nothing, say so instead of buffering forever."""
    splitter, line = StreamSplitter(), "healthy\t1\t2\t3\t4\t5\t6\n"
    with pytest.raises(ParseError, match="epoch"):
        for _ in range((1 << 20) // len(line) + 2):
            splitter.feed(line)


def test_a_leading_epoch_line_is_tolerated_but_not_two_reports():
    report = _reports(DERANGED)[1]
    assert parse_iostat("1763782001\n" + report) == parse_iostat(report)
    with pytest.raises(ParseError, match="epoch"):
        parse_iostat(report + "1763782002\n" + report)


@pytest.mark.parametrize(
    "rel",
    [
        "deranged-disk/zpool-iostat-v-q-H-p-1-2.txt",  # -q queues: 20 values, not latencies
        "deranged-disk/zpool-iostat-v.after-load.txt",  # human layout
    ],
)
def test_other_layouts_are_refused(rel):
    with pytest.raises(ParseError):
        parse_iostat((CAPTURES / rel).read_text())


def test_empty_report():
    assert parse_iostat("") == () and parse_iostat("\n\n") == ()


def _mutated(report: str, picks: list[tuple[int, int, str]]) -> str:
    lines = report.split("\n")
    for line_no, field, token in picks:
        fields = lines[line_no % len(lines)].split("\t")
        fields[field % len(fields)] = token
        lines[line_no % len(lines)] = "\t".join(fields)
    return "\n".join(lines)


@pytest.mark.parametrize("path", LATENCY, ids=_id)
def test_the_bulk_reader_reads_what_the_line_reader_reads(path):
    """parse_iostat reads a usual report in bulk (C loops over every figure): the same rows as
    the line-by-line reader, and the same error, on the captures and on copies with '-', empty,
    non-digit, zero-led and too-long fields, blank lines and missing columns dropped in."""
    from zdash.parse.zpool_iostat import _report_by_line

    def outcome(fn, text):
        try:
            return fn(text)
        except ParseError as e:
            return str(e)

    # (each figure column is read as one JSON array: leading zeros, which JSON refuses, and
    # digits outside ASCII, which int() reads, must come out as the line reader has them)
    tokens = [
        "-",
        "",
        "x",
        "12",
        "9" * 21,
        "0" * 21 + "1",
        "3.5",
        "007",
        "9" * 20,
        "9" * 5000,  # (from a hostile host: refused before any int is made of it)
        "\u0661\u0663",
        "0",
        "1e3",
    ]
    report = _reports(path)[0]
    texts = [report, "\n" + report, report.replace("\n", "\n\n", 2)]
    for i in range(60):
        texts.append(
            _mutated(report, [(i * 7 + k, i + 3 * k, tokens[(i + k) % len(tokens)]) for k in range(i % 3)])
        )
    texts.append("\n".join(line.rsplit("\t", 1)[0] for line in report.split("\n")))
    for text in texts:
        assert outcome(parse_iostat, text) == outcome(_report_by_line, text)


def test_class_vdevs_in_scripted_iostat_are_told_apart_by_blank_lines():
    """OpenZFS 2.3.2, -v -H -p: no "special"/"logs"/"cache" heading, a blank line for each, and
    no spares at all (tests/captures/json-shapes: a special mirror, a log, a cache, a spare)."""
    first = parse_iostat(_reports(CAPTURES / "json-shapes/zpool-iostat-v-l-H-p-1-2.txt")[0])
    assert [(row.name, row.group) for row in first if row.group] == [
        ("mirror-2", 1),
        ("loop4", 1),
        ("loop5", 1),
        ("loop6", 2),
        ("loop7", 3),
    ]
    assert "loop8" in [row.name for row in first if row.group == 0]  # in spare-0, not as a spare


@pytest.mark.parametrize("path", LATENCY[:2], ids=_id)
def test_total_waits_made_only_when_read_read_as_the_line_reader_has_them(path):
    """A usual report's total waits are made floats only when read (a slow disk's row alone,
    or the whole column): a row alone, negative and past the end, a slice and the whole
    column read as the line reader has them, in either order."""
    from zdash.parse.zpool_iostat import _report_by_line

    text = _reports(path)[0]
    rows = _report_by_line(text)
    for whole_first in (False, True):
        report = parse_iostat(text)
        column = report.columns[4]
        assert type(column) is not list  # (made when read: what the line reader made now)
        want = [r.io.total_wait_read for r in rows]
        if whole_first:
            assert list(column) == want
        assert [column[i] for i in range(len(rows))] == want
        assert column[-1] == want[-1] and column[1:3] == want[1:3] and len(column) == len(want)
        with pytest.raises(IndexError):
            column[len(want)]
        assert report == rows and report[len(rows) - 1] == rows[-1]
