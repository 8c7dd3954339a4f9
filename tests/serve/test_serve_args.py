"""`zdash serve`'s command line: what each browser's zdash runs with, when a token is needed
and made, and bad input as one line and exit 2 (in-process; the server itself is stubbed)."""

from __future__ import annotations

import sys

import pytest

pytest.importorskip("textual_serve", reason="the serve extra is not installed: pip install 'zdash[serve]'")

from zdash import cli
from zdash.commands.serve import NEEDS_SERVE, served_args
from zdash.serve.server import ZdashServer


@pytest.fixture
def served(monkeypatch):
    """Runs `zdash serve ...` without listening: the server it would have run, or None."""
    got: dict[str, ZdashServer] = {}

    async def run(self, bound):
        got["server"] = self
        bound(self.port)  # the port the command line gave the server

    monkeypatch.setattr(ZdashServer, "run", run)
    monkeypatch.delenv("ZDASH_SERVE_TOKEN", raising=False)

    def serve(*argv: str) -> tuple[int, ZdashServer | None]:
        code = cli.main(["serve", *argv])
        return code, got.pop("server", None)

    return serve


def test_localhost_needs_no_token_and_serves_the_wall_read_only(served, capsys):
    code, server = served("--wall", "--demo")
    out = capsys.readouterr().out
    assert code == 0 and server is not None and server.token is None
    assert out == "http://127.0.0.1:10135/\n"
    assert "--wall" in server.command and "--demo" in server.command and "--read-only" in server.command


def test_every_interface_gets_a_token_printed_once_in_the_url(served, capsys):
    code, server = served("--wall", "--demo", "--listen", ":10135")
    out = capsys.readouterr().out
    assert code == 0 and server is not None and server.token and len(server.token) >= 32
    assert out.count(server.token) == 1 and out.strip().endswith(f":10135/?token={server.token}")
    assert server.token not in server.command  # the browsers' processes never see it


def test_a_token_from_the_environment_is_used_and_not_passed_on(served, capsys, monkeypatch):
    monkeypatch.setenv("ZDASH_SERVE_TOKEN", "s3cret-for-the-office-tv")
    code, server = served("--wall", "--demo", "--listen", "0.0.0.0:10135")
    assert code == 0 and server is not None and server.token == "s3cret-for-the-office-tv"
    assert "ZDASH_SERVE_TOKEN" not in __import__("os").environ
    assert capsys.readouterr().out.strip().endswith("/?token=s3cret-for-the-office-tv")


def test_allowing_actions_serves_the_live_dashboard_with_a_token_even_on_localhost(served, monkeypatch):
    monkeypatch.setattr("shutil.which", lambda _name: "/sbin/zpool")
    code, server = served("--allow-actions", "tank")
    assert code == 0 and server is not None and server.token
    assert "--read-only" not in server.command and server.command.endswith("-- tank")


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--token", "short"], "at least 16 characters"),
        (["--token", "has spaces in it, sixteen+"], "A-Z a-z 0-9"),
        (["--wall", "--allow-actions"], "never run actions"),
        (["--demo", "--allow-actions"], "never run actions"),
        (["--listen", "::1:10135"], "brackets"),
        (["--listen", "127.0.0.1:99999"], "0 to 65535"),
        (["--demo", "--theme", "no-such-theme"], "unknown theme"),
        (["--replay", "/nonexistent/incident.zdash"], "/nonexistent/incident.zdash"),
        (["--demo", "--speed", "4"], "--speed needs --replay"),
    ],
)
def test_bad_input_is_one_line_and_exit_2_before_anything_listens(served, capsys, argv, says):
    code, server = served(*argv)
    err = capsys.readouterr().err
    assert code == 2 and server is None
    assert err.count("\n") == 1 and err.startswith("zdash serve: ") and says in err


def test_a_missing_textual_serve_says_how_to_install_it(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "textual_serve", None)  # import fails as if not installed
    monkeypatch.setitem(sys.modules, "textual_serve.server", None)
    monkeypatch.delitem(sys.modules, "zdash.serve.server")
    assert cli.main(["serve", "--wall", "--demo"]) == 2
    err = capsys.readouterr().err
    assert err == NEEDS_SERVE + "\n" and "pip install 'zdash[serve]'" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["--wall", "--demo"],
        ["--replay", "/tmp/x.zdash", "--speed", "4", "--theme", "zdash-light"],
        ["--interval", "2.5", "tank", "backup"],
        ["--allow-actions"],
    ],
)
def test_what_a_browser_runs_parses_as_the_dashboard_it_stands_for(argv):
    args = cli.build_parser().parse_args(["serve", *argv])
    child = cli._parse(served_args(args))
    assert child.read_only is not args.allow_actions
    assert child.wall == args.wall and child.theme == args.theme
    if args.replay:
        assert child.cmd == "replay" and child.file == args.replay and child.speed == args.speed
    else:
        assert child.cmd is None and child.demo == args.demo and child.pools == args.pools
        assert child.interval == args.interval
