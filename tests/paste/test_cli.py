"""`zdash import FILE -o SESSION` and `zdash check --text FILE`, end to end."""

from __future__ import annotations

import io
import json
import os
import sys

import pytest

from tests.paste import pastes
from tests.paste.helpers import CAPTURES, human_paste
from zdash.cli import main
from zdash.fold.recording import load_replay
from zdash.sources.session import read_session


def _write(tmp_path, text: str, name: str = "paste.txt", encoding: str = "utf-8"):
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    os.utime(path, (1_700_000_000, 1_700_000_000))
    return path


def _check(capsys, path, *extra):
    code = main(["check", "--text", str(path), *extra])
    out, err = capsys.readouterr()
    return code, out, err


def test_import_writes_a_one_tick_session_that_replays(tmp_path, capsys):
    paste = _write(tmp_path, "Last login: yesterday\n" + human_paste("imbalance-size", None))
    out = tmp_path / "s.yaml.gz"
    assert main(["import", str(paste), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert err.startswith("line 1: Last login: yesterday (not recognised")
    assert "wrote" in err and "1 line(s) not read" in err
    header, snaps = load_replay(str(out))
    assert len(snaps) == 1 and snaps[0].time == 1_700_000_000
    assert "line 1: Last login: yesterday" in header.description and "paste.txt" in header.description
    (pool,) = snaps[0].pools
    assert pool.name == "sizes" and [round(v.fill_pct) for v in pool.top_level] == [22, 39]
    _, ticks = read_session(str(out))
    (tick,) = list(ticks)
    assert {s.key: s.argv[:3] for s in tick.samples} == {
        "status": ("zpool", "status"),
        "list": ("zpool", "list", "-v"),
        "iostat": ("zpool", "iostat", "-v"),
        "datasets": ("zfs", "list", "-H"),
    }


def test_import_of_nothing_readable_exits_1_and_writes_nothing(tmp_path, capsys):
    paste = _write(tmp_path, "hello\nworld\n")
    out = tmp_path / "s.yaml"
    assert main(["import", str(paste), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "line 1: hello (" in err and "line 2: world (" in err and "nothing in" in err
    assert not out.exists()


def test_import_missing_file(tmp_path, capsys):
    assert main(["import", str(tmp_path / "nope.txt"), "-o", str(tmp_path / "s.yaml")]) == 1
    assert "cannot read" in capsys.readouterr().err


def test_import_reads_utf16_and_stdin(tmp_path, capsys, monkeypatch):
    text = (CAPTURES / "healthy/zpool-status.txt").read_text()
    paste = _write(tmp_path, "\ufeff" + text.replace("\n", "\r\n"), encoding="utf-16-le")
    assert main(["import", str(paste), "-o", str(tmp_path / "a.yaml")]) == 0
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    assert main(["import", "-", "-o", str(tmp_path / "b.yaml")]) == 0
    for name in ("a.yaml", "b.yaml"):
        _, snaps = load_replay(str(tmp_path / name))
        assert [p.name for p in snaps[0].pools] == ["healthy"]


def test_check_text_permanent_errors_is_critical(tmp_path, capsys):
    paste = _write(tmp_path, human_paste("errors", "permanent"))
    code, out, _ = _check(capsys, paste)
    assert code == 2
    # The pager's line names the worst cause, not just the pool's state.
    assert out.splitlines()[0].startswith("ZDASH CRITICAL - perm: 1 permanent data error (+")
    assert "[CRITICAL] perm: 1 permanent data error" in out


def test_check_text_device_errors_warn(tmp_path, capsys):
    code, out, _ = _check(capsys, _write(tmp_path, human_paste("errors", "after-scrub")))
    assert code == 1
    assert "/tmp/zl/errors/d1 in mirror-0: 70 read errors" in out
    assert "/tmp/zl/errors/d3 in mirror-1: 56 write errors" in out
    # d2's checksum errors are what the scrub found and repaired: one finding about the scrub.
    assert "repaired 3.0 KiB on /tmp/zl/errors/d2 (3 checksum errors)" in out


@pytest.mark.parametrize(
    "phase,code,title",
    [
        ("cap85", 1, "cap85 is 85.8 % full"),
        ("cap93", 2, "cap93 is 92.8 % full"),  # 92.88 %, shown rounded down as every fill is
        ("capfull", 2, "capfull is out of space"),
    ],
)
def test_check_text_capacity(tmp_path, capsys, phase, code, title):
    got, out, _ = _check(capsys, _write(tmp_path, human_paste("capacity", phase)))
    assert got == code and title in out


def test_check_text_capacity_from_zpool_list_alone(tmp_path, capsys):
    """No status pasted: the pool comes from the list's tree and HEALTH. 2.09G of 2.25G reads
    92.9 %; CAP 93 % bounds it to 93.0 (the exact bytes of the same pool: 93.03 %)."""
    got, out, _ = _check(capsys, _write(tmp_path, (CAPTURES / "capacity/zpool-list-v.cap93.txt").read_text()))
    assert got == 2 and "cap93 is 93.0 % full" in out


def test_check_text_deranged_disk(tmp_path, capsys):
    """`zpool status -s -P` and `zpool iostat -v -l` (the first report of the 1 3 capture is
    exactly what `zpool iostat -v -l deranged` prints: the average since import)."""
    iostat = (CAPTURES / "deranged-disk/zpool-iostat-v-l-1-3.txt").read_text().splitlines()[:11]
    text = (
        "# zpool status -s -P deranged\n"
        + (CAPTURES / "deranged-disk/zpool-status-s-P.txt").read_text()
        + "# zpool iostat -v -l deranged\n"
        + "\n".join(iostat)
        + "\n"
    )
    code, out, err = _check(capsys, _write(tmp_path, text), "--json")
    doc = json.loads(out)
    assert code == 1 and doc["source"].startswith("text:") and doc["unread"] == [] and err == ""
    (finding,) = [f for f in doc["findings"] if f["check"] == "deranged_disk"]
    assert finding["subject"] == "/dev/mapper/slowdisk" and "dragging mirror-1" in finding["title"]


def test_check_text_healthy_is_ok_and_reports_unread_lines(tmp_path, capsys):
    paste = _write(tmp_path, human_paste("healthy", None) + "thanks!\n")
    code, out, err = _check(capsys, paste, "--json")
    doc = json.loads(out)
    assert code == 0 and doc["status"] == "OK"
    n = human_paste("healthy", None).count("\n") + 1
    assert doc["unread"] == [
        {
            "line": n,
            "text": "thanks!",
            "why": "not recognised as zpool status, zpool list, zpool iostat or zfs list output",
        }
    ]
    assert (
        err.strip()
        == f"line {n}: thanks! (not recognised as zpool status, zpool list, zpool iostat or zfs list output)"
    )


def test_check_text_old_faulted_paste(tmp_path, capsys):
    code, out, _ = _check(capsys, _write(tmp_path, pastes.FAULTED_227))
    # zpool still says ONLINE, but the 2-way mirror runs on one disk: one more failure loses data.
    assert code == 2 and "mirror-0 has no redundancy left" in out and "FAULTED" in out


def test_check_text_nothing_readable_is_unknown(tmp_path, capsys):
    code, out, err = _check(capsys, _write(tmp_path, "nothing here\n"))
    assert code == 3 and out.startswith("ZDASH UNKNOWN") and "line 1: nothing here" in err


def test_check_text_and_replay_are_exclusive(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        main(["check", "--text", "a", "--replay", "b"])
    assert e.value.code == 3  # a bad option is UNKNOWN, as a Monitoring Plugin
    assert "not allowed with argument" in capsys.readouterr().err


ORIGIN_CHAIN = (
    "zfs list -r -o origin,name backup01/files\n"
    "ORIGIN                     NAME\n"
    "-                          backup01/files\n"
    "-                          backup01/files/a\n"
    "backup01/files/a@ro        backup01/files/b\n"
    "backup01/files/b@ro        backup01/files/c\n"
)


def test_check_text_zfs_list_alone_is_judged_for_its_clones_without_a_pool_health_verdict(tmp_path, capsys):
    """A `zfs list -o origin,name` clone chain (corpus 202; ORIGIN before NAME): no pool row and
    no space, but the clones are what it shows. Issue 26: judged for that (OK with the clone
    notes), the line saying pool health is not in it; it was UNKNOWN "no pool could be read"."""
    code, out, _ = _check(capsys, _write(tmp_path, ORIGIN_CHAIN), "--json")
    doc = json.loads(out)
    assert code == 0 and doc["status"] == "OK" and doc["pools"] == []
    assert {f["subject"] for f in doc["findings"]} == {"backup01/files/a@ro", "backup01/files/b@ro"}
    assert all(f["check"] == "clones" and f["severity"] == "info" for f in doc["findings"])
    assert doc["summary"].startswith("zfs list only: backup01/files/a@ro has 1 clone")
    assert doc["summary"].endswith("(+1 more); pool health not in this output")


def test_check_text_zfs_list_alone_with_space_names_the_fill_not_a_state(tmp_path, capsys):
    """The root dataset's USED/AVAIL give the pool's fill (corpus 286): the line says that
    figure and that the pool's health is not in the paste (it said "vgraid UNSEEN")."""
    text = "# zfs list\nNAME  USED  AVAIL  REFER  MOUNTPOINT\ntank  3.50T  6.50T  96K  /tank\n"
    code, out, _ = _check(capsys, _write(tmp_path, text))
    assert code == 0
    assert out.splitlines()[0] == "ZDASH OK - zfs list only: tank 35.0% full; pool health not in this output"
    full = "# zfs list\nNAME  USED  AVAIL  REFER  MOUNTPOINT\ntank  1.92T  3.62G  96K  /tank\n"
    code, out, _ = _check(capsys, _write(tmp_path, full))
    assert code == 2
    assert out.splitlines()[0].endswith("full; zfs list only, pool health not in this output")


def test_check_text_zfs_output_with_nothing_to_judge_stays_unknown(tmp_path, capsys):
    """Names and a property zdash does not judge (corpus 168: mountpoints): UNKNOWN, and the
    line says why rather than "no pool could be read"."""
    text = "# zfs list -o name,mountpoint\nNAME  MOUNTPOINT\ntank/a  /tank/a\ntank/b  /tank/b\n"
    code, out, _ = _check(capsys, _write(tmp_path, text))
    assert code == 3
    assert out.splitlines()[0] == (
        "ZDASH UNKNOWN - zfs list only: nothing in it zdash judges (no space, no clones); "
        "pool health not in this output"
    )
