"""Session files keep every byte a command printed, and survive being cut short."""

import gzip
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zdash.raw import RawSample, Tick
from zdash.sources import session
from zdash.sources.session import SessionError, SessionReport, SessionWriter, read_session


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


@pytest.fixture(params=["libyaml", "pure"])
def yaml_loader(request, monkeypatch):
    """Each test below runs with PyYAML's libyaml loader and, as on a Python for which PyYAML
    has no wheel with libyaml, with its pure-Python one (read alike; ~85 ms a 1,000-leaf tick
    against ~4, about ruamel's ~80)."""
    import yaml

    from zdash.yaml_doc import _recording_loader

    if request.param == "pure":
        monkeypatch.delattr(yaml, "CSafeLoader", raising=False)
    elif not yaml.__with_libyaml__:
        pytest.skip("this PyYAML was built without libyaml")
    _recording_loader.cache_clear()
    assert issubclass(_recording_loader(), yaml.SafeLoader) == (request.param == "pure")
    yield request.param
    _recording_loader.cache_clear()


@pytest.mark.usefixtures("yaml_loader")
def test_words_yaml_1_1_would_change_are_read_as_written(tmp_path):
    # The writer (ruamel) writes YAML 1.2, where `on`, `yes`, `no` and `1:20` are plain text and
    # leaves them unquoted; the fast reader (libyaml) must not read them as YAML 1.1 would
    # (True, False, 80): an argv `on` became True, and the sample's argv "True".
    path = str(tmp_path / "s.yaml.gz")
    argv = ("zfs", "set", "on", "yes", "no", "off", "1:20", "12:30:45", "0777", "y", "~", "true")
    sample = RawSample("props", argv, 0, "on\n", "no", 5.0, 0.25)
    with SessionWriter(path, "h", 1.0) as w:
        w.write(Tick(5.0, (sample,)))
    _, ticks = read_session(path)
    assert next(ticks).samples == (sample,)


@pytest.mark.usefixtures("yaml_loader")
def test_a_tick_with_a_duplicate_key_is_damaged(tmp_path):
    path = tmp_path / "s.yaml"
    with SessionWriter(str(path), "box", 1.0) as w:
        for i in range(3):
            w.write(_tick(float(i), f"report {i}\n"))
    text = path.read_text()
    path.write_text(text.replace("t: 1.0\n", "t: 1.0\nt: 7.0\n"))
    report = SessionReport()
    _, ticks = read_session(str(path), report)
    assert [t.time for t in ticks] == [0.0, 2.0]
    assert len(report.damaged) == 1 and "tick 2" in report.damaged[0]


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet="\n-ab# ", max_size=120),
    st.lists(st.integers(min_value=1, max_value=9), min_size=1, max_size=40),
)
def test_documents_are_the_same_however_the_text_arrives_in_pieces(text, cuts):
    # A separator may straddle pieces, a piece may hold several documents or a part of one:
    # the documents are those of the whole text read at once.
    def pieces_of(at):
        def chunks(path, report):
            i = 0
            for n in (cuts * (len(text) + 1))[: len(text) + 1] if at else [len(text)]:
                if i >= len(text):
                    break
                yield text[i : i + n]
                i += n

        return chunks

    def docs(at):
        with mock.patch.object(session, "_chunks", pieces_of(at)):
            return list(session._documents("x", SessionReport()))

    assert docs(at=True) == docs(at=False)


@given(st.text(alphabet=" \t\n\r\x0b\x0c\x1c\x85\u2028\u3000#a-", max_size=40))
def test_a_document_has_content_when_one_of_its_lines_is_neither_blank_nor_a_comment(text):
    # read from its first line when that one says so; any line break Python knows counts
    lines = text.splitlines()
    assert session._has_content(text) == any(ln.strip() and not ln.lstrip().startswith("#") for ln in lines)


def test_a_file_gzipped_whole_is_read_as_it_decodes(tmp_path, monkeypatch):
    # `gzip rec.yaml` makes one member of the whole file: it is handed over piece by piece (the
    # reader once held its whole text), pieces that cut ticks and UTF-8 characters anywhere.
    monkeypatch.setattr("zdash.sources.session.CHUNK", 1000)
    plain, whole = tmp_path / "s.yaml", tmp_path / "s.yaml.gz"
    written = [_tick(float(i), f"pool é{i} ✓\n" * (i * 37 % 90)) for i in range(40)]
    with SessionWriter(str(plain), "box", 1.0) as w:
        for t in written:
            w.write(t)
    whole.write_bytes(gzip.compress(plain.read_bytes()))
    pieces = []
    real = session._chunks

    def counted(path, report):
        for piece in real(path, report):
            pieces.append(len(piece))
            yield piece

    monkeypatch.setattr("zdash.sources.session._chunks", counted)
    _, ticks = read_session(str(whole))
    assert list(ticks) == written
    assert len(pieces) > 10 and max(pieces) <= 1000
