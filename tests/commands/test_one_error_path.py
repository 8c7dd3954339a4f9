"""Issue #13's "one error path": a usage error is one line, a command that fails says why in one
line with its documented exit code, and a bug saves a report file instead of printing a
traceback. (tests/faults/ probes the same end to end, in subprocesses.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from zdash import cli


def test_a_bad_interval_is_one_line_and_exit_2(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["record", "-o", "x.yaml", "--interval", "nan"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and err.count("\n") == 1
    assert "--interval" in err and "finite" in err


@pytest.mark.parametrize("value", ["0.05", "3601", "-1", "inf"])
def test_the_interval_bounds_hold_for_every_command_that_takes_one(capsys, value):
    for argv in (["check"], ["exporter"], ["record", "-o", "x.yaml"], []):
        with pytest.raises(SystemExit) as e:
            cli.main([*argv, "--interval", value])
        # zdash check is a monitoring plugin: a bad option is UNKNOWN (3), never CRITICAL (2)
        assert e.value.code == (3 if argv == ["check"] else 2), argv
    assert "0.1 to 3600" in capsys.readouterr().err or value == "inf"


def test_a_bug_leaves_a_report_file_and_one_line(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))

    def broken(_args):
        raise ZeroDivisionError("the bug")

    monkeypatch.setattr("zdash.commands.summary.run", broken)
    assert cli.main(["summary", "x.yaml"]) == 2
    err = capsys.readouterr().err
    (report,) = (tmp_path / "zdash").glob("crash-*.txt")
    assert (
        err.count("\n") == 1 and "internal error (ZeroDivisionError: the bug)" in err and str(report) in err
    )
    assert "Traceback" not in err and 'raise ZeroDivisionError("the bug")' in report.read_text()


def test_a_bug_in_check_is_unknown_for_the_monitoring_system(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.setattr("zdash.commands.check.run", lambda _args: 1 / 0)
    assert cli.main(["check"]) == 3


def test_the_dashboard_without_a_terminal_refuses_with_a_hint(monkeypatch, capsys, sessions):
    monkeypatch.setattr("zdash.commands.dashboard.has_terminal", lambda: False)
    assert cli.main(["replay", sessions["deranged"]]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "needs a terminal" in err
    assert "zdash record" in err and "zdash check" in err


def test_import_never_overwrites_without_force(tmp_path, capsys):
    captures = Path(__file__).resolve().parents[1] / "captures" / "healthy"
    paste = tmp_path / "p.txt"
    paste.write_text(next(captures.glob("zpool-status-s-P-p*.txt")).read_text())
    out = tmp_path / "old.yaml"
    out.write_text("yesterday\n")
    assert cli.main(["import", str(paste), "-o", str(out)]) == 1
    assert out.read_text() == "yesterday\n" and "--force" in capsys.readouterr().err
    assert cli.main(["import", str(paste), "-o", str(out), "--force"]) == 0
    assert "zdash_session" in out.read_text()


def test_a_crash_report_is_private_and_holds_no_token(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.setattr("zdash.commands.serve.run", lambda _args: 1 / 0)
    cli.main(["serve", "--token", "Sup3rSecretToken-abcdefgh", "--demo"])
    capsys.readouterr()
    (report,) = (tmp_path / "zdash").glob("crash-*.txt")
    assert "Sup3rSecret" not in report.read_text() and "'--token', '<redacted>'" in report.read_text()
    assert report.stat().st_mode & 0o077 == 0 and (tmp_path / "zdash").stat().st_mode & 0o077 == 0


def test_no_crash_report_goes_into_a_shared_directory(monkeypatch, tmp_path, capsys):
    """The state directory unusable: a fresh private directory of its own, never TMPDIR/zdash
    (another user may have made that first)."""
    shared = tmp_path / "tmp"
    (shared / "zdash").mkdir(parents=True)
    shared.chmod(0o1777)
    (shared / "zdash").chmod(0o777)
    monkeypatch.setenv("TMPDIR", str(shared))
    monkeypatch.setattr("tempfile.tempdir", None)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "a-file"))
    monkeypatch.setenv("HOME", str(tmp_path / "a-file"))
    monkeypatch.setattr("zdash.safe_files.own_home", lambda: str(tmp_path / "a-file"))
    (tmp_path / "a-file").write_text("not a directory")
    monkeypatch.setattr("zdash.commands.summary.run", lambda _args: 1 / 0)
    cli.main(["summary", "x.yaml"])
    err = capsys.readouterr().err
    report = Path(err.split("a report is in ")[1].split(",")[0])
    assert report.parent.parent == shared and report.parent.name.startswith("zdash-crash-")
    assert report.parent.stat().st_mode & 0o077 == 0 and list((shared / "zdash").iterdir()) == []
