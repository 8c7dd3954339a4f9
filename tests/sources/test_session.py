"""Session files keep every byte a command printed, and survive being cut short."""

import gzip

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zdash.raw import RawSample, Tick
from zdash.sources.session import SessionError, SessionWriter, read_session


def _tick(t, out, err="", key="status"):
    return Tick(t, (RawSample(key, ("zpool", "status", "-p"), 0, out, err, t, 0.25),))


@pytest.mark.parametrize("name", ["s.yaml", "s.yaml.gz"])
def test_round_trip_is_exact(tmp_path, name):
    path = str(tmp_path / name)
    texts = ["\tNAME  STATE\n\t  mirror-0  ONLINE\n", '{"json": 1}', "", "a\r\nb\x00\n", "trail  \n\n"]
    with SessionWriter(path, "box", 1.0, description="two mirrors\nunder load") as w:
        for i, t in enumerate(texts):
            w.write(_tick(100.0 + i, t, err="warn" if i else ""))
    header, ticks = read_session(path)
    assert (header.host, header.interval, header.description) == ("box", 1.0, "two mirrors\nunder load")
    got = list(ticks)
    assert [t.samples[0].stdout for t in got] == texts
    assert got[1].samples[0] == _tick(101.0, texts[1], "warn").samples[0]


def test_gzip_file_is_compressed(tmp_path):
    path = str(tmp_path / "s.yaml.gz")
    with SessionWriter(path, "box", 1.0) as w:
        w.write(_tick(1.0, "x" * 10000))
    with gzip.open(path) as f:  # gzip.open fails on a plain file
        assert b"x" * 10000 in f.read()


def test_truncated_recording_yields_complete_ticks(tmp_path):
    path = tmp_path / "s.yaml"
    with SessionWriter(str(path), "box", 1.0) as w:
        for i in range(3):
            w.write(_tick(float(i), f"report {i}\n"))
    data = path.read_text()
    path.write_text(data[: data.rindex("report 2") + 3])  # killed mid-write
    _, ticks = read_session(str(path))
    assert [t.samples[0].stdout for t in ticks][:2] == ["report 0\n", "report 1\n"]


@pytest.mark.parametrize(
    "content, msg",
    [
        ("just: yaml\n", "not a zdash session"),
        ("zdash_session: 99\n", "format 99 is not supported"),
        ("{{{{", "not a zdash session"),
    ],
)
def test_foreign_files_get_one_line_message(tmp_path, content, msg):
    path = tmp_path / "x.yaml"
    path.write_text(content)
    with pytest.raises(SessionError, match=msg):
        read_session(str(path))


def test_missing_file_message(tmp_path):
    with pytest.raises(SessionError, match="cannot read session"):
        read_session(str(tmp_path / "nope.yaml"))


@settings(deadline=None)
@given(st.text(), st.text())
def test_any_output_survives_round_trip(tmp_path_factory, out, err):
    path = str(tmp_path_factory.mktemp("s") / "s.yaml")
    with SessionWriter(path, "h", 1.0) as w:
        w.write(_tick(5.0, out, err))
    _, ticks = read_session(path)
    s = next(ticks).samples[0]
    assert (s.stdout, s.stderr) == (out, err)


@pytest.mark.parametrize("name", ["s.yaml", "s.yaml.gz"])
def test_onset_written_later_keeps_every_tick_and_old_files_have_none(tmp_path, name):
    """A scenario learns when its fault begins while it records, after the header was written."""
    from zdash.sources.session import set_onset

    path = str(tmp_path / name)
    with SessionWriter(path, "box", 1.0, description="a disk goes slow\nat 10 s") as w:
        for i in range(3):
            w.write(_tick(100.0 + i, f"tick {i}\n"))
    header, ticks = read_session(path)
    before = list(ticks)
    assert header.onset is None  # a recording made before onsets existed reads as before
    set_onset(path, 101.5)
    header, ticks = read_session(path)
    assert header.onset == 101.5 and header.description == "a disk goes slow\nat 10 s"
    assert list(ticks) == before


def test_onset_from_the_writer_and_a_bad_one_refused(tmp_path):
    path = str(tmp_path / "s.yaml")
    with SessionWriter(path, "box", 1.0, onset=100.25) as w:
        w.write(_tick(100.0, "x"))
    assert read_session(path)[0].onset == 100.25
    with open(path) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(text.replace("onset: 100.25", "onset: soon"))
    with pytest.raises(SessionError, match="onset 'soon' is not a time"):
        read_session(path)


def test_the_header_format_may_be_quoted(tmp_path):
    """A header edited by hand or written by another YAML tool: zdash_session: "1" was refused as
    "format 1 is not supported (this zdash reads format 1)"."""
    path = tmp_path / "r.yaml"
    with SessionWriter(str(path), "h", 1.0) as w:
        w.write(Tick(1.0, (RawSample("version", ("zpool", "version"), 0, "zfs-2.3.2\n", "", 1.0),)))
    text = path.read_text()
    path.write_text(text.replace("zdash_session: 1", 'zdash_session: "1"', 1))
    header, ticks = read_session(str(path))
    assert header.version == 1 and len(list(ticks)) == 1
    path.write_text(text.replace("zdash_session: 1", "zdash_session: 2", 1))
    with pytest.raises(
        SessionError, match=r"session format 2 is not supported \(this zdash reads format 1\)"
    ):
        read_session(str(path))
