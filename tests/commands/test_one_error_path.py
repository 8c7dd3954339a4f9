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
        assert e.value.code == 2, argv
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
