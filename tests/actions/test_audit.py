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


def test_under_sudo_E_the_users_home_is_passed_over_for_roots_own(monkeypatch, tmp_path):
    """Root keeps the invoking user's HOME under `sudo -E`: a home another user owns (where they
    could plant links or read root's log) is not where root's audit log goes."""
    if os.geteuid() != 0:
        import pytest

        pytest.skip("a home of another user's needs root to make")
    alice = tmp_path / "alice"
    alice.mkdir()
    os.chown(alice, 65534, 65534)
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(alice))
    path = default_path()
    assert not path.startswith(str(alice)) and path.endswith("/.local/state/zdash/audit.jsonl")


def test_a_planted_link_is_refused_and_nothing_is_written_through_it(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("root's\n")
    (tmp_path / "state").mkdir(mode=0o700)
    (tmp_path / "state" / "audit.jsonl").symlink_to(victim)
    log = AuditLog(str(tmp_path / "state" / "audit.jsonl"))
    try:
        log.write({"action": "scrub"})
    except OSError as e:
        assert "cannot write the audit log" in str(e)
    else:
        raise AssertionError("the audit log was written through a link")
    assert victim.read_text() == "root's\n"


def test_a_token_never_reaches_the_log(tmp_path):
    log = AuditLog(str(tmp_path / "audit.jsonl"))
    rec = log.write(
        {
            "argv": ["zdash", "serve", "--token", "Sup3rSecretToken0123"],
            "stderr": "GET /?token=Sup3rSecretToken0123",
        }
    )
    raw = Path(log.path).read_text()
    assert "Sup3rSecret" not in raw and rec["argv"] == ["zdash", "serve", "--token", "<redacted>"]
