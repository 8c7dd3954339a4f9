"""Shell completion: generated from the argparse definition by argcomplete, answered by the
`zdash` program itself, as bash/zsh/fish ask it (COMP_LINE + _ARGCOMPLETE)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from zdash.cli import main


def complete(tmp_path, line: str) -> list[str]:
    out = tmp_path / "completions"
    env = {
        **os.environ,
        "_ARGCOMPLETE": "1",
        "COMP_LINE": line,
        "COMP_POINT": str(len(line)),
        "_ARGCOMPLETE_STDOUT_FILENAME": str(out),
        "PATH": "",
    }  # no zpool: pool lists stay empty
    subprocess.run(
        [sys.executable, "-m", "zdash"],
        env=env,
        check=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        capture_output=True,
    )
    return [w.strip() for w in out.read_text().split("\v") if w.strip()]


def test_commands_options_and_scenario_names_complete(tmp_path):
    assert complete(tmp_path, "zdash ch") == ["check"]
    assert "--replay" in complete(tmp_path, "zdash check --re")
    assert complete(tmp_path, "zdash replay deranged-") == ["deranged-mirror", "deranged-raidz"]


@pytest.mark.parametrize("shell,marker", [("bash", "complete "), ("zsh", "compdef"), ("fish", "complete ")])
def test_completion_scripts_for_each_shell(capsys, shell, marker):
    assert main(["completion", shell]) == 0
    script = capsys.readouterr().out
    assert "zdash" in script and marker in script


def test_every_command_help_teaches_with_an_example(capsys):
    for cmd in ("replay", "record", "check", "summary", "import", "plan", "completion"):
        with pytest.raises(SystemExit):
            main([cmd, "--help"])
        assert "example" in capsys.readouterr().out, cmd
