"""The .zdash recording (format 2): raw ticks in SQLite with keyframes. Round trip, never
clobbered, one writer, readable while written, nothing lost to a killed writer, and a fold
from a keyframe that equals the fold from the start."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import zlib

import pytest

from zdash import scenarios
from zdash.commands.convert import convert
from zdash.fold import fold_key, run_checks
from zdash.fold.recording import fold_to, load_replay
from zdash.raw import RawSample, Tick
from zdash.sources.recording import open_recording
from zdash.sources.session import SessionError, read_session
from zdash.sources.store import KEYFRAME_EVERY, KeyframePolicy, StoreError, StoreReader, StoreWriter

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _tick(t: float, text: str = "x") -> Tick:
    return Tick(
        t,
        (
            RawSample("iostat", ("zpool", "iostat"), None, f"{int(t)}\n{text}\n", "", t, 0.25),
            RawSample("status", ("zpool", "status"), 1, "", "cannot open\n", t, 10.0, "timed out"),
        ),
    )


def test_ticks_come_back_exactly_and_by_time(tmp_path):
    path = str(tmp_path / "r.zdash")
    ticks = [_tick(1000.0 + i, "\x00weird\r\n\u2028text" * i) for i in range(5)]
    with StoreWriter(path, "nas1", 1.0, "what to look for") as w:
        for t in ticks:
            w.write(t)
    rec = open_recording(path)
    assert rec.header.host == "nas1" and rec.header.description == "what to look for" and rec.count() == 5
    assert [rec.tick(i) for i in range(5)] == ticks and list(rec.ticks(2)) == ticks[2:]
    assert (rec.index_at(1002.5), rec.index_at(0.0), rec.index_at(1e12)) == (2, 0, 4)


def test_an_existing_recording_is_never_overwritten_without_force(tmp_path):
    path = str(tmp_path / "r.zdash")
    StoreWriter(path, None, 1.0).close()
    with pytest.raises(StoreError, match="already exists: zdash never overwrites"):
        StoreWriter(path, None, 1.0)
    StoreWriter(path, None, 1.0, force=True).close()


def test_a_second_writer_is_refused_and_a_reader_sees_ticks_while_they_are_written(tmp_path):
    path = str(tmp_path / "r.zdash")
    with StoreWriter(path, None, 1.0) as w:
        w.write(_tick(1.0))
        with pytest.raises(StoreError, match="being written by another zdash"):
            StoreWriter(path, None, 1.0, force=True)
        reader = StoreReader(path)
        assert reader.count() == 1
        w.write(_tick(2.0))
        assert reader.count() == 2  # rewind a live recording


def test_a_killed_writer_loses_no_committed_tick(tmp_path):
    path = str(tmp_path / "k.zdash")
    code = (
        f"import os, sys; sys.path.insert(0, {ROOT!r})\n"
        "from zdash.sources.store import StoreWriter\n"
        "from zdash.raw import RawSample, Tick\n"
        f"w = StoreWriter({path!r}, None, 1.0)\n"
        "for i in range(9):\n"
        "    w.write(Tick(float(i), (RawSample('iostat', ('zpool',), None, 'x' * 5000, '', float(i)),)))\n"
        "os.kill(os.getpid(), 9)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=False, timeout=60)
    assert open_recording(path).count() == 9


def test_a_converted_recording_folds_from_its_keyframes_to_the_same_findings(tmp_path, monkeypatch):
    monkeypatch.setattr("zdash.sources.store.KEYFRAME_EVERY", 7)
    monkeypatch.setattr("zdash.sources.store.SEEK_BUDGET_S", 10.0)  # the cap decides, not the clock
    out = str(tmp_path / "d.zdash")
    src = scenarios.path_of("degraded-resilver")
    assert convert(src, out) == len(list(read_session(src)[1]))
    rec = open_recording(out)
    _, snaps = load_replay(src)
    for i in (0, 6, 7, 9, 20, len(snaps) - 1):
        folded = fold_to(rec, i)
        assert folded.snapshot == snaps[i]
        assert list(folded.findings) == run_checks(snaps[: i + 1]), i
    kf = rec.keyframe(20, fold=fold_key(None))
    assert kf is not None and kf[0] == 14  # the newest keyframe before tick 20 (one every 7)
    assert KEYFRAME_EVERY == 60  # the default: a seek folds at most a minute of ticks
    # a keyframe refers to the tick holding a slow command's output instead of a second copy
    row = sqlite3.connect(out).execute("SELECT builder FROM keyframes WHERE seq = 14").fetchone()
    stored = json.loads(zlib.decompress(row[0]))
    refs = [s for s in stored["slots"].values() if s.get("ref")]
    assert refs and all(s["raw"] is None for s in refs)


def test_keyframes_come_as_often_as_a_fold_of_this_pool_needs():
    policy = KeyframePolicy()
    assert policy.gap == KEYFRAME_EVERY  # nothing measured yet: the cap
    for cost, gap in ((0.0001, KEYFRAME_EVERY), (0.001, 35), (0.005, 7), (0.05, 5)):
        policy = KeyframePolicy()
        policy.observe(cost)
        assert policy.gap == gap, cost
    policy = KeyframePolicy()
    policy.observe(0.005)
    due = [policy.due() for _ in range(25)]
    assert [i for i, d in enumerate(due) if d] == [7, 14, 21]  # never on the first tick, then every 7th


def test_not_a_recording_is_one_line(tmp_path):
    bad = tmp_path / "x.zdash"
    bad.write_bytes(b"SQLite format 3\x00" + b"\x00" * 200)
    with pytest.raises(SessionError, match=r"cannot read|not a zdash"):
        open_recording(str(bad))


def test_a_writer_killed_while_it_closed_leaves_a_file_the_reader_still_reads(tmp_path):
    """Closing switches the file out of WAL mode, a write with a rollback journal; killed then,
    the journal is "hot" and only a writer may roll it back ("attempt to write a readonly
    database" for a read-only reader: 2 of 20 killed flight recorders before this). The reader
    rolls back a private copy; the recording's own files are left as they are."""
    import shutil

    path, frozen = str(tmp_path / "rec.zdash"), str(tmp_path / "killed.zdash")
    w = StoreWriter(path, "h", 1.0, "killed while closing")
    for i in range(5):
        w.write(_tick(1000.0 + i))
    w.close()  # the file alone, in rollback-journal mode now
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA cache_size=1")  # the change goes to the file at once, its undo journalled
    db.execute("BEGIN IMMEDIATE")
    db.execute("DELETE FROM ticks")
    db.execute("INSERT INTO meta VALUES ('big', ?)", ("x" * 200_000,))
    for suffix in ("", "-journal"):
        shutil.copy(path + suffix, frozen + suffix)  # the files as a SIGKILL would leave them
    db.execute("ROLLBACK")
    db.close()
    assert os.path.exists(frozen + "-journal")
    before = {name: os.path.getsize(tmp_path / name) for name in os.listdir(tmp_path)}
    r = StoreReader(frozen)
    try:
        assert r.count() == 5 and r.meta["description"] == "killed while closing"
        assert [t.time for t in r.ticks()] == [1000.0 + i for i in range(5)]
    finally:
        r.close()
    assert {name: os.path.getsize(tmp_path / name) for name in os.listdir(tmp_path)} == before


def test_a_replay_closed_while_its_timeline_scan_reads_ends_the_scan_cleanly(tmp_path):
    """Quitting a replay closes the recording while the timeline's scan (a thread of its own)
    may be reading a tick from the same connection: that ended zdash with a segmentation fault
    in the unit suite. Now the scan's next read is a StoreError, the close waits for a read in
    progress, and nothing crashes."""
    import threading

    path = str(tmp_path / "r.zdash")
    with StoreWriter(path, "nas1", 1.0) as w:
        for i in range(50):
            w.write(_tick(1000.0 + i, "row\n" * 50))
    for _ in range(5):
        rec = open_recording(path)
        read, ended = threading.Event(), []

        def scan(rec=rec, read=read, ended=ended) -> None:
            try:
                for i in range(10**6):
                    rec.tick(i % 50)
                    next(rec.ticks(i % 50))
                    read.set()
            except Exception as err:  # noqa: BLE001 - how the scan ended is what is asserted
                ended.append(err)

        thread = threading.Thread(target=scan)
        thread.start()
        assert read.wait(30)
        rec.close()
        thread.join(30)
        assert not thread.is_alive()
        assert [type(e) for e in ended] == [StoreError]
