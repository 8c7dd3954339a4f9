"""zpool iostat -w / -r: the histograms of every version in the reference doc (10 latency
columns before 2.2, 11 with rebuild from 2.2; real outputs of both), scripted and as printed."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.mutate import FUZZED, mutated
from zdash.model import LatencyHistogram
from zdash.parse import ParseError
from zdash.parse.zpool_iostat_hist import HistBlock, histogram_argv, parse_histograms

CAPTURES = Path(__file__).resolve().parents[1] / "captures"
LAB = CAPTURES / "evidence"


def blocks(path: Path) -> dict[str, HistBlock]:
    return {b.name: b for b in parse_histograms(path.read_text())}


def as_model(b: HistBlock) -> LatencyHistogram:
    return LatencyHistogram("p", b.name, b.bounds, b.columns)


def test_scripted_2_3_by_guid_reads_each_leaf():
    got = parse_histograms((LAB / "zpool-iostat-w-H-p-g-1-1.txt").read_text())
    assert [b.name for b in got] == ["9511991020665671362", "460610704402109103"]
    b = got[0]
    assert b.kind == "latency" and len(b.bounds) == 37
    assert b.bounds[0] == 1 and b.bounds[-1] == 137438953471
    assert [n for n, _ in b.columns][-1] == "rebuild"  # 2.2+: 11 columns


def test_printed_2_3_matches_the_scripted_report_taken_with_it():
    printed = blocks(LAB / "zpool-iostat-w-v.load.txt")
    scripted = blocks(LAB / "zpool-iostat-w-v-H-p.load.txt")
    assert list(printed) == list(scripted) == ["ev", "mirror-0", "slownv", "nvme1n1"]
    for name in printed:  # the same buckets; counts agree up to the second between the two runs
        assert printed[name].bounds == scripted[name].bounds
        p = as_model(printed[name]).count("disk_read", "disk_write")
        s = as_model(scripted[name]).count("disk_read", "disk_write")
        assert abs(p - s) <= 0.1 * s


def test_the_slow_leaf_has_the_long_tail():
    """dm-delay 30 ms over one NVMe side of the mirror, under fio: its p99 disk wait is far
    above its peer's, the pool's median is not."""
    got = blocks(LAB / "zpool-iostat-w-v-H-p.load.txt")
    slow, peer = as_model(got["slownv"]), as_model(got["nvme1n1"])
    assert slow.quantile(0.5, "disk_read", "disk_write") >= 2 * peer.quantile(0.5, "disk_read", "disk_write")
    assert slow.quantile(0.99, "disk_write") >= 33_554_431  # >= 33 ms: the 30 ms delay
    assert peer.quantile(0.99, "disk_write") < slow.quantile(0.99, "disk_write")


def test_printed_counts_in_nicenum_and_human_buckets():
    got = blocks(CAPTURES / "deranged-disk" / "zpool-iostat-v-w.txt")
    pool = got["deranged"]
    assert pool.bounds[9] == 1023 and pool.bounds[19] == 1048575 and pool.bounds[29] == 1073741823
    total_write = dict(pool.columns)["total_write"]
    assert total_write[pool.bounds.index(67108863)] == 1485  # "1.45K": zpool's base-1024 nicenum
    assert set(got) >= {"mirror-0", "mirror-1", "loop0", "loop1"}


@pytest.mark.parametrize("sample", ["concat-mirrors.txt", "long-writes-one-device.txt"])
def test_published_pre_2_2_outputs_have_ten_columns(sample):
    got = parse_histograms((CAPTURES / "iostat-w-published" / sample).read_text())
    assert got and all(b.kind == "latency" and len(b.columns) == 10 for b in got)
    assert [n for n, _ in got[0].columns][-1] == "trim"


def test_long_writes_one_device_is_a_write_tail():
    got = blocks(CAPTURES / "iostat-w-published" / "long-writes-one-device.txt")
    rpool = as_model(got["rpool"])
    assert rpool.quantile(0.5, "disk_write") <= 1_048_575  # half the writes within ~1 ms
    assert rpool.quantile(0.99, "total_write") >= 1_073_741_823  # 1 % wait a second or more


def test_request_size_histograms():
    got = parse_histograms((LAB / "zpool-iostat-r-v.load.txt").read_text())
    assert all(b.kind == "size" for b in got)
    assert got[0].bounds[0] == 512 and got[0].bounds[-1] == 16 << 20
    assert [n for n, _ in got[0].columns][:2] == ["sync_read_ind", "sync_read_agg"]
    scripted = parse_histograms((LAB / "zpool-iostat-r-H-p-g.load.txt").read_text())
    assert len(scripted) == 2 and len(scripted[0].columns) == 14


def test_a_stream_of_reports_keeps_every_block_in_order():
    got = parse_histograms((LAB / "zpool-iostat-w-H-p-P-T-u-1-2.txt").read_text())
    names = [b.name for b in got]
    assert names == ["evt", "mirror-0", "/dev/nvme0n1p1", "/dev/nvme1n1p1"] * 2


def test_refusals_are_one_line():
    for name in ("zpool-iostat-j.refused.txt", "zpool-iostat-w-H-p-g-gone-1-1.txt"):
        with pytest.raises(ParseError) as e:
            parse_histograms((LAB / name).read_text())
        assert "\n" not in str(e.value)


def test_argv_ends_with_interval_and_count():
    assert histogram_argv("tank", ("1", "2")) == (
        "zpool",
        "iostat",
        "-w",
        "-H",
        "-p",
        "-g",
        "tank",
        "1",
        "2",
        "1",
        "1",
    )


def test_quantiles_of_an_empty_histogram_are_none():
    h = LatencyHistogram("p", "v", (1, 3), (("disk_read", (0, 0)),))
    assert h.quantile(0.99, "disk_read") is None and h.quantile(0.5, "nope") is None


SEEDS = [
    (LAB / "zpool-iostat-w-H-p-g-1-1.txt").read_text(),
    (LAB / "zpool-iostat-w-v.load.txt").read_text()[:5000],
    (LAB / "zpool-iostat-r-v.load.txt").read_text()[:4000],
    (CAPTURES / "iostat-w-published" / "concat-mirrors.txt").read_text()[:4000],
]
_SNIPPET = st.one_of(
    st.sampled_from(list("\t\n -0123456789.KMsnu") + ["1.25K", "-----", "latency"]), st.text(max_size=4)
)


@FUZZED
@given(mutated(SEEDS, _SNIPPET))
def test_fuzzed_histograms_parse_or_fail_clearly(text):
    try:
        got = parse_histograms(text)
    except ParseError as e:
        assert str(e) and "\n" not in str(e)
        return
    for b in got:
        assert b.kind in ("latency", "size")
        assert all(len(c) == len(b.bounds) for _, c in b.columns)
        assert list(b.bounds) == sorted(set(b.bounds))
