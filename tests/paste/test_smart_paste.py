"""SMART pasted beside zpool's output (issue 26, corpus 094): a smartd line or smartctl's text
is evidence about a disk; zdash names the disk, the figures, that the paste does not say which
pool member it is, how to find out, and what to do."""

from __future__ import annotations

import json
import os

from zdash.cli import main

STATUS = """\
  pool: tank
 state: ONLINE
  scan: resilvered 5.68G in 0 days 00:01:05 with 0 errors on Sun Oct  4 11:28:03 2020
config:

    NAME                                            STATE     READ WRITE CKSUM
    tank                                            ONLINE       0     0     0
      raidz2-0                                      ONLINE       0     0     0
        ata-WDC_WD20EARX-00PASB0_WD-WMAZA8777267    ONLINE       0     0     0
        ata-WDC_WD20EFRX-68EUZN0_WD-WCC4M4NECAJA    ONLINE       0     0     0
        ata-Hitachi_HDS723020BLA642_MN1220F30RN6BD  ONLINE       0     0     0
        ata-WDC_WD20EFRX-68EUZN0_WD-WCC4M0638620    ONLINE       0     0     0

errors: No known data errors
"""
SMARTD = "Oct 05 07:18:54 server smartd[1802]: Device: /dev/sde [SAT], 146 Offline uncorrectable sectors\n"


def _check(tmp_path, capsys, text: str) -> tuple[int, dict]:
    path = tmp_path / "paste.txt"
    path.write_text(text)
    os.utime(path, (1_700_000_000, 1_700_000_000))
    code = main(["check", "--json", "--text", str(path)])
    return code, json.loads(capsys.readouterr().out)


def _smart(doc: dict) -> list[dict]:
    return [f for f in doc["findings"] if f["check"] == "smart"]


def test_a_smartd_line_beside_a_healthy_raidz2_is_a_warning_about_that_disk(tmp_path, capsys):
    code, doc = _check(tmp_path, capsys, SMARTD + "\n$ sudo zpool status\n" + STATUS)
    (f,) = _smart(doc)
    assert code == 1 and f["severity"] == "warning" and (f["pool"], f["subject"]) == ("tank", "/dev/sde")
    assert "146 sectors uncorrectable" in f["title"] and "this output does not say" in f["title"]
    why = f["why"]
    assert "`ls -l /dev/disk/by-id | grep -w sde`" in why and "`zpool status -L tank`" in why
    assert "raidz2-0 can lose 2 more disks" in why and "replace it" in why and "scrub first" in why
    assert [a["argv"] for a in f["actions"]] == [
        ["zpool", "status", "-L", "tank"],
        ["zpool", "scrub", "tank"],
        ["smartctl", "-t", "long", "/dev/sde"],
    ]
    assert not [u for u in doc["unread"] if "smartd" in u["text"]]  # the line was read


def test_smartctl_text_whose_serial_is_in_a_by_id_name_is_placed_on_that_member(tmp_path, capsys):
    smartctl = (
        "# smartctl -a /dev/sde\n"
        "Device Model:     WDC WD20EFRX-68EUZN0\n"
        "Serial Number:    WD-WCC4M0638620\n"
        "SMART overall-health self-assessment test result: PASSED\n"
        "197 Current_Pending_Sector  0x0032   200   200   000    Old_age   Always       -       8\n"
        "198 Offline_Uncorrectable   0x0030   100   253   000    Old_age   Offline      -       146\n"
    )
    code, doc = _check(tmp_path, capsys, STATUS + smartctl)
    (f,) = _smart(doc)
    assert code == 1
    assert f["subject"] == "ata-WDC_WD20EFRX-68EUZN0_WD-WCC4M0638620" and f["severity"] == "warning"
    assert "8 sectors pending" in f["title"] and "does not say" not in f["title"]
    assert ["zpool", "replace", "tank", "ata-WDC_WD20EFRX-68EUZN0_WD-WCC4M0638620"] in [
        a["argv"] for a in f["actions"]
    ]


def test_smartd_lines_of_healthy_disks_beside_a_pool_raise_nothing(tmp_path, capsys):
    lines = (
        "Nov 01 23:20:46 storage smartd[1381]: Device: /dev/sdb [SAT], SMART Usage Attribute: "
        "194 Temperature_Celsius changed from 32 to 30\n"
        "Oct 05 07:18:54 server smartd[1802]: Device: /dev/sde [SAT], 0 Currently unreadable (pending) sectors\n"
    )
    code, doc = _check(tmp_path, capsys, lines + STATUS)
    assert _smart(doc) == [] and code == 0


def test_a_smartd_line_alone_is_not_a_pool_to_judge(tmp_path, capsys):
    code, doc = _check(tmp_path, capsys, SMARTD)
    assert code == 3 and _smart(doc) == []
