"""Format 1 survives what happens to files: a writer killed mid-tick, a flipped byte, a
malformed field, garbage, a second writer. Nothing is lost that was written whole, a damaged
tick is skipped and counted, and `check --replay` says what it could not read."""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from zdash.cli import main
from zdash.raw import RawSample, Tick
from zdash.sources.session import SessionError, SessionReport, SessionWriter, read_session

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _tick(i: int) -> Tick:
    text = f"{1700000000 + i}\ntank\t0\t0\t0\t{i}\t0\t{i * 4096}\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\n"
    return Tick(
        1700000000.0 + i, (RawSample("iostat", ("zpool", "iostat"), None, text, "", 1700000000.0 + i),)
    )


def _write(path: str, n: int) -> None:
    with SessionWriter(path, "h", 1.0) as w:
        for i in range(n):
            w.write(_tick(i))


def _read(path: str) -> tuple[list[Tick], SessionReport]:
    report = SessionReport()
    _, ticks = read_session(path, report)
    return list(ticks), report


@pytest.mark.parametrize("name", ["r.yaml", "r.yaml.gz"])
def test_a_round_trip_is_exact_and_zcat_reads_the_gz(tmp_path, name):
    path = str(tmp_path / name)
    _write(path, 5)
    ticks, report = _read(path)
    assert ticks == [_tick(i) for i in range(5)] and report.summary() is None
    if name.endswith(".gz"):
        assert gzip.decompress(Path(path).read_bytes()).count(b"\n---\n") == 6  # one valid gzip file


@pytest.mark.slow
def test_a_writer_killed_at_random_moments_loses_no_complete_tick(tmp_path):
    """SIGKILL while writing (5 trials here; tests/faults/kill_recorder.py runs 20)."""
    rng = random.Random(7)
    for trial in range(5):
        path = str(tmp_path / f"k{trial}.yaml.gz")
        done = str(tmp_path / f"k{trial}.done")
        code = (
            f"import os, sys; sys.path.insert(0, {ROOT!r})\n"
            "from tests.sources.test_session_damage import _tick\n"
            "from zdash.sources.session import SessionWriter\n"
            f"w = SessionWriter({path!r}, 'h', 1.0)\n"
            "for i in range(100000):\n"
            "    w.write(_tick(i))\n"
            # replaced whole: a kill never leaves the count empty (0 would prove nothing)
            f"    open({done!r} + '.tmp', 'w').write(str(i + 1))\n"
            f"    os.replace({done!r} + '.tmp', {done!r})\n"
        )
        child = subprocess.Popen([sys.executable, "-c", code])
        deadline = time.monotonic() + 30
        while not os.path.exists(done) and time.monotonic() < deadline:
            time.sleep(0.01)  # the child's start-up, then a random moment in its writing
        time.sleep(rng.uniform(0.0, 0.5))
        child.kill()
        child.wait()
        committed = int(Path(done).read_text() or 0)
        ticks, _ = _read(path)
        assert len(ticks) >= committed and ticks == [_tick(i) for i in range(len(ticks))], trial


def test_a_damaged_member_in_the_middle_costs_one_tick_of_the_gz_and_says_so(tmp_path):
    path = str(tmp_path / "d.yaml.gz")
    _write(path, 9)
    data = bytearray(Path(path).read_bytes())
    data[len(data) // 2] ^= 0xFF
    Path(path).write_bytes(bytes(data))
    ticks, report = _read(path)
    assert len(ticks) == 8 and ticks[-1] == _tick(8)  # the reader found the next member
    assert "1 of 9 ticks unreadable" in (report.summary() or "") and not report.truncated


def test_a_bad_byte_in_a_plain_file_costs_its_tick_and_says_so(tmp_path):
    path = tmp_path / "b.yaml"
    _write(str(path), 6)
    data = bytearray(path.read_bytes())
    at = data.index(b"tank\t0\t0\t0\t3")  # inside tick 3's recorded output
    data[at] = 0xFF
    path.write_bytes(bytes(data))
    ticks, report = _read(str(path))
    assert ticks == [_tick(i) for i in (0, 1, 2, 4, 5)]  # never altered silently
    assert "1 of 6 ticks unreadable" in (report.summary() or "")


def test_a_malformed_tick_in_the_middle_is_skipped_and_counted_not_the_end(tmp_path):
    path = tmp_path / "m.yaml"
    _write(str(path), 6)
    text = path.read_text().replace(f"t: {1700000000.0 + 2}", "t: [not, a, time]")  # a bad field
    path.write_text(text.replace("- key: iostat\n", "- key: iostat\n  argv: {broken\n", 1))  # bad YAML
    ticks, report = _read(str(path))
    assert len(ticks) == 4 and len(report.damaged) == 2
    assert report.summary().startswith("2 of 6 ticks unreadable, skipped (tick 1: unreadable")


def test_check_replay_says_what_it_could_not_read(tmp_path):
    path = tmp_path / "m.yaml"
    _write(str(path), 6)
    path.write_text(path.read_text().replace(f"t: {1700000000.0 + 3}", "t: nope"))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["check", "--replay", str(path)])
    assert "! recording: 1 of 6 ticks unreadable, skipped (tick 4: unreadable" in out.getvalue()


@pytest.mark.parametrize(
    "content, says",
    [
        (bytes(random.Random(1).randrange(256) for _ in range(4096)), "not a zdash session"),
        (b"zdash_session: 1\ninterval: fast\n", "interval 'fast' is not a number"),
        (b"\xff\xfe\x00garbage\x80\x81", "not a zdash session"),
        (("zdash_session: 1\nx: " + "[" * 20000 + "]" * 20000 + "\n").encode(), "not a zdash session"),
    ],
)
def test_garbage_is_one_line_and_check_exits_3(tmp_path, capsys, content, says):
    path = tmp_path / "g.yaml"
    path.write_bytes(content)
    with pytest.raises(SessionError, match=says):
        _read(str(path))
    assert main(["check", "--replay", str(path)]) == 3
    assert says in capsys.readouterr().err


def test_a_second_writer_is_refused(tmp_path):
    path = str(tmp_path / "w.yaml.gz")
    with SessionWriter(path, "h", 1.0) as first:
        first.write(_tick(0))
        with pytest.raises(OSError, match="already exists"):
            SessionWriter(path, "h", 1.0)
        with pytest.raises(OSError, match="being written by another zdash"):
            SessionWriter(path, "h", 1.0, force=True)
        first.write(_tick(1))
    assert _read(path)[0] == [_tick(0), _tick(1)]  # the refused --force emptied nothing


def test_a_file_gzipped_whole_and_cut_short_keeps_its_complete_ticks(tmp_path):
    """`gzip session.yaml` makes one member of the whole file; cut short (a copy interrupted, a
    full disk), zcat recovers every tick before the cut. zdash read none ("not a zdash session")."""
    plain = str(tmp_path / "r.yaml")
    _write(plain, 40)
    packed = gzip.compress(Path(plain).read_bytes())
    cut = tmp_path / "cut.yaml.gz"
    cut.write_bytes(packed[: len(packed) * 2 // 3])
    recovered = subprocess.run(["zcat"], input=cut.read_bytes(), capture_output=True).stdout.decode()
    complete = recovered.count("\n---\nt: ")
    ticks, report = _read(str(cut))
    assert complete >= 10 and len(ticks) >= complete - 1
    assert ticks == [_tick(i) for i in range(len(ticks))] and "cut off" in (report.summary() or "")
