import json
import os
from pathlib import Path

from zdash.actions.audit import AuditLog, default_path


def test_default_path_honours_xdg_state_home(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert default_path() == str(tmp_path / "zdash" / "audit.jsonl")
    monkeypatch.delenv("XDG_STATE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_path() == str(tmp_path / "home" / ".local" / "state" / "zdash" / "audit.jsonl")


def test_lines_are_json_with_identity_and_time(tmp_path, monkeypatch):
    monkeypatch.setenv("SUDO_USER", "alice")
    log = AuditLog(str(tmp_path / "a" / "audit.jsonl"))
    rec = log.write({"action": "scrub", "argv": ["zpool", "scrub", "tank"], "stderr": "ünïcode\nline 2"})
    raw = Path(log.path).read_text(encoding="utf-8")
    assert raw.count("\n") == 1 and raw.endswith("\n")  # newlines inside are escaped
    assert json.loads(raw) == rec and rec["sudo_user"] == "alice" and rec["schema"] == 1


def test_a_torn_last_line_is_skipped(tmp_path):
    log = AuditLog(str(tmp_path / "audit.jsonl"))
    log.write({"n": 1})
    with open(log.path, "a") as f:
        f.write('{"n": 2, "trunc')
    assert [r["n"] for r in log.read()] == [1]
    assert AuditLog(str(tmp_path / "none.jsonl")).read() == []
    assert os.stat(log.path).st_size > 0
